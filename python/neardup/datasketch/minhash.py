"""datasketch's ``MinHash`` and ``LeanMinHash``, value for value (see ``neardup.datasketch``).

datasketch 2's three permutation schemes (``neardup_sketch::permutation`` computes each):
``"affine32"`` (the default since datasketch 2.0: the element hash premixed by MurmurHash3's
32-bit finalizer, then ``a * h + b mod 2^32`` with ``a`` odd, values stored as uint32),
``"affine64"`` (the same over 64 bits, with ``sha1_hash64``) and ``"legacy"`` (datasketch
before 2.0: ``(a * h + b) mod (2^61 - 1)`` cut to 32 bits, stored as uint64). Values of two
schemes are never compared, merged or indexed together."""
import copy as _copy
import struct
import warnings

import numpy as np

from neardup import _neardup

__all__ = ["MinHash", "LeanMinHash", "sha1_hash32", "sha1_hash64"]

# datasketch's constants, from the native module that computes with them.
_mersenne_prime = np.uint64(_neardup.MERSENNE_61)
_max_hash = np.uint64(_neardup.MAX_HASH)
_hash_range = _neardup.MAX_HASH + 1

# datasketch's element hashes: the first 4 (8) bytes of SHA-1, little-endian.
sha1_hash32 = _neardup.sha1_hash32
sha1_hash64 = _neardup.sha1_hash64

_LEGACY, _AFFINE32, _AFFINE64 = "legacy", "affine32", "affine64"
_VALID_SCHEMES = (_AFFINE32, _AFFINE64, _LEGACY)
# Per scheme: how values are stored, the largest (every value of an empty signature), the
# width of the affine maps, the default element hash.
_DTYPES = {_LEGACY: np.uint64, _AFFINE32: np.uint32, _AFFINE64: np.uint64}
_MAX = {_LEGACY: _max_hash, _AFFINE32: np.uint32(0xFFFFFFFF), _AFFINE64: np.uint64(2**64 - 1)}
_WIDTHS = {_AFFINE32: 32, _AFFINE64: 64}
_DEFAULT_HASH = {_LEGACY: sha1_hash32, _AFFINE32: sha1_hash32, _AFFINE64: sha1_hash64}
# The scheme byte of LeanMinHash and bBitMinHash bytes (legacy bytes predate it and have none).
_SCHEME_CODES = {_AFFINE32: 1, _AFFINE64: 2}
_SCHEME_CODES_INV = {code: scheme for scheme, code in _SCHEME_CODES.items()}


def _valid_scheme(scheme):
    if scheme not in _VALID_SCHEMES:
        raise ValueError("scheme must be one of %s, got %r" % (", ".join(_VALID_SCHEMES), scheme))
    return scheme


def _check_scheme_consistency(known, minhash):
    """The scheme an LSH index holds after being given ``minhash``: ``known`` (or the
    signature's, when none is known yet); a signature of another scheme is refused, since its
    values would match nothing or match wrongly. Signatures without a scheme (weighted) pass."""
    scheme = getattr(minhash, "scheme", None)
    if scheme is None:
        return known
    if known is not None and scheme != known:
        raise ValueError("MinHash scheme %r does not match scheme %r of the MinHash previously "
                         "given to this index" % (scheme, known))
    return known if known is not None else scheme


def _as_scheme_array(values, scheme, what):
    """``values`` in the scheme's dtype, refusing any that does not fit (never rounded)."""
    dtype = _DTYPES[scheme]
    if scheme == _LEGACY:
        return np.array(values, dtype=np.uint64)
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "iu" and values.size and (
                int(values.max()) > int(_MAX[scheme]) or int(values.min()) < 0):
            raise ValueError("%s out of range for scheme %r" % (what, scheme))
        return values.astype(dtype)
    try:
        return np.array(values, dtype=dtype)
    except OverflowError as e:
        raise ValueError("%s out of range for scheme %r: %s" % (what, scheme, e)) from e


_PERMUTATIONS = {}


