//! Inflaters side by side on a gzip file of many members (a WARC.gz: one member per record).
//! Each function inflates the whole file, hands every piece of output to `sink` and returns the
//! decompressed byte count (the bench checks once, untimed, that every inflater gives the same
//! bytes).

use std::io::Read;

fn drain(mut r: impl Read, sink: &mut dyn FnMut(&[u8])) -> u64 {
    let mut buf = vec![0u8; 256 * 1024];
    let mut n = 0u64;
    loop {
        let k = r.read(&mut buf).expect("inflate");
        if k == 0 {
            return n;
        }
        sink(&buf[..k]);
        n += k as u64;
    }
}

/// zlib-rs through flate2, streaming every member (neardup's reader: `GzMembers`).
pub fn zlib_rs(gz: &[u8], sink: &mut dyn FnMut(&[u8])) -> u64 {
    drain(flate2::bufread::MultiGzDecoder::new(gz), sink)
}

/// ISA-L's igzip through isal-rs, streaming every member.
pub fn isal(gz: &[u8], sink: &mut dyn FnMut(&[u8])) -> u64 {
    drain(isal::read::GzipDecoder::new(gz), sink)
}

/// libdeflate, one whole member at a time (its API inflates a member held in memory into a
/// buffer large enough for all of it; the buffer grows when a member needs more).
pub fn libdeflate(gz: &[u8], sink: &mut dyn FnMut(&[u8])) -> u64 {
    use libdeflate_sys::*;
    // SAFETY: the decompressor is allocated, used with valid slices and freed below.
    unsafe {
        let d = libdeflate_alloc_decompressor();
        assert!(!d.is_null());
        let mut out = vec![0u8; 1 << 20];
        let (mut at, mut n) = (0usize, 0u64);
        while at < gz.len() {
            let (mut used, mut made) = (0usize, 0usize);
            let r = libdeflate_gzip_decompress_ex(
                d,
                gz[at..].as_ptr().cast(),
                gz.len() - at,
                out.as_mut_ptr().cast(),
                out.len(),
                &mut used,
                &mut made,
            );
            if r == libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE {
                out = vec![0u8; out.len() * 2];
                continue;
            }
            assert_eq!(r, libdeflate_result_LIBDEFLATE_SUCCESS, "member at {at}");
            sink(&out[..made]);
            n += made as u64;
            at += used;
        }
        libdeflate_free_decompressor(d);
        n
    }
}
