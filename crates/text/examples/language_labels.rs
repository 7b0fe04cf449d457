//! The language neardup tells of each text of length-prefixed texts on standard input (each a
//! little-endian `u32` byte count, then the bytes), one ISO 639-3 code a line on standard
//! output, in order; read exactly as a text page's body is (`language::detect_bytes`).
//! `bench/language_manpages.py` builds such texts, labelled, and scores the answers.
//!
//!     cargo run --release -p neardup-text --example language_labels < texts.bin > codes.txt

use std::io::{Read, Write};

fn main() -> std::io::Result<()> {
    let mut data = Vec::new();
    std::io::stdin().lock().read_to_end(&mut data)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut rest = &data[..];
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        let (text, tail) = tail.split_at(len.min(tail.len()));
        writeln!(out, "{}", neardup_text::language::detect_bytes(text).code())?;
        rest = tail;
    }
    out.flush()
}