def _draw_permutations(num_perm, seed, scheme=_LEGACY):
    """datasketch's permutations of (num_perm, seed, scheme): numpy's RandomState draws, in its
    order (legacy: a in [1, p), b in [0, p) pair by pair; affine: every a = 2 * draw + 1, then
    every b)."""
    key = (num_perm, seed, scheme)
    got = _PERMUTATIONS.get(key)
    if got is None:
        gen = np.random.RandomState(seed)
        if scheme == _LEGACY:
            rows = np.empty((num_perm, 2), dtype=np.uint64)
            for i in range(num_perm):
                rows[i, 0] = gen.randint(1, _mersenne_prime, dtype=np.uint64)
                rows[i, 1] = gen.randint(0, _mersenne_prime, dtype=np.uint64)
            perms = rows.T
        else:
            width, dtype = _WIDTHS[scheme], _DTYPES[scheme]
            a = gen.randint(0, 1 << (width - 1), num_perm, dtype=dtype) * dtype(2) + dtype(1)
            b = gen.randint(0, 1 << width, num_perm, dtype=dtype)
            perms = np.array([a, b])
        perms.setflags(write=False)
        got = (perms, _native_permutations(perms, scheme))
        if len(_PERMUTATIONS) < 64:
            _PERMUTATIONS[key] = got
    return got


def _parse_permutations(permutations, scheme):
    """A user's permutations as the scheme holds them (an affine ``a`` must be odd)."""
    if scheme == _LEGACY:
        return permutations
    dtype = _DTYPES[scheme]
    if isinstance(permutations, np.ndarray) and permutations.dtype == dtype \
            and permutations.ndim == 2 and permutations.shape[0] == 2:
        parsed = permutations
    else:
        parsed = np.array([_as_scheme_array(permutations[0], scheme, "permutation parameters"),
                           _as_scheme_array(permutations[1], scheme, "permutation parameters")])
    if np.any(parsed[0] & dtype(1) == 0):
        raise ValueError("all `a` permutation parameters must be odd for scheme %r" % scheme)
    return parsed


def _native_permutations(perms, scheme=_LEGACY):
    a = np.ascontiguousarray(np.asarray(perms[0], dtype=np.uint64), dtype="<u8")
    b = np.ascontiguousarray(np.asarray(perms[1], dtype=np.uint64), dtype="<u8")
    return _neardup.Permutations(a.tobytes(), b.tobytes(), scheme)


def _native_of(perms, num_perm, seed, scheme):
    """The native family of ``perms``: the cached draw's when they are the draw."""
    cached = _PERMUTATIONS.get((num_perm, seed, scheme))
    if cached is not None and (cached[0] is perms or np.array_equal(cached[0], perms)):
        return cached[1]
    return _native_permutations(perms, scheme)


def _union_values(mhs):
    """(num_perm, seed, scheme, values) of the union of several signatures, datasketch's
    checks."""
    if len(mhs) < 2:
        raise ValueError("Cannot union less than 2 MinHash")
    num_perm = len(mhs[0])
    seed = mhs[0].seed
    scheme = mhs[0].scheme
    if any((seed != m.seed or num_perm != len(m) or scheme != m.scheme) for m in mhs):
        raise ValueError("The unioning MinHash must have the same seed, number of permutation "
                         "functions and scheme")
    return num_perm, seed, scheme, np.minimum.reduce([m.hashvalues for m in mhs])


