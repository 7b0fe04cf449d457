"""neardup.datasketch against datasketch 2 itself (PyPI) in each of its permutation schemes:
the same values for the same elements, its documented behaviour (empty signatures, errors,
pickles, LeanMinHash and bBitMinHash bytes), and code that runs after one changed import."""

import pickle
import random

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

from neardup import datasketch as nd  # noqa: E402

SCHEMES = ["affine32", "affine64", "legacy"]


def words(seed, n, vocab=5000):
    rng = random.Random(seed)
    return ["w%d" % rng.randrange(vocab) for _ in range(n)]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("num_perm,seed", [(1, 1), (4, 1), (128, 1), (256, 7), (100, 2**31)])
def test_values_equal_datasketchs_for_the_same_elements(num_perm, seed, scheme):
    elements = [w.encode() for w in words(num_perm, 300)]
    ours = nd.MinHash(num_perm, seed, scheme=scheme)
    theirs = datasketch.MinHash(num_perm, seed, scheme=scheme)
    for e in elements[:100]:
        ours.update(e)
        theirs.update(e)
    ours.update_batch(elements[100:])
    theirs.update_batch(elements[100:])
    assert ours.scheme == theirs.scheme == scheme
    assert ours.hashvalues.dtype == theirs.hashvalues.dtype
    assert ours.hashvalues.tolist() == theirs.hashvalues.tolist()
    assert np.array_equal(ours.permutations, theirs.permutations)
    assert np.asarray(ours.permutations).dtype == np.asarray(theirs.permutations).dtype
    assert ours.count() == theirs.count()


def test_the_default_scheme_is_datasketch_2s_affine32():
    ours, theirs = nd.MinHash(16), datasketch.MinHash(16)
    ours.update(b"Hello")
    theirs.update(b"Hello")
    assert ours.scheme == theirs.scheme == "affine32"
    assert ours.hashvalues.dtype == np.uint32
    assert ours.hashvalues.tolist() == theirs.hashvalues.tolist()


def test_datasketchs_documented_legacy_value_for_hello():
    m = nd.MinHash(4, 1, scheme="legacy")
    m.update(b"Hello")
    assert m.hashvalues.tolist() == [734825475, 960773806, 359816889, 342714745]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_users_hashfunc_gives_datasketchs_values(scheme):
    def h(x):
        return x * 2654435761 % (1 << 32)

    ours = nd.MinHash(16, 3, hashfunc=h, scheme=scheme)
    theirs = datasketch.MinHash(16, 3, hashfunc=h, scheme=scheme)
    ours.update(12)
    theirs.update(12)
    ours.update_batch([24, 99, 1 << 31])
    theirs.update_batch([24, 99, 1 << 31])
    assert ours.hashvalues.tolist() == theirs.hashvalues.tolist()


def test_a_hash_wider_than_affine32_takes_is_refused_as_datasketch_refuses_it():
    def wide(x):
        return 1 << 40

    for m in (nd.MinHash(8, hashfunc=wide), datasketch.MinHash(8, hashfunc=wide)):
        with pytest.raises(ValueError, match="affine64"):
            m.update(b"x")
        with pytest.raises(ValueError, match="affine64"):
            m.update_batch([b"x"])
    ours = nd.MinHash(8, hashfunc=wide, scheme="affine64")
    theirs = datasketch.MinHash(8, hashfunc=wide, scheme="affine64")
    ours.update(b"x")
    theirs.update(b"x")
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


@pytest.mark.parametrize("scheme", SCHEMES)
def test_empty_signatures_and_errors_as_datasketch(scheme):
    a, b = nd.MinHash(scheme=scheme), nd.MinHash(scheme=scheme)
    assert a.is_empty() and a.jaccard(b) == 1.0
    assert a.hashvalues.tolist() == datasketch.MinHash(scheme=scheme).hashvalues.tolist()
    a.update(b"x")
    assert not a.is_empty() and a.jaccard(b) == 0.0
    with pytest.raises(ValueError):
        a.jaccard(nd.MinHash(seed=2, scheme=scheme))
    with pytest.raises(ValueError):
        a.merge(nd.MinHash(num_perm=64, scheme=scheme))
    other = next(s for s in SCHEMES if s != scheme)
    with pytest.raises(ValueError, match="schemes"):
        a.jaccard(nd.MinHash(scheme=other))
    with pytest.raises(ValueError, match="schemes"):
        a.merge(nd.MinHash(scheme=other))
    with pytest.raises(ValueError, match="scheme"):
        nd.MinHash.union(a, nd.MinHash(scheme=other))
    with pytest.raises(ValueError, match="scheme must be one of"):
        nd.MinHash(scheme="affine16")
    with pytest.raises(ValueError, match="num_perm must be positive"):
        nd.MinHash(num_perm=0)
    with pytest.raises(ValueError):
        nd.MinHash(hashfunc=3)
    with pytest.raises(ValueError):
        nd.MinHash.union(a)
    a.clear()
    assert a.is_empty()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_merge_union_copy_bulk_and_generator_equal_datasketchs(scheme):
    sets = [[w.encode() for w in words(s, 50)] for s in range(3)]
    ours = nd.MinHash.bulk(sets, num_perm=32, scheme=scheme)
    theirs = datasketch.MinHash.bulk(sets, num_perm=32, scheme=scheme)
    assert [m.hashvalues.tolist() for m in ours] == [m.hashvalues.tolist() for m in theirs]
    u = nd.MinHash.union(*ours)
    v = datasketch.MinHash.union(*theirs)
    assert u.hashvalues.tolist() == v.hashvalues.tolist()
    c = ours[0].copy()
    c.merge(ours[1])
    assert c.hashvalues.tolist() == np.minimum(ours[0].hashvalues, ours[1].hashvalues).tolist()
    assert c.scheme == u.scheme == scheme
    assert [m.hashvalues.tolist()
            for m in nd.MinHash.generator(sets, num_perm=32, scheme=scheme)] == \
        [m.hashvalues.tolist() for m in ours]
    pa = pytest.importorskip("pyarrow")
    column = pa.array([[w.decode() for w in row] for row in sets])
    rows = nd.bulk_hashvalues(column, num_perm=32, scheme=scheme)
    assert rows.dtype == theirs[0].hashvalues.dtype
    assert rows.tolist() == [m.hashvalues.tolist() for m in theirs]
    assert [m.hashvalues.tolist() for m in nd.MinHash.bulk(column, num_perm=32, scheme=scheme)] \
        == rows.tolist()


