//! One gzip file of many members (a `.warc.gz`, a `.jsonl.gz` written a member at a time)
//! inflated on several threads, its bytes handed out in order exactly as [`GzMembers`] hands
//! them out: the same bytes, one member per read, the same member starts for
//! [`crate::read_record_at`], the same reports of damage.
//!
//! The file is cut into blocks of [`BLOCK`] compressed bytes and each block is a job for an
//! inflater thread. A job decodes the members that *begin* in its block: the first one it can
//! confirm (a gzip header whose member ends with a correct CRC-32 and length: a header inside
//! deflated data is not taken), then each following one, until a member begins at or past the
//! block's end. The jobs are read in order, and a job's bytes are handed out only when it begins
//! where the one before it ended, so every compressed byte is decoded once and in order.
//!
//! Anything out of the ordinary ends the parallel reading at the last member boundary the
//! chain confirmed, and [`GzMembers`] reads on from there to the end of the file: a member
//! that does not decode, bytes that are no member, a job that does not begin where the last one
//! ended, a member of more than [`JOB_BYTES`] (a file of one member: one stream, read as
//! before). Damage is then found, skipped and reported by the one member reader that does that,
//! starting from where it would have stood had it read the whole file.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::counted::Counted;
use crate::gzip::{GzMembers, MemberStart, GZIP_MAGIC};
use crate::whole::Whole;

/// Compressed bytes per job: a few hundred records of a crawl file.
pub(crate) const BLOCK: u64 = 512 << 10;

/// The largest member a job decodes: a larger one is left to the serial reader (a whole file in
/// one member, or a huge record), which hands it out as it inflates.
pub(crate) const JOB_BYTES: usize = 32 << 20;

/// Reads `file` from `pos` with positioned reads, so that every job reads its own part of one
/// open file.
struct At<'a> {
    file: &'a File,
    pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// What a job decoded.
struct Chunk {
    /// Compressed offset of its first member; `None` when no member begins in its block.
    start: Option<u64>,
    /// Compressed offset where it stopped: a member beginning at or past its block's end, the
    /// end of the file, or (`trouble`) something it did not decode.
    end: u64,
    /// It stopped at something the member reader must look at.
    trouble: bool,
    /// The members' bytes, one after another.
    out: Out,
    /// Each member that gave bytes: its compressed offset and where its bytes end in `out`.
    members: Vec<(u64, usize)>,
}

struct Job {
    /// The block: compressed bytes `lo..hi`.
    lo: u64,
    hi: u64,
    out: Out,
    reply: Sender<Chunk>,
}

/// Decoded bytes: `buf[..len]`; the rest of `buf` is initialized room, reused from job to job
/// so that nothing is zeroed twice.
#[derive(Default)]
struct Out {
    buf: Vec<u8>,
    len: usize,
}

impl Out {
    /// At least `step` bytes of room after the decoded ones (grown four steps at a time).
    fn room(&mut self, step: usize) {
        if self.buf.len() < self.len + step {
            self.buf.resize(self.len + 4 * step, 0);
        }
    }
}

/// Decodes the member at the reader's position onto `out`: its end, or `None` when there is
/// no correct member there (or it is larger than [`JOB_BYTES`]), `out` then as it was.
fn member(
    reader: &mut BufReader<At<'_>>,
    out: &mut Out,
    whole: &mut Option<Whole>,
    cancel: &AtomicBool,
) -> io::Result<Option<u64>> {
    const STEP: usize = 256 << 10;
    let before = out.len;
    let buffered = reader.fill_buf()?.len();
    if buffered < GZIP_MAGIC.len() {
        // A header cut by the buffer: read it again from its start, whole.
        let at = reader.get_ref().pos - buffered as u64;
        let file = reader.get_ref().file;
        *reader = BufReader::with_capacity(reader.capacity(), At { file, pos: at });
    }
    if !reader.fill_buf()?.starts_with(&GZIP_MAGIC) {
        return Ok(None);
    }
    if let Some(whole) = whole {
        // All of a member in the read buffer: inflated in one call, else streamed below.
        out.room(STEP);
        let room = (out.buf.len() - out.len).min(JOB_BYTES);
        if let Some((took, gave)) = whole.member(reader.buffer(), &mut out.buf[out.len..][..room]) {
            out.len += gave;
            reader.consume(took);
            return Ok(Some(reader.get_ref().pos - reader.buffer().len() as u64));
        }
    }
    let mut dec = flate2::bufread::GzDecoder::new(&mut *reader);
    loop {
        out.room(STEP);
        match dec.read(&mut out.buf[out.len..]) {
            Ok(0) => break,
            Ok(n) if out.len + n - before <= JOB_BYTES && !cancel.load(Ordering::Relaxed) => {
                out.len += n
            }
            Ok(_) | Err(_) => {
                out.len = before;
                return Ok(None);
            }
        }
    }
    let r = dec.into_inner();
    Ok(Some(r.get_ref().pos - r.buffer().len() as u64))
}

