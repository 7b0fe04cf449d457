"""neardup from Python: the Rust engine's objects, nothing reimplemented in Python.

This first slice offers the objects datasketch users know, with the same method names, so a
datasketch script ports by changing an import::

    from neardup import MinHash, MinHashLSH   # was: from datasketch import MinHash, MinHashLSH

    m1, m2 = MinHash(num_perm=128), MinHash(num_perm=128)
    m1.update_batch(w.encode() for w in "a page about near duplicates".split())
    m2.update_batch(w.encode() for w in "a page about near duplicate pages".split())
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    lsh.insert("m1", m1)
    print(lsh.query(m2), m1.jaccard(m2))

Differences from datasketch: `digest()` returns a list of 64-bit ints (no numpy needed);
elements may be `str` (taken as UTF-8) as well as `bytes`; LSH keys are `str`, `bytes` or
`int`; a signature's digest does not depend on the order of its elements nor on how they were
split over merged signatures (one-permutation hashing, densified by re-hashing rounds).
"""

from neardup._neardup import MinHash, MinHashLSH, __version__, dedup

__all__ = ["MinHash", "MinHashLSH", "dedup", "__version__"]
