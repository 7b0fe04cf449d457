"""neardup.datasketch's MinHashLSH, weighted MinHash and batch calls against datasketch itself
(PyPI): the same candidates for the same signatures, datasketch's documented behaviour (keys of
any hashable type, duplicate checks, sessions, the query buffer, merges, counts, pickles both
ways), a Redis-backed index read and written by both on a real Redis, and the batch calls
answering what the one-at-a-time calls answer."""

import pickle
import random

import numpy as np
import pyarrow as pa
import pytest

datasketch = pytest.importorskip("datasketch")

from neardup import datasketch as nd  # noqa: E402


def sets(n, seed=0, vocab=400, size=30):
    """`n` sets of words, in groups of near copies (so that queries find something)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 3 and out:
            base = list(out[-1])
            base[rng.randrange(len(base))] = "x%d" % rng.randrange(10**6)
            out.append(base)
        else:
            out.append(["w%d" % rng.randrange(vocab) for _ in range(size)])
    return [[w.encode() for w in s] for s in out]


def signatures(module, data, num_perm=64):
    return module.MinHash.bulk(data, num_perm=num_perm)


@pytest.mark.parametrize("threshold,num_perm", [(0.5, 64), (0.8, 128), (0.3, 32)])
def test_candidates_equal_datasketchs_for_the_same_signatures(threshold, num_perm):
    data = sets(600, seed=num_perm)
    ours = nd.MinHashLSH(threshold=threshold, num_perm=num_perm)
    theirs = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm)
    assert (ours.b, ours.r) == (theirs.b, theirs.r)
    ms = signatures(nd, data, num_perm)
    ds = signatures(datasketch, data, num_perm)
    for i, (m, d) in enumerate(zip(ms, ds)):
        ours.insert(i, m)
        theirs.insert(i, d)
    found = 0
    for m, d in zip(ms, ds):
        got = ours.query(m)
        assert len(got) == len(set(got))
        assert set(got) == set(theirs.query(d))
        # datasketch's own signatures go into neardup's index too.
        assert set(ours.query(d)) == set(got)
        found += len(got)
    assert found > len(ms)
    assert [sum(c.values()) for c in ours.get_counts()] == [len(ms)] * ours.b


def test_keys_of_any_hashable_type_and_datasketchs_errors():
    lsh = nd.MinHashLSH(threshold=0.5, num_perm=16)
    m = nd.MinHash(16)
    m.update(b"a")
    keys = [("doc", 1), 2.5, frozenset({1}), None, "s", b"b", 7]
    for k in keys:
        lsh.insert(k, m)
    assert set(map(repr, lsh.query(m))) == set(map(repr, keys))
    assert all(k in lsh for k in keys) and 8 not in lsh
    with pytest.raises(ValueError, match="already exists"):
        lsh.insert(("doc", 1), m)
    with pytest.raises(ValueError, match="Expecting minhash with length 16, got 18"):
        lsh.insert("z", nd.MinHash(18))
    with pytest.raises(ValueError, match="Expecting minhash with length 16"):
        lsh.query(nd.MinHash(18))
    with pytest.raises(ValueError, match="does not exist"):
        lsh.remove("nothing")
    with pytest.raises(ValueError):
        nd.MinHashLSH(threshold=1.5)
    with pytest.raises(ValueError, match="Weights must sum"):
        nd.MinHashLSH(weights=(0.2, 0.2))
    with pytest.raises(ValueError, match="num_perm"):
        nd.MinHashLSH(num_perm=16, params=(5, 4))
    with pytest.raises(ValueError, match="Cassandra"):
        nd.MinHashLSH(storage_config={"type": "cassandra"})
    with pytest.raises(ValueError, match="Unknown storage type"):
        nd.MinHashLSH(storage_config={"type": "sqlite"})


def test_a_key_inserted_twice_without_the_check_is_found_by_both_and_removed_once():
    lsh = nd.MinHashLSH(threshold=0.5, num_perm=32)
    a, b = nd.MinHash(32), nd.MinHash(32)
    a.update_batch([b"a", b"b", b"c"])
    b.update_batch([b"x", b"y", b"z"])
    lsh.insert("k", a)
    lsh.insert("k", b, check_duplication=False)
    assert lsh.query(a) == ["k"] and lsh.query(b) == ["k"]
    assert len(lsh.keys["k"]) == 2 * lsh.b
    lsh.remove("k")
    assert lsh.query(a) == [] and lsh.query(b) == [] and lsh.is_empty()


def test_views_sessions_buffer_merge_and_counts():
    ms = signatures(nd, sets(30, seed=3), 32)
    lsh = nd.MinHashLSH(threshold=0.5, num_perm=32)
    with lsh.insertion_session() as s:
        for i, m in enumerate(ms[:20]):
            s.insert("k%d" % i, m)
    for i, H in enumerate(lsh.keys["k0"]):
        assert "k0" in lsh.hashtables[i][H]
    assert len(set(len(H) for t in lsh.hashtables for H in t)) == 1
    with lsh.deletion_session() as s:
        s.remove("k1")
    assert "k1" not in lsh and all("k1" not in t[H] for t in lsh.hashtables for H in t)
    # The query buffer answers what every queued query found.
    lsh.add_to_query_buffer(ms[0])
    assert set(lsh.collect_query_buffer()) == set(lsh.query(ms[0]))
    lsh.add_to_query_buffer(ms[0])
    lsh.add_to_query_buffer(ms[3])
    assert set(lsh.collect_query_buffer()) == set(lsh.query(ms[0])) & set(lsh.query(ms[3]))
    assert lsh.collect_query_buffer() == []
    other = nd.MinHashLSH(threshold=0.5, num_perm=32)
    for i, m in enumerate(ms[20:]):
        other.insert("o%d" % i, m)
    other.insert("k0", ms[0])
    with pytest.raises(ValueError, match="overlapping"):
        lsh.merge(other, check_overlap=True)
    lsh.merge(other)
    assert all(("o%d" % i) in lsh for i in range(10))
    assert set(lsh.query(ms[25])) >= {"o5"}
    with pytest.raises(ValueError, match="different initialization"):
        lsh.merge(nd.MinHashLSH(threshold=0.5, num_perm=64))
    # k0 holds two signatures since the merge (its own and other's).
    subset = lsh.get_subset_counts("k0", "k2")
    assert [sum(c.values()) for c in subset] == [3] * lsh.b


def test_pickles_both_ways_and_prepickled_keys():
    ms = signatures(nd, sets(40, seed=5), 32)
    ds = signatures(datasketch, sets(40, seed=5), 32)
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=32)
    ours = nd.MinHashLSH(threshold=0.5, num_perm=32, prepickle=True)
    for i, (m, d) in enumerate(zip(ms, ds)):
        theirs.insert(("t", i), d)
        ours.insert(("t", i), m)
    back = pickle.loads(pickle.dumps(ours))
    read = nd.loads(pickle.dumps(theirs))  # a datasketch index, without datasketch's classes
    assert isinstance(read, nd.MinHashLSH)
    for m, d in zip(ms, ds):
        want = set(theirs.query(d))
        assert set(back.query(m)) == want
        assert set(read.query(m)) == want
        assert set(ours.query(m)) == want
    assert pickle.dumps(("t", 0)) in ours.keys


def test_a_datasketch_pickle_read_answers_membership():
    ds = signatures(datasketch, sets(10, seed=3), 32)
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=32)
    for i, d in enumerate(ds):
        theirs.insert(("t", i), d)
    ms = signatures(nd, sets(10, seed=3), 32)
    # datasketch 2's pickle: affine32 band names (4 bytes a value) and its scheme, kept.
    read = nd.loads(pickle.dumps(theirs))
    assert ("t", 0) in read and ("t", 99) not in read
    assert set(read.query(ms[0])) == set(theirs.query(ds[0]))
    legacy = nd.MinHash(32, scheme="legacy")
    with pytest.raises(ValueError, match="scheme"):
        read.query(legacy)
    # datasketch 1.x's MinHashLSH had neither _require_bytes_keys nor _minhash_scheme; found
    # by fuzzing (fuzz/python/datasketch_state.py): `key in lsh` of an index read from such a
    # pickle raised AttributeError.
    del theirs.__dict__["_require_bytes_keys"], theirs.__dict__["_minhash_scheme"]
    read = nd.loads(pickle.dumps(theirs))
    assert ("t", 0) in read and ("t", 99) not in read
    assert set(read.query(ms[0])) == set(theirs.query(ds[0]))


def test_batch_calls_answer_what_one_at_a_time_answers():
    data = sets(3000, seed=9)
    hv = nd.bulk_hashvalues(pa.array(data), num_perm=64)
    ms = signatures(nd, data, 64)
    assert hv.shape == (3000, 64)
    assert np.array_equal(hv, np.stack([m.hashvalues for m in ms]))
    one = nd.MinHashLSH(threshold=0.6, num_perm=64)
    for i, m in enumerate(ms):
        one.insert(i, m)
    many = nd.MinHashLSH(threshold=0.6, num_perm=64)
    many.insert_many(list(range(3000)), hv)
    want = [one.query(m) for m in ms]
    assert many.query_many(hv) == want
    assert many.query_many(ms) == want
    # Arrow in (a fixed-size list column) and out (query row, key).
    fixed = pa.FixedSizeListArray.from_arrays(pa.array(hv.reshape(-1)), 64)
    arrow = nd.MinHashLSH(threshold=0.6, num_perm=64)
    arrow.insert_many(list(range(3000)), pa.chunked_array([fixed[:1000], fixed[1000:]]))
    table = arrow.query_many(fixed, arrow=True)
    assert table.column_names == ["query", "key"]
    pairs = list(zip(table["query"].to_pylist(), table["key"].to_pylist()))
    assert pairs == [(q, k) for q, keys in enumerate(want) for k in keys]
    with pytest.raises(ValueError, match="twice"):
        nd.MinHashLSH(threshold=0.6, num_perm=64).insert_many([1, 1], hv[:2])
    with pytest.raises(ValueError, match="already exists"):
        many.insert_many([5], hv[:1])
    with pytest.raises(ValueError, match="keys and"):
        nd.MinHashLSH(threshold=0.6, num_perm=64).insert_many([1, 2, 3], hv[:2])
    with pytest.raises(ValueError, match="length 64"):
        many.query_many(hv[:, :32])


def test_bulk_hashvalues_reads_every_arrow_list_type():
    data = [[b"a", b"b"], [b"c"], [], None, [b"d", b"a"]]
    want = []
    for row in data:
        m = datasketch.MinHash(16)
        m.update_batch(row or [])
        want.append(m.hashvalues)
    want = np.stack(want)
    strs = [None if r is None else [x.decode() for x in r] for r in data]
    for col in [pa.array(data), pa.array(data, pa.large_list(pa.large_binary())),
                pa.array(strs), pa.array(strs, pa.list_(pa.string_view())),
                pa.chunked_array([pa.array(data[:2]), pa.array(data[2:])])]:
        assert np.array_equal(nd.bulk_hashvalues(col, num_perm=16), want)
        assert np.array_equal(nd.bulk_hashvalues(col, num_perm=16, threads=1), want)
    ints = pa.array([[1, 2, 3], [5]], pa.list_(pa.uint64()))
    m = datasketch.MinHash(16, hashfunc=lambda x: x)
    m.update_batch([1, 2, 3])
    assert nd.bulk_hashvalues(ints, num_perm=16)[0].tolist() == m.hashvalues.tolist()
    ms = nd.MinHash.bulk(pa.array(data), num_perm=16)
    assert [x.hashvalues.tolist() for x in ms] == want.tolist()
    with pytest.raises(ValueError, match="null element"):
        nd.bulk_hashvalues(pa.array([[b"a", None]]), num_perm=16)
    with pytest.raises(TypeError, match="list array"):
        nd.bulk_hashvalues(pa.array([b"a"]), num_perm=16)
    with pytest.raises(TypeError, match="binary, strings or integers"):
        nd.bulk_hashvalues(pa.array([[1.5]]), num_perm=16)


def test_weighted_values_equal_datasketchs_dense_and_sparse():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.RandomState(4)
    ours = nd.WeightedMinHashGenerator(300, sample_size=64, seed=3)
    theirs = datasketch.WeightedMinHashGenerator(300, sample_size=64, seed=3)
    rows = []
    for _ in range(60):
        v = rng.uniform(0, 20, 300) * (rng.uniform(size=300) < rng.uniform(0.01, 0.9))
        if not v.any():
            continue
        rows.append(v)
        a, b = ours.minhash(v), theirs.minhash(v)
        assert a.hashvalues.tolist() == b.hashvalues.tolist()
        assert a.hashvalues.dtype == b.hashvalues.dtype
    X = np.stack(rows + [np.zeros(300)])
    dense = ours.minhash_many(X)
    sparse = ours.minhash_many(scipy_sparse.csr_matrix(X))
    assert dense[-1] is None and sparse[-1] is None
    for v, d, s in zip(rows, dense, sparse):
        assert d.hashvalues.tolist() == s.hashvalues.tolist() == ours.minhash(v).hashvalues.tolist()
    a, b = ours.minhash(rows[0]), ours.minhash(rows[1])
    assert a.jaccard(b) == theirs.minhash(rows[0]).jaccard(theirs.minhash(rows[1]))
    with pytest.raises(ValueError, match="all zeros"):
        ours.minhash(np.zeros(300))
    # Weighted signatures in an index.
    lsh = nd.MinHashLSH(threshold=0.5, num_perm=64)
    for i, d in enumerate(dense[:-1]):
        lsh.insert(i, d)
    assert all(i in lsh.query(d) for i, d in enumerate(dense[:-1]))
    back = nd.loads(pickle.dumps(a))
    assert back == a


def test_datasketchs_weighted_index_pickle_is_read():
    gen = datasketch.WeightedMinHashGenerator(50, sample_size=32, seed=1)
    rng = np.random.RandomState(1)
    ms = [gen.minhash(rng.uniform(1, 5, 50)) for _ in range(20)]
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=32)
    for i, m in enumerate(ms):
        theirs.insert(i, m)
    read = nd.loads(pickle.dumps(theirs))
    for m in ms:
        assert set(read.query(m)) == set(theirs.query(m))


def test_redis_index_is_read_and_written_by_both(redis_server):
    pytest.importorskip("redis")
    config = {"type": "redis", "redis": {"host": "127.0.0.1", "port": redis_server}}
    data = sets(200, seed=11)
    ms, ds = signatures(nd, data, 32), signatures(datasketch, data, 32)
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=32,
                                   storage_config=dict(config, basename=b"theirs"))
    for i, d in enumerate(ds[:100]):
        theirs.insert(("d", i), d)
    ours = nd.MinHashLSH(threshold=0.5, num_perm=32, storage_config=dict(config, basename=b"theirs"))
    with ours.insertion_session(buffer_size=50) as s:
        for i, m in enumerate(ms[100:]):
            s.insert(("n", i), m)
    assert len(ours.keys) == 200
    for m, d in zip(ms, ds):
        want = set(theirs.query(d))
        assert want and set(ours.query(m)) == want
    # Removed by neardup, gone for datasketch, empty buckets dropped.
    ours.remove(("d", 0))
    assert ("d", 0) not in theirs and ("d", 0) not in ours
    assert all(len(t[H]) > 0 for t in ours.hashtables for H in t)
    assert [sum(c.values()) for c in ours.get_counts()] == [199] * ours.b
    # The batch calls on Redis answer what the one-at-a-time calls answer.
    fresh = nd.MinHashLSH(threshold=0.5, num_perm=32, storage_config=dict(config, basename=b"b"))
    fresh.insert_many([("b", i) for i in range(200)], np.stack([m.hashvalues for m in ms]))
    assert fresh.query_many(ms[:20]) == [fresh.query(m) for m in ms[:20]]
    back = pickle.loads(pickle.dumps(fresh))
    assert set(back.query(ms[0])) == set(fresh.query(ms[0]))
