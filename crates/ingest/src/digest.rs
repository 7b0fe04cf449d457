//! Payload digests as web archives write them: `sha1:` and the SHA-1 of the payload in RFC 4648
//! base32 (the `WARC-Payload-Digest` of warcio, wget, Heritrix and warcprox, and the CDX
//! `digest` field without its prefix).

use sha1::{Digest, Sha1};

/// A SHA-1 payload digest; all zeros stands for "unknown".
pub type Sha1Digest = [u8; 20];

const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The SHA-1 of `bytes`.
pub fn sha1(bytes: &[u8]) -> Sha1Digest {
    Sha1::digest(bytes).into()
}

/// `d` in base32 (32 characters, no padding needed for 20 bytes).
pub fn base32(d: &Sha1Digest) -> String {
    let mut out = String::with_capacity(32);
    for chunk in d.chunks(5) {
        let v = chunk.iter().fold(0u64, |a, &b| (a << 8) | b as u64);
        for i in (0..8).rev() {
            out.push(ALPHABET[((v >> (i * 5)) & 31) as usize] as char);
        }
    }
    out
}

/// A digest as given in a WARC header or a CDX line: `sha1:BASE32`, `BASE32`, or 40 hex
/// digits (`sha1:` prefix optional, any case). `None` for anything else, other algorithms
/// included.
pub fn parse_sha1(s: &str) -> Option<Sha1Digest> {
    let s = s.trim();
    let s = match s.get(..5) {
        Some(p) if p.eq_ignore_ascii_case("sha1:") => &s[5..],
        _ => s,
    };
    let mut d = [0u8; 20];
    match s.len() {
        32 => {
            for (i, chunk) in s.as_bytes().chunks(8).enumerate() {
                let mut v = 0u64;
                for &c in chunk {
                    let c = c.to_ascii_uppercase();
                    let x = ALPHABET.iter().position(|&a| a == c)? as u64;
                    v = (v << 5) | x;
                }
                d[i * 5..i * 5 + 5].copy_from_slice(&v.to_be_bytes()[3..]);
            }
        }
        40 => {
            for (i, pair) in s.as_bytes().chunks(2).enumerate() {
                let h = std::str::from_utf8(pair).ok()?;
                d[i] = u8::from_str_radix(h, 16).ok()?;
            }
        }
        _ => return None,
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // The SHA-1 of the empty string, in the forms archives write it.
        let empty = sha1(b"");
        assert_eq!(base32(&empty), "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(
            parse_sha1("sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"),
            Some(empty)
        );
        assert_eq!(parse_sha1("3i42h3s6nnfq2msvx7xzkyayscx5qbyj"), Some(empty));
        assert_eq!(
            parse_sha1("da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            Some(empty)
        );
        for bad in [
            "",
            "sha1:",
            "md5:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
            "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBY1",
            "é".repeat(16).as_str(),
        ] {
            assert_eq!(parse_sha1(bad), None, "{bad}");
        }
    }

    #[test]
    fn round_trips() {
        for i in 0..200u32 {
            let d = sha1(&i.to_le_bytes());
            assert_eq!(parse_sha1(&format!("sha1:{}", base32(&d))), Some(d));
        }
    }
}