def test_an_array_read_then_changed_in_place_is_read_back_before_the_next_update():
    m = nd.MinHash(8)
    m.update(b"a")
    before = m.hashvalues.copy()
    m.hashvalues[0] = 5
    m.update(b"b")
    assert m.hashvalues[0] == 5 and m.hashvalues[1] <= before[1]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_reloading_from_hashvalues_and_seed_then_updating_equals_one_signature(scheme):
    whole = nd.MinHash(64, scheme=scheme)
    whole.update_batch([b"a", b"b", b"c"])
    part = nd.MinHash(64, scheme=scheme)
    part.update_batch([b"a", b"b"])
    again = nd.MinHash(seed=part.seed, hashvalues=part.hashvalues, scheme=scheme)
    again.update(b"c")
    assert again == whole
    # As in datasketch 2: values carry no trace of their scheme, so it must be named.
    for cls in (nd.MinHash, datasketch.MinHash):
        with pytest.raises(ValueError, match="scheme must be specified"):
            cls(hashvalues=part.hashvalues)
        with pytest.raises(ValueError, match="scheme must be specified"):
            cls(permutations=part.permutations)


def test_values_and_permutations_a_scheme_cannot_hold_are_refused():
    with pytest.raises(ValueError, match="out of range"):
        nd.MinHash(hashvalues=[1 << 40], scheme="affine32")
    with pytest.raises(ValueError, match="odd"):
        nd.MinHash(permutations=([2, 3], [0, 0]), scheme="affine32")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_pickle_written_by_datasketch_is_read_without_datasketchs_classes(scheme):
    m = datasketch.MinHash(32, 5, scheme=scheme)
    m.update_batch([b"a", b"b"])
    lean = datasketch.LeanMinHash(m)
    back = nd.loads(pickle.dumps(m))
    assert type(back) is nd.MinHash and back.seed == 5 and back.scheme == scheme
    assert back.hashvalues.tolist() == m.hashvalues.tolist()
    back.update(b"c")
    m.update(b"c")
    assert back.hashvalues.tolist() == m.hashvalues.tolist()
    lb = nd.loads(pickle.dumps(lean))
    assert type(lb) is nd.LeanMinHash and lb.hashvalues.tolist() == lean.hashvalues.tolist()
    assert lb.scheme == scheme
    # And neardup's own pickles round-trip.
    ours = nd.MinHash(32, 5, scheme=scheme)
    ours.update(b"z")
    assert pickle.loads(pickle.dumps(ours)) == ours


def test_a_pickle_from_before_datasketch_2_is_a_legacy_signature():
    m = nd.MinHash(8, 2, scheme="legacy")
    m.update(b"a")
    state = m.__getstate__()
    del state["scheme"]  # what datasketch 1.x pickled
    old = object.__new__(nd.MinHash)
    old.__setstate__(state)
    assert old.scheme == "legacy" and old == m


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("byteorder", list("@=<>!"))
def test_lean_minhash_bytes_both_ways(byteorder, scheme):
    m = datasketch.MinHash(10, 3, scheme=scheme)
    m.update_batch([b"a", b"b", b"c"])
    theirs = datasketch.LeanMinHash(m)
    ours = nd.LeanMinHash(nd.MinHash(10, 3, hashvalues=m.hashvalues, scheme=scheme))
    assert ours.bytesize(byteorder) == theirs.bytesize(byteorder)
    a, b = bytearray(ours.bytesize(byteorder)), bytearray(theirs.bytesize(byteorder))
    ours.serialize(a, byteorder)
    theirs.serialize(b, byteorder)
    assert a == b
    back = nd.LeanMinHash.deserialize(bytes(b), byteorder)
    assert back.seed == 3 and back.hashvalues.tolist() == m.hashvalues.tolist()
    assert back.scheme == scheme and back.hashvalues.dtype == m.hashvalues.dtype
    there = datasketch.LeanMinHash.deserialize(a, byteorder)
    assert there.hashvalues.tolist() == m.hashvalues.tolist() and there.scheme == scheme
    # Pickles hold the same bytes.
    assert bytes(ours.__getstate__()) == bytes(theirs.__getstate__())


