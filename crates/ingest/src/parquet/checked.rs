//! The checked layer between a hostile Parquet file and the parquet crate: a budget of reads
//! ([`Fueled`]) and file, row group and page readers ([`Checked`]) that turn what would make
//! parquet 60 panic or loop (found by fuzzing) into errors, each costing its row group.

use parquet::column::page::{Page as ParquetPage, PageMetadata, PageReader};
use parquet::file::reader::{FileReader, RowGroupReader, SerializedFileReader};
use parquet::record::reader::RowIter;
use parquet::schema::types::Type;
use std::fs::File;

/// A Parquet file handed to the parquet crate with a budget of reads: a malformed file can make
/// its page reader ask for the next page for ever (found by fuzzing); past the budget every
/// read fails, so the reader stops with an error that is counted as a problem. A real file
/// needs about one read per page, and a page takes at least a few bytes.
pub(super) struct Fueled {
    file: File,
    pub(super) len: u64,
    left: std::sync::atomic::AtomicU64,
}

impl Fueled {
    pub(super) fn new(file: File) -> std::io::Result<Fueled> {
        let len = file.metadata()?.len();
        Ok(Fueled {
            file,
            len,
            left: std::sync::atomic::AtomicU64::new(len / 2 + 10_000),
        })
    }

    fn burn(&self) -> parquet::errors::Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        self.left
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(1))
            .map(|_| ())
            .map_err(|_| {
                parquet::errors::ParquetError::General(format!(
                    "more reads than a {}-byte file can need: its page headers loop",
                    self.len
                ))
            })
    }
}

impl parquet::file::reader::Length for Fueled {
    fn len(&self) -> u64 {
        self.len
    }
}

/// A reader that says "end of file" once: the parquet crate's header decoder skips fields by
/// reading them, and a list claiming billions of fields read it at the end of the file for ever
/// (found by fuzzing). Any read after the end is an error.
pub(super) struct EndOnce<R> {
    inner: R,
    ended: bool,
}

impl<R: std::io::Read> std::io::Read for EndOnce<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.ended {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "read past the end of the file",
            ));
        }
        let n = self.inner.read(buf)?;
        self.ended = n == 0;
        Ok(n)
    }
}

impl parquet::file::reader::ChunkReader for Fueled {
    type T = EndOnce<std::io::BufReader<File>>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        self.burn()?;
        Ok(EndOnce {
            inner: self.file.get_read(start)?,
            ended: false,
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.burn()?;
        if start.saturating_add(length as u64) > self.len {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at {start} asked of a {}-byte file",
                self.len
            )));
        }
        self.file.get_bytes(start, length)
    }
}

/// The file reader handed to the parquet crate's row reader, checking every page on the way:
/// a data page that is dictionary-encoded while its column chunk had no dictionary page makes
/// parquet 60's column reader panic ("Decoder for dict should have been set", found by
/// fuzzing); here it is an error, which costs its row group (see
/// [`super::ParquetReader::skip_to_next_group`]).
pub(super) struct Checked<R = SerializedFileReader<Fueled>>(pub(super) R);

/// A file reader of one row group of a file whose metadata was read before (`meta`: the file's
/// metadata with that group alone), so that each row group is read with its own open file and
/// budget of reads, and the file's footer is decoded once.
pub(super) struct OneGroup {
    chunks: std::sync::Arc<Fueled>,
    meta: parquet::file::metadata::ParquetMetaData,
    props: parquet::file::properties::ReaderPropertiesPtr,
}

impl OneGroup {
    pub(super) fn new(file: Fueled, meta: parquet::file::metadata::ParquetMetaData) -> OneGroup {
        OneGroup {
            chunks: std::sync::Arc::new(file),
            meta,
            props: std::sync::Arc::new(
                parquet::file::properties::ReaderProperties::builder().build(),
            ),
        }
    }
}

impl FileReader for OneGroup {
    fn metadata(&self) -> &parquet::file::metadata::ParquetMetaData {
        &self.meta
    }

    fn num_row_groups(&self) -> usize {
        self.meta.num_row_groups()
    }

