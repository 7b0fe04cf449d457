//! The packed blocks of key segments (version 6 on): sorted `(key, page)` entries in about
//! 25 to 60 bits each instead of 128.
//!
//! A block's first key is kept in the segment's directory; the block itself is
//!
//! ```text
//! u64  page base: the smallest page of the block
//! u8   r: the Rice parameter of the key gaps (0..=63)
//! u8   w: bits per page (0..=64)
//! skips per entry 64, 128, ... of the block: u64 its key, u32 the position in bits where its
//!      page begins (a lookup decodes at most 64 entries, not the whole block)
//! bits least significant bit first, the last byte padded with zeros:
//!      the first entry's page - base in w bits; then for every other entry its key, told
//!      from the key before, and its page - base in w bits; an entry with a skip has no key
//!      here (it is the skip's). Before version 10 the key is the gap from the key before
//!      (Rice: gap >> r in unary as that many 0 bits and a 1, then the low r bits). From
//!      version 10 ("runs") it is one bit, 1 when the key is the one before, else a 0 and
//!      the Rice code of gap - 1.
//! ```
//!
//! Keys are hashes, so the gaps between distinct sorted keys are near geometric and a Rice
//! code with `r = floor(log2(mean gap))` is within a bit or two of their entropy; pages of
//! one add are a dense range, so `w` is about `log2(pages)`. Near-copies share band keys, so
//! more than half of a crawl's entries repeat the key before (the development crawl: 54-60%
//! of each segment's entries): from version 10 such an entry costs `1 + w` bits, not
//! `1 + r + w`.

/// Bytes before a block's skips.
const BLOCK_HEAD: usize = 10;

/// Entries from one skip to the next.
const SKIP: usize = 64;

/// Bytes of a skip.
const SKIP_BYTES: usize = 12;

/// Skips in a block of `n` entries.
fn skips(n: usize) -> usize {
    n.div_ceil(SKIP).saturating_sub(1)
}

/// What is wrong with a packed block (the caller names the file and the block).
pub(crate) type Damage = &'static str;

/// Appends the packed form of `entries` (sorted by key, then page; at least one) to `out`,
/// each key told in a bit when it repeats the one before when `runs` (version 10 on).
pub(crate) fn encode(entries: &[(u64, u64)], runs: bool, out: &mut Vec<u8>) {
    let Some(&(first, _)) = entries.first() else {
        return;
    };
    let last = entries[entries.len() - 1].0;
    let base = entries.iter().map(|e| e.1).min().unwrap_or(0);
    let top = entries.iter().map(|e| e.1 - base).max().unwrap_or(0);
    let w = 64 - top.leading_zeros();
    // The mean gap between the keys coded as gaps: every other key before version 10, the
    // distinct ones from it.
    let gaps = match runs {
        true => entries.windows(2).filter(|e| e[0].0 != e[1].0).count(),
        false => entries.len() - 1,
    };
    let r = match (last - first).checked_div(gaps as u64) {
        Some(mean) if mean > 0 => 63 - mean.leading_zeros(),
        _ => 0,
    };
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&[r as u8, w as u8]);
    let skips_at = out.len();
    out.resize(skips_at + skips(entries.len()) * SKIP_BYTES, 0);
    let bits_at = out.len();
    let mut bits = BitWriter { out, acc: 0, n: 0 };
    let mut prev = first;
    for (i, &(key, page)) in entries.iter().enumerate() {
        if i > 0 && i.is_multiple_of(SKIP) {
            // No gap: the key is the skip's, and the entry's page begins here.
            let pos = ((bits.out.len() - bits_at) * 8) as u32 + bits.n;
            let at = skips_at + (i / SKIP - 1) * SKIP_BYTES;
            bits.out[at..at + 8].copy_from_slice(&key.to_le_bytes());
            bits.out[at + 8..at + 12].copy_from_slice(&pos.to_le_bytes());
        } else if runs && i > 0 && key == prev {
            bits.put(1, 1);
        } else if i > 0 {
            if runs {
                bits.put(0, 1);
            }
            bits.rice(key - prev - u64::from(runs), r);
        }
        prev = key;
        bits.put(page - base, w);
    }
    bits.finish();
}

/// Bits appended to a byte vector, least significant first.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    /// Bits held in `acc` (fewer than 8 between calls).
    n: u32,
}

