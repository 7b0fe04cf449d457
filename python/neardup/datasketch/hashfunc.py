"""``datasketch.hashfunc``'s ``sha1_hash32`` and ``sha1_hash64``, so that code importing them
from there switches with its import line."""
from neardup.datasketch.minhash import sha1_hash32, sha1_hash64

__all__ = ["sha1_hash32", "sha1_hash64"]
