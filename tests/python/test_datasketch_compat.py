"""neardup.datasketch against datasketch itself (PyPI): the same values for the same elements,
its documented behaviour (empty signatures, errors, pickles, LeanMinHash bytes), and code that
runs after one changed import."""

import pickle
import random

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

from neardup import datasketch as nd  # noqa: E402


def words(seed, n, vocab=5000):
    rng = random.Random(seed)
    return ["w%d" % rng.randrange(vocab) for _ in range(n)]


@pytest.mark.parametrize("num_perm,seed", [(1, 1), (4, 1), (128, 1), (256, 7), (100, 2**31)])
def test_values_equal_datasketchs_for_the_same_elements(num_perm, seed):
    elements = [w.encode() for w in words(num_perm, 300)]
    ours, theirs = nd.MinHash(num_perm, seed), datasketch.MinHash(num_perm, seed)
    for e in elements[:100]:
        ours.update(e)
        theirs.update(e)
    ours.update_batch(elements[100:])
    theirs.update_batch(elements[100:])
    assert ours.hashvalues.dtype == np.uint64
    assert ours.hashvalues.tolist() == theirs.hashvalues.tolist()
    assert np.array_equal(ours.permutations, theirs.permutations)
    assert ours.count() == theirs.count()


def test_datasketchs_documented_value_for_hello():
    m = nd.MinHash(4, 1)
    m.update(b"Hello")
    assert m.hashvalues.tolist() == [734825475, 960773806, 359816889, 342714745]


def test_a_users_hashfunc_gives_datasketchs_values():
    def h(x):
        return x * 2654435761 % (1 << 32)

    ours, theirs = nd.MinHash(16, 3, hashfunc=h), datasketch.MinHash(16, 3, hashfunc=h)
    ours.update(12)
    theirs.update(12)
    ours.update_batch([24, 99, 1 << 31])
    theirs.update_batch([24, 99, 1 << 31])
    assert ours.hashvalues.tolist() == theirs.hashvalues.tolist()


def test_bytes_like_elements_and_strings_refused_as_hashlib_refuses_them():
    a, b, c = nd.MinHash(8), nd.MinHash(8), nd.MinHash(8)
    a.update(b"abc")
    b.update(bytearray(b"abc"))
    c.update(memoryview(b"abc"))
    assert a == b == c
    with pytest.raises(TypeError):
        a.update("abc")
    with pytest.raises(TypeError):
        datasketch.MinHash(8).update("abc")


def test_empty_signatures_and_errors_as_datasketch():
    a, b = nd.MinHash(), nd.MinHash()
    assert a.is_empty() and a.jaccard(b) == 1.0
    a.update(b"x")
    assert not a.is_empty() and a.jaccard(b) == 0.0
    with pytest.raises(ValueError):
        a.jaccard(nd.MinHash(seed=2))
    with pytest.raises(ValueError):
        a.merge(nd.MinHash(num_perm=64))
    with pytest.raises(ValueError):
        nd.MinHash(hashfunc=3)
    with pytest.raises(ValueError):
        nd.MinHash.union(a)
    a.clear()
    assert a.is_empty()


def test_merge_union_copy_bulk_and_generator_equal_datasketchs():
    sets = [[w.encode() for w in words(s, 50)] for s in range(3)]
    ours = nd.MinHash.bulk(sets, num_perm=32)
    theirs = datasketch.MinHash.bulk(sets, num_perm=32)
    assert [m.hashvalues.tolist() for m in ours] == [m.hashvalues.tolist() for m in theirs]
    u = nd.MinHash.union(*ours)
    v = datasketch.MinHash.union(*theirs)
    assert u.hashvalues.tolist() == v.hashvalues.tolist()
    c = ours[0].copy()
    c.merge(ours[1])
    assert c.hashvalues.tolist() == np.minimum(ours[0].hashvalues, ours[1].hashvalues).tolist()
    assert [m.hashvalues.tolist() for m in nd.MinHash.generator(sets, num_perm=32)] == \
        [m.hashvalues.tolist() for m in ours]


def test_an_array_read_then_changed_in_place_is_read_back_before_the_next_update():
    m = nd.MinHash(8)
    m.update(b"a")
    before = m.hashvalues.copy()
    m.hashvalues[0] = 5
    m.update(b"b")
    assert m.hashvalues[0] == 5 and m.hashvalues[1] <= before[1]


