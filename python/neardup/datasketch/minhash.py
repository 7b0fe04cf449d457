"""datasketch's ``MinHash`` and ``LeanMinHash``, value for value (see ``neardup.datasketch``)."""
import copy as _copy
import struct
import warnings

import numpy as np

from neardup import _neardup

__all__ = ["MinHash", "LeanMinHash", "sha1_hash32"]

# datasketch's constants, from the native module that computes with them.
_mersenne_prime = np.uint64(_neardup.MERSENNE_61)
_max_hash = np.uint64(_neardup.MAX_HASH)
_hash_range = _neardup.MAX_HASH + 1

# datasketch's sha1_hash32: the first 4 bytes of SHA-1, little-endian.
sha1_hash32 = _neardup.sha1_hash32

_PERMUTATIONS = {}


def _draw_permutations(num_perm, seed):
    """datasketch's permutations of (num_perm, seed): numpy's RandomState draws, in its order."""
    key = (num_perm, seed)
    got = _PERMUTATIONS.get(key)
    if got is None:
        gen = np.random.RandomState(seed)
        rows = np.empty((num_perm, 2), dtype=np.uint64)
        for i in range(num_perm):
            rows[i, 0] = gen.randint(1, _mersenne_prime, dtype=np.uint64)
            rows[i, 1] = gen.randint(0, _mersenne_prime, dtype=np.uint64)
        perms = rows.T
        perms.setflags(write=False)
        got = (perms, _native_permutations(perms))
        if len(_PERMUTATIONS) < 64:
            _PERMUTATIONS[key] = got
    return got


def _native_permutations(perms):
    a = np.ascontiguousarray(np.asarray(perms[0], dtype=np.uint64), dtype="<u8")
    b = np.ascontiguousarray(np.asarray(perms[1], dtype=np.uint64), dtype="<u8")
    return _neardup.Permutations(a.tobytes(), b.tobytes())


def _union_values(mhs):
    """(num_perm, seed, values) of the union of several signatures, datasketch's checks."""
    if len(mhs) < 2:
        raise ValueError("Cannot union less than 2 MinHash")
    num_perm = len(mhs[0])
    seed = mhs[0].seed
    if any((seed != m.seed or num_perm != len(m)) for m in mhs):
        raise ValueError("The unioning MinHash must have the same seed and number of "
                         "permutation functions")
    return num_perm, seed, np.minimum.reduce([m.hashvalues for m in mhs])


