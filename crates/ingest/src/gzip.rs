//! gzip members one after another, and what happens after a damaged one: the reader goes back
//! to the byte after the damaged member's start and takes the next member start it can confirm.
//!
//! A deflate decoder that meets damage does not stop where the damage is: a member cut short
//! runs on into the next member's bytes, and a flipped byte may be read past for kilobytes
//! before the stream stops making sense. Resuming from where the decoder stopped would lose the
//! intact members it ran over. So every compressed byte of the current member is kept (in a
//! [`Journal`], at most [`KEEP_BYTES`] of them), and after damage the search for the next
//! member replays them from the damaged member's second byte.
//!
//! A member's output is held back until the member ends with a correct CRC-32 and length (or,
//! for a member larger than [`HOLD_BYTES`], until that much came out without an error), so a
//! damaged member gives none of its bytes, and a gzip header (`1f 8b 08`) that occurs inside
//! deflated data is not taken for a member: a candidate found by the search that fails is part
//! of the damage, and the search goes on from its second byte. The damage is reported once, as
//! one error, when the next member is confirmed or the input ends.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::counted::Counted;
use crate::whole::Whole;

pub(crate) const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Error text prefix for a damaged stretch that was skipped; the record readers turn it into a
/// problem and keep going.
pub(crate) const GZIP_RESYNC: &str = "gzip-resync";

/// The most compressed bytes of one member kept for going back after damage. Members of a
/// crawl file hold one record each (kilobytes); in a larger member, damage found more than
/// this far past its start resumes the search that far back.
pub(crate) const KEEP_BYTES: usize = 16 << 20;

/// A member's output held back until its checksum is read: members of a crawl file are smaller
/// and come out whole or not at all; of a larger member (a whole file in one), the first this
/// many bytes are held, which confirms a member found after damage.
pub(crate) const HOLD_BYTES: usize = 1 << 20;

/// The room a member inflated whole ([`Whole`]) has at first: a crawl record's page. A larger
/// member is read by the streaming decoder, which grows the room (up to [`HOLD_BYTES`]) for the
/// next ones.
const WHOLE_ROOM: usize = 256 << 10;

/// Where the gzip member that last returned bytes begins: its compressed offset and the
/// decompressed offset of its first byte. A record that begins at that decompressed offset can
/// be read alone by seeking to the compressed one ([`crate::read_record_at`]).
#[derive(Debug)]
pub struct MemberStart {
    decompressed: AtomicU64,
    raw: AtomicU64,
}

impl MemberStart {
    pub(crate) fn new() -> MemberStart {
        MemberStart {
            decompressed: AtomicU64::new(u64::MAX),
            raw: AtomicU64::new(0),
        }
    }

    /// The member beginning at compressed offset `raw` gives its first byte, at decompressed
    /// offset `decompressed`.
    pub(crate) fn set(&self, raw: u64, decompressed: u64) {
        self.raw.store(raw, Ordering::Relaxed);
        self.decompressed.store(decompressed, Ordering::Relaxed);
    }

    /// The member last set: its compressed offset and first decompressed offset.
    #[cfg(test)]
    pub(crate) fn current(&self) -> (u64, u64) {
        (
            self.raw.load(Ordering::Relaxed),
            self.decompressed.load(Ordering::Relaxed),
        )
    }

    /// The compressed offset of the member whose first decompressed byte is at `decompressed`,
    /// when that is the member that last returned bytes.
    pub fn raw_offset_of(&self, decompressed: u64) -> Option<u64> {
        (self.decompressed.load(Ordering::Relaxed) == decompressed)
            .then(|| self.raw.load(Ordering::Relaxed))
    }
}

/// The compressed bytes, with the current member's bytes kept so that reading can go back into
/// them. Invariant: the bytes still to replay are the ones just before `inner`'s position.
struct Journal<R> {
    inner: Counted<R>,
    replay: Vec<u8>,
    replay_at: usize,
    /// The bytes consumed since `kept_from` (at most [`KEEP_BYTES`] or so).
    kept: Vec<u8>,
    kept_from: u64,
}

impl<R: BufRead> Journal<R> {
    /// The compressed offset of the next byte.
    fn pos(&self) -> u64 {
        self.inner.pos - (self.replay.len() - self.replay_at) as u64
    }

    /// Forgets the kept bytes: a member begins here.
    fn mark(&mut self) {
        self.kept.clear();
        self.kept_from = self.pos();
    }