def test_lean_minhash_is_frozen_hashable_and_pickles_as_datasketchs():
    m = nd.MinHash(16, scheme="legacy")
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
    with pytest.raises(ValueError, match="scheme must be specified"):
        nd.LeanMinHash(seed=1, hashvalues=m.hashvalues)
    with pytest.raises(ValueError, match="conflicts"):
        nd.LeanMinHash(m, scheme="affine32")
    a32 = nd.LeanMinHash(nd.MinHash(16))
    assert a32.bytesize() == datasketch.LeanMinHash(datasketch.MinHash(16)).bytesize()
    assert a32 != nd.LeanMinHash(seed=1, hashvalues=a32.hashvalues, scheme="legacy")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("b", [0, 1, 2, 3, 5, 8, 12, 16, 27, 32])
def test_b_bit_minhash_equals_datasketchs(scheme, b):
    from neardup.datasketch.b_bit_minhash import bBitMinHash
    elements = [w.encode() for w in words(b, 200)]
    sigs = []
    for cls in (nd.MinHash, datasketch.MinHash):
        one, two = cls(100, 4, scheme=scheme), cls(100, 4, scheme=scheme)
        one.update_batch(elements[:150])
        two.update_batch(elements[50:])
        sigs.append((one, two))
    for r in (0.0, 0.3):
        ours = [bBitMinHash(m, b, r) for m in sigs[0]]
        theirs = [datasketch.bBitMinHash(m, b, r) for m in sigs[1]]
        assert ours[0].hashvalues.tolist() == theirs[0].hashvalues.tolist()
        if b > 0:
            assert ours[0].jaccard(ours[1]) == theirs[0].jaccard(theirs[1])
        assert ours[0].bytesize() == theirs[0].bytesize()
        mine, their = ours[0].__getstate__(), theirs[0].__getstate__()
        assert bytes(mine) == bytes(their)
        back = object.__new__(bBitMinHash)
        back.__setstate__(their)
        assert back == ours[0] and back.scheme == scheme
        assert pickle.loads(pickle.dumps(ours[0])) == ours[0]


def test_b_bit_minhash_refuses_what_datasketch_refuses():
    from neardup.datasketch.b_bit_minhash import bBitMinHash
    m = nd.MinHash(16)
    with pytest.raises(ValueError):
        bBitMinHash(m, 33)
    with pytest.raises(ValueError):
        bBitMinHash(m, 1, 1.5)
    legacy = bBitMinHash(nd.MinHash(16, scheme="legacy"))
    with pytest.raises(ValueError, match="schemes"):
        bBitMinHash(m).jaccard(legacy)
    with pytest.raises(ValueError, match="b values"):
        bBitMinHash(m, 2).jaccard(bBitMinHash(m, 3))


def test_datasketchs_module_paths_import_the_same_classes():
    # `sed s/datasketch/neardup.datasketch/` over `from datasketch.X import Y` lines.
    import neardup.datasketch as nd
    from neardup.datasketch.b_bit_minhash import bBitMinHash
    from neardup.datasketch.hashfunc import sha1_hash32, sha1_hash64
    from neardup.datasketch.lean_minhash import LeanMinHash
    from neardup.datasketch.lsh import MinHashLSH
    from neardup.datasketch.minhash import MinHash
    from neardup.datasketch.weighted_minhash import WeightedMinHash, WeightedMinHashGenerator
    assert (MinHash, LeanMinHash, bBitMinHash, MinHashLSH, WeightedMinHash,
            WeightedMinHashGenerator, sha1_hash32, sha1_hash64) == (
                nd.MinHash, nd.LeanMinHash, nd.bBitMinHash, nd.MinHashLSH, nd.WeightedMinHash,
                nd.WeightedMinHashGenerator, nd.sha1_hash32, nd.sha1_hash64)
    assert sha1_hash64(b"Hello") == datasketch.sha1_hash64(b"Hello")


def test_an_lsh_index_refuses_a_second_scheme_as_datasketch_does():
    for mod in (nd, datasketch):
        lsh = mod.MinHashLSH(threshold=0.5, num_perm=16)
        a32, legacy = mod.MinHash(16), mod.MinHash(16, scheme="legacy")
        a32.update(b"x")
        legacy.update(b"x")
        lsh.insert("a", a32)
        with pytest.raises(ValueError, match="scheme"):
            lsh.insert("b", legacy)
        with pytest.raises(ValueError, match="scheme"):
            lsh.query(legacy)
        assert lsh.query(a32) == ["a"]
        other = mod.MinHashLSH(threshold=0.5, num_perm=16)
        other.insert("c", legacy)
        with pytest.raises(ValueError, match="scheme"):
            lsh.merge(other)