impl<'a> BitWriter<'a> {
    /// Bits appended to `out`.
    pub(crate) fn new(out: &'a mut Vec<u8>) -> BitWriter<'a> {
        BitWriter { out, acc: 0, n: 0 }
    }

    /// Appends the low `bits` bits of `v` (at most 64).
    pub(crate) fn put(&mut self, mut v: u64, mut bits: u32) {
        while bits > 0 {
            let b = bits.min(32);
            self.acc |= (v & ((1u64 << b) - 1)) << self.n;
            self.n += b;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
            v = v.checked_shr(b).unwrap_or(0);
            bits -= b;
        }
    }

    /// Appends `v`'s Rice code of parameter `r`: `v >> r` in unary (as many 0 bits, then a
    /// 1), then its low `r` bits.
    pub(crate) fn rice(&mut self, v: u64, r: u32) {
        let mut q = v >> r;
        while q > 0 {
            let z = q.min(32) as u32;
            self.put(0, z);
            q -= u64::from(z);
        }
        self.put(1, 1);
        self.put(v, r);
    }

    /// Pads the last byte with zeros.
    pub(crate) fn finish(self) {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// The entries of a packed block in order, decoded as they are asked for; every step checks
/// what it reads, so damaged bytes end in an error, never a panic or an endless loop.
pub(crate) struct Cursor<'a> {
    skips: &'a [u8],
    bits: &'a [u8],
    /// Bit position in `bits`.
    pos: u64,
    base: u64,
    r: u32,
    w: u32,
    key: u64,
    /// Entries in the block.
    n: usize,
    /// Entries left.
    left: usize,
    /// Keys repeating the one before are told in a bit (version 10 on).
    runs: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor over `n` entries of `block` whose first key is `first`, packed with `runs`
    /// as [`encode`] says.
    pub(crate) fn new(
        block: &'a [u8],
        first: u64,
        n: usize,
        runs: bool,
    ) -> Result<Cursor<'a>, Damage> {
        if block.len() < BLOCK_HEAD {
            return Err("a packed block shorter than its head");
        }
        let (r, w) = (block[8] as u32, block[9] as u32);
        if r > 63 || w > 64 {
            return Err("a packed block's bit widths are out of range");
        }
        let (skips, bits) = block[BLOCK_HEAD..]
            .split_at_checked(skips(n) * SKIP_BYTES)
            .ok_or("a packed block shorter than its skips")?;
        Ok(Cursor {
            base: u64::from_le_bytes(block[..8].try_into().expect("8")),
            skips,
            bits,
            pos: 0,
            r,
            w,
            key: first,
            n,
            left: n,
            runs,
        })
    }

    /// Moves to the entries whose keys are at least `key`, or to the last skip before them
    /// (entries before `key` may still follow; a fresh cursor only).
    pub(crate) fn seek(&mut self, key: u64) -> Result<(), Damage> {
        // Entries with `key` may begin before a skip holding `key`: the last skip below it.
        let (mut lo, mut hi) = (0, self.skips.len() / SKIP_BYTES);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.skip(mid).0 < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == 0 || self.left < self.n {
            return Ok(());
        }
        let (k, pos) = self.skip(lo - 1);
        if pos as u64 > self.bits.len() as u64 * 8 || k < self.key {
            return Err("a packed block's skip is out of range");
        }
        self.pos = pos as u64;
        self.left = self.n - lo * SKIP;
        Ok(())
    }

    /// The next up to 32 bits from `pos` (zeros past the end), not consumed.
    fn peek32(&self) -> u64 {
        let byte = (self.pos / 8) as usize;
        let shift = self.pos % 8;
        if let Some(b) = self.bits.get(byte..byte + 8) {
            return (u64::from_le_bytes(b.try_into().expect("8")) >> shift) & 0xffff_ffff;
        }
        let mut word = [0u8; 8];
        let rest = self.bits.get(byte..).unwrap_or(&[]);
        let have = rest.len().min(8);
        word[..have].copy_from_slice(&rest[..have]);
        (u64::from_le_bytes(word) >> shift) & 0xffff_ffff
    }

    fn take(&mut self, mut bits: u32) -> Result<u64, Damage> {
        if self.pos + bits as u64 > self.bits.len() as u64 * 8 {
            return Err("a packed block ends inside an entry");
        }
        let (mut v, mut at) = (0u64, 0);
        while bits > 0 {
            let b = bits.min(32);
            v |= (self.peek32() & ((1u64 << b) - 1)) << at;
            self.pos += b as u64;
            at += b;
            bits -= b;
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<u64, Damage> {
        let mut q = 0u64;
        loop {
            if self.pos >= self.bits.len() as u64 * 8 {
                return Err("a packed block ends inside a key gap");
            }
            let word = self.peek32();
            if word == 0 {
                // Bounded by the block's length: the loop above ends it.
                q += 32;
                self.pos += 32;
            } else {
                let z = word.trailing_zeros();
                self.pos += z as u64 + 1;
                return Ok(q + z as u64);
            }
        }
    }

    /// Skip `j`: its key and the bit position of its entry's page.
    fn skip(&self, j: usize) -> (u64, u32) {
        let s = &self.skips[j * SKIP_BYTES..(j + 1) * SKIP_BYTES];
        (
            u64::from_le_bytes(s[..8].try_into().expect("8")),
            u32::from_le_bytes(s[8..].try_into().expect("4")),
        )
    }

    /// An entry with no skip whose bits lie within one 8-byte load from `pos`: its key gap
    /// (0: the key before), its page - base and its bits; `None` otherwise (near the end of
    /// the block, a long gap: [`Cursor::next_entry`] reads it bit by bit, checking each).
    #[inline]
    fn whole(&self) -> Option<(u64, u64, u32)> {
        let byte = (self.pos / 8) as usize;
        let load = self.bits.get(byte..byte + 8)?;
        // At least 57 bits of the load follow `pos`.
        let mut word = u64::from_le_bytes(load.try_into().ok()?) >> (self.pos % 8);
        let (r, w) = (self.r, self.w);
        let mask = |b: u32| (1u64 << b) - 1;
        let mut used = 0;
        if self.runs {
            if word & 1 == 1 {
                return (w < 57).then(|| (0, (word >> 1) & mask(w), 1 + w));
            }
            word >>= 1;
            used = 1;
        }
        let z = word.trailing_zeros();
        let need = used + z + 1 + r + w;
        if need > 57 {
            return None;
        }
        let rest = word >> (z + 1);
        let gap = (u64::from(z) << r | rest & mask(r)) + u64::from(self.runs);
        Some((gap, (rest >> r) & mask(w), need))
    }

    /// The next entry, `None` after the last.
    #[inline]
    pub(crate) fn next_entry(&mut self) -> Result<Option<(u64, u64)>, Damage> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.n - self.left;
        if i > 0 && !i.is_multiple_of(SKIP) {
            if let Some((gap, page, used)) = self.whole() {
                self.pos += u64::from(used);
                self.key = self
                    .key
                    .checked_add(gap)
                    .ok_or("keys past 2^64 (damaged)")?;
                self.left -= 1;
                let page = self
                    .base
                    .checked_add(page)
                    .ok_or("a page past 2^64 (damaged)")?;
                return Ok(Some((self.key, page)));
            }
        }
        self.next_read(i)
    }

    /// Entry `i` read bit by bit, every step checked: the first, one with a skip, one near
    /// the end of the block or with a long gap.
    #[cold]
    #[inline(never)]
    fn next_read(&mut self, i: usize) -> Result<Option<(u64, u64)>, Damage> {
        if i > 0 && i.is_multiple_of(SKIP) {
            let (k, pos) = self.skip(i / SKIP - 1);
            if k < self.key || pos as u64 != self.pos {
                return Err("a packed block's skip does not match its entries");
            }
            self.key = k;
        } else if i > 0 && !(self.runs && self.take(1)? == 1) {
            let q = self.unary()?;
            let low = self.take(self.r)?;
            let gap = q
                .checked_shl(self.r)
                .filter(|g| g >> self.r == q)
                .map(|g| g | low)
                .and_then(|g| g.checked_add(u64::from(self.runs)))
                .ok_or("a key gap too long for 64 bits")?;
            self.key = self
                .key
                .checked_add(gap)
                .ok_or("keys past 2^64 (damaged)")?;
        }
        let page = self
            .base
            .checked_add(self.take(self.w)?)
            .ok_or("a page past 2^64 (damaged)")?;
        self.left -= 1;
        Ok(Some((self.key, page)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode(block: &[u8], first: u64, n: usize, runs: bool) -> Result<Vec<(u64, u64)>, Damage> {
        decode_from(block, first, n, 0, runs)
    }

    fn decode_from(
        block: &[u8],
        first: u64,
        n: usize,
        from: u64,
        runs: bool,
    ) -> Result<Vec<(u64, u64)>, Damage> {
        let mut c = Cursor::new(block, first, n, runs)?;
        c.seek(from)?;
        let mut all = Vec::new();
        while let Some(e) = c.next_entry()? {
            all.push(e);
        }
        Ok(all)
    }

    proptest! {
        #[test]
        fn packed_blocks_decode_to_their_entries(
            raw in proptest::collection::vec((any::<u64>(), any::<u64>()), 1..700),
            spread in 0u32..64,
            runs in any::<bool>(),
        ) {
            // Narrow ranges too (repeated keys, one page), not only random 64-bit values.
            let mut entries: Vec<(u64, u64)> =
                raw.iter().map(|&(k, p)| (k >> spread, p >> (63 - spread.min(63)))).collect();
            entries.sort_unstable();
            entries.dedup();
            let mut out = Vec::new();
            encode(&entries, runs, &mut out);
            prop_assert_eq!(&decode(&out, entries[0].0, entries.len(), runs).unwrap(), &entries);
            // From any key on: every entry at or past it, after at most a skip's worth before.
            for probe in entries.iter().step_by(17).map(|e| e.0).chain([0, u64::MAX]) {
                let got = decode_from(&out, entries[0].0, entries.len(), probe, runs).unwrap();
                let from = entries.partition_point(|e| e.0 < probe);
                prop_assert!(got.len() >= entries.len() - from);
                prop_assert!(got.len() <= entries.len() - from + SKIP);
                prop_assert_eq!(&got[..], &entries[entries.len() - got.len()..]);
            }
        }

        #[test]
        fn damaged_blocks_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            n in 0usize..200,
            from in any::<u64>(),
            runs in any::<bool>(),
        ) {
            let _ = decode_from(&bytes, 7, n, from, runs);
        }
    }

    /// 1024 entries: `distinct` random keys over 2^64 (each repeated for pages in turn), pages
    /// of an add of 30,000 (15 bits).
    fn entries(distinct: usize) -> Vec<(u64, u64)> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let keys: Vec<u64> = (0..distinct).map(|_| next()).collect();
        let mut entries: Vec<(u64, u64)> = (0..1024)
            .map(|i| (keys[i % distinct], next() % 30_000))
            .collect();
        entries.sort_unstable();
        entries.dedup();
        entries
    }

    fn bits_an_entry(entries: &[(u64, u64)], runs: bool) -> f64 {
        let mut out = Vec::new();
        encode(entries, runs, &mut out);
        assert_eq!(
            decode(&out, entries[0].0, entries.len(), runs).unwrap(),
            entries
        );
        out.len() as f64 * 8.0 / entries.len() as f64
    }

    #[test]
    fn random_keys_take_about_sixty_bits_an_entry() {
        // Gaps of ~2^54 (Rice: ~56 bits), pages of 15 bits, the skips ~1.5; a bit more with
        // runs, where no key repeats.
        let all = entries(1024);
        assert_eq!(all.len(), 1024);
        let bits = bits_an_entry(&all, false);
        assert!((65.0..=75.0).contains(&bits), "{bits} bits an entry");
        let runs = bits_an_entry(&all, true);
        assert!((bits..=bits + 1.1).contains(&runs), "{runs} bits an entry");
    }

    #[test]
    fn repeated_keys_take_a_bit_and_their_page_with_runs() {
        // Half the entries repeat their key: ~2 + 55 + 15 bits for the others, 1 + 15 for
        // them, where without runs each repeat costs its zero gap's 1 + r bits too.
        let half = entries(512);
        let (gaps, runs) = (bits_an_entry(&half, false), bits_an_entry(&half, true));
        assert!(
            runs < gaps - 20.0,
            "{runs} bits an entry with runs, {gaps} without"
        );
        assert!((40.0..=48.0).contains(&runs), "{runs} bits an entry");
    }
}
