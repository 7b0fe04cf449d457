"""datasketch's ``MinHashLSH``: its API and answers, on native band tables (see
``neardup.datasketch``)."""
import contextlib
import gc
import pickle
import random
import string
import struct

import numpy as np

from neardup import _neardup
from neardup.datasketch.minhash import _check_scheme_consistency

__all__ = ["MinHashLSH", "MinHashLSHInsertionSession", "MinHashLSHDeletionSession"]

# Rows handed to the native tables at once by the batch calls (bounded copies).
_CHUNK_ROWS = 1 << 15

# Weighted signatures have rows of (k, t); the tables hold one 64-bit value per row.
_PAIR_MUL = np.uint64(0x9E3779B97F4A7C15)


def _random_name(length):
    return "".join(random.choice(string.ascii_lowercase) for _ in range(length)).encode("utf8")


def _row_values(hashvalues):
    """A signature's rows as uint64: MinHash values as they are, a weighted signature's
    ``(k, t)`` rows mixed into one value each (two rows of datasketch's small integers never
    mix to the same value; if two did, the index would only gain a candidate)."""
    hv = np.asarray(hashvalues)
    if hv.ndim == 2:
        k = hv[:, 0].astype(np.uint64)
        t = hv[:, 1].astype(np.uint64)
        return (k * _PAIR_MUL) ^ ((t << np.uint64(32)) | (t >> np.uint64(32)))
    return hv.astype(np.uint64, copy=False)


def _values_bytes(minhash):
    return np.ascontiguousarray(_row_values(minhash.hashvalues), dtype="<u8").tobytes()


@contextlib.contextmanager
def _no_gc():
    """Python's cycle collector paused while a batch call makes a million lists (they hold no
    cycles; the collector would walk them again and again)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _shared(matrix):
    """A C-contiguous uint64 matrix as a pyarrow array sharing its memory (no copy)."""
    import pyarrow as pa
    return pa.array(matrix.reshape(-1))


def _signature(minhash):
    """The native state of this module's MinHash (no copy), else None."""
    native = getattr(minhash, "_native", None)
    return native() if native is not None and getattr(minhash, "_state", None) is not None \
        else None


class _DictTables:
    """The "dict" storage: native band tables, and each key's entry numbers."""

    def __init__(self, b, r):
        self._native = _neardup.LshTables(b, r)
        self._entries = {}  # key -> entry number, or a list of them (a key inserted twice)
        self._multi = 0  # keys holding more than one entry

    def _note(self, key, entry):
        got = self._entries.setdefault(key, entry)
        if got != entry:
            if isinstance(got, list):
                got.append(entry)
            else:
                self._entries[key] = [got, entry]
                self._multi += 1

    def insert(self, key, minhash, buffer=False):
        sig = _signature(minhash)
        if sig is not None:
            entry = self._native.insert_signature(key, sig)
        else:
            entry = self._native.insert_values(key, _values_bytes(minhash))
        self._note(key, entry)

    def insert_matrix(self, keys, matrix):
        first = self._native.insert_many(keys, _shared(matrix), matrix.shape[1])
        entries = self._entries
        if self._multi == 0 and entries.keys().isdisjoint(keys) and len(set(keys)) == len(keys):
            entries.update(zip(keys, range(first, first + len(keys))))
        else:
            for i, key in enumerate(keys):
                self._note(key, first + i)

    def _unique(self, keys):
        return list(dict.fromkeys(keys)) if self._multi else keys

    def query(self, minhash):
        sig = _signature(minhash)
        if sig is not None:
            return self._unique(self._native.query_signature(sig))
        return self._unique(self._native.query_values(_values_bytes(minhash)))

    def query_matrix(self, matrix):
        got = self._native.query_many(_shared(matrix), matrix.shape[1])
        return [self._unique(keys) for keys in got] if self._multi else got

    def __contains__(self, key):
        return key in self._entries

    def holds_any(self, keys):
        return not self._entries.keys().isdisjoint(keys)

    def _ids(self, key):
        got = self._entries[key]
        return got if isinstance(got, list) else [got]

    def remove(self, key, buffer=False):
        for entry in self._ids(key):
            self._native.remove(entry)
        if isinstance(self._entries.pop(key), list):
            self._multi -= 1

    def __len__(self):
        return len(self._entries)

    def keys(self):
        return list(self._entries)

    def band_keys(self, key):
        """datasketch's ``keys[key]``: the key's bucket names, band by band, entry by entry."""
        return [struct.pack(">Q", h) for entry in self._ids(key)
                for h in self._native.band_hashes(entry)]

    def entries(self):
        return self._native.entries()

    def insert_hashes(self, key, hashes, buffer=False):
        self._note(key, self._native.insert_hashes(key, list(hashes)))

    def bucket_names(self, band):
        return [struct.pack(">Q", h) for h, _ in self._native.buckets(band)]

    def bucket(self, band, name):
        if not isinstance(name, (bytes, bytearray)) or len(name) != 8:
            return set()
        return set(self._native.bucket(band, struct.unpack(">Q", name)[0]))

    def bucket_counts(self, band):
        return {struct.pack(">Q", h): n for h, n in self._native.buckets(band)}

    def flush(self):
        pass


