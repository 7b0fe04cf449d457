//! Synthetic pages for the index's scale benchmarks at 100 million pages (issue 62): the pages
//! `bench/make_synthetic.py` makes, as JSONL records `{"id", "url", "text"}` on standard output,
//! fast enough to stream into `neardup index add IDX -` with no file on disk.
//!
//! The same recipe as the Python generator (not the same bytes: another random generator):
//! text drawn from a Zipf-like vocabulary of 60,000 invented words (weights `1 / (rank + 10)`),
//! 30 to 300 words a page (log-uniform), so pages share common words as real text does but two
//! independent pages are far below any near-duplicate threshold. A share of the pages
//! (`--dup-share`, 0.2) are near copies of one of the last 20,000 originals: 0 to 6% of their
//! words replaced, one in ten cut to 95%, one in ten extended by 12 words, on the original's
//! host half the time. Deterministic for `--seed` (xoshiro256** seeded by SplitMix64); the
//! vocabulary is the same for every seed.
//!
//! ```text
//! cargo run --release --example make_synthetic -- --pages N [--seed S] [--start I] [--dup-share F]
//! ```
//! `--start I` numbers the records from `I` (a second, disjoint batch).

use std::io::{BufWriter, Write};

/// xoshiro256** (Blackman and Vigna), seeded from one u64 by SplitMix64.
struct Rng([u64; 4]);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng([next(), next(), next(), next()])
    }

    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The vocabulary: distinct words of 3 to 10 letters, and the cumulative Zipf-like weights.
struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    fn new(n: usize) -> Words {
        let mut rng = Rng::new(1);
        let mut seen = std::collections::HashSet::new();
        let mut words = Vec::with_capacity(n);
        while words.len() < n {
            let len = 3 + rng.below(8);
            let w: String = (0..len)
                .map(|_| char::from(b'a' + rng.below(26) as u8))
                .collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                total += 1.0 / (r as f64 + 10.0);
                total
            })
            .collect();
        Words { words, cumulative }
    }

    /// A word's index, drawn by weight.
    fn draw(&self, rng: &mut Rng) -> u32 {
        let x = rng.unit() * self.cumulative[self.cumulative.len() - 1];
        self.cumulative.partition_point(|&c| c <= x) as u32
    }
}

struct Args {
    pages: u64,
    seed: u64,
    start: u64,
    dup_share: f64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        pages: 0,
        seed: 7,
        start: 0,
        dup_share: 0.2,
    };
    let mut pages = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}");
        match flag.as_str() {
            "--pages" => pages = Some(value.parse().map_err(|e| bad(&e))?),
            "--seed" => a.seed = value.parse().map_err(|e| bad(&e))?,
            "--start" => a.start = value.parse().map_err(|e| bad(&e))?,
            "--dup-share" => a.dup_share = value.parse().map_err(|e| bad(&e))?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    a.pages = pages.ok_or("--pages N is required")?;
    Ok(a)
}

const RECENT: usize = 20_000;

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("make_synthetic: {e}\nusage: make_synthetic --pages N [--seed S] [--start I] [--dup-share F]");
            std::process::exit(2);
        }
    };
    let words = Words::new(60_000);
    let mut rng = Rng::new(a.seed);
    let mut recent: Vec<(u32, Vec<u32>)> = Vec::with_capacity(RECENT);
    let mut text: Vec<u32> = Vec::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut line = Vec::with_capacity(4096);
    for i in a.start..a.start + a.pages {
        let mut host = rng.below(200_000) as u32;
        text.clear();
        if !recent.is_empty() && rng.unit() < a.dup_share {
            let (src_host, src) = &recent[rng.below(recent.len())];
            text.extend_from_slice(src);
            let changes = (text.len() as f64 * rng.unit() * 0.06) as usize;
            for _ in 0..changes {
                let at = rng.below(text.len());
                text[at] = words.draw(&mut rng);
            }
            let r = rng.unit();
            if r < 0.1 {
                text.truncate(20.max((text.len() as f64 * 0.95) as usize));
            } else if r < 0.2 {
                for _ in 0..12 {
                    text.push(words.draw(&mut rng));
                }
            }
            if rng.unit() < 0.5 {
                host = *src_host;
            }
        } else {
            let n = (30.0 * 10f64.powf(rng.unit())) as usize;
            text.extend((0..n).map(|_| words.draw(&mut rng)));
            if recent.len() < RECENT {
                recent.push((host, text.clone()));
            } else {
                let at = rng.below(RECENT);
                recent[at] = (host, text.clone());
            }
        }
        line.clear();
        write!(
            line,
            "{{\"id\":\"s{i}\",\"url\":\"https://site{host}.example/p/{i}\",\"text\":\""
        )
        .expect("memory");
        for (j, &w) in text.iter().enumerate() {
            if j > 0 {
                line.push(b' ');
            }
            line.extend_from_slice(words.words[w as usize].as_bytes());
        }
        line.extend_from_slice(b"\"}\n");
        if out.write_all(&line).is_err() {
            // The reader stopped (a closed pipe): nothing more to write.
            std::process::exit(0);
        }
    }
    if out.flush().is_err() {
        std::process::exit(0);
    }
}