class MinHash:
    """datasketch's ``MinHash(num_perm=128, seed=1, gpu_mode="disable", hashfunc=None,
    hashobj=None, hashvalues=None, permutations=None, scheme=None)``, with its values, errors
    and pickles, in each of datasketch 2's schemes: ``"affine32"`` by default (datasketch
    2.0's), ``"affine64"``, and ``"legacy"`` (the values of datasketch before 2.0; pass it to
    match signatures made by datasketch 1.x). As in datasketch 2, a signature made from given
    ``hashvalues`` or ``permutations`` must name its scheme."""

    def __init__(self, num_perm=128, seed=1, gpu_mode="disable", hashfunc=None,
                 hashobj=None, hashvalues=None, permutations=None, scheme=None):
        if scheme is None:
            if hashvalues is not None or permutations is not None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values or permutations: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for values created by datasketch before 2.0.0.")
            scheme = _AFFINE32
        self.scheme = _valid_scheme(scheme)
        if hashvalues is not None:
            num_perm = len(hashvalues)
        if num_perm < 1:
            raise ValueError("num_perm must be positive")
        if num_perm > _hash_range:
            raise ValueError("Cannot have more than %d number of permutation functions"
                             % _hash_range)
        if gpu_mode not in ("disable", "detect", "always"):
            raise ValueError("gpu_mode must be 'disable', 'detect' or 'always'")
        if gpu_mode == "always":
            raise RuntimeError("GPU mode 'always' requested but CuPy/CUDA device is unavailable.")
        self.seed = seed
        self.num_perm = num_perm
        if hashfunc is None:
            hashfunc = _DEFAULT_HASH[scheme]
        if not callable(hashfunc):
            raise ValueError("The hashfunc must be a callable.")
        self.hashfunc = hashfunc
        if hashobj is not None:
            warnings.warn("hashobj is deprecated, use hashfunc instead.", DeprecationWarning,
                          stacklevel=2)
        values = None if hashvalues is None else _as_scheme_array(hashvalues, scheme,
                                                                   "hash values")
        if permutations is not None:
            self.permutations = _parse_permutations(permutations, scheme)
            native = _native_of(self.permutations, num_perm, seed, scheme)
        else:
            self.permutations, native = _draw_permutations(num_perm, seed, scheme)
        if num_perm != len(self.permutations[0]):
            raise ValueError("Numbers of hash values and permutations mismatch")
        self._gpu_mode = gpu_mode
        self._state = _neardup.Signature(native)
        self._array = values

    # The state: native values, or an array read from them (the truth until the next update).
    @property
    def hashvalues(self):
        if self._array is None:
            self._array = np.frombuffer(self._state.values(), dtype="<u8").astype(
                _DTYPES[self.scheme], copy=False)
        return self._array

    @hashvalues.setter
    def hashvalues(self, values):
        self._array = np.array(values, dtype=_DTYPES[self.scheme])

    def _native(self):
        if self._array is not None:
            self._state.set_values(np.ascontiguousarray(self._array, dtype="<u8").tobytes())
            self._array = None
        return self._state

    def update(self, b):
        """Adds one element: hashed by ``hashfunc`` (bytes for the default hashes)."""
        if self.hashfunc is _DEFAULT_HASH[self.scheme]:
            self._native().update_bytes(b)
        else:
            self._native().update_hash(self.hashfunc(b))

    def update_batch(self, b):
        """Adds every element of an iterable."""
        if self.hashfunc is _DEFAULT_HASH[self.scheme]:
            self._native().update_bytes_batch(b)
        else:
            hashfunc = self.hashfunc
            self._native().update_hashes([hashfunc(x) for x in b])

    def _check(self, other, what):
        if getattr(other, "scheme", None) != self.scheme:
            raise ValueError("Cannot %s given MinHash with different permutation schemes" % what)
        if other.seed != self.seed:
            raise ValueError("Cannot %s given MinHash with different seeds" % what)
        if len(self) != len(other):
            raise ValueError("Cannot %s given MinHash with different numbers of permutation "
                             "functions" % what)

    def jaccard(self, other):
        """The estimated Jaccard similarity: the share of equal values (1.0 for two empty)."""
        self._check(other, "compute Jaccard")
        return float(np.count_nonzero(self.hashvalues == other.hashvalues)) / float(len(self))

    def count(self):
        """The estimated number of distinct elements."""
        k = len(self)
        return float(k) / np.sum(self.hashvalues / float(_MAX[self.scheme])) - 1.0

    def merge(self, other):
        """Makes this the signature of the union of both sets."""
        self._check(other, "merge")
        self.hashvalues = np.minimum(other.hashvalues, self.hashvalues)

    def digest(self):
        """A copy of the values."""
        return _copy.copy(self.hashvalues)

    def is_empty(self):
        return not np.any(self.hashvalues != _MAX[self.scheme])

    def clear(self):
        self.hashvalues = np.full(len(self), _MAX[self.scheme], dtype=_DTYPES[self.scheme])

    def copy(self):
        return MinHash(seed=self.seed, hashfunc=self.hashfunc, hashvalues=self.digest(),
                       permutations=self.permutations, gpu_mode=self._gpu_mode,
                       scheme=self.scheme)

    def __len__(self):
        return len(self.permutations[0]) if self._array is None else len(self._array)

    def __eq__(self, other):
        return (type(self) is type(other) and self.scheme == other.scheme
                and self.seed == other.seed
                and np.array_equal(self.hashvalues, other.hashvalues))

    __hash__ = None

    def __getstate__(self):
        # datasketch's attributes (the pickle names this module's class).
        return {"scheme": self.scheme, "seed": self.seed, "num_perm": len(self),
                "hashfunc": self.hashfunc, "hashvalues": self.hashvalues,
                "permutations": self.permutations, "_gpu_mode": self._gpu_mode,
                "_a_gpu": None, "_b_gpu": None}

    def __setstate__(self, state):
        # Pickles from before datasketch 2.0 have no scheme: they are legacy ones.
        self.scheme = _valid_scheme(state.get("scheme", _LEGACY))
        perms = state["permutations"]
        self.seed = state["seed"]
        self.hashfunc = state.get("hashfunc", _DEFAULT_HASH[self.scheme])
        self.permutations = perms
        self.num_perm = len(perms[0])
        self._gpu_mode = state.get("_gpu_mode", "disable")
        self._state = _neardup.Signature(_native_of(perms, self.num_perm, self.seed,
                                                    self.scheme))
        self._array = None
        self.hashvalues = state["hashvalues"]

    @classmethod
    def union(cls, *mhs):
        """A new signature of the union of several."""
        num_perm, seed, scheme, hashvalues = _union_values(mhs)
        return cls(num_perm=num_perm, seed=seed, hashfunc=mhs[0].hashfunc,
                   hashvalues=hashvalues, permutations=mhs[0].permutations,
                   gpu_mode=mhs[0]._gpu_mode, scheme=scheme)

    @classmethod
    def bulk(cls, b, **minhash_kwargs):
        """A list of signatures, one per iterable of elements in ``b``. An Arrow list column
        (pyarrow ``Array``/``ChunkedArray``, one set per row) is read natively, no Python call
        per row: see :func:`bulk_hashvalues`."""
        scheme = minhash_kwargs.get("scheme") or _AFFINE32
        if _is_arrow_column(b) and minhash_kwargs.get("permutations") is None \
                and minhash_kwargs.get("hashfunc") in (None, _DEFAULT_HASH.get(scheme)):
            template = cls(**minhash_kwargs)
            out = []
            for row in bulk_hashvalues(b, num_perm=len(template), seed=template.seed,
                                       scheme=template.scheme):
                m = template.copy()
                m.hashvalues = row
                out.append(m)
            return out
        return list(cls.generator(b, **minhash_kwargs))

    @classmethod
    def generator(cls, b, **minhash_kwargs):
        """Signatures one per iterable of elements in ``b``, made as they are asked for."""
        m = cls(**minhash_kwargs)
        for _b in b:
            _m = m.copy()
            _m.update_batch(_b)
            yield _m


