//! Rabin fingerprints: polynomial arithmetic over GF(2) modulo a fixed irreducible polynomial of
//! degree 64 (Rabin 1981, Broder 1993).
//!
//! A polynomial of degree < 64 is a `u64` whose bit `i` is the coefficient of `t^i`. The modulus
//! `P(t) = t^64 + p(t)` is stored as `p` (its low 64 bits).
//!
//! * The fingerprint of a byte string `M` is `(t^d + M(t)) · t^64 mod P`, where `M(t)` reads the
//!   bytes most significant bit first and `d` is the bit length of `M`: the leading `1` makes
//!   leading zero bytes count, the factor `t^64` makes the map of 8-byte strings one-to-one.
//! * [`Rabin::shift64`] is the one-to-one function `x ↦ x(t) · t^64 mod P` on 64-bit values,
//!   used as the min-hash functions of paper 004 (84 of them, each with its own polynomial).
//!
//! Everything is table-driven (8 tables of 256 entries for a linear map of 64 bits), portable and
//! bit-identical on every platform. Irreducible polynomials are drawn deterministically from a
//! seed (SplitMix64) and tested with Ben-Or's algorithm.

/// Multiplies two polynomials of degree < 64 modulo `t^64 + p`.
pub fn mul_mod(a: u64, b: u64, p: u64) -> u64 {
    let mut r = 0u64;
    for i in (0..64).rev() {
        let carry = r >> 63;
        r <<= 1;
        if carry != 0 {
            r ^= p;
        }
        if (b >> i) & 1 != 0 {
            r ^= a;
        }
    }
    r
}

/// `a^e mod (t^64 + p)`.
pub fn pow_mod(mut a: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1u64;
    while e > 0 {
        if e & 1 != 0 {
            r = mul_mod(r, a, p);
        }
        a = mul_mod(a, a, p);
        e >>= 1;
    }
    r
}

fn degree(a: u128) -> i32 {
    127 - a.leading_zeros() as i32
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        // a mod b
        let db = degree(b);
        while a != 0 && degree(a) >= db {
            a ^= b << (degree(a) - db);
        }
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// True when `t^64 + p` is irreducible over GF(2) (Ben-Or: no factor of degree <= 32).
pub fn is_irreducible(p: u64) -> bool {
    if p & 1 == 0 {
        return false; // divisible by t
    }
    let full: u128 = (1u128 << 64) | p as u128;
    let mut h = 2u64; // t
    for _ in 1..=32 {
        h = mul_mod(h, h, p); // t^(2^i) mod P
        let g = gcd(full, (h ^ 2) as u128);
        if g != 1 {
            return false;
        }
    }
    true
}

/// SplitMix64: the seeded generator behind every random choice in neardup's signatures.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        fmix(self.0)
    }
}

pub(crate) const FMIX_M1: u64 = 0xBF58_476D_1CE4_E5B9;
pub(crate) const FMIX_M2: u64 = 0x94D0_49BB_1331_11EB;

/// SplitMix64's output function, a bijection of 64-bit values (also the one-permutation
/// family's permutation, [`crate::oph`]).
#[inline(always)]
pub fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(FMIX_M1);
    z = (z ^ (z >> 27)).wrapping_mul(FMIX_M2);
    z ^ (z >> 31)
}

/// The inverse of [`fmix`]: `fmix_inverse(fmix(x)) == x` (its xorshifts undone, its
/// multipliers inverted modulo 2^64).
#[inline]
pub fn fmix_inverse(mut z: u64) -> u64 {
    z = unxorshift(z, 31).wrapping_mul(FMIX_M2_INVERSE);
    z = unxorshift(z, 27).wrapping_mul(FMIX_M1_INVERSE);
    unxorshift(z, 30)
}

/// `x` such that `x ^ (x >> s) == y`.
#[inline(always)]
const fn unxorshift(y: u64, s: u32) -> u64 {
    let mut x = y;
    let mut known = s;
    while known < 64 {
        x = y ^ (x >> s);
        known += s;
    }
    x
}

/// `c^-1` modulo 2^64 for an odd `c` (Newton's iteration doubles the correct low bits).
const fn inverse_mod_2_64(c: u64) -> u64 {
    let mut x = c;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
        i += 1;
    }
    x
}

