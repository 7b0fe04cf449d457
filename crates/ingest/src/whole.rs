//! A whole gzip member inflated in one call, when all its compressed bytes are at hand: a
//! crawl file's members are a record each (a few kilobytes), and libdeflate inflates a member
//! held whole in memory in about 0.7x the time of a streaming decoder (zlib-rs), which must
//! stop and resume at every buffer's end (bench/results/scaling-2026-11-29e.md).
//!
//! [`Whole::member`] answers only what it can confirm: a member that begins the given bytes,
//! ends inside them with a correct CRC-32 and length, and whose output fits the given room.
//! Anything else (a member longer than the bytes at hand, a larger output, damage, a header
//! with its own CRC-16, which libdeflate does not check) is `None`, and the caller reads the
//! member with its streaming decoder as before: that reader alone decides what is damaged.

/// The header flag of a gzip member whose header carries a CRC-16 (RFC 1952, FHCRC).
const FHCRC: u8 = 0x02;

/// A libdeflate decompressor (its tables, ~32 KB), reused member after member.
pub(crate) struct Whole {
    d: std::ptr::NonNull<libdeflate_sys::libdeflate_decompressor>,
}

// The decompressor is plain memory owned by this value alone; it may move between threads.
#[allow(unsafe_code)]
unsafe impl Send for Whole {}

impl Whole {
    /// A decompressor, or `None` where it cannot be allocated (the streaming decoder then reads
    /// every member).
    pub(crate) fn new() -> Option<Whole> {
        // SAFETY: a plain allocation with the library's default options; checked for null.
        #[allow(unsafe_code)]
        let d = unsafe { libdeflate_sys::libdeflate_alloc_decompressor() };
        std::ptr::NonNull::new(d).map(|d| Whole { d })
    }

    /// The member at the start of `input`, inflated into `out`: the compressed bytes it took
    /// (header and trailer included) and the bytes it gave, when it ends inside `input`
    /// with a correct CRC-32 and length and its output fits `out`; otherwise `None`, with
    /// `out`'s contents unspecified.
    pub(crate) fn member(&mut self, input: &[u8], out: &mut [u8]) -> Option<(usize, usize)> {
        if input.len() < 4 || input[3] & FHCRC != 0 {
            return None;
        }
        let (mut took, mut gave) = (0usize, 0usize);
        // SAFETY: `d` is a live decompressor used by one thread at a time (`&mut self`); the
        // input and output pointers and lengths come from live slices, and libdeflate reads
        // and writes only within them; the two counts are written through valid pointers.
        #[allow(unsafe_code)]
        let result = unsafe {
            libdeflate_sys::libdeflate_gzip_decompress_ex(
                self.d.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut took,
                &mut gave,
            )
        };
        (result == libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS
            && took <= input.len()
            && gave <= out.len())
        .then_some((took, gave))
    }
}

impl Drop for Whole {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor`, freed once, here.
        #[allow(unsafe_code)]
        unsafe {
            libdeflate_sys::libdeflate_free_decompressor(self.d.as_ptr())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn a_member_followed_by_others_is_inflated_and_measured() {
        let a = gz(b"WARC/1.1\r\nfirst record\r\n\r\n");
        let mut input = a.clone();
        input.extend(gz(b"second"));
        let mut w = Whole::new().unwrap();
        let mut out = vec![0u8; 1024];
        let (took, gave) = w.member(&input, &mut out).unwrap();
        assert_eq!(
            (took, &out[..gave]),
            (a.len(), &b"WARC/1.1\r\nfirst record\r\n\r\n"[..])
        );
        let (took2, gave2) = w.member(&input[took..], &mut out).unwrap();
        assert_eq!((took + took2, &out[..gave2]), (input.len(), &b"second"[..]));
    }

    #[test]
    fn what_cannot_be_confirmed_is_left_to_the_streaming_decoder() {
        let text: Vec<u8> = (0..20_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let a = gz(&text);
        let mut w = Whole::new().unwrap();
        let mut out = vec![0u8; text.len()];
        assert!(w.member(&a, &mut out).is_some());
        // Cut short, output too large for the room, a flipped byte, a wrong length.
        assert_eq!(w.member(&a[..a.len() - 1], &mut out), None);
        assert_eq!(w.member(&a[..a.len() / 2], &mut out), None);
        assert_eq!(w.member(&a, &mut out[..text.len() - 1]), None);
        for at in [12, a.len() / 2, a.len() - 6, a.len() - 2] {
            let mut bad = a.clone();
            bad[at] ^= 0x10;
            assert_eq!(w.member(&bad, &mut out), None, "flipped at {at}");
        }
        // A header with a CRC-16 is not checked here: left to the streaming decoder.
        let mut hcrc = a.clone();
        hcrc[3] |= FHCRC;
        assert_eq!(w.member(&hcrc, &mut out), None);
        assert_eq!(w.member(&[], &mut out), None);
        assert_eq!(w.member(b"\x1f\x8b", &mut out), None);
    }
}