class _BandView:
    """datasketch's ``lsh.hashtables[i]``: bucket name -> keys, read from the tables. A
    bucket's name is neardup's 64-bit hash of the band's values (8 bytes, big-endian), not
    the values themselves; with the Redis storage it is datasketch's (the values)."""

    def __init__(self, tables, band):
        self._tables = tables
        self._band = band

    def keys(self):
        return self._tables.bucket_names(self._band)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def size(self):
        return len(self)

    def get(self, name):
        return self._tables.bucket(self._band, name)

    __getitem__ = get

    def __contains__(self, name):
        return len(self.get(name)) > 0

    def itemcounts(self):
        return self._tables.bucket_counts(self._band)


class _KeysView:
    """datasketch's ``lsh.keys``: key -> its bucket names, band by band (keys as stored:
    pickled when ``prepickle``)."""

    def __init__(self, tables):
        self._tables = tables

    def keys(self):
        return self._tables.keys()

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._tables)

    def size(self):
        return len(self)

    def __contains__(self, key):
        return key in self._tables

    def get(self, key):
        return self._tables.band_keys(key) if key in self._tables else []

    __getitem__ = get

    def itemcounts(self):
        return {k: len(self.get(k)) for k in self.keys()}


class MinHashLSH:
    """datasketch's ``MinHashLSH(threshold=0.9, num_perm=128, weights=(0.5, 0.5), params=None,
    storage_config=None, prepickle=None, hashfunc=None)``: the same bands and rows, the same
    candidates, the same errors; inserts and queries run in native tables, and
    :meth:`insert_many` and :meth:`query_many` take a whole matrix of signatures at once.

    Keys are any hashable object. A key inserted again with ``check_duplication=False`` (or
    met twice by :meth:`merge`) holds both signatures: a query finds it by either, once, and
    :meth:`remove` removes both.
    """

    def __init__(self, threshold=0.9, num_perm=128, weights=(0.5, 0.5), params=None,
                 storage_config=None, prepickle=None, hashfunc=None):
        storage_config = storage_config if storage_config else {"type": "dict"}
        self._buffer_size = 50000
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        if any(w < 0.0 or w > 1.0 for w in weights):
            raise ValueError("Weight must be in [0.0, 1.0]")
        if sum(weights) != 1.0:
            raise ValueError("Weights must sum to 1.0")
        self.h = num_perm
        if params is not None:
            self.b, self.r = params
            if self.b * self.r > num_perm:
                raise ValueError(
                    "The product of b and r in params is %d * %d = %d -- it must be less than "
                    "num_perm %d. Did you forget to specify num_perm?"
                    % (self.b, self.r, self.b * self.r, num_perm))
        else:
            self.b, self.r = _neardup.optimal_param(float(threshold), int(num_perm),
                                                    float(weights[0]), float(weights[1]))
        if self.b < 2:
            raise ValueError("The number of bands are too small (b < 2)")
        kind = storage_config["type"]
        self.prepickle = kind == "redis" if prepickle is None else prepickle
        self._require_bytes_keys = not (kind == "dict" or self.prepickle)
        self.hashfunc = hashfunc
        self.hashranges = [(i * self.r, (i + 1) * self.r) for i in range(self.b)]
        self._storage_config = storage_config
        if kind == "dict":
            self._tables = _DictTables(self.b, self.r)
        elif kind == "redis":
            from neardup.datasketch.redis_tables import RedisTables
            basename = storage_config.get("basename", _random_name(11))
            self._tables = RedisTables(storage_config, basename, self.b, self.r, hashfunc)
        elif kind == "cassandra":
            raise ValueError("Cassandra storage is not offered by neardup.datasketch: use "
                             "'dict', 'redis', or neardup's own persistent index "
                             "(neardup.Index)")
        else:
            raise ValueError("Unknown storage type: %s" % kind)
        self._query_buffer = []
        # The scheme of the signatures given so far (datasketch 2's check): a signature of
        # another scheme is refused, its values would match wrongly.
        self._minhash_scheme = None

    # --- datasketch's attributes, read from the tables ---

    @property
    def hashtables(self):
        return [_BandView(self._tables, i) for i in range(self.b)]

    @property
    def keys(self):
        return _KeysView(self._tables)

    @property
    def buffer_size(self):
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value):
        self._buffer_size = value
        self._tables.buffer_size = value

    # --- checks ---

    def _check(self, minhash, learn=False):
        if len(minhash) != self.h:
            raise ValueError("Expecting minhash with length %d, got %d" % (self.h, len(minhash)))
        scheme = _check_scheme_consistency(getattr(self, "_minhash_scheme", None), minhash)
        if learn:
            self._minhash_scheme = scheme

    def _stored(self, key):
        if self._require_bytes_keys and not isinstance(key, bytes):
            raise TypeError(
                "prepickle=False requires bytes keys for non-dict storage, got %s. Either pass "
                "bytes keys or use prepickle=True for automatic serialization."
                % type(key).__name__)
        return pickle.dumps(key) if self.prepickle else key

    def _answer(self, keys):
        return [pickle.loads(k) for k in keys] if self.prepickle else keys

    # --- datasketch's methods ---

    def insert(self, key, minhash, check_duplication=True):
        """Adds ``key`` with its signature (``ValueError`` if it is held and
        ``check_duplication``)."""
        self._insert(key, minhash, check_duplication=check_duplication, buffer=False)

    def _insert(self, key, minhash, check_duplication=True, buffer=False):
        self._check(minhash, learn=True)
        key = self._stored(key)
        if check_duplication and key in self._tables:
            raise ValueError("The given key already exists")
        self._tables.insert(key, minhash, buffer=buffer)

    def query(self, minhash):
        """The keys whose signatures share a band with ``minhash``."""
        self._check(minhash)
        return self._answer(self._tables.query(minhash))

    def __contains__(self, key):
        return self._stored(key) in self._tables

    def remove(self, key):
        """Removes ``key`` (``ValueError`` if it is not held)."""
        self._remove(key, buffer=False)

    def _remove(self, key, buffer=False):
        key = self._stored(key)
        if key not in self._tables:
            raise ValueError("The given key does not exist")
        self._tables.remove(key, buffer=buffer)

    def is_empty(self):
        return len(self._tables) == 0

    def merge(self, other, check_overlap=False):
        """Makes this index the union of both (``ValueError`` for another banding, or, with
        ``check_overlap``, for a key held by both)."""
        self._merge(other, check_overlap=check_overlap, buffer=False)

    def _merge(self, other, check_overlap=False, buffer=False):
        if type(self) is not type(other):
            raise ValueError("Cannot merge type MinHashLSH and type %s." % type(other).__name__)
        if (self.h, self.b, self.r) != (other.h, other.b, other.r):
            raise ValueError("Cannot merge MinHashLSH with different initialization parameters.")
        if type(self._tables) is not type(other._tables):
            raise ValueError("Cannot merge indexes of different storage types (%s and %s)"
                             % (self._storage_config["type"], other._storage_config["type"]))
        known, theirs = (getattr(self, "_minhash_scheme", None),
                         getattr(other, "_minhash_scheme", None))
        if known is not None and theirs is not None and known != theirs:
            raise ValueError("Cannot merge MinHashLSH indexed with MinHash scheme %r into one "
                             "indexed with scheme %r" % (theirs, known))
        if check_overlap and set(self._tables.keys()).intersection(other._tables.keys()):
            raise ValueError("The keys are overlapping, duplicate key exists.")
        if known is None:
            self._minhash_scheme = theirs
        for key, hashes in other._tables.entries():
            self._tables.insert_hashes(key, hashes, buffer=buffer)
        self._tables.flush()

    def insertion_session(self, buffer_size=50000):
        """A context manager for many inserts (buffered round trips with Redis)."""
        return MinHashLSHInsertionSession(self, buffer_size=buffer_size)

    def deletion_session(self, buffer_size=50000):
        """A context manager for many removals (buffered round trips with Redis)."""
        return MinHashLSHDeletionSession(self, buffer_size=buffer_size)

    def add_to_query_buffer(self, minhash):
        """Queues a query; :meth:`collect_query_buffer` answers the keys found by every query
        queued (their intersection), as datasketch does."""
        self._check(minhash)
        self._query_buffer.append(self._tables.query(minhash))

    def collect_query_buffer(self):
        answers, self._query_buffer = self._query_buffer, []
        if not answers:
            return []
        found = set(answers[0]).intersection(*answers[1:])
        return self._answer([k for k in dict.fromkeys(answers[0]) if k in found])

    def get_counts(self):
        """Per band: bucket name -> keys in it."""
        return [self._tables.bucket_counts(i) for i in range(self.b)]

    def get_subset_counts(self, *keys):
        """:meth:`get_counts` of the given keys only."""
        stored = [self._stored(k) for k in dict.fromkeys(keys)]
        counts = [dict() for _ in range(self.b)]
        for key in stored:
            names = self._tables.band_keys(key) if key in self._tables else []
            for i, name in enumerate(names):
                band = counts[i % self.b]
                band[name] = band.get(name, 0) + 1
        return counts

    # --- neardup's batch calls ---

    def _matrix(self, minhashes, learn=False):
        """Signatures as a C-contiguous little-endian uint64 matrix: a numpy array or any
        Arrow fixed-size list of integers as they are, a list of MinHash objects row by row
        (each checked, and with ``learn`` its scheme kept, as :meth:`insert` does). Tells the
        tables whether the values are 32-bit ones (a uint32 array, affine32 signatures), whose
        Redis bucket names are 4 bytes a value, as datasketch names them."""
        if hasattr(minhashes, "__arrow_c_array__") or hasattr(minhashes, "chunks"):
            import pyarrow as pa
            col = minhashes
            if isinstance(col, pa.ChunkedArray):
                col = col.combine_chunks()
            if not isinstance(col, pa.FixedSizeListArray):
                col = pa.array(col)
            if not pa.types.is_fixed_size_list(col.type):
                raise TypeError("expected a fixed-size list column of signatures, got %s"
                                % col.type)
            width = col.type.list_size
            flat = col.flatten().to_numpy(zero_copy_only=False)
            matrix = flat.reshape(-1, width)
            narrow = matrix.dtype == np.uint32
        elif isinstance(minhashes, np.ndarray):
            matrix = minhashes
            narrow = matrix.dtype == np.uint32
        else:
            rows = list(minhashes)
            for m in rows:
                self._check(m, learn=learn)
            narrow = bool(rows) and getattr(rows[0], "scheme", None) == "affine32"
            matrix = np.stack([_row_values(m.hashvalues) for m in rows]) if rows \
                else np.empty((0, self.h), dtype=np.uint64)
        self._tables.narrow = narrow
        if matrix.ndim == 3:  # weighted signatures: (rows, k, 2)
            matrix = np.stack([_row_values(m) for m in matrix])
        if matrix.ndim != 2 or matrix.shape[1] != self.h:
            raise ValueError("Expecting signatures of length %d, got an array of shape %s"
                             % (self.h, matrix.shape))
        return np.ascontiguousarray(matrix, dtype="<u8")

    def insert_many(self, keys, minhashes, check_duplication=True):
        """Inserts ``keys[i]`` with signature ``i``: the signatures as a list of MinHash
        objects, a ``(len(keys), num_perm)`` integer array (``hashvalues`` rows, e.g. from
        ``bulk_hashvalues``), or an Arrow fixed-size list column of them. One native call
        per 32,768 rows; the same index as ``insert`` row by row."""
        keys = [self._stored(k) for k in keys] if (self.prepickle or self._require_bytes_keys) \
            else list(keys)
        matrix = self._matrix(minhashes, learn=True)
        if len(keys) != len(matrix):
            raise ValueError("%d keys and %d signatures" % (len(keys), len(matrix)))
        if check_duplication:
            if len(set(keys)) != len(keys):
                raise ValueError("The given keys hold a key twice")
            if self._tables.holds_any(keys):
                raise ValueError("The given key already exists")
        with _no_gc():
            for start in range(0, len(keys), _CHUNK_ROWS):
                self._tables.insert_matrix(keys[start:start + _CHUNK_ROWS],
                                           matrix[start:start + _CHUNK_ROWS])
        self._tables.flush()

    def query_many(self, minhashes, arrow=False):
        """One answer per signature (as :meth:`insert_many` takes them): a list of key lists,
        or with ``arrow=True`` a pyarrow table of (``query``: the signature's row, ``key``)."""
        matrix = self._matrix(minhashes)
        answers = []
        with _no_gc():
            for start in range(0, len(matrix), _CHUNK_ROWS):
                answers.extend(self._tables.query_matrix(matrix[start:start + _CHUNK_ROWS]))
        if self.prepickle:
            answers = [self._answer(a) for a in answers]
        if not arrow:
            return answers
        import pyarrow as pa
        lengths = np.fromiter((len(a) for a in answers), dtype=np.int64, count=len(answers))
        flat = [k for a in answers for k in a]
        return pa.table({"query": np.repeat(np.arange(len(answers), dtype=np.int64), lengths),
                         "key": pa.array(flat)})

    # --- pickles ---

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_tables", "_query_buffer")}
        state["_entries"] = None
        if isinstance(self._tables, _DictTables):
            state["_entries"] = self._tables.entries()
            state["_band_hash_version"] = _neardup.BAND_HASH_VERSION
        else:
            state["_redis_basename"] = self._tables.basename
        return state

    def __setstate__(self, state):
        if "hashtables" in state:  # a pickle written by datasketch
            state = _from_datasketch(state)
        entries = state.pop("_entries", None)
        basename = state.pop("_redis_basename", None)
        version = state.pop("_band_hash_version", None)
        if entries and version != _neardup.BAND_HASH_VERSION:
            raise ValueError("this MinHashLSH holds band hashes of version %s; this neardup "
                             "computes version %d: rebuild the index from its signatures"
                             % (version, _neardup.BAND_HASH_VERSION))
        self.__dict__.update(state)
        self._query_buffer = []
        if self._storage_config["type"] == "redis":
            from neardup.datasketch.redis_tables import RedisTables
            self._tables = RedisTables(self._storage_config, basename, self.b, self.r,
                                       self.hashfunc)
        else:
            self._tables = _DictTables(self.b, self.r)
            for key, hashes in entries or ():
                self._tables.insert_hashes(key, hashes)

    # datasketch pickles hold their band functions as bound methods of the index.
    def _byteswap(self, hs):
        return bytes(np.asarray(hs).astype(np.asarray(hs).dtype.newbyteorder(">")).data)

    def _hashed_byteswap(self, hs):
        return self.hashfunc(self._byteswap(hs))