/// Runs one job: the members that begin in its block of `file`.
fn decode(file: &File, job: Job, whole: &mut Option<Whole>, cancel: &AtomicBool) -> Chunk {
    let (lo, hi) = (job.lo, job.hi);
    let mut chunk = Chunk {
        start: None,
        end: hi,
        trouble: false,
        out: job.out,
        members: Vec::new(),
    };
    chunk.out.len = 0;
    // A candidate's reader reads little past its member; the block's reads the rest of it.
    let reader_at = |pos, capacity| BufReader::with_capacity(capacity, At { file, pos });
    let mut pos = lo;
    if lo > 0 {
        // The first member to begin in the block: a candidate header confirmed by its member.
        let mut head = vec![0u8; (hi - lo) as usize + GZIP_MAGIC.len() - 1];
        let n = match read_full(file, &mut head, lo) {
            Ok(n) => n,
            Err(_) => return chunk,
        };
        let head = &head[..n];
        let mut found = None;
        for p in memchr::memmem::find_iter(head, &GZIP_MAGIC) {
            if p as u64 >= hi - lo || cancel.load(Ordering::Relaxed) {
                break;
            }
            let mut reader = reader_at(lo + p as u64, 64 << 10);
            if let Ok(Some(end)) = member(&mut reader, &mut chunk.out, whole, cancel) {
                found = Some((lo + p as u64, end));
                break;
            }
        }
        let Some((start, end)) = found else {
            return chunk;
        };
        chunk.start = Some(start);
        if chunk.out.len > 0 {
            chunk.members.push((start, chunk.out.len));
        }
        pos = end;
    } else {
        chunk.start = Some(0);
    }
    let mut reader = reader_at(pos, 256 << 10);
    while pos < hi {
        if cancel.load(Ordering::Relaxed) {
            chunk.trouble = true;
            break;
        }
        let before = chunk.out.len;
        match member(&mut reader, &mut chunk.out, whole, cancel) {
            Ok(Some(end)) => {
                if chunk.out.len > before {
                    chunk.members.push((pos, chunk.out.len));
                }
                pos = end;
            }
            Ok(None) | Err(_) => {
                chunk.trouble = true;
                break;
            }
        }
    }
    chunk.end = pos;
    chunk
}

/// Reads up to `buf.len()` bytes at `at`; fewer only at the end of the file.
fn read_full(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A gzip file's members inflated on `threads` threads (see the module's notes).
pub(crate) struct ParallelMembers {
    file: Arc<File>,
    size: u64,
    /// Compressed bytes per job ([`BLOCK`]; smaller in tests).
    block: u64,
    mark: Arc<MemberStart>,
    raw_pos: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    /// Replies of the jobs sent, in block order.
    pending: VecDeque<Receiver<Chunk>>,
    /// The next block to send as a job.
    next_block: u64,
    /// Jobs in flight at most.
    ahead: usize,
    /// Output buffers handed back, for the next jobs.
    spare: Vec<Out>,
    /// The chunk being handed out, its next byte and member.
    current: Option<Chunk>,
    at: usize,
    member_i: usize,
    /// Where the next chunk must begin (the end of the last one taken).
    expected: u64,
    /// Decompressed bytes handed out.
    out_pos: u64,
    /// Once the chain breaks: the member reader, from the last confirmed boundary.
    serial: Option<GzMembers<BufReader<File>>>,
    /// Where the member reader took over (compressed offset).
    serial_from: Option<u64>,
}