class MinHash:
    """datasketch's ``MinHash(num_perm=128, seed=1, hashfunc=sha1_hash32, hashobj=None,
    hashvalues=None, permutations=None)``, with its values, errors and pickles: the values of
    datasketch before 2.0, which datasketch 2.0 calls ``scheme="legacy"`` (its default there is
    ``"affine32"``, which this class does not compute yet: ``scheme="affine32"`` or
    ``"affine64"`` is refused rather than answered with other values)."""

    # datasketch 2.0's name for the permutations computed here.
    scheme = "legacy"

    def __init__(self, num_perm=128, seed=1, gpu_mode="disable", hashfunc=sha1_hash32,
                 hashobj=None, hashvalues=None, permutations=None, scheme=None):
        if scheme not in (None, "legacy"):
            raise ValueError(
                "neardup.datasketch computes datasketch's scheme='legacy' (the values of "
                "datasketch before 2.0); scheme=%r is not supported yet" % (scheme,))
        if hashvalues is not None:
            num_perm = len(hashvalues)
        if num_perm > _hash_range:
            raise ValueError("Cannot have more than %d number of permutation functions"
                             % _hash_range)
        if gpu_mode not in ("disable", "detect", "always"):
            raise ValueError("gpu_mode must be 'disable', 'detect' or 'always'")
        if gpu_mode == "always":
            raise RuntimeError("GPU mode 'always' requested but CuPy/CUDA device is unavailable.")
        self.seed = seed
        self.num_perm = num_perm
        if not callable(hashfunc):
            raise ValueError("The hashfunc must be a callable.")
        self.hashfunc = hashfunc
        if hashobj is not None:
            warnings.warn("hashobj is deprecated, use hashfunc instead.", DeprecationWarning,
                          stacklevel=2)
        if permutations is not None:
            self.permutations = permutations
            native = _native_permutations(permutations)
        else:
            self.permutations, native = _draw_permutations(num_perm, seed)
        if hashvalues is not None and len(hashvalues) != len(self.permutations[0]):
            raise ValueError("Numbers of hash values and permutations mismatch")
        if hashvalues is None and num_perm != len(self.permutations[0]):
            raise ValueError("Numbers of hash values and permutations mismatch")
        self._gpu_mode = gpu_mode
        self._state = _neardup.Signature(native)
        self._array = None
        if hashvalues is not None:
            self.hashvalues = hashvalues

    # The state: native values, or an array read from them (the truth until the next update).
    @property
    def hashvalues(self):
        if self._array is None:
            self._array = np.frombuffer(self._state.values(), dtype="<u8").astype(
                np.uint64, copy=False)
        return self._array

    @hashvalues.setter
    def hashvalues(self, values):
        self._array = np.array(values, dtype=np.uint64)

    def _native(self):
        if self._array is not None:
            self._state.set_values(np.ascontiguousarray(self._array, dtype="<u8").tobytes())
            self._array = None
        return self._state

    def update(self, b):
        """Adds one element: hashed by ``hashfunc`` (bytes for the default sha1_hash32)."""
        if self.hashfunc is sha1_hash32:
            self._native().update_bytes(b)
        else:
            self._native().update_hash(self.hashfunc(b))

    def update_batch(self, b):
        """Adds every element of an iterable."""
        if self.hashfunc is sha1_hash32:
            self._native().update_bytes_batch(b)
        else:
            hashfunc = self.hashfunc
            self._native().update_hashes([hashfunc(x) for x in b])

    def _check(self, other, what):
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
        return float(k) / np.sum(self.hashvalues / float(_max_hash)) - 1.0

    def merge(self, other):
        """Makes this the signature of the union of both sets."""
        self._check(other, "merge")
        self.hashvalues = np.minimum(other.hashvalues, self.hashvalues)

    def digest(self):
        """A copy of the values."""
        return _copy.copy(self.hashvalues)

    def is_empty(self):
        return not np.any(self.hashvalues != _max_hash)

    def clear(self):
        self.hashvalues = np.full(len(self), _max_hash, dtype=np.uint64)

    def copy(self):
        return MinHash(seed=self.seed, hashfunc=self.hashfunc, hashvalues=self.digest(),
                       permutations=self.permutations, gpu_mode=self._gpu_mode)

    def __len__(self):
        return len(self.permutations[0]) if self._array is None else len(self._array)

    def __eq__(self, other):
        return (type(self) is type(other) and self.seed == other.seed
                and np.array_equal(self.hashvalues, other.hashvalues))

    __hash__ = None

    def __getstate__(self):
        # datasketch's attributes (the pickle names this module's class).
        return {"seed": self.seed, "num_perm": len(self), "hashfunc": self.hashfunc,
                "hashvalues": self.hashvalues, "permutations": self.permutations,
                "_gpu_mode": self._gpu_mode, "_a_gpu": None, "_b_gpu": None}

    def __setstate__(self, state):
        perms = state["permutations"]
        self.seed = state["seed"]
        self.hashfunc = state.get("hashfunc", sha1_hash32)
        self.permutations = perms
        self.num_perm = len(perms[0])
        self._gpu_mode = state.get("_gpu_mode", "disable")
        cached = _PERMUTATIONS.get((self.num_perm, self.seed))
        if cached is not None and np.array_equal(cached[0], perms):
            native = cached[1]
        else:
            native = _native_permutations(perms)
        self._state = _neardup.Signature(native)
        self._array = None
        self.hashvalues = state["hashvalues"]

    @classmethod
    def union(cls, *mhs):
        """A new signature of the union of several."""
        num_perm, seed, hashvalues = _union_values(mhs)
        return cls(num_perm=num_perm, seed=seed, hashfunc=mhs[0].hashfunc,
                   hashvalues=hashvalues, permutations=mhs[0].permutations,
                   gpu_mode=mhs[0]._gpu_mode)

    @classmethod
    def bulk(cls, b, **minhash_kwargs):
        """A list of signatures, one per iterable of elements in ``b``. An Arrow list column
        (pyarrow ``Array``/``ChunkedArray``, one set per row) is read natively, no Python call
        per row: see :func:`bulk_hashvalues`."""
        if _is_arrow_column(b) and minhash_kwargs.get("hashfunc", sha1_hash32) is sha1_hash32 \
                and minhash_kwargs.get("permutations") is None:
            num_perm = minhash_kwargs.get("num_perm", 128)
            seed = minhash_kwargs.get("seed", 1)
            template = cls(**minhash_kwargs)
            out = []
            for row in bulk_hashvalues(b, num_perm=num_perm, seed=seed):
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