const FMIX_M1_INVERSE: u64 = inverse_mod_2_64(FMIX_M1);
const FMIX_M2_INVERSE: u64 = inverse_mod_2_64(FMIX_M2);

/// Draws `n` distinct irreducible polynomials of degree 64 from `seed`.
pub fn irreducible_polys(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    let mut out: Vec<u64> = Vec::with_capacity(n);
    while out.len() < n {
        let p = rng.next_u64() | 1;
        if !out.contains(&p) && is_irreducible(p) {
            out.push(p);
        }
    }
    out
}

/// A linear map of 64-bit values over GF(2), evaluated with 8 tables of 256 entries.
#[derive(Clone)]
pub struct Linear64 {
    table: Box<[[u64; 256]; 8]>,
}

impl Linear64 {
    /// The map `x ↦ x · c mod (t^64 + p)`.
    pub fn mul_const(c: u64, p: u64) -> Linear64 {
        let mut table = Box::new([[0u64; 256]; 8]);
        for (byte, t) in table.iter_mut().enumerate() {
            let mut basis = [0u64; 8];
            for (bit, b) in basis.iter_mut().enumerate() {
                *b = mul_mod(1u64 << (8 * byte + bit), c, p);
            }
            for v in 1..256usize {
                let low = v.trailing_zeros() as usize;
                t[v] = t[v & (v - 1)] ^ basis[low];
            }
        }
        Linear64 { table }
    }

    /// Applies the map.
    #[inline(always)]
    pub fn apply(&self, x: u64) -> u64 {
        let t = &self.table;
        t[0][(x & 0xff) as usize]
            ^ t[1][((x >> 8) & 0xff) as usize]
            ^ t[2][((x >> 16) & 0xff) as usize]
            ^ t[3][((x >> 24) & 0xff) as usize]
            ^ t[4][((x >> 32) & 0xff) as usize]
            ^ t[5][((x >> 40) & 0xff) as usize]
            ^ t[6][((x >> 48) & 0xff) as usize]
            ^ t[7][(x >> 56) as usize]
    }
}

/// Rabin fingerprinting modulo one irreducible polynomial.
#[derive(Clone)]
pub struct Rabin {
    p: u64,
    /// `top(t) · t^64 mod P` for the byte shifted out when appending a byte.
    reduce: Box<[u64; 256]>,
    /// `x ↦ x · t^64 mod P`.
    shift: Linear64,
    /// The inverse map, `y ↦ y · t^-64 mod P`.
    unshift: Linear64,
}

impl std::fmt::Debug for Rabin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rabin({:#018x})", self.p)
    }
}

impl Rabin {
    /// Fingerprinting modulo `t^64 + p`; `p` must make it irreducible.
    pub fn new(p: u64) -> Rabin {
        debug_assert!(is_irreducible(p));
        let mut reduce = Box::new([0u64; 256]);
        let t64 = p; // t^64 mod P = p
        for (top, r) in reduce.iter_mut().enumerate() {
            *r = mul_mod(top as u64, t64, p);
        }
        // t^-64 = t^(2^64 - 1 - 64) since the multiplicative group has order 2^64 - 1.
        let inv = pow_mod(2, u64::MAX - 64, p);
        Rabin {
            p,
            reduce,
            shift: Linear64::mul_const(t64, p),
            unshift: Linear64::mul_const(inv, p),
        }
    }

    /// The polynomial's low 64 bits.
    pub fn poly(&self) -> u64 {
        self.p
    }

    /// Appends one byte to a running residue: `(s · t^8 + b) mod P`.
    #[inline(always)]
    pub fn push_byte(&self, s: u64, b: u8) -> u64 {
        (s << 8 | b as u64) ^ self.reduce[(s >> 56) as usize]
    }

    /// Appends the 8 little-endian bytes of `x` to a running residue.
    #[inline(always)]
    pub fn push_u64(&self, s: u64, x: u64) -> u64 {
        // (s · t^64 + x') mod P where x' is x's bytes read most significant bit first.
        self.shift.apply(s) ^ x.swap_bytes()
    }

    /// The start state of a fingerprint (the leading `1`).
    pub const START: u64 = 1;

    /// Ends a fingerprint: multiplies the residue by `t^64`.
    #[inline(always)]
    pub fn finish(&self, s: u64) -> u64 {
        self.shift.apply(s)
    }