    fn get_row_group(&self, i: usize) -> parquet::errors::Result<Box<dyn RowGroupReader + '_>> {
        if i >= self.meta.num_row_groups() {
            return Err(parquet::errors::ParquetError::General(format!(
                "no row group {i}"
            )));
        }
        Ok(Box::new(
            parquet::file::serialized_reader::SerializedRowGroupReader::new(
                std::sync::Arc::clone(&self.chunks),
                self.meta.row_group(i),
                self.meta.page_index_for_row_group(i),
                std::sync::Arc::clone(&self.props),
            )?,
        ))
    }

    fn get_row_iter(&self, projection: Option<Type>) -> parquet::errors::Result<RowIter<'_>> {
        RowIter::from_file(projection, self)
    }
}

struct CheckedGroup<'a>(Box<dyn RowGroupReader + 'a>);

struct CheckedPages {
    pages: Box<dyn PageReader>,
    dictionary_seen: bool,
    physical: parquet::basic::Type,
    type_length: i32,
    max_def: i16,
    max_rep: i16,
}

/// Where a version 1 data page's values start (after its repetition and definition levels), or
/// `None` when the levels run past the page: the parquet crate slices bit-packed levels
/// without a bounds check (a panic).
fn v1_values_start(
    buf: &[u8],
    num_values: u32,
    (max_rep, rep_encoding): (i16, parquet::basic::Encoding),
    (max_def, def_encoding): (i16, parquet::basic::Encoding),
) -> Option<usize> {
    use parquet::basic::Encoding;
    let mut at = 0usize;
    for (max, encoding) in [(max_rep, rep_encoding), (max_def, def_encoding)] {
        if max <= 0 {
            continue;
        }
        let len = match encoding {
            Encoding::RLE => {
                let b = buf.get(at..at.checked_add(4)?)?;
                4usize.checked_add(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u32 as usize)?
            }
            #[allow(deprecated)]
            Encoding::BIT_PACKED => {
                let width = (16 - (max as u16).leading_zeros()) as usize;
                (num_values as usize).checked_mul(width)?.div_ceil(8)
            }
            _ => return None,
        };
        at = at.checked_add(len).filter(|&end| end <= buf.len())?;
    }
    Some(at)
}

/// The values of a plainly encoded byte-array data page, made safe for the parquet crate, which
/// reads each value's 4-byte length without checking that 4 bytes are left (a panic, found
/// by fuzzing): an error when a length runs past the page or 1 to 3 bytes trail the last
/// value; when the page ends before `num_values` values (which nulls may explain), the missing
/// lengths are appended as zeros so that a page claiming more values than it holds reads
/// them as empty instead of panicking.
fn plain_byte_arrays(
    buf: &bytes::Bytes,
    start: usize,
    num_values: u32,
) -> parquet::errors::Result<Option<bytes::Bytes>> {
    let read = match byte_arrays(buf, start, num_values) {
        Ok(read) => read,
        Err(fault) => {
            return Err(parquet::errors::ParquetError::General(match fault {
                ByteArrayFault::Stray { after, bytes } => {
                    format!("a data page with {bytes} stray bytes after value {after}")
                }
                ByteArrayFault::Overrun { value } => {
                    format!("a data page whose value {value} runs past its end")
                }
            }))
        }
    };
    if read == num_values {
        return Ok(None);
    }
    let mut padded = Vec::with_capacity(buf.len() + 4 * (num_values - read) as usize);
    padded.extend_from_slice(buf);
    padded.resize(buf.len() + 4 * (num_values - read) as usize, 0);
    Ok(Some(bytes::Bytes::from(padded)))
}

/// Why length-prefixed byte arrays do not hold together.
enum ByteArrayFault {
    /// 1 to 3 bytes after value `after`: too few for a length.
    Stray { after: u32, bytes: usize },
    /// Value `value`'s length runs past the buffer.
    Overrun { value: u32 },
}