def _from_datasketch(state):
    """A datasketch ``MinHashLSH``'s pickled attributes as this class's: its dict storage's
    keys, each with the band values it was stored under, re-inserted in native tables."""
    b, r = state["b"], state["r"]
    if state.get("hashfunc") is not None:
        raise ValueError("a datasketch index built with a hashfunc keeps hashed bucket names "
                         "only; rebuild it from the signatures")
    keys = state["keys"]
    stored = getattr(keys, "_dict", None)
    if stored is None:
        raise ValueError("only datasketch indexes of the 'dict' storage can be read from a "
                         "pickle (a Redis-backed one is read by naming its basename)")
    tables = _DictTables(b, r)
    for key, names in stored.items():
        for at in range(0, len(names) - b + 1, b):
            values = _row_values_of_names(names[at:at + b], r)
            tables._note(key, tables._native.insert_values(key, values))
    out = {k: v for k, v in state.items()
           if k in ("h", "b", "r", "prepickle", "hashfunc", "hashranges", "_buffer_size",
                    "_minhash_scheme")}
    out["_storage_config"] = {"type": "dict"}
    # datasketch 1.x pickles have neither: a dict storage needs no bytes keys (as 2.x says).
    out["_require_bytes_keys"] = False
    out.setdefault("prepickle", False)
    out.setdefault("_buffer_size", 50000)
    out["_entries"] = tables.entries()
    out["_band_hash_version"] = _neardup.BAND_HASH_VERSION
    return out