def _is_arrow_column(b):
    return hasattr(b, "__arrow_c_array__") or (hasattr(b, "chunks") and hasattr(b, "type"))


def bulk_hashvalues(column, num_perm=128, seed=1, threads=None, scheme="affine32"):
    """The ``hashvalues`` of one datasketch ``MinHash`` per row of an Arrow list column, as a
    ``(rows, num_perm)`` numpy array (uint32 for ``"affine32"``, else uint64), computed natively
    on every core: what ``MinHash.bulk`` makes, without a Python object per row or element.

    Each row is one set; its elements are binary or strings (hashed by the scheme's default
    hash, ``sha1_hash32`` or for ``"affine64"`` ``sha1_hash64``; a string as its UTF-8 bytes,
    what ``.encode()`` gives) or integers (taken as hashes already made, as a ``hashfunc``
    returning them would). A null row is an empty set; a null element is an error. ``column``
    is a pyarrow ``Array`` or ``ChunkedArray`` (a table's column) or any Arrow array
    (``__arrow_c_array__``).
    """
    _, native = _draw_permutations(num_perm, seed, _valid_scheme(scheme))
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    parts = [np.frombuffer(_neardup.bulk_values(native, c, threads), dtype="<u8")
             for c in chunks]
    flat = np.concatenate(parts) if parts else np.empty(0, dtype="<u8")
    return flat.astype(_DTYPES[scheme], copy=False).reshape(-1, num_perm)


# A value's struct character in LeanMinHash bytes, per scheme.
_VALUE_FMT = {_LEGACY: "I", _AFFINE32: "I", _AFFINE64: "Q"}


def _lean_layout(scheme, num_perm, byteorder):
    """The struct format of LeanMinHash bytes and the offset of its values: legacy bytes are
    seed (q), length (i), values (I); the affine ones seed, minus the length, the scheme's code
    (B), values (I or Q, aligned as struct aligns them in native order)."""
    fmt = _VALUE_FMT[scheme]
    if scheme == _LEGACY:
        head = "%sqi" % byteorder
    else:
        head = "%sqiB0%s" % (byteorder, fmt)
    return head, "%s%d%s" % (byteorder, num_perm, fmt), struct.calcsize(head)