/// How many whole plain byte-array values (a 4-byte little-endian length, then the bytes)
/// `buf` holds from `start`, reading at most `n` and stopping at the end of the buffer.
fn byte_arrays(buf: &[u8], start: usize, n: u32) -> Result<u32, ByteArrayFault> {
    let mut at = start;
    let mut read = 0u32;
    while read < n && at < buf.len() {
        let Some(len) = buf.get(at..at + 4) else {
            return Err(ByteArrayFault::Stray {
                after: read,
                bytes: buf.len() - at,
            });
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        at = match (at + 4).checked_add(len) {
            Some(end) if end <= buf.len() => end,
            _ => return Err(ByteArrayFault::Overrun { value: read }),
        };
        read += 1;
    }
    Ok(read)
}

/// Whether a plainly encoded dictionary page holds its `n` values: the parquet crate reads
/// byte-array lengths past the end of a short page (a panic, found by fuzzing).
fn dictionary_fits(physical: parquet::basic::Type, type_length: i32, buf: &[u8], n: u32) -> bool {
    use parquet::basic::Type as T;
    let fixed = |width: usize| {
        (n as usize)
            .checked_mul(width)
            .is_some_and(|b| b <= buf.len())
    };
    match physical {
        T::BYTE_ARRAY => byte_arrays(buf, 0, n).is_ok_and(|read| read == n),
        T::FIXED_LEN_BYTE_ARRAY => type_length >= 0 && fixed(type_length as usize),
        T::INT32 | T::FLOAT => fixed(4),
        T::INT64 | T::DOUBLE => fixed(8),
        T::INT96 => fixed(12),
        T::BOOLEAN => true,
    }
}

impl<R: FileReader> FileReader for Checked<R> {
    fn metadata(&self) -> &parquet::file::metadata::ParquetMetaData {
        self.0.metadata()
    }

    fn num_row_groups(&self) -> usize {
        self.0.num_row_groups()
    }

    fn get_row_group(&self, i: usize) -> parquet::errors::Result<Box<dyn RowGroupReader + '_>> {
        Ok(Box::new(CheckedGroup(self.0.get_row_group(i)?)))
    }

    fn get_row_iter(&self, projection: Option<Type>) -> parquet::errors::Result<RowIter<'_>> {
        RowIter::from_file(projection, self)
    }
}

impl RowGroupReader for CheckedGroup<'_> {
    fn metadata(&self) -> &parquet::file::metadata::RowGroupMetaData {
        self.0.metadata()
    }

    fn num_columns(&self) -> usize {
        self.0.num_columns()
    }

    fn get_column_page_reader(&self, i: usize) -> parquet::errors::Result<Box<dyn PageReader>> {
        // The parquet crate asserts (panics) on a negative offset or size (fuzzing).
        let Some(col) = self.0.metadata().columns().get(i) else {
            return Err(parquet::errors::ParquetError::General(format!(
                "no column chunk {i} in the row group"
            )));
        };
        if col.dictionary_page_offset().is_some_and(|o| o < 0)
            || col.data_page_offset() < 0
            || col.compressed_size() < 0
        {
            return Err(parquet::errors::ParquetError::General(
                "a column chunk with a negative offset or size".into(),
            ));
        }
        Ok(Box::new(CheckedPages {
            pages: self.0.get_column_page_reader(i)?,
            dictionary_seen: false,
            physical: col.column_type(),
            type_length: col.column_descr().type_length(),
            max_def: col.column_descr().max_def_level(),
            max_rep: col.column_descr().max_rep_level(),
        }))
    }

    fn get_column_bloom_filter(&self, _: usize) -> Option<&parquet::bloom_filter::Sbbf> {
        None
    }

    fn get_row_iter(&self, projection: Option<Type>) -> parquet::errors::Result<RowIter<'_>> {
        RowIter::from_row_group(projection, self)
    }
}

impl CheckedPages {
    /// Checks a data page's levels and, for plain byte arrays, its values
    /// ([`v1_values_start`], [`plain_byte_arrays`]).
    fn check_values(&self, page: &mut Option<ParquetPage>) -> parquet::errors::Result<()> {
        use parquet::basic::{Encoding, Type as T};
        let error = |what: String| Err(parquet::errors::ParquetError::General(what));
        let (buf, num_values, encoding, start) = match page {
            Some(ParquetPage::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
                ..
            }) => {
                let levels = v1_values_start(
                    buf,
                    *num_values,
                    (self.max_rep, *rep_level_encoding),
                    (self.max_def, *def_level_encoding),
                );
                let Some(start) = levels else {
                    return error("a data page whose levels run past its end".into());
                };
                (buf, *num_values, *encoding, start)
            }
            Some(ParquetPage::DataPageV2 {
                buf,
                num_values,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            }) => {
                let start = *def_levels_byte_len as usize + *rep_levels_byte_len as usize;
                if start > buf.len() {
                    return error("a data page whose levels run past its end".into());
                }
                (buf, *num_values, *encoding, start)
            }
            _ => return Ok(()),
        };
        if encoding != Encoding::PLAIN || self.physical != T::BYTE_ARRAY {
            return Ok(());
        }
        if let Some(padded) = plain_byte_arrays(buf, start, num_values)? {
            *buf = padded;
        }
        Ok(())
    }
}