impl ParallelMembers {
    /// Inflates `file` (`size` bytes, its first bytes a gzip member) on `threads` threads, in
    /// jobs of `block` compressed bytes; `None` when the threads cannot be started (the caller
    /// reads it serially).
    pub(crate) fn new(
        file: File,
        size: u64,
        block: u64,
        threads: usize,
        mark: Arc<MemberStart>,
        raw_pos: Arc<AtomicU64>,
    ) -> Option<ParallelMembers> {
        let file = Arc::new(file);
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = bounded::<Job>(threads * 2);
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads {
            let rx = rx.clone();
            let file = file.clone();
            let stop = cancel.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("neardup-inflate-{i}"))
                .spawn(move || {
                    let mut whole = Whole::new();
                    for job in rx.iter() {
                        let reply = job.reply.clone();
                        let _ = reply.send(decode(&file, job, &mut whole, &stop));
                    }
                });
            match spawned {
                Ok(h) => workers.push(h),
                Err(_) => {
                    cancel.store(true, Ordering::SeqCst);
                    drop(tx);
                    for h in workers {
                        let _ = h.join();
                    }
                    return None;
                }
            }
        }
        Some(ParallelMembers {
            file,
            size,
            block: block.max(1),
            mark,
            raw_pos,
            cancel,
            jobs: Some(tx),
            workers,
            pending: VecDeque::new(),
            next_block: 0,
            ahead: threads + 2,
            spare: Vec::new(),
            current: None,
            at: 0,
            member_i: 0,
            expected: 0,
            out_pos: 0,
            serial: None,
            serial_from: None,
        })
    }

    /// Sends jobs until `ahead` are in flight or every block is sent.
    fn send_jobs(&mut self) {
        let Some(jobs) = &self.jobs else {
            return;
        };
        while self.pending.len() < self.ahead && self.next_block * self.block < self.size {
            let (reply, rx) = bounded(1);
            let lo = self.next_block * self.block;
            let job = Job {
                lo,
                hi: (lo + self.block).min(self.size),
                out: self.spare.pop().unwrap_or_default(),
                reply,
            };
            if jobs.send(job).is_err() {
                return;
            }
            self.pending.push_back(rx);
            self.next_block += 1;
        }
    }

    /// Stops the inflaters.
    fn stop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
        self.jobs = None;
        self.pending.clear();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }

    /// Goes on with the member reader from the last confirmed boundary.
    fn go_serial(&mut self) -> io::Result<()> {
        self.stop();
        let mut file = self.file.try_clone()?;
        file.seek(SeekFrom::Start(self.expected))?;
        let counted = Counted::sharing_from(
            BufReader::with_capacity(256 << 10, file),
            self.raw_pos.clone(),
            self.expected,
        );
        self.serial = Some(GzMembers::resume(counted, self.mark.clone(), self.out_pos));
        self.serial_from = Some(self.expected);
        Ok(())
    }

    /// Hands out bytes of the current chunk, up to its current member's end.
    fn hand_out(&mut self, out: &mut [u8]) -> usize {
        let Some(chunk) = &self.current else {
            return 0;
        };
        let Some(&(raw, end)) = chunk.members.get(self.member_i) else {
            return 0;
        };
        let begins = if self.member_i == 0 {
            0
        } else {
            chunk.members[self.member_i - 1].1
        };
        if self.at == begins {
            self.mark.set(raw, self.out_pos);
            let next = chunk.members.get(self.member_i + 1).map(|m| m.0);
            self.raw_pos
                .store(next.unwrap_or(chunk.end), Ordering::Relaxed);
        }
        let n = (end - self.at).min(out.len());
        out[..n].copy_from_slice(&chunk.out.buf[self.at..self.at + n]);
        self.at += n;
        if self.at == end {
            self.member_i += 1;
        }
        self.out_pos += n as u64;
        n
    }
}

impl Read for ParallelMembers {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some(serial) = &mut self.serial {
                return serial.read(out);
            }
            let n = self.hand_out(out);
            if n > 0 {
                return Ok(n);
            }
            if let Some(done) = self.current.take() {
                if done.trouble {
                    self.go_serial()?;
                    continue;
                }
                self.spare.push(done.out);
            }
            self.send_jobs();
            let Some(rx) = self.pending.pop_front() else {
                if self.expected != self.size {
                    self.go_serial()?;
                    continue;
                }
                self.raw_pos.store(self.size, Ordering::Relaxed);
                return Ok(0);
            };
            let Ok(chunk) = rx.recv() else {
                self.go_serial()?;
                continue;
            };
            match chunk.start {
                None => self.spare.push(chunk.out),
                Some(start) if start == self.expected => {
                    self.expected = chunk.end;
                    self.at = 0;
                    self.member_i = 0;
                    self.current = Some(chunk);
                }
                Some(_) => self.go_serial()?,
            }
        }
    }
}

impl Drop for ParallelMembers {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzip::tests::gz;
    use std::io::Write;

