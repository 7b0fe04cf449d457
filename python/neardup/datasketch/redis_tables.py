"""``MinHashLSH(storage_config={"type": "redis", ...})``: the band tables in Redis, laid out
as datasketch lays them out, so that an index written by either is read by the other:

- ``<basename>_keys``: a hash, key -> ``<basename>_keys<key>``, a list of the key's bucket
  names, band by band;
- ``<basename>_bucket_<band as 2 bytes, big-endian>``: a hash, bucket name ->
  ``<that name><bucket name>``, a set of the keys in the bucket;
- a bucket's name is the band's values, big-endian (uint64 for a MinHash, (k, t) int64 pairs
  for a weighted one), or ``hashfunc`` of those bytes; keys are pickled (``prepickle``).

Each insert is one transaction (one round trip, where datasketch makes one per band); a
query reads every band in one round trip. Sessions queue inserts up to ``buffer_size``
commands. For an index on this machine that survives crashes without a server, see
``neardup.Index``.
"""
import os
import struct

import numpy as np
import redis

__all__ = ["RedisTables"]


def _config_values(config):
    """datasketch's config values: a plain value, or ``{"env": NAME, "default": VALUE}``."""
    out = {}
    for key, value in config.items():
        if isinstance(value, dict) and "env" in value:
            value = os.getenv(value["env"], value.get("default", None))
        out[key] = value
    return out


def _as_bytes(key):
    return key.encode("utf8") if isinstance(key, str) else key


class RedisTables:
    """The band tables of one index in Redis (see the module's documentation)."""

    def __init__(self, config, basename, b, r, hashfunc=None):
        self.config = config
        self.basename = _as_bytes(basename)
        self.b, self.r = b, r
        self.hashfunc = hashfunc
        self.buffer_size = 50000
        self._redis = redis.Redis(**_config_values(config.get("redis", {})))
        self._keys = self.basename + b"_keys"
        self._bands = [self.basename + b"_bucket_" + struct.pack(">H", i) for i in range(b)]
        self._pipe = None
        # Whether matrix rows hold 32-bit values (affine32): named 4 bytes a value.
        self.narrow = False

    # --- names ---

    def _names(self, minhash):
        hv = np.asarray(minhash.hashvalues)
        big = hv.dtype.newbyteorder(">")
        names = [hv[i * self.r:(i + 1) * self.r].astype(big).tobytes() for i in range(self.b)]
        if self.hashfunc is not None:
            names = [self.hashfunc(n) for n in names]
        return names

    def _matrix_names(self, row):
        return self._names(_Row(row.astype(np.uint32) if self.narrow else row))

    # --- writes ---

    def _writer(self, buffer):
        if not buffer:
            return self._redis.pipeline(transaction=True)
        if self._pipe is None:
            self._pipe = self._redis.pipeline(transaction=True)
        return self._pipe

    def _done(self, pipe, buffer):
        if not buffer:
            pipe.execute()
        elif len(pipe) >= self.buffer_size:
            pipe.execute()

    def _put(self, pipe, key, names):
        item = self._keys + _as_bytes(key)
        pipe.hset(self._keys, key, item)
        pipe.rpush(item, *names)
        for i, name in enumerate(names):
            band = self._bands[i % self.b]
            pipe.hset(band, name, band + name)
            pipe.sadd(band + name, key)

    def insert(self, key, minhash, buffer=False):
        pipe = self._writer(buffer)
        self._put(pipe, key, self._names(minhash))
        self._done(pipe, buffer)

    def insert_hashes(self, key, names, buffer=False):
        pipe = self._writer(buffer)
        self._put(pipe, key, list(names))
        self._done(pipe, buffer)

    def insert_matrix(self, keys, matrix):
        pipe = self._writer(True)
        for key, row in zip(keys, matrix):
            self._put(pipe, key, self._matrix_names(row))
            self._done(pipe, True)

    def remove(self, key, buffer=False):
        self.flush()
        names = self.band_keys(key)
        pipe = self._redis.pipeline(transaction=True)
        for i, name in enumerate(names):
            band = self._bands[i % self.b]
            pipe.srem(band + name, key)
            pipe.scard(band + name)
        left = pipe.execute()[1::2]
        pipe = self._redis.pipeline(transaction=True)
        for i, (name, n) in enumerate(zip(names, left)):
            if n == 0:
                band = self._bands[i % self.b]
                pipe.hdel(band, name)
                pipe.delete(band + name)
        pipe.hdel(self._keys, key)
        pipe.delete(self._keys + _as_bytes(key))
        pipe.execute()

    def flush(self):
        if self._pipe is not None:
            pipe, self._pipe = self._pipe, None
            pipe.execute()

    # --- reads ---

    def _members(self, name_lists):
        pipe = self._redis.pipeline(transaction=False)
        for names in name_lists:
            for i, name in enumerate(names):
                pipe.smembers(self._bands[i] + name)
        got = pipe.execute()
        out = []
        for q in range(len(name_lists)):
            found = {}
            for members in got[q * self.b:(q + 1) * self.b]:
                for k in sorted(members):
                    found.setdefault(k, None)
            out.append(list(found))
        return out

    def query(self, minhash):
        return self._members([self._names(minhash)])[0]

    def query_matrix(self, matrix):
        return self._members([self._matrix_names(row) for row in matrix])

    def __contains__(self, key):
        return bool(self._redis.hexists(self._keys, key))

    def holds_any(self, keys):
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.hexists(self._keys, key)
        return any(pipe.execute())

    def __len__(self):
        return self._redis.hlen(self._keys)

    def keys(self):
        return self._redis.hkeys(self._keys)

    def band_keys(self, key):
        return self._redis.lrange(self._keys + _as_bytes(key), 0, -1)

    def entries(self):
        keys = self.keys()
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.lrange(self._keys + _as_bytes(key), 0, -1)
        return list(zip(keys, pipe.execute()))

    def bucket_names(self, band):
        return self._redis.hkeys(self._bands[band])

    def bucket(self, band, name):
        return self._redis.smembers(self._bands[band] + _as_bytes(name))

    def bucket_counts(self, band):
        names = self.bucket_names(band)
        pipe = self._redis.pipeline(transaction=False)
        for name in names:
            pipe.scard(self._bands[band] + name)
        return dict(zip(names, pipe.execute()))


class _Row:
    """A matrix row standing for a signature (its values as ``hashvalues``)."""

    __slots__ = ("hashvalues",)

    def __init__(self, row):
        self.hashvalues = row
