"""neardup's datasketch-like objects against datasketch itself (PyPI) on the same strings,
and against brute force."""

import random

import pytest

import neardup
from neardup import MinHash, MinHashLSH


def words(seed, n, vocab=5000):
    rng = random.Random(seed)
    return ["w%d" % rng.randrange(vocab) for _ in range(n)]


def exact(a, b):
    a, b = set(a), set(b)
    return len(a & b) / len(a | b)


def sig(elements, num_perm=128, seed=1):
    m = MinHash(num_perm=num_perm, seed=seed)
    m.update_batch(elements)
    return m


def test_jaccard_estimates_agree_with_datasketch_within_the_estimators_error():
    datasketch = pytest.importorskip("datasketch")
    rng = random.Random(3)
    for trial in range(20):
        base = words(trial, 400)
        other = [w if rng.random() > 0.3 else "x%d" % rng.randrange(10**6) for w in base]
        want = exact(base, other)
        ours = sig(base, 256).jaccard(sig(other, 256))
        d1, d2 = datasketch.MinHash(num_perm=256), datasketch.MinHash(num_perm=256)
        for w in set(base):
            d1.update(w.encode())
        for w in set(other):
            d2.update(w.encode())
        theirs = d1.jaccard(d2)
        se = (want * (1 - want) / 256) ** 0.5
        assert abs(ours - want) <= 4 * se + 1e-9, (trial, ours, want)
        assert abs(ours - theirs) <= 8 * se + 1e-9, (trial, ours, theirs)


def test_digest_ignores_order_repeats_and_splits():
    xs = words(1, 300)
    a = sig(xs)
    b = sig(list(reversed(xs)) + xs[:50])
    assert a.digest() == b.digest() and a == b
    left, right = sig(xs[:100]), sig(xs[100:])
    left.merge(right)
    assert left.digest() == a.digest()
    assert sig([w.encode() for w in xs]).digest() == a.digest(), "str is its UTF-8 bytes"
    assert len(a) == 128 and not a.is_empty() and MinHash().is_empty()
    assert a.copy() == a and a.seed == 1


def test_lsh_queries_equal_brute_force_over_bands():
    rng = random.Random(7)
    base = words(9, 200)
    docs = {}
    for i in range(60):
        keep = rng.random()
        docs["d%d" % i] = [w if rng.random() < keep else "y%d" % rng.randrange(10**6) for w in base]
    sigs = {k: sig(v) for k, v in docs.items()}
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    for k, s in sigs.items():
        lsh.insert(k, s)
    b, r = lsh.b, lsh.r
    assert b * r <= 128 and len(lsh) == 60
    for k, s in sigs.items():
        d = s.digest()
        want = sorted(
            o for o, t in sigs.items()
            if any(t.digest()[i * r:(i + 1) * r] == d[i * r:(i + 1) * r] for i in range(b))
        )
        assert sorted(lsh.query(s)) == want
        assert k in lsh
    lsh.remove("d0")
    assert "d0" not in lsh and "d0" not in lsh.query(sigs["d0"])


def test_lsh_bands_are_datasketchs():
    datasketch = pytest.importorskip("datasketch")
    for threshold in (0.5, 0.8, 0.9):
        ours = MinHashLSH(threshold=threshold, num_perm=128)
        theirs = datasketch.MinHashLSH(threshold=threshold, num_perm=128)
        assert (ours.b, ours.r) == (theirs.b, theirs.r), threshold


def test_mistakes_raise_clear_exceptions():
    with pytest.raises(ValueError, match="num_perm"):
        MinHash(num_perm=0)
    with pytest.raises(TypeError, match="bytes or str"):
        MinHash().update(3)
    with pytest.raises(TypeError, match="bytes or str"):
        MinHash().update_batch([b"a", None])
    with pytest.raises(ValueError, match="different families"):
        MinHash(seed=1).jaccard(MinHash(seed=2))
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    lsh.insert("a", sig(["x"]))
    with pytest.raises(ValueError, match="already"):
        lsh.insert("a", sig(["x"]))
    with pytest.raises(ValueError, match="minvalues"):
        lsh.insert("b", sig(["x"], num_perm=64))
    with pytest.raises(ValueError, match="not in the index"):
        lsh.remove("zz")
    with pytest.raises(ValueError, match="seed"):
        lsh.insert("c", sig(["x"], seed=5))
    with pytest.raises(TypeError, match="LSH key"):
        lsh.insert(1.5, sig(["x"]))
    with pytest.raises(ValueError, match="threshold"):
        MinHashLSH(threshold=1.5)
    assert neardup.__version__


def test_docstring_examples_run():
    import doctest

    import neardup._neardup

    for module in (neardup, neardup._neardup):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert failures == 0, module
    assert doctest.testmod(neardup).attempted >= 5


def test_minhash_pickles_and_crosses_processes():
    import multiprocessing
    import pickle

    small, big = sig(words(1, 20)), sig(words(2, 3000))
    for m in (small, big, MinHash(num_perm=64, seed=9)):
        back = pickle.loads(pickle.dumps(m))
        assert back == m and back.digest() == m.digest() and back.seed == m.seed
        assert len(back) == len(m)
        back.update(b"one more")
        m2 = m.copy()
        m2.update(b"one more")
        assert back.digest() == m2.digest()
    # A datasketch-style pool: signatures made in workers, sent back pickled.
    docs = [words(10 + i, 200) for i in range(8)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(sig, docs)
    assert [g.digest() for g in got] == [sig(d).digest() for d in docs]
    with pytest.raises(ValueError, match="MinHash state"):
        MinHash(num_perm=128).__setstate__(b"garbage")


def test_lsh_pickles_with_its_answers_in_order():
    import pickle

    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    sigs = {}
    for i in range(40):
        base = words(100 + i % 7, 200)
        sigs[i] = sig(base[: 150 + i])
        lsh.insert(["k%d" % i, i, b"b%d" % i][i % 3], sigs[i])
    lsh.remove(4)
    back = pickle.loads(pickle.dumps(lsh))
    assert (back.b, back.r, len(back)) == (lsh.b, lsh.r, len(lsh))
    for s in sigs.values():
        assert back.query(s) == lsh.query(s)
    assert "k0" in back and 4 not in back and b"b5" in back
    with pytest.raises(ValueError, match="seed"):
        back.insert("other", sig(["x"], seed=2))