    /// Text that deflate shrinks about as much as HTML.
    fn text(seed: u64, bytes: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = Vec::with_capacity(bytes + 8);
        while out.len() < bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            write!(out, "w{} ", x % 3000).unwrap();
        }
        out.truncate(bytes);
        out
    }

    /// What a reader gives, as a consumer sees it: every byte, the member each read's bytes
    /// came from (compressed offset, first decompressed offset), and each error with the
    /// decompressed offset it came at.
    #[derive(Debug, PartialEq, Eq)]
    struct Trace {
        bytes: Vec<u8>,
        members: Vec<(u64, u64)>,
        errors: Vec<(u64, String)>,
        raw_end: u64,
    }

    fn trace(r: &mut dyn Read, mark: &MemberStart, raw_pos: &AtomicU64, chunk: usize) -> Trace {
        let mut t = Trace {
            bytes: Vec::new(),
            members: Vec::new(),
            errors: Vec::new(),
            raw_end: 0,
        };
        let mut buf = vec![0u8; chunk];
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let m = mark.current();
                    if t.members.last() != Some(&m) {
                        t.members.push(m);
                    }
                    t.bytes.extend_from_slice(&buf[..n]);
                }
                Err(e) => t.errors.push((t.bytes.len() as u64, e.to_string())),
            }
        }
        t.raw_end = raw_pos.load(Ordering::Relaxed);
        t
    }

    /// The trace of the serial member reader and of the parallel one on `threads` threads, and
    /// where the parallel one handed over to the serial one.
    fn both(bytes: &[u8], block: u64, threads: usize, chunk: usize) -> (Trace, Trace, Option<u64>) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        let (mark, pos) = (Arc::new(MemberStart::new()), Arc::new(AtomicU64::new(0)));
        let file = BufReader::new(File::open(f.path()).unwrap());
        let mut serial = GzMembers::new(Counted::sharing(file, pos.clone()), mark.clone());
        let want = trace(&mut serial, &mark, &pos, chunk);
        let (mark, pos) = (Arc::new(MemberStart::new()), Arc::new(AtomicU64::new(0)));
        let file = File::open(f.path()).unwrap();
        let size = bytes.len() as u64;
        let mut parallel =
            ParallelMembers::new(file, size, block, threads, mark.clone(), pos.clone()).unwrap();
        let got = trace(&mut parallel, &mark, &pos, chunk);
        (want, got, parallel.serial_from)
    }

    /// Checks that both readers give the same; `serial_from`: where the parallel one must
    /// hand over.
    fn check(name: &str, bytes: &[u8], serial_from: Option<u64>) {
        for threads in [2, 3, 7] {
            for chunk in [256 << 10, 4093] {
                let (want, got, from) = both(bytes, BLOCK, threads, chunk);
                assert_eq!(from, serial_from, "{name}: {threads} threads");
                assert_eq!(
                    want.bytes.len(),
                    got.bytes.len(),
                    "{name}: {threads} threads"
                );
                assert!(want.bytes == got.bytes, "{name}: {threads} threads");
                assert_eq!(want.members, got.members, "{name}: {threads} threads");
                assert_eq!(want.errors, got.errors, "{name}: {threads} threads");
                assert_eq!(want.raw_end, got.raw_end, "{name}: {threads} threads");
            }
        }
    }

    /// Members of `sizes` decompressed bytes, each gzipped.
    fn members(sizes: &[usize]) -> Vec<Vec<u8>> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| gz(&text(i as u64 + 1, n)))
            .collect()
    }

    fn sizes(n: usize, seed: u64) -> Vec<usize> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 10 {
                    0 => 0,
                    1 => 200_000,
                    _ => 2_000 + (x % 40_000) as usize,
                }
            })
            .collect()
    }

    #[test]
    fn the_same_bytes_members_and_reports_as_the_serial_reader() {
        let parts = members(&sizes(400, 7));
        let whole: Vec<u8> = parts.concat();
        assert!(whole.len() as u64 > 3 * BLOCK, "{}", whole.len());
        check("intact", &whole, None);
        let start = |parts: &[Vec<u8>], i: usize| Some(parts[..i].concat().len() as u64);

        // A member damaged in the middle of the file, one cut short, junk between members,
        // and rubbish at the end: the serial reader takes over, and reports the same.
        let mut damaged = parts.clone();
        let mid = damaged[150].len() / 2;
        damaged[150][mid] ^= 0xa5;
        check("damaged", &damaged.concat(), start(&parts, 150));
        // The first member of a block damaged: the job before stops at it, the job of the
        // block cannot confirm it and begins at the next; the chain breaks there.
        let first = (1..parts.len())
            .find(|&i| start(&parts, i).unwrap() >= 2 * BLOCK)
            .unwrap();
        let mut at_block = parts.clone();
        at_block[first][20] ^= 0x5a;
        check(
            "a block's first member damaged",
            &at_block.concat(),
            start(&parts, first),
        );
        let mut cut = parts.clone();
        let len = cut[300].len();
        cut[300].truncate(len / 3);
        check("cut short", &cut.concat(), start(&parts, 300));
        let mut junk = parts.clone();
        junk[200].extend_from_slice(b"junk between members");
        check("junk", &junk.concat(), start(&parts, 201));
        let mut tail = whole.clone();
        tail.extend_from_slice(&[0u8; 100]);
        check("zeros at the end", &tail, Some(whole.len() as u64));
        let mut head_cut = whole.clone();
        head_cut.extend_from_slice(&GZIP_MAGIC[..2]);
        check(
            "a header cut at the end",
            &head_cut,
            Some(whole.len() as u64),
        );
    }

    #[test]
    fn members_larger_than_a_block_or_a_job_and_headers_inside_deflated_data() {
        // Blocks that no member begins in, and one member larger than a job holds.
        let start = |parts: &[Vec<u8>], i: usize| Some(parts[..i].concat().len() as u64);
        let mut big = members(&[10_000, 3 * BLOCK as usize, 5_000, 20_000]);
        big.push(gz(&vec![b'a'; JOB_BYTES + 10]));
        big.extend(members(&sizes(150, 3)));
        check("large members", &big.concat(), start(&big, 4));

        // A gzip header planted where a job's search would find it first: inside the
        // deflated data of a member that spans the block boundary (stored blocks, so the
        // header's bytes pass through deflate as they are).
        let mut planted = text(9, 3 * BLOCK as usize);
        for k in 1..3 {
            let at = k * BLOCK as usize + 10;
            planted[at..at + 3].copy_from_slice(&GZIP_MAGIC);
        }
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        e.write_all(&planted).unwrap();
        let mut parts = vec![e.finish().unwrap()];
        parts.extend(members(&sizes(120, 5)));
        check("planted headers", &parts.concat(), None);

        // A whole correct member inside another's stored data: the job of that block
        // confirms it and begins there, which is not where the job before ended.
        let inner = gz(b"a member inside a member");
        let at = BLOCK as usize + 100;
        planted[at..at + inner.len()].copy_from_slice(&inner);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        e.write_all(&planted).unwrap();
        parts[0] = e.finish().unwrap();
        check(
            "a member inside a member",
            &parts.concat(),
            Some(parts[0].len() as u64),
        );
    }

    /// A file of one member (no larger than a job holds) is read whole by the first job; a
    /// larger one by the serial reader (`members_larger_than_a_block_or_a_job...`).
    #[test]
    fn one_member_is_read_as_one_stream() {
        let one = gz(&text(4, 12 << 20));
        assert!(one.len() as u64 > 2 * BLOCK);
        check("one member", &one, None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Against the serial reader, on small blocks so that members span blocks, blocks hold
        /// no member start and jobs begin anywhere: members of any size (empty ones too), then
        /// damage anywhere (bytes flipped, bytes inserted, the file cut short).
        #[test]
        fn any_members_and_any_damage_read_as_the_serial_reader_reads_them(
            sizes in proptest::collection::vec(0usize..3000, 1..40),
            flips in proptest::collection::vec((0.0f64..1.0, 1u8..=255), 0..3),
            insert in proptest::option::of((0.0f64..1.0, proptest::collection::vec(0u8..=255, 1..40))),
            cut in proptest::option::of(0.5f64..1.0),
            block in 16u64..4096,
            threads in 2usize..5,
            small_reads in proptest::bool::ANY,
        ) {
            let mut bytes = members(&sizes).concat();
            for (at, x) in flips {
                let i = ((at * bytes.len() as f64) as usize).min(bytes.len() - 1);
                bytes[i] ^= x;
            }
            if let Some((at, junk)) = insert {
                let i = (at * bytes.len() as f64) as usize;
                bytes.splice(i..i, junk);
            }
            if let Some(keep) = cut {
                bytes.truncate((keep * bytes.len() as f64) as usize);
            }
            let chunk = if small_reads { 100 } else { 256 << 10 };
            let (want, got, _) = both(&bytes, block, threads, chunk);
            proptest::prop_assert!(want.bytes == got.bytes);
            proptest::prop_assert_eq!(want.members, got.members);
            proptest::prop_assert_eq!(want.errors, got.errors);
            proptest::prop_assert_eq!(want.raw_end, got.raw_end);
        }
    }
}