    /// Goes back to `offset` (or to the first byte still kept, if that is later).
    fn rewind_to(&mut self, offset: u64) {
        let at = offset.saturating_sub(self.kept_from) as usize;
        if at >= self.kept.len() {
            return;
        }
        let mut again = self.kept.split_off(at);
        again.extend_from_slice(&self.replay[self.replay_at..]);
        self.replay = again;
        self.replay_at = 0;
        self.mark();
    }

    /// Makes at least `k` bytes visible to `fill_buf` unless the input ends first (a read
    /// buffer may hold fewer: its last bytes), moving them to the replay.
    fn fill_at_least(&mut self, k: usize) -> io::Result<()> {
        if self.replay.len() - self.replay_at >= k {
            return Ok(());
        }
        let mut more = self.replay.split_off(self.replay_at);
        self.replay.clear();
        self.replay_at = 0;
        if more.is_empty() && self.inner.fill_buf()?.len() >= k {
            return Ok(());
        }
        while more.len() < k {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let n = buf.len();
            more.extend_from_slice(buf);
            self.inner.consume(n);
        }
        self.replay = more;
        Ok(())
    }

    /// Consumes the `n` bytes of a member that ended correctly, which reading never goes back
    /// into: they are not kept, and the next member begins after them.
    fn pass(&mut self, n: usize) {
        if self.replay_at < self.replay.len() {
            self.replay_at += n.min(self.replay.len() - self.replay_at);
            if self.replay_at == self.replay.len() {
                self.replay.clear();
                self.replay_at = 0;
            }
        } else {
            self.inner.consume(n);
        }
        self.mark();
    }

    /// Skips to the next gzip magic (or the end); returns whether one was found.
    fn seek_magic(&mut self) -> io::Result<bool> {
        loop {
            self.fill_at_least(GZIP_MAGIC.len())?;
            let buf = self.fill_buf()?;
            if let Some(p) = memchr::memmem::find(buf, &GZIP_MAGIC) {
                self.consume(p);
                return Ok(true);
            }
            if buf.len() < GZIP_MAGIC.len() {
                // The last bytes of the input.
                let n = buf.len();
                self.consume(n);
                return Ok(false);
            }
            // Keep the last two bytes: a magic may straddle the end of this buffer.
            let n = buf.len() - (GZIP_MAGIC.len() - 1);
            self.consume(n);
        }
    }
}

impl<R: BufRead> Read for Journal<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Journal<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.replay_at < self.replay.len() {
            return Ok(&self.replay[self.replay_at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if self.kept.len() + n > KEEP_BYTES {
            let drop = (self.kept.len() + n - KEEP_BYTES / 2).min(self.kept.len());
            self.kept.drain(..drop);
            self.kept_from += drop as u64;
        }
        if self.replay_at < self.replay.len() {
            let n = n.min(self.replay.len() - self.replay_at);
            self.kept
                .extend_from_slice(&self.replay[self.replay_at..self.replay_at + n]);
            self.replay_at += n;
            if self.replay_at == self.replay.len() {
                self.replay.clear();
                self.replay_at = 0;
            }
            return;
        }
        // `fill_buf` just returned these bytes; asking again reads nothing.
        if let Ok(buf) = self.inner.fill_buf() {
            let n = n.min(buf.len());
            self.kept.extend_from_slice(&buf[..n]);
            self.inner.consume(n);
        }
    }
}

enum State<R: BufRead> {
    Between(Journal<R>),
    In(Box<flate2::bufread::GzDecoder<Journal<R>>>),
    Done,
}

/// A damaged stretch being skipped, reported when reading resumes.
struct Damage {
    start: u64,
    what: String,
}

/// Decodes concatenated gzip members. A damaged member (or bytes that are no member) yields
/// one error (kind `InvalidData`, message starting with [`GZIP_RESYNC`]) and reading resumes at
/// the next member whose start is confirmed (see the module's notes).
pub struct GzMembers<R: BufRead> {
    state: State<R>,
    member_start: u64,
    /// Decompressed bytes returned so far.
    out_pos: u64,
    /// True until the current member has returned a byte.
    fresh: bool,
    mark: Arc<MemberStart>,
    damage: Option<Damage>,
    /// Output of the current member held back until it is confirmed: `held[held_at..held_len]`.
    held: Vec<u8>,
    held_at: usize,
    held_len: usize,
    /// Inflates a member whose bytes are all at hand in one call.
    whole: Option<Whole>,
}

impl<R: BufRead> GzMembers<R> {
    pub(crate) fn new(inner: Counted<R>, mark: Arc<MemberStart>) -> Self {
        let kept_from = inner.pos;
        GzMembers {
            state: State::Between(Journal {
                inner,
                replay: Vec::new(),
                replay_at: 0,
                kept: Vec::new(),
                kept_from,
            }),
            member_start: 0,
            out_pos: 0,
            fresh: false,
            mark,
            damage: None,
            held: Vec::new(),
            held_at: 0,
            held_len: 0,
            whole: Whole::new(),
        }
    }