    /// The fingerprint of a byte string.
    pub fn fingerprint(&self, bytes: &[u8]) -> u64 {
        let mut s = Self::START;
        for &b in bytes {
            s = self.push_byte(s, b);
        }
        self.finish(s)
    }

    /// The fingerprint of a sequence of 64-bit values (each as 8 little-endian bytes).
    pub fn fingerprint_u64s(&self, xs: &[u64]) -> u64 {
        let mut s = Self::START;
        for &x in xs {
            s = self.push_u64(s, x);
        }
        self.finish(s)
    }

    /// The one-to-one function `x ↦ x · t^64 mod P`.
    #[inline(always)]
    pub fn shift64(&self, x: u64) -> u64 {
        self.shift.apply(x)
    }

    /// The inverse of [`Rabin::shift64`].
    #[inline(always)]
    pub fn unshift64(&self, y: u64) -> u64 {
        self.unshift.apply(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A well-known irreducible degree-64 polynomial: t^64 + t^4 + t^3 + t + 1.
    const KNOWN: u64 = 0b11011;

    #[test]
    fn irreducibility() {
        assert!(is_irreducible(KNOWN));
        assert!(!is_irreducible(0b11010)); // even: divisible by t
        assert!(!is_irreducible(1)); // t^64 + 1 = (t + 1)^64
        assert!(!is_irreducible(0b111)); // t^64 + t^2 + t + 1 has root 1 (even weight)
        let polys = irreducible_polys(42, 5);
        assert_eq!(polys, irreducible_polys(42, 5), "deterministic");
        assert!(polys.iter().all(|&p| is_irreducible(p)));
    }

    #[test]
    fn arithmetic() {
        let p = KNOWN;
        assert_eq!(mul_mod(1, 12345, p), 12345);
        assert_eq!(mul_mod(2, 1 << 63, p), p); // t · t^63 = t^64 = p
        let a = 0x0123_4567_89ab_cdef;
        let b = 0xfedc_ba98_7654_3210;
        assert_eq!(mul_mod(a, b, p), mul_mod(b, a, p));
        // Fermat in GF(2^64): a^(2^64 - 1) = 1.
        assert_eq!(pow_mod(a, u64::MAX, p), 1);
    }

    #[test]
    fn shift_is_one_to_one_and_inverted() {
        let r = Rabin::new(irreducible_polys(7, 1)[0]);
        let mut rng = SplitMix64(1);
        for _ in 0..1000 {
            let x = rng.next_u64();
            assert_eq!(r.unshift64(r.shift64(x)), x);
            assert_eq!(r.shift64(x), mul_mod(x, r.poly(), r.poly()));
        }
    }

    #[test]
    fn table_fingerprint_matches_polynomial_definition() {
        let r = Rabin::new(KNOWN);
        let p = KNOWN;
        // (t^d + M(t)) · t^64 mod P, computed bit by bit.
        let slow = |m: &[u8]| {
            let mut s = 1u64;
            for &b in m {
                for i in (0..8).rev() {
                    let carry = s >> 63;
                    s = s << 1 | ((b >> i) & 1) as u64;
                    if carry != 0 {
                        s ^= p;
                    }
                }
            }
            mul_mod(s, p, p)
        };
        for m in [&b""[..], b"a", b"\0a", b"hello world", &[0xffu8; 40]] {
            assert_eq!(r.fingerprint(m), slow(m), "{m:?}");
        }
        assert_ne!(r.fingerprint(b"a"), r.fingerprint(b"\0a"));
        let xs = [1u64, 2, u64::MAX];
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(r.fingerprint_u64s(&xs), r.fingerprint(&bytes));
    }

    #[test]
    fn golden_values_never_change() {
        // Signatures must be bit-identical across releases: pin the seeded polynomials and a
        // fingerprint. Changing these breaks every stored signature file.
        let polys = irreducible_polys(0x6e65_6172_6475_7001, 2);
        let r = Rabin::new(polys[0]);
        assert_eq!(
            (polys[0], polys[1], r.fingerprint(b"near duplicate")),
            (GOLDEN.0, GOLDEN.1, GOLDEN.2)
        );
    }

    const GOLDEN: (u64, u64, u64) = (
        18017940365340202563,
        16401482990410203971,
        8455434364539121137,
    );
}
