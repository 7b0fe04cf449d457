//! A kept shingle set in a catalog record of version 12 on: its values Rice-coded as gaps, and
//! the page's minvalues told by their places in it when every one is a member (signature
//! version 9 on, every page whose set is kept: its minvalues are shingles).
//!
//! Layout (`v` an unsigned LEB128 varint; bits least significant first, the last byte
//! padded with zeros):
//!
//! ```text
//! v      count << 1 | P (P: the minvalues are told by their places; never without a set)
//! u8     when count > 0: r | c << 5; r (0 to 31) the Rice parameter, floor(log2(mean gap))
//!        (0 under 1), where a value's gap is its distance from the value before less one
//!        (the first's is itself); c (0 to 7) the members' width, 32 - 2c bits (from index
//!        version 14: an index may keep each member's low 18 to 30 bits, `Storage::set_bits`;
//!        before, c is 0: whole 32-bit members); every member is below 2^(32 - 2c)
//! bits   when count > 0: each gap, `gap >> r` in unary (as many 0 bits, then a 1) and its low
//!        r bits; with P each minvalue's place in the set in ceil(log2 count) bits
//! ```
//!
//! A minvalue's place is the first member whose low bits (the record's minvalue width) are
//! the minvalue's, and P is set exactly when every minvalue has one: the decoder refuses
//! anything else, so a set and its minvalues have one encoding. The development crawl's
//! pages with a kept set (52 shingles on average) take 243 bytes for both instead of 376.

use crate::packed::BitWriter;

/// Whether a kept set's members may be cut to `bits` (an even width from 18 to 32, as the
/// byte after the head names it).
pub fn valid_width(bits: u32) -> bool {
    (18..=32).contains(&bits) && bits.is_multiple_of(2)
}

/// The head of `set` and `minvalues` (their low `bits` bits compared): `count << 1 | P`, P
/// when every minvalue is a member (told by place). The caller writes it as a varint, then
/// [`encode`]'s bytes.
pub(super) fn head(set: &[u32], minvalues: &[u32], bits: u32) -> u64 {
    (set.len() as u64) << 1 | u64::from(all_members(set, minvalues, bits))
}

/// Whether `set` is not empty and the low `bits` bits of every minvalue are a member's: the
/// minvalues are then told by their places.
fn all_members(set: &[u32], minvalues: &[u32], bits: u32) -> bool {
    let low = |v: u32| neardup_candidates::low_bits(v, bits);
    !set.is_empty()
        && minvalues
            .iter()
            .all(|&v| set.iter().any(|&s| low(s) == low(v)))
}

/// Appends `set` (increasing, its members below 2^`width`, a [`valid_width`]) and, when
/// `head` (of [`head`]) says so, the places of `minvalues`; returns whether the minvalues were
/// told by place (the caller writes them otherwise).
pub(super) fn encode(
    set: &[u32],
    width: u32,
    minvalues: &[u32],
    bits: u32,
    head: u64,
    out: &mut Vec<u8>,
) -> bool {
    let low = |v: u32| neardup_candidates::low_bits(v, bits);
    let places = head & 1 == 1;
    let Some(&last) = set.last() else {
        return false;
    };
    debug_assert!(valid_width(width) && u64::from(last) >> width == 0);
    let r = rice_parameter(set.len(), last);
    out.push((r | ((32 - width) / 2) << 5) as u8);
    let mut w = BitWriter::new(out);
    let mut next = 0u64;
    for &v in set {
        w.rice(u64::from(v) - next, r);
        next = u64::from(v) + 1;
    }
    if places {
        let width = place_bits(set.len());
        for &v in minvalues {
            let at = set.iter().position(|&s| low(s) == low(v)).unwrap_or(0);
            w.put(at as u64, width);
        }
    }
    w.finish();
    places
}

