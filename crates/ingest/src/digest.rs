//! Payload digests as web archives write them: `sha1:` and the SHA-1 of the payload in RFC 4648
//! base32 (the `WARC-Payload-Digest` of warcio, wget, Heritrix and warcprox, and the CDX
//! `digest` field without its prefix), and SHA-256 as crawlers that use it write it (Browsertrix:
//! `sha256:` and hex). [`PayloadDigest::parse`] reads any of these forms, once, for every door.

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

/// A SHA-256 payload digest; all zeros stands for "unknown".
pub type Sha256Digest = [u8; 32];

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> Sha256Digest {
    sha2::Sha256::digest(bytes).into()
}

/// A payload digest in either algorithm archives and crawlers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadDigest {
    /// SHA-1 (WARC's usual `WARC-Payload-Digest`, CDX `digest`).
    Sha1(Sha1Digest),
    /// SHA-256.
    Sha256(Sha256Digest),
}

impl PayloadDigest {
    /// A digest in any form it is written in: `sha1:` or `sha256:` (also `sha-1:`, `sha-256:`,
    /// any case) or no prefix, then base32 (any case, `=` padding optional) or hex. Without a
    /// prefix the length says the algorithm (32 base32 or 40 hex characters: SHA-1; 52 base32
    /// or 64 hex: SHA-256); with one, the length must agree. `None` for anything else.
    pub fn parse(s: &str) -> Option<PayloadDigest> {
        let s = s.trim();
        let (algo, body) = match s.split_once(':') {
            Some((a, b)) => {
                let a = a.to_ascii_lowercase();
                match a.as_str() {
                    "sha1" | "sha-1" => (Some(1), b),
                    "sha256" | "sha-256" => (Some(256), b),
                    _ => return None,
                }
            }
            None => (None, s),
        };
        let padded = body.trim_end_matches('=');
        let d = match body.len() {
            40 => PayloadDigest::Sha1(hex(body)?),
            64 => PayloadDigest::Sha256(hex(body)?),
            _ => match padded.len() {
                32 => PayloadDigest::Sha1(unbase32(padded)?),
                52 => PayloadDigest::Sha256(unbase32(padded)?),
                _ => return None,
            },
        };
        match (algo, d) {
            (None, d) | (Some(1), d @ PayloadDigest::Sha1(_)) => Some(d),
            (Some(256), d @ PayloadDigest::Sha256(_)) => Some(d),
            _ => None,
        }
    }

    /// The digest as one string: `sha1:BASE32` (WARC's form) or `sha256:` and lowercase hex
    /// (the form crawlers using SHA-256 write).
    pub fn canonical(&self) -> String {
        match self {
            PayloadDigest::Sha1(d) => format!("sha1:{}", base32(d)),
            PayloadDigest::Sha256(d) => {
                let mut s = String::from("sha256:");
                for b in d {
                    s.push_str(&format!("{b:02x}"));
                }
                s
            }
        }
    }
}

/// `N` bytes from `2N` hex digits (any case).
fn hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N || !s.is_ascii() {
        return None;
    }
    let mut d = [0u8; N];
    for (i, pair) in s.as_bytes().chunks(2).enumerate() {
        let h = std::str::from_utf8(pair).ok()?;
        d[i] = u8::from_str_radix(h, 16).ok()?;
    }
    Some(d)
}

/// `N` bytes from RFC 4648 base32 without padding (any case); the bits past the last byte
/// must be zero.
fn unbase32<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != (N * 8).div_ceil(5) {
        return None;
    }
    let mut d = [0u8; N];
    let (mut acc, mut bits, mut at) = (0u32, 0u32, 0usize);
    for &c in s.as_bytes() {
        let x = ALPHABET.iter().position(|&a| a == c.to_ascii_uppercase())? as u32;
        acc = (acc << 5) | x;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            d[at] = (acc >> bits) as u8;
            at += 1;
            acc &= (1 << bits) - 1;
        }
    }
    (acc == 0).then_some(d)
}

/// A SHA-1 digest as given in a WARC header or a CDX line ([`PayloadDigest::parse`]); `None`
/// for anything else, other algorithms included.
pub fn parse_sha1(s: &str) -> Option<Sha1Digest> {
    match PayloadDigest::parse(s)? {
        PayloadDigest::Sha1(d) => Some(d),
        PayloadDigest::Sha256(_) => None,
    }
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
    fn sha256_in_every_form() {
        let empty = sha256(b"");
        let hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let digest = PayloadDigest::Sha256(empty);
        let want = Some(digest);
        // RFC 4648 base32 of the same 32 bytes (52 characters, 4 of padding).
        let b32 = "4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ";
        for form in [
            format!("sha256:{hex}"),
            format!("SHA-256:{}", hex.to_uppercase()),
            hex.to_string(),
            format!("sha256:{b32}"),
            format!("{b32}===="),
            b32.to_lowercase(),
        ] {
            assert_eq!(PayloadDigest::parse(&form), want, "{form}");
        }
        assert_eq!(digest.canonical(), format!("sha256:{hex}"));
        // A prefix that disagrees with the length, and bits past the end, are refused.
        for bad in [
            format!("sha1:{hex}"),
            "sha256:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ".to_string(),
            format!("{}R", &b32[..51]),
            format!("md5:{hex}"),
        ] {
            assert_eq!(PayloadDigest::parse(&bad), None, "{bad}");
        }
        let s1 = sha1(b"");
        assert_eq!(
            PayloadDigest::parse("SHA-1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"),
            Some(PayloadDigest::Sha1(s1))
        );
    }

    #[test]
    fn round_trips() {
        for i in 0..200u32 {
            let d = sha1(&i.to_le_bytes());
            assert_eq!(parse_sha1(&format!("sha1:{}", base32(&d))), Some(d));
        }
    }
}