    /// Reads on from a member boundary at `inner`'s position, `out_pos` decompressed bytes
    /// having been handed out before it.
    pub(crate) fn resume(inner: Counted<R>, mark: Arc<MemberStart>, out_pos: u64) -> Self {
        let mut members = GzMembers::new(inner, mark);
        members.out_pos = out_pos;
        members
    }

    /// Hands out `n` decompressed bytes of the current member.
    fn hand_out(&mut self, n: usize) -> usize {
        if self.fresh {
            self.fresh = false;
            self.mark.set(self.member_start, self.out_pos);
        }
        self.out_pos += n as u64;
        n
    }

    /// Hands out held bytes.
    fn hand_held(&mut self, out: &mut [u8]) -> usize {
        let n = (self.held_len - self.held_at).min(out.len());
        out[..n].copy_from_slice(&self.held[self.held_at..self.held_at + n]);
        self.held_at += n;
        if self.held_at == self.held_len {
            self.held_len = 0;
            self.held_at = 0;
        }
        self.hand_out(n)
    }

    /// The error that reports the damage, reading having resumed at `resumed` (`None`: the
    /// input ended).
    fn report(&mut self, resumed: Option<u64>, end: u64) -> io::Error {
        let d = self.damage.take().expect("a damage to report");
        let tail = match resumed {
            Some(at) => format!(
                "reading resumes at the next member, compressed offset {at} ({} bytes skipped)",
                at - d.start
            ),
            None => format!("no member after it ({} bytes to the end)", end - d.start),
        };
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{GZIP_RESYNC}: {} at compressed offset {}; {tail}",
                d.what, d.start
            ),
        )
    }

    /// Decodes the member just begun into `held` until it ends correctly or [`HOLD_BYTES`] came
    /// out. `Err` gives the journal back at the member's second byte, with the error.
    #[allow(clippy::type_complexity)]
    fn hold(
        &mut self,
        mut dec: Box<flate2::bufread::GzDecoder<Journal<R>>>,
    ) -> Result<State<R>, (Journal<R>, io::Error)> {
        const STEP: usize = 64 << 10;
        self.held_len = 0;
        self.held_at = 0;
        while self.held_len < HOLD_BYTES {
            // The buffer keeps its length (zeroed once); `held_len` of it hold output.
            if self.held.len() < self.held_len + STEP {
                self.held.resize(self.held_len + STEP, 0);
            }
            let got = dec.read(&mut self.held[self.held_len..]);
            self.held_len += *got.as_ref().unwrap_or(&0);
            match got {
                Ok(0) => {
                    let mut journal = dec.into_inner();
                    journal.mark();
                    return Ok(State::Between(journal));
                }
                Ok(_) => {}
                Err(e) => {
                    let mut journal = dec.into_inner();
                    journal.rewind_to(self.member_start + 1);
                    self.held_len = 0;
                    return Err((journal, e));
                }
            }
        }
        Ok(State::In(dec))
    }

    /// Inflates the member just begun into `held` in one call ([`Whole`]) when its compressed
    /// bytes are all in the journal's buffer and its output fits the room `held` has (the
    /// streaming decoder grows it as larger members come); whether it did. When it did not,
    /// nothing was consumed and [`GzMembers::hold`] reads the member.
    fn hold_whole(&mut self, journal: &mut Journal<R>) -> bool {
        let Some(whole) = self.whole.as_mut() else {
            return false;
        };
        let Ok(buf) = journal.fill_buf() else {
            return false;
        };
        if self.held.len() < WHOLE_ROOM {
            self.held.resize(WHOLE_ROOM, 0);
        }
        let room = self.held.len().min(HOLD_BYTES);
        match whole.member(buf, &mut self.held[..room]) {
            Some((took, gave)) => {
                journal.pass(took);
                self.held_at = 0;
                self.held_len = gave;
                true
            }
            None => false,
        }
    }

    /// A member failed: the damage begins at its start (unless it is a candidate inside a
    /// damage already begun) and the search for the next member goes on from its second byte.
    fn failed(&mut self, mut journal: Journal<R>, e: io::Error) -> io::Result<()> {
        if self.damage.is_none() {
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                "truncated"
            } else {
                "corrupt"
            };
            self.damage = Some(Damage {
                start: self.member_start,
                what: format!("{what} gzip member ({e})"),
            });
        }
        journal.seek_magic()?;
        self.state = State::Between(journal);
        Ok(())
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.held_at < self.held_len {
            return Ok(self.hand_held(out));
        }
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::Between(mut journal) => {
                    journal.fill_at_least(GZIP_MAGIC.len())?;
                    let buf = journal.fill_buf()?;
                    if buf.is_empty() {
                        if self.damage.is_some() {
                            let end = journal.pos();
                            self.state = State::Between(journal);
                            return Err(self.report(None, end));
                        }
                        return Ok(0);
                    }
                    if !buf.starts_with(&GZIP_MAGIC) {
                        let at = journal.pos();
                        self.damage.get_or_insert_with(|| Damage {
                            start: at,
                            what: "bytes that are not a gzip member".into(),
                        });
                        journal.seek_magic()?;
                        self.state = State::Between(journal);
                        continue;
                    }
                    journal.mark();
                    self.member_start = journal.pos();
                    self.fresh = true;
                    let held = if self.hold_whole(&mut journal) {
                        Ok(State::Between(journal))
                    } else {
                        self.hold(Box::new(flate2::bufread::GzDecoder::new(journal)))
                    };
                    match held {
                        Ok(next) => {
                            self.state = next;
                            if self.damage.is_some() {
                                let start = self.member_start;
                                return Err(self.report(Some(start), start));
                            }
                            if self.held_len > 0 {
                                return Ok(self.hand_held(out));
                            }
                        }
                        Err((journal, e)) => self.failed(journal, e)?,
                    }
                }
                State::In(mut dec) => match dec.read(out) {
                    Ok(0) => {
                        let mut journal = dec.into_inner();
                        journal.mark();
                        self.state = State::Between(journal);
                    }
                    Ok(n) => {
                        self.state = State::In(dec);
                        return Ok(self.hand_out(n));
                    }
                    Err(e) => {
                        // Past the held bytes of a large member: what came out stays out.
                        let mut journal = dec.into_inner();
                        journal.rewind_to(self.member_start + 1);
                        self.failed(journal, e)?;
                    }
                },
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// `data` as one gzip member.
    pub(crate) fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Everything the reader gives, and its errors' messages.
    fn read_all_lenient(r: &mut dyn Read) -> (Vec<u8>, Vec<String>) {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, errors),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => errors.push(e.to_string()),
            }
        }
    }

    /// A member reader over `bytes`, read through a buffer of `chunk` bytes.
    fn members(
        bytes: Vec<u8>,
        chunk: usize,
    ) -> GzMembers<std::io::BufReader<std::io::Cursor<Vec<u8>>>> {
        GzMembers::new(
            Counted::new(std::io::BufReader::with_capacity(
                chunk,
                std::io::Cursor::new(bytes),
            )),
            Arc::new(MemberStart::new()),
        )
    }

    /// Text that deflate cannot shrink much, so members are long enough to damage.
    fn text(seed: u64, words: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = Vec::new();
        for _ in 0..words {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            write!(out, "w{} ", x % 5000).unwrap();
        }
        out
    }

    #[test]
    fn the_member_a_byte_came_from_is_known_where_it_begins() {
        let (a, b) = (gz(b"first record "), gz(b"second"));
        let mut all = a.clone();
        all.extend(&b);
        let mark = Arc::new(MemberStart::new());
        let mut m = GzMembers::new(Counted::new(std::io::Cursor::new(all)), mark.clone());
        let mut buf = [0u8; 64];
        let n = m.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"first record ");
        assert_eq!(mark.raw_offset_of(0), Some(0));
        let n2 = loop {
            match m.read(&mut buf).unwrap() {
                0 => continue,
                k => break k,
            }
        };
        assert_eq!(&buf[..n2], b"second");
        assert_eq!(mark.raw_offset_of(n as u64), Some(a.len() as u64));
        // Only the start of a member is a place to seek to.
        assert_eq!(mark.raw_offset_of(n as u64 + 1), None);
        assert_eq!(mark.raw_offset_of(0), None);
    }

    #[test]
    fn members_concatenate() {
        let mut all = gz(b"one ");
        all.extend(gz(b"two "));
        all.extend(gz(b"three"));
        for chunk in [1, 2, 3, 64, 8192] {
            let (out, errs) = read_all_lenient(&mut members(all.clone(), chunk));
            assert_eq!((out.as_slice(), errs.len()), (&b"one two three"[..], 0));
        }
    }

    #[test]
    fn corrupt_member_is_skipped() {
        let mut all = gz(b"one ");
        let mut bad = gz(b"two two two two two two ");
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        bad[mid + 1] ^= 0x55;
        all.extend(bad);
        all.extend(b"junk between");
        all.extend(gz(b"three"));
        let (out, errs) = read_all_lenient(&mut members(all, 8192));
        assert!(out.starts_with(b"one "));
        assert!(
            out.ends_with(b"three"),
            "{:?}",
            String::from_utf8_lossy(&out)
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
    }

    #[test]
    fn truncated_member_reports_once() {
        let mut all = gz(b"one ");
        let second = gz(b"two two two");
        all.extend(&second[..second.len() - 5]);
        let (out, errs) = read_all_lenient(&mut members(all, 8192));
        assert!(out.starts_with(b"one "));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("truncated"), "{errs:?}");
        assert!(errs[0].contains("no member after it"), "{errs:?}");
    }

    /// The mended defect: a member cut short ran its decoder into the next members, which were
    /// lost with it.
    #[test]
    fn a_member_cut_short_costs_that_member_only() {
        let parts: Vec<Vec<u8>> = (0..5).map(|i| text(i, 400)).collect();
        for chunk in [5, 4096, 256 << 10] {
            for keep in [0.1, 0.5, 0.9] {
                let mut all = Vec::new();
                for (i, p) in parts.iter().enumerate() {
                    let m = gz(p);
                    if i == 2 {
                        all.extend_from_slice(&m[..(m.len() as f64 * keep) as usize]);
                    } else {
                        all.extend(m);
                    }
                }
                let (out, errs) = read_all_lenient(&mut members(all, chunk));
                let mut want = parts[0].clone();
                want.extend(&parts[1]);
                assert!(out.starts_with(&want), "chunk {chunk} keep {keep}");
                let mut tail = parts[3].clone();
                tail.extend(&parts[4]);
                assert!(out.ends_with(&tail), "chunk {chunk} keep {keep}: {errs:?}");
                assert_eq!(errs.len(), 1, "chunk {chunk} keep {keep}: {errs:?}");
            }
        }
    }

    /// Members inflated whole ([`Whole`]) give what the streaming decoder alone gives: the same
    /// bytes, errors and member starts, on members intact, flipped, cut short and between junk,
    /// through buffers that hold many members, part of one, or a few bytes.
    #[test]
    fn members_inflated_whole_read_as_streamed() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..60u64 {
            let mut all = Vec::new();
            for i in 0..6 {
                let mut m = gz(&text(case * 10 + i, 20 + next(600) as usize));
                match next(6) {
                    0 => {
                        let at = 10 + next(m.len() as u64 - 10) as usize;
                        m[at] ^= 1 << next(8);
                    }
                    1 => m.truncate(next(m.len() as u64) as usize),
                    2 => all.extend(b"junk"),
                    _ => {}
                }
                all.extend(m);
            }
            for chunk in [7, 4096, 256 << 10] {
                let read = |whole: bool| {
                    let mut r = members(all.clone(), chunk);
                    if !whole {
                        r.whole = None;
                    }
                    let (mut out, mut errs, mut starts) = (Vec::new(), Vec::new(), Vec::new());
                    let mut buf = [0u8; 1000];
                    loop {
                        match r.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => out.extend_from_slice(&buf[..n]),
                            Err(e) => errs.push(e.to_string()),
                        }
                        starts.push(r.mark.current());
                    }
                    (out, errs, starts)
                };
                assert_eq!(read(true), read(false), "case {case}, chunk {chunk}");
            }
        }
    }

    /// A gzip header inside deflated data is no member: a candidate is held until it ends
    /// correctly.
    #[test]
    fn a_planted_header_inside_damage_is_not_taken_for_a_member() {
        let (a, b, c) = (text(1, 300), text(2, 300), text(3, 300));
        let mut all = gz(&a);
        let mut bad = gz(&b);
        // Damage, then a gzip header with a few bytes of rubbish after it.
        let mid = bad.len() / 2;
        bad[mid] ^= 0xa5;
        let mut planted = GZIP_MAGIC.to_vec();
        planted.extend([0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a, 0x06, 0x00]);
        bad.splice(mid + 8..mid + 8, planted);
        all.extend(bad);
        all.extend(gz(&c));
        let (out, errs) = read_all_lenient(&mut members(all, 8192));
        assert!(out.starts_with(&a));
        assert!(out.ends_with(&c), "{errs:?}");
        assert_eq!(errs.len(), 1, "{errs:?}");
        // Nothing of the rubbish member came out between them.
        assert!(out.len() <= a.len() + b.len() + c.len());
    }
}