/// Reads what [`encode`] wrote from `b` (after the head `head`) into `set` and, when told by
/// place, `minvalues` (`m` of them, their low `bits` bits); returns the bytes read, whether
/// the minvalues were told (the caller reads them otherwise, then calls [`check_untold`]) and
/// the members' width (32 for an empty set).
/// With `first_places`, a place that is not the first member with its low bits is refused
/// (one encoding a record); without, it is read as the first would be (the same minvalue).
pub(super) fn decode(
    b: &[u8],
    head: u64,
    m: usize,
    bits: u32,
    set: &mut Vec<u32>,
    minvalues: &mut Vec<u32>,
    first_places: bool,
) -> Result<(usize, bool, u32), &'static str> {
    let (count, places) = (head >> 1, head & 1 == 1);
    set.clear();
    if count == 0 {
        return match places {
            true => Err("minvalues told by places in an empty set"),
            false => Ok((0, false, 32)),
        };
    }
    let byte = *b.first().ok_or("a shingle set ends early")?;
    let (rice, width) = (u32::from(byte & 31), 32 - 2 * u32::from(byte >> 5));
    let mut bits_in = Bits { b: &b[1..], pos: 0 };
    // Each value takes a bit at least: a count past the bits left is damage, not an
    // allocation.
    if count > bits_in.left() {
        return Err("a shingle set longer than its record");
    }
    set.reserve(count as usize);
    let mut next = 0u64;
    // Codes are taken from a word held in a register, refilled from the bytes when it runs
    // short: a load every two values or so, off the chain from one value to the next.
    let low_mask = (1u64 << rice) - 1;
    let (mut word, mut have) = bits_in.fill();
    for _ in 0..count {
        let z = word.trailing_zeros();
        let need = z + 1 + rice;
        let gap = if need <= have {
            let gap = u64::from(z) << rice | (word >> (z + 1)) & low_mask;
            word = word.checked_shr(need).unwrap_or(0);
            have -= need;
            bits_in.pos += need as usize;
            gap
        } else {
            let gap = match bits_in.rice_fast(rice) {
                Some(gap) => gap,
                None => {
                    let q = bits_in.unary()?;
                    q.checked_shl(rice)
                        .filter(|g| g >> rice == q)
                        .ok_or("a shingle set's gap past 64 bits")?
                        | bits_in.take(rice)?
                }
            };
            (word, have) = bits_in.fill();
            gap
        };
        let v = next
            .checked_add(gap)
            .filter(|&v| v >> width == 0)
            .ok_or("a shingle set's value past its width")?;
        set.push(v as u32);
        next = v + 1;
    }
    if rice_parameter(set.len(), (next - 1) as u32) != rice {
        return Err("a shingle set's Rice parameter is not its mean gap's");
    }
    if places {
        let width = place_bits(set.len());
        let mask = neardup_candidates::low_bits(u32::MAX, bits);
        if (m as u64).saturating_mul(u64::from(width)) > bits_in.left() {
            return Err("a shingle set ends early");
        }
        // A place must be the first member with its low bits: any place is when they are
        // all distinct (always at 32 bits, almost always at 16), else each is checked. Reads
        // for scoring skip this (a later place telling the same minvalue; `check` and every
        // whole read refuse it).
        let check_first = first_places && bits < 32 && !lows_distinct(set, bits);
        minvalues.clear();
        minvalues.resize(m, 0);
        for v in minvalues.iter_mut() {
            // In range: checked above.
            let at = bits_in.take_unchecked(width) as usize;
            *v = *set.get(at).ok_or("a minvalue's place past its set")? & mask;
            if check_first && set[..at].iter().any(|&s| s & mask == *v) {
                return Err("a minvalue's place is not its first in the set");
            }
        }
    }
    let used = bits_in.pos.div_ceil(8);
    if !bits_in.pos.is_multiple_of(8) && b[used] >> (bits_in.pos % 8) != 0 {
        return Err("a shingle set's padding bits are not zeros");
    }
    Ok((1 + used, places, width))
}

/// Refuses minvalues read whole beside a set that holds every one of them (they would have
/// been told by place).
pub(super) fn check_untold(set: &[u32], minvalues: &[u32], bits: u32) -> Result<(), &'static str> {
    if all_members(set, minvalues, bits) {
        return Err("minvalues kept whole though their set holds them");
    }
    Ok(())
}

/// Whether the low `bits` bits of `set`'s members differ (`false` also for sets of more than
/// 128: the caller then checks each place). A table of 256 slots on the stack: no allocation
/// per record.
fn lows_distinct(set: &[u32], bits: u32) -> bool {
    if set.len() > 128 {
        return false;
    }
    let mut table = [u32::MAX; 256];
    for &s in set {
        let v = neardup_candidates::low_bits(s, bits);
        let mut i = (v.wrapping_mul(0x9E37_79B9) >> 24) as usize;
        loop {
            match table[i] {
                u32::MAX => {
                    table[i] = v;
                    break;
                }
                t if t == v => return false,
                _ => i = (i + 1) & 255,
            }
        }
    }
    true
}

