"""datasketch's MinHash, LeanMinHash, bBitMinHash, MinHashLSH and weighted MinHash, value for
value, faster: change the import lines (``sed s/datasketch/neardup.datasketch/`` over a
codebase works: the modules datasketch has, ``minhash``, ``lean_minhash``, ``b_bit_minhash``,
``lsh``, ``weighted_minhash`` and ``hashfunc``, are here under the same names).

    from neardup.datasketch import MinHash, MinHashLSH     # was: from datasketch import ...

The signatures are datasketch 2's own, in each of its permutation schemes: ``"affine32"``
(datasketch 2.0's default, and this package's), ``"affine64"`` and ``"legacy"`` (the values of
datasketch 1.x; pass ``scheme="legacy"`` to match signatures made by it). The same
permutations (drawn by numpy's ``RandomState(seed)``), the same element hashes
(``sha1_hash32``, ``sha1_hash64``), the same values and dtypes, so a signature made here equals
the one datasketch makes from the same elements, and pickles, ``LeanMinHash`` and
``bBitMinHash`` bytes and Redis-backed LSH indexes mix freely between the two. What is faster:
every update is computed in Rust (``neardup_sketch::permutation``) on a signature held
natively; ``MinHashLSH`` keeps its band tables natively (``neardup_candidates::lsh``, the
tables every neardup index uses); and the batch calls take a whole column at once:
``bulk_hashvalues`` (an Arrow list column of sets -> a signature matrix, on every core),
``MinHashLSH.insert_many`` and ``MinHashLSH.query_many`` (a matrix or an Arrow column of
signatures).

Differences a user can observe, by design:

- ``hashvalues`` is made from the native state when read; an array read before an update is
  not changed by it (datasketch replaces the array on every update too). An array changed in
  place is read back before the next update.
- ``gpu_mode`` is accepted and ignored (there is no GPU path; ``"always"`` raises, as datasketch
  does without a GPU).
- ``MinHashLSH`` with the default storage: a bucket is named by neardup's 64-bit hash of the
  band's values (``lsh.hashtables`` and ``lsh.keys`` show these 8-byte names), not by the
  values themselves; query answers come in a fixed order (band by band, then insertion order),
  not a set's. A key inserted twice without the duplicate check holds both signatures and is
  answered once. The Redis storage keeps datasketch's names and layout exactly.
- ``storage_config={"type": "cassandra"}`` is refused; neardup's own persistent, crash-safe
  index is ``neardup.Index`` (and ``neardup serve`` for a crawler).
- ``WeightedMinHashGenerator.minhash_many`` gives each row the values ``minhash`` gives it.

``neardup.MinHash`` is neardup's own signature (one-permutation hashing, 64-bit values, tighter
estimates); this package is for code written against datasketch.
"""
import io as _io
import pickle as _pickle

try:
    import numpy as _numpy  # noqa: F401  (datasketch's objects hold numpy arrays)
except ImportError as _e:
    raise ImportError("neardup.datasketch works on numpy arrays, as datasketch does, and numpy "
                      "is not installed: pip install numpy (or neardup[datasketch])") from _e

from neardup.datasketch.lsh import (MinHashLSH, MinHashLSHDeletionSession,
                                    MinHashLSHInsertionSession)
from neardup.datasketch.b_bit_minhash import bBitMinHash
from neardup.datasketch.minhash import (LeanMinHash, MinHash, bulk_hashvalues, sha1_hash32,
                                        sha1_hash64)
from neardup.datasketch.weighted import WeightedMinHash, WeightedMinHashGenerator

__all__ = ["MinHash", "LeanMinHash", "bBitMinHash", "MinHashLSH", "MinHashLSHInsertionSession",
           "MinHashLSHDeletionSession", "WeightedMinHash", "WeightedMinHashGenerator",
           "bulk_hashvalues", "sha1_hash32", "sha1_hash64", "load", "loads"]


class _Stored:
    """A datasketch storage object read from a pickle: its attributes only."""


# Pickles written by datasketch name its classes; these are read as this package's.
_CLASSES = {}
for _module, _name, _cls in [
    ("minhash", "MinHash", MinHash), ("lean_minhash", "LeanMinHash", LeanMinHash),
    ("lsh", "MinHashLSH", MinHashLSH), ("weighted_minhash", "WeightedMinHash", WeightedMinHash),
    ("weighted_minhash", "WeightedMinHashGenerator", WeightedMinHashGenerator),
    ("hashfunc", "sha1_hash32", sha1_hash32), ("hashfunc", "sha1_hash64", sha1_hash64),
    ("b_bit_minhash", "bBitMinHash", bBitMinHash),
]:
    _CLASSES[("datasketch." + _module, _name)] = _cls
    _CLASSES[("datasketch", _name)] = _cls
for _name in ("DictListStorage", "DictSetStorage"):
    _CLASSES[("datasketch.storage", _name)] = _Stored


class _Unpickler(_pickle.Unpickler):
    def find_class(self, module, name):
        got = _CLASSES.get((module, name))
        if got is not None:
            return got
        return super().find_class(module, name)


def load(file):
    """Reads a pickle written by datasketch (or this package) without datasketch installed:
    its MinHash, LeanMinHash, weighted MinHash and MinHashLSH (default storage) come back as
    this package's."""
    return _Unpickler(file).load()


def loads(data):
    """:func:`load` from bytes."""
    return _Unpickler(_io.BytesIO(data)).load()