class LeanMinHash(MinHash):
    """datasketch's ``LeanMinHash``: a signature's seed, scheme and values only, no updates; its
    ``serialize`` bytes and pickles are datasketch 2's (legacy ones those of datasketch 1,
    which it also reads)."""

    def _initialize_slots(self, seed, hashvalues, scheme=_LEGACY):
        scheme = _valid_scheme(scheme)
        values = _as_scheme_array(hashvalues, scheme, "hash values")
        if scheme != _LEGACY and len(values) == 0:
            # Its bytes would carry a length of 0, which reads back as a legacy signature.
            raise ValueError("hashvalues must not be empty")
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "scheme", scheme)
        object.__setattr__(self, "_values", values)

    def __init__(self, minhash=None, seed=None, hashvalues=None, scheme=None):
        if minhash is not None:
            if scheme is not None and scheme != minhash.scheme:
                raise ValueError("scheme %r conflicts with the scheme %r of the given MinHash"
                                 % (scheme, minhash.scheme))
            self._initialize_slots(minhash.seed, minhash.hashvalues, minhash.scheme)
        elif hashvalues is not None and seed is not None:
            if scheme is None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for hash values created by datasketch before 2.0.0.")
            self._initialize_slots(seed, hashvalues, scheme)
        else:
            raise ValueError("Init parameters cannot be None: make sure to set either minhash "
                             "or both of hash values and seed")

    @property
    def hashvalues(self):
        return self._values

    @hashvalues.setter
    def hashvalues(self, values):
        self._values = np.array(values, dtype=_DTYPES[self.scheme])

    def update(self, b):
        raise TypeError("Cannot update a LeanMinHash")

    def update_batch(self, b):
        raise TypeError("Cannot update a LeanMinHash")

    def merge(self, other):
        self._check(other, "merge")
        self._values = np.minimum(other.hashvalues, self._values)

    def clear(self):
        self._values = np.full(len(self), _MAX[self.scheme], dtype=_DTYPES[self.scheme])

    def copy(self):
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(self.seed, self._values, self.scheme)
        return lmh

    def __len__(self):
        return len(self._values)

    def bytesize(self, byteorder="@"):
        """Bytes of ``serialize``'s output."""
        head, values, at = _lean_layout(self.scheme, len(self), byteorder)
        return at + struct.calcsize(values)

    def _pack_into(self, buf, byteorder):
        head, values, at = _lean_layout(self.scheme, len(self), byteorder)
        if self.scheme == _LEGACY:
            struct.pack_into(head, buf, 0, self.seed, len(self))
        else:
            struct.pack_into(head, buf, 0, self.seed, -len(self), _SCHEME_CODES[self.scheme])
        struct.pack_into(values, buf, at, *self._values.tolist())

    def serialize(self, buf, byteorder="@"):
        """Writes datasketch's bytes into ``buf`` (a writable buffer of at least bytesize())."""
        if len(buf) < self.bytesize(byteorder):
            raise ValueError("The buffer does not have enough space for holding this MinHash.")
        self._pack_into(buf, byteorder)

    @classmethod
    def _unpack(cls, buf, byteorder):
        view = memoryview(buf)
        seed, num_perm = struct.unpack_from("%sqi" % byteorder, view, 0)
        scheme = _LEGACY
        if num_perm < 0:
            num_perm = -num_perm
            (code,) = struct.unpack_from(byteorder + "B", view, struct.calcsize(byteorder + "qi"))
            if code not in _SCHEME_CODES_INV:
                raise ValueError("Unknown permutation scheme code: %d" % code)
            scheme = _SCHEME_CODES_INV[code]
        _, values, at = _lean_layout(scheme, num_perm, byteorder)
        return seed, struct.unpack_from(values, view, at), scheme

    @classmethod
    def deserialize(cls, buf, byteorder="@"):
        """A LeanMinHash from datasketch's bytes (either version's)."""
        seed, values, scheme = cls._unpack(buf, byteorder)
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, values, scheme)
        return lmh

    def __getstate__(self):
        buf = bytearray(self.bytesize())
        self._pack_into(buf, "@")
        return buf

    def __setstate__(self, buf):
        seed, values, scheme = self._unpack(buf, "@")
        self._initialize_slots(seed, values, scheme)

    def __hash__(self):
        return hash((self.scheme, self.seed, tuple(self._values.tolist())))

    @classmethod
    def union(cls, *lmhs):
        _, seed, scheme, hashvalues = _union_values(lmhs)
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, hashvalues, scheme)
        return lmh
