"""datasketch's ``WeightedMinHash`` and ``WeightedMinHashGenerator`` (Ioffe's improved
consistent weighted sampling, 2010), value for value.

The generator draws datasketch's parameters (``rs``, ``ln_cs``, ``betas``: numpy's
``RandomState(seed)``, float32) and computes a signature with the same float32 operations in
the same order, so its values equal datasketch's; what changes is that all samples are computed
at once over the non-zero weights only, where datasketch loops over the samples in Python and
over every dimension. ``minhash_many`` gives each row the values ``minhash`` gives it
(datasketch's ``minhash_many`` is documented to differ from its own ``minhash``).
"""
import collections.abc
import copy

import numpy as np

__all__ = ["WeightedMinHash", "WeightedMinHashGenerator"]


class WeightedMinHash:
    """datasketch's ``WeightedMinHash(seed, hashvalues)``: ``sample_size`` rows of ``(k, t)``."""

    def __init__(self, seed, hashvalues):
        self.seed = seed
        self.hashvalues = hashvalues

    def jaccard(self, other):
        """The estimated weighted Jaccard similarity: the share of equal ``(k, t)`` rows."""
        if other.seed != self.seed:
            raise ValueError("Cannot compute Jaccard given WeightedMinHash objects with "
                             "different seeds")
        if len(self) != len(other):
            raise ValueError("Cannot compute Jaccard given WeightedMinHash objects with "
                             "different numbers of hash values")
        same = np.all(np.asarray(self.hashvalues) == np.asarray(other.hashvalues), axis=1)
        return float(np.count_nonzero(same)) / float(len(self))

    def digest(self):
        return copy.copy(self.hashvalues)

    def copy(self):
        return WeightedMinHash(self.seed, self.digest())

    def __len__(self):
        return len(self.hashvalues)

    def __eq__(self, other):
        return (type(self) is type(other) and self.seed == other.seed
                and np.array_equal(self.hashvalues, other.hashvalues))

    __hash__ = None


class WeightedMinHashGenerator:
    """datasketch's ``WeightedMinHashGenerator(dim, sample_size=128, seed=1)``."""

    def __init__(self, dim, sample_size=128, seed=1):
        self.dim = dim
        self.sample_size = sample_size
        self.seed = seed
        generator = np.random.RandomState(seed=seed)
        self.rs = generator.gamma(2, 1, (sample_size, dim)).astype(np.float32)
        self.ln_cs = np.log(generator.gamma(2, 1, (sample_size, dim))).astype(np.float32)
        self.betas = generator.uniform(0, 1, (sample_size, dim)).astype(np.float32)

    def _values(self, cols, weights):
        """The ``(k, t)`` rows of the weights ``weights`` (float32, all > 0) at dimensions
        ``cols``: per sample, the dimension of least ``ln_cs - ln_y - rs`` (first on ties)."""
        vlog = np.log(weights)
        rs = self.rs[:, cols]
        betas = self.betas[:, cols]
        t = np.floor((vlog / rs) + betas)
        ln_y = (t - betas) * rs
        ln_a = self.ln_cs[:, cols] - ln_y - rs
        at = np.argmin(ln_a, axis=1)
        hashvalues = np.zeros((self.sample_size, 2), dtype=int)
        hashvalues[:, 0] = cols[at]
        hashvalues[:, 1] = t[np.arange(self.sample_size), at]
        return hashvalues

    def minhash(self, v):
        """The weighted signature of one vector of ``dim`` non-negative weights."""
        if not isinstance(v, collections.abc.Sized):
            raise TypeError("Input vector must be sized")
        if not len(v) == self.dim:
            raise ValueError("Input dimension mismatch, expecting %d" % self.dim)
        v = np.asarray(v).astype(np.float32, copy=False)
        if not np.any(v != 0):
            raise ValueError("Input is all zeros")
        return WeightedMinHash(self.seed, self._row(v))

    def _row(self, v):
        # Weights that are not above zero (and NaN) take no part, as in datasketch, where
        # their logarithms are NaN and nanargmin passes them by.
        cols = np.flatnonzero(v > 0)
        if len(cols) == 0:
            raise ValueError("All-NaN slice encountered: no weight above zero")
        return self._values(cols, v[cols])

    def minhash_many(self, X):
        """One signature per row of a matrix (numpy or scipy sparse), ``None`` for an all-zero
        row."""
        if hasattr(X, "tocsr"):
            X = X.tocsr()
            if X.ndim != 2:
                raise ValueError("Input must have two dimensions")
            if X.shape[1] != self.dim:
                raise ValueError("Input dimension mismatch, expecting %d" % self.dim)
            out = []
            for i in range(X.shape[0]):
                lo, hi = X.indptr[i], X.indptr[i + 1]
                cols = np.asarray(X.indices[lo:hi])
                w = np.asarray(X.data[lo:hi]).astype(np.float32)
                keep = w > 0
                cols, w = cols[keep], w[keep]
                order = np.argsort(cols, kind="stable")
                cols, w = cols[order], w[order]
                out.append(WeightedMinHash(self.seed, self._values(cols, w)) if len(cols)
                           else None)
            return out
        if not isinstance(X, np.ndarray):
            raise TypeError("Input X must be a sparse matrix or numpy matrix")
        if X.ndim != 2:
            raise ValueError("Input must have two dimensions")
        if X.shape[1] != self.dim:
            raise ValueError("Input dimension mismatch, expecting %d" % self.dim)
        out = []
        for row in X:
            row = row.astype(np.float32, copy=False)
            out.append(WeightedMinHash(self.seed, self._row(row)) if np.any(row != 0) else None)
        return out