/// `floor(log2(mean gap))` of `count` increasing values ending at `last` (0 when the mean is
/// under 1).
fn rice_parameter(count: usize, last: u32) -> u32 {
    let sum = u64::from(last) + 1 - count as u64;
    match sum / count as u64 {
        0 => 0,
        mean => 63 - mean.leading_zeros(),
    }
}

/// Bits of a place in a set of `count` (0 for one member).
fn place_bits(count: usize) -> u32 {
    usize::BITS - count.saturating_sub(1).leading_zeros()
}

/// Bits from a byte slice, least significant first; reading past its end is an error.
struct Bits<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn left(&self) -> u64 {
        (self.b.len() * 8 - self.pos) as u64
    }

    /// At least 57 bits from `pos` (zeros past the end).
    #[inline(always)]
    fn peek(&self) -> u64 {
        let byte = self.pos / 8;
        let word = match self.b.get(byte..byte + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
            None => {
                let mut word = 0u64;
                for (i, &x) in self.b.get(byte..).unwrap_or(&[]).iter().enumerate() {
                    word |= u64::from(x) << (8 * i);
                }
                word
            }
        };
        word >> (self.pos % 8)
    }

    /// The bits from `pos` in a word and how many of them are the slice's (at most 57).
    #[inline(always)]
    fn fill(&self) -> (u64, u32) {
        let have = self.left().min(57) as u32;
        (self.peek() & ((1u64 << have) - 1), have)
    }

    /// `n` bits (at most 32) the caller knows are there.
    #[inline(always)]
    fn take_unchecked(&mut self, n: u32) -> u64 {
        let v = self.peek() & ((1u64 << n) - 1);
        self.pos += n as usize;
        v
    }

    /// A Rice code of parameter `r` whose bits lie within one load from `pos` and the
    /// record: its value; `None` otherwise (the caller reads it bit by bit, checking each).
    #[inline(always)]
    fn rice_fast(&mut self, r: u32) -> Option<u64> {
        let word = self.peek();
        let z = word.trailing_zeros();
        let used = z + 1 + r;
        if used > 57 || used as u64 > self.left() {
            return None;
        }
        self.pos += used as usize;
        Some(u64::from(z) << r | (word >> (z + 1)) & ((1u64 << r) - 1))
    }

    fn take(&mut self, n: u32) -> Result<u64, &'static str> {
        if n as u64 > self.left() {
            return Err("a shingle set ends early");
        }
        let v = self.peek() & ((1u64 << n) - 1);
        self.pos += n as usize;
        Ok(v)
    }

    fn unary(&mut self) -> Result<u64, &'static str> {
        let mut q = 0u64;
        loop {
            if self.left() == 0 {
                return Err("a shingle set ends early");
            }
            let word = self.peek() & ((1u64 << 56) - 1);
            if word == 0 {
                let step = 56.min(self.left()) as usize;
                q += step as u64;
                self.pos += step;
            } else {
                let z = word.trailing_zeros() as usize;
                if z as u64 >= self.left() {
                    return Err("a shingle set ends early");
                }
                self.pos += z + 1;
                return Ok(q + z as u64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// What is written reads back, minvalues told by place exactly when all are members;
        /// every cut of the bytes is refused.
        #[test]
        fn sets_and_places_read_back(
            raw in proptest::collection::btree_set(proptest::num::u32::ANY, 0..120),
            small in proptest::collection::btree_set(0u32..300, 0..120),
            picks in proptest::collection::vec(proptest::num::usize::ANY, 1..90),
            stranger in proptest::option::of(proptest::num::u32::ANY),
            bits in prop_oneof![Just(8u32), Just(16), Just(32)],
            width in prop_oneof![Just(32u32), Just(24), Just(20), Just(18)],
        ) {
            let raw: Vec<u32> = raw.into_iter().collect();
            for set in [raw, small.into_iter().collect()] {
                let mut set = set;
                neardup_candidates::narrow_set(&set.clone(), width, &mut set);
                let low = |v: u32| neardup_candidates::low_bits(v, bits);
                let mut mins: Vec<u32> = match set.is_empty() {
                    true => picks.iter().map(|&p| p as u32).collect(),
                    false => picks.iter().map(|&p| set[p % set.len()]).collect(),
                };
                if let Some(s) = stranger {
                    mins[0] = s;
                }
                let members = !set.is_empty()
                    && mins.iter().all(|&v| set.iter().any(|&s| low(s) == low(v)));
                let h = head(&set, &mins, bits);
                let mut out = vec![7];
                let told = encode(&set, width, &mins, bits, h, &mut out);
                prop_assert_eq!(told, members);
                prop_assert_eq!(h, (set.len() as u64) << 1 | u64::from(members));
                out.extend_from_slice(&[1, 2, 3]);
                let (mut got, mut got_mins) = (vec![9], vec![9]);
                let (used, told_back, width_back) = decode(&out[1..], h, mins.len(), bits, &mut got, &mut got_mins, true).unwrap();
                prop_assert_eq!(used, out.len() - 4);
                prop_assert_eq!(told_back, told);
                prop_assert_eq!(width_back, if set.is_empty() { 32 } else { width });
                prop_assert_eq!(&got, &set);
                if told {
                    prop_assert_eq!(&got_mins, &mins.iter().map(|&v| low(v)).collect::<Vec<_>>());
                } else {
                    prop_assert!(check_untold(&set, &mins.iter().map(|&v| low(v)).collect::<Vec<_>>(), bits).is_ok());
                }
                for cut in 1..out.len() - 4 {
                    let r = decode(&out[1..cut], h, mins.len(), bits, &mut got, &mut got_mins, true);
                    prop_assert!(r.is_err() || r.unwrap().0 < cut - 1);
                }
            }
        }

        /// Damaged bytes are refused or read as some set, never a panic.
        #[test]
        fn damaged_sets_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
                                    h in 0u64..300, m in 0usize..90,
                                    bits in prop_oneof![Just(8u32), Just(16), Just(32)]) {
            let (mut set, mut mins) = (Vec::new(), Vec::new());
            if let Ok((used, told, width)) = decode(&bytes, h, m, bits, &mut set, &mut mins, true) {
                prop_assert!(used <= bytes.len());
                prop_assert!(set.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(valid_width(width) && set.iter().all(|&v| u64::from(v) >> width == 0));
                // What reads also writes back the same bytes (minvalues read whole come
                // after, from the record).
                if told || set.is_empty() {
                    let mut again = Vec::new();
                    prop_assert_eq!(head(&set, &mins, bits), h);
                    prop_assert_eq!(encode(&set, width, &mins, bits, h, &mut again), told);
                    prop_assert_eq!(&again[..], &bytes[..used]);
                }
            }
        }
    }

    #[test]
    fn a_typical_set_takes_under_28_bits_a_value() {
        let mut rng = neardup_sketch::rabin::SplitMix64(3);
        let mut set: Vec<u32> = (0..52).map(|_| rng.next_u64() as u32).collect();
        set.sort_unstable();
        set.dedup();
        let mins: Vec<u32> = (0..84).map(|i| set[(i * 7) % set.len()]).collect();
        let mut out = Vec::new();
        assert!(encode(&set, 32, &mins, 16, head(&set, &mins, 16), &mut out));
        // 52 values of ~26.3 bits and 84 places of 6 bits, where whole they took 208 + 168.
        assert!(
            out.len() < 52 * 28 / 8 + 84 * 6 / 8 + 3,
            "{} bytes",
            out.len()
        );
    }

    /// Members cut to 20 bits save 12 bits each, and read back with their width.
    #[test]
    fn a_set_cut_to_20_bits_saves_12_bits_a_member() {
        let mut rng = neardup_sketch::rabin::SplitMix64(3);
        let whole: Vec<u32> = (0..52).map(|_| rng.next_u64() as u32).collect();
        let (mut set, mut narrow) = (whole.clone(), Vec::new());
        set.sort_unstable();
        set.dedup();
        neardup_candidates::narrow_set(&set, 20, &mut narrow);
        let mins: Vec<u32> = (0..84).map(|i| narrow[(i * 7) % narrow.len()]).collect();
        let (mut wide, mut cut) = (Vec::new(), Vec::new());
        encode(&set, 32, &mins, 16, head(&set, &mins, 16), &mut wide);
        encode(&narrow, 20, &mins, 16, head(&narrow, &mins, 16), &mut cut);
        assert!(
            cut.len() + 52 * 12 / 8 <= wide.len() + 2,
            "{} {}",
            cut.len(),
            wide.len()
        );
        let (mut got, mut got_mins) = (Vec::new(), Vec::new());
        let h = head(&narrow, &mins, 16);
        let (used, told, width) = decode(&cut, h, 84, 16, &mut got, &mut got_mins, true).unwrap();
        assert_eq!((used, told, width), (cut.len(), true, 20));
        let low: Vec<u32> = mins.iter().map(|&v| v & 0xffff).collect();
        assert_eq!((got, got_mins), (narrow, low));
    }
}
