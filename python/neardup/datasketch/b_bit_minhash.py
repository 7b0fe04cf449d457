"""datasketch's ``bBitMinHash``: a MinHash cut to the lowest ``b`` bits of each value (Li and
König, "b-Bit Minwise Hashing"), with its Jaccard estimator and its pickled bytes.

The bytes (what ``pickle`` stores, and ``bytesize()`` counts), little-endian: seed (int64),
``b`` (uint8), ``r`` (float64), the number of values (int32; for the affine schemes its
negation followed by the scheme's code byte, as in ``LeanMinHash``), then the values packed
into 64-bit blocks: slots of 1, 2, 4, 8, 16 or 32 bits (the least that holds ``b``), the
first value of a block in its highest slot, the last block's unused slots zero."""
import struct

import numpy as np

from neardup.datasketch.minhash import (_LEGACY, _SCHEME_CODES, _SCHEME_CODES_INV,
                                        _valid_scheme)

__all__ = ["bBitMinHash"]

_HEAD = "<qBdi"


def _slot_bits(b):
    """The slot width for ``b``-bit values (0 and 3 bits take 4-bit slots, as in datasketch)."""
    if b <= 2 and b >= 1:
        return b
    for width in (4, 8, 16, 32):
        if b <= width:
            return width
    raise ValueError("Incorrect value of b")


class bBitMinHash:  # noqa: N801  (datasketch's name)
    """``bBitMinHash(minhash, b=1, r=0.0)``: the lowest ``b`` bits (0 to 32) of each of
    ``minhash``'s values, with its seed and scheme. ``r`` is the expected ratio of a set's size
    to the universe's (0.0: unknown, the estimator's limit as it goes to zero). Cannot be
    updated or indexed; compares by :meth:`jaccard` and pickles compactly."""

    __slots__ = ("b", "hashvalues", "r", "scheme", "seed")

    def __init__(self, minhash, b=1, r=0.0):
        b, r = int(b), float(r)
        if b > 32 or b < 0:
            raise ValueError("b must be an integer in [0, 32]")
        if r > 1.0:
            raise ValueError("r must be a float in [0.0, 1.0]")
        mask = (1 << b) - 1
        self.hashvalues = (np.asarray(minhash.hashvalues).astype(np.uint64)
                           & np.uint64(mask)).astype(np.uint32)
        self.seed = minhash.seed
        # A sketch without a scheme (weighted) is refused rather than labelled with one.
        self.scheme = _valid_scheme(getattr(minhash, "scheme", None))
        self.b = b
        self.r = r

    def __eq__(self, other):
        return (type(self) is type(other) and self.scheme == other.scheme
                and self.seed == other.seed and self.b == other.b and self.r == other.r
                and np.array_equal(self.hashvalues, other.hashvalues))

    __hash__ = None

    def jaccard(self, other):
        """The estimated Jaccard similarity, corrected for the chance that two values agree in
        their lowest ``b`` bits only."""
        if self.b != other.b:
            raise ValueError("Cannot compare two b-bit MinHashes with different b values")
        if self.scheme != other.scheme:
            raise ValueError(
                "Cannot compare two b-bit MinHashes with different permutation schemes")
        if self.seed != other.seed:
            raise ValueError(
                "Cannot compare two b-bit MinHashes with different set of permutations")
        agree = np.count_nonzero(self.hashvalues == other.hashvalues)
        raw = float(agree) / float(self.hashvalues.size)
        a1, a2 = _chance(self.r, self.b), _chance(other.r, other.b)
        if self.r == 0.0 and other.r == 0.0:
            c1, c2 = a1, a2
        else:
            w = 1 / (self.r + other.r)
            c1 = (a1 * other.r + a2 * self.r) * w
            c2 = (a1 * self.r + a2 * other.r) * w
        return (raw - c1) / (1 - c2)

    def _layout(self):
        """(slot bits, slots per block, blocks, header format)."""
        slot = _slot_bits(self.b)
        per = 64 // slot
        blocks = -(-self.hashvalues.size // per)
        head = _HEAD if self.scheme == _LEGACY else _HEAD + "B"
        return slot, per, blocks, head

    def bytesize(self):
        """Bytes of the pickled form."""
        _, _, blocks, head = self._layout()
        return struct.calcsize(head) + 8 * blocks

    def __getstate__(self):
        slot, per, blocks, head = self._layout()
        padded = np.zeros(blocks * per, dtype=np.uint64)
        padded[:self.hashvalues.size] = self.hashvalues
        shifts = np.uint64(slot) * np.arange(per - 1, -1, -1, dtype=np.uint64)
        packed = np.bitwise_or.reduce(padded.reshape(blocks, per) << shifts, axis=1) \
            if blocks else np.zeros(0, dtype=np.uint64)
        if self.scheme == _LEGACY:
            params = struct.pack(head, self.seed, self.b, self.r, self.hashvalues.size)
        else:
            params = struct.pack(head, self.seed, self.b, self.r, -self.hashvalues.size,
                                 _SCHEME_CODES[self.scheme])
        return bytearray(params + packed.astype("<u8").tobytes())

    def __setstate__(self, buf):
        view = memoryview(buf)
        self.seed, self.b, self.r, n = struct.unpack_from(_HEAD, view, 0)
        at = struct.calcsize(_HEAD)
        self.scheme = _LEGACY
        if n < 0:
            n = -n
            (code,) = struct.unpack_from("<B", view, at)
            if code not in _SCHEME_CODES_INV:
                raise ValueError("Unknown permutation scheme code: %d" % code)
            self.scheme = _SCHEME_CODES_INV[code]
            at += 1
        slot = _slot_bits(self.b)
        per = 64 // slot
        blocks = -(-n // per)
        if len(view) < at + 8 * blocks:
            raise ValueError("%d bytes hold no b-bit MinHash of %d values" % (len(view), n))
        packed = np.frombuffer(view, dtype="<u8", count=blocks, offset=at).astype(np.uint64)
        shifts = np.uint64(slot) * np.arange(per - 1, -1, -1, dtype=np.uint64)
        mask = np.uint64((1 << slot) - 1)
        values = (packed[:, None] >> shifts) & mask
        self.hashvalues = values.reshape(-1)[:n].astype(np.uint32)


def _chance(r, b):
    """A(r, b): the chance two different values agree in their lowest b bits (datasketch's
    formula, its limit 2^-b when r is 0)."""
    if r == 0.0:
        return 1.0 / (1 << b)
    return r * (1 - r) ** (2 ** b - 1) / (1 - (1 - r) ** (2 * b))
