"""``datasketch.weighted_minhash``'s names (``WeightedMinHash``, ``WeightedMinHashGenerator``),
so that code importing them from there switches with its import line."""
from neardup.datasketch.weighted import WeightedMinHash, WeightedMinHashGenerator

__all__ = ["WeightedMinHash", "WeightedMinHashGenerator"]