def test_reloading_from_hashvalues_and_seed_then_updating_equals_one_signature():
    whole = nd.MinHash(64)
    whole.update_batch([b"a", b"b", b"c"])
    part = nd.MinHash(64)
    part.update_batch([b"a", b"b"])
    again = nd.MinHash(seed=part.seed, hashvalues=part.hashvalues)
    again.update(b"c")
    assert again == whole


def test_a_pickle_written_by_datasketch_is_read_without_datasketchs_classes():
    m = datasketch.MinHash(32, 5)
    m.update_batch([b"a", b"b"])
    lean = datasketch.LeanMinHash(m)
    back = nd.loads(pickle.dumps(m))
    assert type(back) is nd.MinHash and back.seed == 5
    assert back.hashvalues.tolist() == m.hashvalues.tolist()
    back.update(b"c")
    m.update(b"c")
    assert back.hashvalues.tolist() == m.hashvalues.tolist()
    lb = nd.loads(pickle.dumps(lean))
    assert type(lb) is nd.LeanMinHash and lb.hashvalues.tolist() == lean.hashvalues.tolist()
    # And neardup's own pickles round-trip.
    ours = nd.MinHash(32, 5)
    ours.update(b"z")
    assert pickle.loads(pickle.dumps(ours)) == ours


@pytest.mark.parametrize("byteorder", list("@=<>!"))
def test_lean_minhash_bytes_both_ways(byteorder):
    m = datasketch.MinHash(10, 3)
    m.update_batch([b"a", b"b", b"c"])
    theirs = datasketch.LeanMinHash(m)
    ours = nd.LeanMinHash(nd.MinHash(10, 3, hashvalues=m.hashvalues))
    assert ours.bytesize(byteorder) == theirs.bytesize(byteorder)
    a, b = bytearray(ours.bytesize(byteorder)), bytearray(theirs.bytesize(byteorder))
    ours.serialize(a, byteorder)
    theirs.serialize(b, byteorder)
    assert a == b
    back = nd.LeanMinHash.deserialize(bytes(b), byteorder)
    assert back.seed == 3 and back.hashvalues.tolist() == m.hashvalues.tolist()
    there = datasketch.LeanMinHash.deserialize(a, byteorder)
    assert there.hashvalues.tolist() == m.hashvalues.tolist()


def test_lean_minhash_is_frozen_hashable_and_pickles_as_datasketchs():
    m = nd.MinHash(16)
    m.update(b"q")
    lm = nd.LeanMinHash(m)
    with pytest.raises(TypeError):
        lm.update(b"r")
    assert hash(lm) == hash(nd.LeanMinHash(m)) and {lm: 1}[nd.LeanMinHash(m)] == 1
    assert lm.bytesize() == 16 * 4 + 4 + 8
    assert pickle.loads(pickle.dumps(lm)) == lm
    assert lm.jaccard(m) == 1.0
    with pytest.raises(ValueError):
        nd.LeanMinHash()


def test_datasketchs_module_paths_import_the_same_classes():
    # `sed s/datasketch/neardup.datasketch/` over `from datasketch.X import Y` lines.
    import neardup.datasketch as nd
    from neardup.datasketch.hashfunc import sha1_hash32
    from neardup.datasketch.lean_minhash import LeanMinHash
    from neardup.datasketch.lsh import MinHashLSH
    from neardup.datasketch.minhash import MinHash
    from neardup.datasketch.weighted_minhash import WeightedMinHash, WeightedMinHashGenerator
    assert (MinHash, LeanMinHash, MinHashLSH, WeightedMinHash, WeightedMinHashGenerator,
            sha1_hash32) == (nd.MinHash, nd.LeanMinHash, nd.MinHashLSH, nd.WeightedMinHash,
                             nd.WeightedMinHashGenerator, nd.sha1_hash32)


def test_datasketch_2s_legacy_scheme_is_named_and_the_others_refused():
    from neardup.datasketch import MinHash
    m = MinHash(num_perm=4, seed=1, scheme="legacy")
    m.update(b"Hello")
    assert m.scheme == "legacy"
    # datasketch's documented values for b"Hello" (its README), as without a scheme.
    assert m.hashvalues.tolist() == [734825475, 960773806, 359816889, 342714745]
    for other in ("affine32", "affine64"):
        with pytest.raises(ValueError, match="legacy"):
            MinHash(num_perm=4, scheme=other)