impl PageReader for CheckedPages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<ParquetPage>> {
        use parquet::basic::Encoding;
        let mut page = self.pages.get_next_page()?;
        self.check_values(&mut page)?;
        match &page {
            Some(ParquetPage::DictionaryPage {
                buf,
                num_values,
                encoding,
                ..
            }) => {
                // The parquet crate decodes every one of these plainly.
                if matches!(
                    encoding,
                    Encoding::PLAIN | Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                ) && !dictionary_fits(self.physical, self.type_length, buf, *num_values)
                {
                    return Err(parquet::errors::ParquetError::General(format!(
                        "a dictionary page of {num_values} values in {} bytes",
                        buf.len()
                    )));
                }
                self.dictionary_seen = true;
            }
            Some(ParquetPage::DataPage { encoding, .. })
            | Some(ParquetPage::DataPageV2 { encoding, .. })
                if matches!(
                    encoding,
                    Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                ) && !self.dictionary_seen =>
            {
                return Err(parquet::errors::ParquetError::General(
                    "a dictionary-encoded data page in a column chunk without a dictionary page"
                        .into(),
                ));
            }
            _ => {}
        }
        Ok(page)
    }

    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        self.pages.peek_next_page()
    }

    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        // A skipped dictionary would be missed by the check: say it was seen only when it was.
        if let Some(meta) = self.pages.peek_next_page()? {
            self.dictionary_seen |= meta.is_dict;
        }
        self.pages.skip_next_page()
    }
}

impl Iterator for CheckedPages {
    type Item = parquet::errors::Result<ParquetPage>;

    fn next(&mut self) -> Option<Self::Item> {
        self.get_next_page().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_byte_arrays_are_checked_and_padded() {
        let page = |parts: &[&[u8]]| bytes::Bytes::from(parts.concat());
        let two = page(&[&[9, 9], &[1, 0, 0, 0], b"a", &[2, 0, 0, 0], b"bc"]);
        // Levels of 2 bytes, then exactly two values.
        assert!(plain_byte_arrays(&two, 2, 2).unwrap().is_none());
        // Three claimed: the third reads as empty.
        let padded = plain_byte_arrays(&two, 2, 3).unwrap().unwrap();
        assert_eq!(&padded[two.len()..], &[0, 0, 0, 0]);
        // Stray bytes after the last value, a length past the end.
        let stray = page(&[&[1, 0, 0, 0], b"a", &[7, 0]]);
        assert!(plain_byte_arrays(&stray, 0, 2).is_err());
        let long = page(&[&[9, 0, 0, 0], b"a"]);
        assert!(plain_byte_arrays(&long, 0, 1).is_err());
    }

    #[test]
    fn v1_levels_must_fit() {
        use parquet::basic::Encoding;
        let rle = |n: i32| [&n.to_le_bytes()[..], &[0u8; 8][..]].concat();
        let none = (0, Encoding::RLE);
        assert_eq!(
            v1_values_start(&rle(8), 10, none, (1, Encoding::RLE)),
            Some(12)
        );
        assert_eq!(v1_values_start(&rle(9), 10, none, (1, Encoding::RLE)), None);
        assert_eq!(
            v1_values_start(&rle(-1), 10, none, (1, Encoding::RLE)),
            None
        );
        #[allow(deprecated)]
        let packed = (3, Encoding::BIT_PACKED);
        // 10 levels of 2 bits: 3 bytes.
        assert_eq!(v1_values_start(&[0; 3], 10, none, packed), Some(3));
        assert_eq!(v1_values_start(&[0; 2], 10, none, packed), None);
        assert_eq!(v1_values_start(&[], 0, none, none), Some(0));
    }
}
