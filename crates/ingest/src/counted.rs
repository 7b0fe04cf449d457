//! The raw bytes read from an input, counted (for progress and compressed offsets): the
//! layer under every decompressor ([`crate::stream`], [`crate::gzip`]).

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counts the raw bytes read from a file, here and in a shared counter.
pub struct Counted<R> {
    inner: R,
    pub(crate) pos: u64,
    shared: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    /// Counts what is read of `inner` into `shared` too.
    pub(crate) fn sharing(inner: R, shared: Arc<AtomicU64>) -> Counted<R> {
        Counted {
            inner,
            pos: 0,
            shared,
        }
    }

    /// Counts what is read of `inner`, whose first byte is byte `pos` of its file.
    pub(crate) fn sharing_from(inner: R, shared: Arc<AtomicU64>, pos: u64) -> Counted<R> {
        shared.store(pos, Ordering::Relaxed);
        Counted { inner, pos, shared }
    }

    #[cfg(test)]
    pub(crate) fn new(inner: R) -> Counted<R> {
        Counted::sharing(inner, Arc::default())
    }

    fn advance(&mut self, n: usize) {
        self.pos += n as u64;
        self.shared.store(self.pos, Ordering::Relaxed);
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.advance(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.advance(amt);
    }
}