def bulk_hashvalues(column, num_perm=128, seed=1, threads=None):
    """The ``hashvalues`` of one datasketch ``MinHash`` per row of an Arrow list column, as a
    ``(rows, num_perm)`` uint64 numpy array, computed natively on every core: what
    ``MinHash.bulk`` makes, without a Python object per row or element.

    Each row is one set; its elements are binary or strings (hashed by ``sha1_hash32``; a
    string as its UTF-8 bytes, what ``.encode()`` gives) or integers (taken as hashes already
    made, as a ``hashfunc`` returning them would). A null row is an empty set; a null element
    is an error. ``column`` is a pyarrow ``Array`` or ``ChunkedArray`` (a table's column) or
    any Arrow array (``__arrow_c_array__``).
    """
    _, native = _draw_permutations(num_perm, seed)
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    parts = [np.frombuffer(_neardup.bulk_values(native, c, threads), dtype="<u8")
             for c in chunks]
    flat = np.concatenate(parts) if parts else np.empty(0, dtype="<u8")
    return flat.astype(np.uint64, copy=False).reshape(-1, num_perm)


class LeanMinHash(MinHash):
    """datasketch's ``LeanMinHash``: a signature's seed and values only, no updates; its
    ``serialize`` bytes are datasketch's (seed as int64, length as int32, each value as
    uint32, in the byte order asked for)."""

    def _initialize_slots(self, seed, hashvalues):
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "_values", np.array(hashvalues, dtype=np.uint64))

    def __init__(self, minhash=None, seed=None, hashvalues=None):
        if minhash is not None:
            self._initialize_slots(minhash.seed, minhash.hashvalues)
        elif hashvalues is not None and seed is not None:
            self._initialize_slots(seed, hashvalues)
        else:
            raise ValueError("Init parameters cannot be None: make sure to set either minhash "
                             "or both of hash values and seed")

    @property
    def hashvalues(self):
        return self._values

    @hashvalues.setter
    def hashvalues(self, values):
        self._values = np.array(values, dtype=np.uint64)

    def update(self, b):
        raise TypeError("Cannot update a LeanMinHash")

    def update_batch(self, b):
        raise TypeError("Cannot update a LeanMinHash")

    def merge(self, other):
        self._check(other, "merge")
        self._values = np.minimum(other.hashvalues, self._values)

    def clear(self):
        self._values = np.full(len(self), _max_hash, dtype=np.uint64)

    def copy(self):
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(self.seed, self._values)
        return lmh

    def __len__(self):
        return len(self._values)

    def bytesize(self, byteorder="@"):
        """Bytes of ``serialize``'s output."""
        return (struct.calcsize(byteorder + "q") + struct.calcsize(byteorder + "i")
                + len(self) * struct.calcsize(byteorder + "I"))

    def serialize(self, buf, byteorder="@"):
        """Writes datasketch's bytes into ``buf`` (a writable buffer of at least bytesize())."""
        if len(buf) < self.bytesize(byteorder):
            raise ValueError("The buffer does not have enough space for holding this MinHash.")
        fmt = "%sqi%dI" % (byteorder, len(self))
        struct.pack_into(fmt, buf, 0, self.seed, len(self), *self._values.tolist())

    @classmethod
    def deserialize(cls, buf, byteorder="@"):
        """A LeanMinHash from datasketch's bytes."""
        head = "%sqi" % byteorder
        view = memoryview(buf)
        seed, num_perm = struct.unpack_from(head, view, 0)
        if num_perm < 0:
            raise ValueError("a LeanMinHash of %d values" % num_perm)
        offset = struct.calcsize(head)
        values = np.frombuffer(view, dtype=np.dtype("u4").newbyteorder(
            {"@": "=", "=": "=", "<": "<", ">": ">", "!": ">"}[byteorder]),
            count=num_perm, offset=offset)
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, values)
        return lmh

    def __getstate__(self):
        buf = bytearray(self.bytesize())
        struct.pack_into("qi%dI" % len(self), buf, 0, self.seed, len(self),
                         *self._values.tolist())
        return buf

    def __setstate__(self, buf):
        seed, num_perm = struct.unpack_from("qi", memoryview(buf), 0)
        values = struct.unpack_from("%dI" % num_perm, memoryview(buf), struct.calcsize("qi"))
        self._initialize_slots(seed, values)

    def __hash__(self):
        return hash((self.seed, tuple(self._values)))

    @classmethod
    def union(cls, *lmhs):
        _, seed, hashvalues = _union_values(lmhs)
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, hashvalues)
        return lmh
