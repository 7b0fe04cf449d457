"""``datasketch.hashfunc``'s ``sha1_hash32``, so that code importing it from there switches with
its import line."""
from neardup.datasketch.minhash import sha1_hash32

__all__ = ["sha1_hash32"]
