//! [`Memo`]: the language detector's answers shared by a run's workers, the model asked once
//! per distinct text it reads.

use super::{bytes_sample, detect_sample, document_sample, prefix, tell, Language, SAMPLE_BYTES};
#[cfg(doc)]
use super::{detect, detect_bytes, detect_document};
use crate::Document;

/// Model texts a [`Memo`] remembers before it starts afresh (about 8 MB of table when full):
/// with 65,536 the peers' corpus (140,000 pages) cleared parts of it before the copies came, and
/// the model read twice as many texts.
pub const MEMO_TEXTS: usize = 1 << 18;

/// Locks a [`Memo`] is split into, by text digest: workers asking at once rarely take the
/// same one (one lock for all of them is a queue on 16 cores).
const MEMO_SHARDS: usize = 64;

/// A memo's table: keys are XXH3 digests already, taken as their own hash (SipHash over them
/// was a tenth of the memo's time).
type Digests = std::collections::HashMap<u128, Language, std::hash::BuildHasherDefault<Digest>>;

/// The hasher of [`Digests`]: a digest's low 64 bits.
#[derive(Default)]
struct Digest(u64);

impl std::hash::Hasher for Digest {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only digests are hashed; any other bytes still spread (FNV-1a).
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u128(&mut self, digest: u128) {
        self.0 = digest as u64;
    }
}

/// [`detect`], [`detect_document`] and [`detect_bytes`] that ask the model once per distinct
/// text it reads: a page whose prose the model has read before (a copy of a page, pages that
/// differ only in their menus or their code) gets the answer that text got then, found by its
/// 128-bit XXH3 (on the peers' corpus 110,432 pages give the model 46,244 distinct texts). The
/// answers are those of the free functions, since the model's depends only on the text it
/// reads. Shared by a run's workers (in 64 parts, each under its own lock; the model runs
/// outside them); bounded ([`MEMO_TEXTS`]).
///
/// Only the model's answers are remembered: the rest of a page's answer (its scripts, its
/// window) costs less than looking a whole sample up (a memo of samples as well answered 17% of
/// the peers' corpus, and took more time than it saved).
pub struct Memo {
    shards: Box<[std::sync::Mutex<Digests>]>,
}

impl Default for Memo {
    fn default() -> Self {
        Memo {
            shards: (0..MEMO_SHARDS).map(|_| Default::default()).collect(),
        }
    }
}

impl Memo {
    /// [`detect`], remembered.
    pub fn detect(&self, text: &str) -> Language {
        detect_sample(prefix(text, SAMPLE_BYTES), &mut |read| {
            self.remembered(read)
        })
    }

    /// [`tell`]`(text)`, or what it told of the same text before (keyed by the text's XXH3-128).
    fn remembered(&self, text: &str) -> Language {
        let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
        let shard = &self.shards[(key >> 64) as usize % MEMO_SHARDS];
        // A poisoned lock only means another worker panicked; its map is still whole.
        let known = shard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .copied();
        if let Some(language) = known {
            return language;
        }
        let language = tell(text);
        let mut seen = shard.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() >= MEMO_TEXTS / MEMO_SHARDS {
            seen.clear();
        }
        seen.insert(key, language);
        language
    }

    /// [`detect_document`], remembered (`buf` is reused from page to page).
    pub fn detect_document(&self, doc: &Document, buf: &mut String) -> Language {
        document_sample(doc, buf);
        self.detect(buf)
    }

    /// [`detect_bytes`], remembered.
    pub fn detect_bytes(&self, body: &[u8]) -> Language {
        self.detect(bytes_sample(body))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{detect, detect_bytes};
    use super::*;

    /// Two pages whose samples differ only where the model does not read (their menus) are
    /// read by the model once: the memo holds one text.
    #[test]
    fn a_memo_asks_the_model_once_per_text_it_reads() {
        let memo = Memo::default();
        let prose = "Attributes are metadata applied to some module, crate or item here.";
        let a = format!("Keyboard shortcuts\nPress S to search\n{prose}\n");
        let b = format!("Keyboard shortcuts\nPress ? to show this help\n{prose}\n");
        assert_eq!(memo.detect(&a), detect(&a));
        assert_eq!(memo.detect(&b), detect(&b));
        assert_eq!(memo.detect(&a).code(), "eng");
        let held: usize = memo.shards.iter().map(|s| s.lock().unwrap().len()).sum();
        assert_eq!(held, 1);
    }

    /// Workers sharing one memo get the model's answers, whichever asked first.
    #[test]
    fn a_memo_shared_by_threads_answers_as_the_model() {
        let memo = Memo::default();
        let texts: Vec<String> = (0..400)
            .map(|i| match i % 3 {
                0 => format!("{i} the quick brown fox jumps over the lazy dog again"),
                1 => format!("{i} le chat est assis sur le tapis et regarde la fenêtre"),
                _ => format!("{i} der schnelle braune Fuchs springt über den faulen Hund"),
            })
            .collect();
        std::thread::scope(|s| {
            for t in 0..4 {
                let (memo, texts) = (&memo, &texts);
                s.spawn(move || {
                    for round in 0..3 {
                        for (i, text) in texts.iter().enumerate() {
                            if (i + t + round) % 2 == 0 {
                                assert_eq!(memo.detect(text), detect(text), "{text}");
                            }
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn a_memo_answers_as_the_model() {
        let memo = Memo::default();
        let texts = [
            "The quick brown fox jumps over the lazy dog while the children watch.",
            "Der schnelle braune Fuchs springt über den faulen Hund im Garten.",
            "1 2 3",
        ];
        for _ in 0..2 {
            for t in texts {
                assert_eq!(memo.detect(t), detect(t), "{t}");
                assert_eq!(memo.detect_bytes(t.as_bytes()), detect_bytes(t.as_bytes()));
            }
        }
        // Past its bound it starts afresh and still answers the same.
        for i in 0..MEMO_TEXTS + 10 {
            let t = format!("{i} le chat est assis sur le tapis et regarde la fenêtre");
            if i % 9_999 == 0 {
                assert_eq!(memo.detect(&t), detect(&t));
            } else {
                memo.detect(&t);
            }
        }
        let held: usize = memo.shards.iter().map(|s| s.lock().unwrap().len()).sum();
        assert!(held <= MEMO_TEXTS);
    }
}