def _row_values_of_names(names, r):
    """The signature prefix (b x r values) whose bands datasketch named ``names`` (each the
    band's values, big-endian: uint64 for a MinHash, (k, t) int64 pairs for a weighted one)."""
    joined = b"".join(names)
    if len(joined) == len(names) * r * 16:
        pairs = np.frombuffer(joined, dtype=">i8").reshape(-1, 2)
        values = _row_values(pairs)
    elif len(joined) == len(names) * r * 4:  # affine32 signatures: uint32 values
        values = np.frombuffer(joined, dtype=">u4").astype(np.uint64)
    else:
        values = np.frombuffer(joined, dtype=">u8")
    return np.ascontiguousarray(values, dtype="<u8").tobytes()


class _Session:
    """A context manager that flushes the index's buffered commands when it closes."""

    def __init__(self, lsh, buffer_size):
        self.lsh = lsh
        self.lsh.buffer_size = buffer_size

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()

    def close(self):
        self.lsh._tables.flush()


class MinHashLSHInsertionSession(_Session):
    """datasketch's insertion session: ``with lsh.insertion_session() as s: s.insert(k, m)``."""

    def insert(self, key, minhash, check_duplication=True):
        self.lsh._insert(key, minhash, check_duplication=check_duplication, buffer=True)

    def insert_many(self, keys, minhashes, check_duplication=True):
        self.lsh.insert_many(keys, minhashes, check_duplication=check_duplication)


class MinHashLSHDeletionSession(_Session):
    """datasketch's deletion session: ``with lsh.deletion_session() as s: s.remove(k)``."""

    def remove(self, key):
        self.lsh._remove(key, buffer=True)
