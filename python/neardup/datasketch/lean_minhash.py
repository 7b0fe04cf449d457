"""``datasketch.lean_minhash``'s name for ``LeanMinHash``, so that code importing it from there
switches with its import line (``from neardup.datasketch.lean_minhash import LeanMinHash``)."""
from neardup.datasketch.minhash import LeanMinHash

__all__ = ["LeanMinHash"]
