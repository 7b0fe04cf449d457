"""neardup.spark on a real Spark (pyspark from PyPI, local[2], Debian's OpenJDK 17): exactly the
single-machine answer on the same rows, whatever the partitions; the committed sample crawl,
read in the executors, gives the CLI's clusters; connected components right on chain, star and
random graphs, and a run that cannot converge within its cap raises."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import neardup
from neardup import spark as nds
from test_dedup import corpus

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "rustdocs-stable.warc.gz"
EVIDENCE = ["rule", "estimated_jaccard", "exact_jaccard", "containment", "b_similarity"]


def rows_of(df):
    """A Spark result as {id: row}, NaN-free (nulls are None)."""
    return {r["id"]: r for r in df.toArrow().to_pylist()}


def single_machine(records, **settings):
    """neardup.dedup on the records sorted by id: the answer the Spark run must give."""
    table = pa.Table.from_pylist(sorted(records, key=lambda r: r["id"]))
    return {r["id"]: r for r in neardup.dedup(table, **settings).to_pylist()}


def assert_same_answer(got, want):
    assert got.keys() == want.keys()
    for i, w in want.items():
        g = got[i]
        for c in ["cluster", "cluster_size", "canonical", "keep"] + EVIDENCE:
            assert g[c] == w[c], (i, c, g[c], w[c])
    assert any(w["cluster"] is not None for w in want.values())
    assert any(not w["keep"] for w in want.values())


@pytest.mark.parametrize("partitions", [1, 3, 16])
def test_the_answer_is_the_single_machine_one_whatever_the_partitions(spark, partitions):
    records = corpus()
    df = spark.createDataFrame(records).repartition(partitions)
    want = single_machine(records)
    stats = {}
    assert_same_answer(rows_of(nds.dedup(df, "text", "id", stats=stats)), want)
    # Members whose own pair with the canonical page was not accepted (chains) are scored
    # again; the others take the accepted pair's evidence.
    assert stats["components"] == "driver" and "members_scored_again" in stats
    if partitions == 3:
        # The same with the components spread over the executors (no graph on the driver).
        stats = {}
        assert_same_answer(rows_of(nds.dedup(df, "text", "id", local_edges=0, stats=stats)), want)
        assert stats["components"] == "distributed" and stats["rounds"] >= 1


@pytest.mark.parametrize("settings", [
    dict(verify=True, keep="longest-text"),
    dict(verify=True, keep="longest-text", local_edges=0),  # canonical pages chosen in Spark
    dict(matching="supershingles", level=2, keep="shortest-url"),
    dict(threshold=0.7, containment=None, num_perm=96, shingle=4),
])
def test_settings_are_the_single_machine_ones(spark, settings):
    # Integer ids, shuffled into the rows, and URLs (the shortest-url rule and the site rule).
    records = [{"id": 7 * i + 3, "text": r["text"], "url": "https://h%d.example/%s" % (i % 3, "x" * (i % 7))}
               for i, r in enumerate(corpus(seed=9, bases=30))]
    random.Random(1).shuffle(records)
    df = spark.createDataFrame(records).repartition(3)
    got = rows_of(nds.dedup(df, "text", "id", "url", **settings))
    settings.pop("local_edges", None)
    assert_same_answer(got, single_machine(records, url="url", **settings))


def test_the_sample_crawl_read_in_the_executors_gives_the_clis_clusters(spark, tmp_path):
    from pyspark.sql import functions as F
    pages = nds.read(spark, [str(SAMPLE)])
    ok = (pages.where((F.col("status") == 200) & (F.col("kind") == "html"))
          .withColumn("order", F.col("input").cast("long") * (1 << 32) + F.col("record")))
    got = nds.dedup(ok, "text", "order", "url", html=True).join(
        ok.select(F.col("order").alias("id"), "url"), "id")
    got = {r["url"]: r for r in got.toArrow().to_pylist()}
    out = tmp_path / "out"
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", str(SAMPLE), "--out", str(out), "-q"], check=True)
    want = [json.loads(line) for line in (out / "clusters.jsonl").read_text().splitlines()]
    assert want, "the sample has clusters"
    clustered = {u: r for u, r in got.items() if r["cluster"] is not None}
    assert sorted(clustered) == sorted(w["url"] for w in want)
    for w in want:
        g = clustered[w["url"]]
        assert (g["cluster"], g["cluster_size"], g["keep"]) == (w["cluster"], w["cluster_size"], w["canonical"])
        assert got_url(got, g["canonical"]) == w["canonical_url"]
        if not w["canonical"]:
            assert (g["rule"], g["estimated_jaccard"]) == (w["rule"], w["estimated_jaccard"])


def got_url(got, canonical_id):
    (url,) = [u for u, r in got.items() if r["id"] == canonical_id]
    return url


def test_rows_without_near_duplicates_are_all_kept(spark):
    records = [{"id": i, "text": " ".join(f"w{i}x{j}" for j in range(60))} for i in range(5)]
    records.append({"id": 9, "text": ""})  # no terms: not sketched, still answered
    got = rows_of(nds.dedup(spark.createDataFrame(records), "text", "id"))
    assert sorted(got) == [0, 1, 2, 3, 4, 9]
    assert all(r["keep"] and r["cluster"] is None and r["cluster_size"] == 1 and r["canonical"] == i
               for i, r in got.items())
    assert got[9]["language"] == "und"


def test_the_kept_corpus_is_the_single_machine_one(spark, tmp_path):
    records = corpus(bases=15)
    df = spark.createDataFrame(records)
    result = nds.dedup(df, "text", "id")
    got = nds.kept(df, result, counts=True, language=True).toArrow().to_pylist()
    table = pa.Table.from_pylist(sorted(records, key=lambda r: r["id"]))
    single = neardup.dedup(table)
    language = dict(zip(single["id"].to_pylist(), single["language"].to_pylist()))
    want = table.filter(single["keep"]).to_pylist()
    assert sorted(got, key=lambda r: r["id"]) and len(got) == len(want) < len(records)
    for g, w in zip(sorted(got, key=lambda r: r["id"]), want):
        assert g.pop("neardup_language") == language[w["id"]]
        size = g.pop("neardup_cluster_size")
        assert g.pop("neardup_removed_copies") == size - 1 >= 0
        assert g == w
    removed = sum(1 for r in result.toArrow().to_pylist() if not r["keep"])
    assert sum(r["neardup_cluster_size"] - 1 for r in nds.kept(df, result, counts=True).collect()) == removed


def components_of(spark, edges, **kw):
    df = spark.createDataFrame(edges, "a long, b long")
    return {r["node"]: r["component"] for r in nds.connected_components(df, **kw).collect()}


def union_find(edges):
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {x: find(x) for x in parent}


def chain_star_and_random(n):
    """`(chain, edges)`: a chain of `n` nodes whose numbers are not in chain order, and the
    chain with a star of `n` leaves whose centre is its largest node and a random graph."""
    rng = random.Random(3)
    labels = list(range(n))
    rng.shuffle(labels)
    chain = [(labels[i], labels[i + 1]) for i in range(n - 1)]
    star = [(10_000 + n, 10_000 + i) for i in range(n)]
    rand = [(20_000 + rng.randrange(400), 20_000 + rng.randrange(400)) for _ in range(300)]
    return chain, chain + star + rand


def test_connected_components_of_chains_stars_and_random_graphs(spark):
    chain, edges = chain_star_and_random(3000)
    assert components_of(spark, edges) == union_find(edges)
    assert set(components_of(spark, chain).values()) == {0}


def test_a_run_that_cannot_converge_within_its_cap_raises(spark):
    chain = [(i, i + 1) for i in range(200)]
    with pytest.raises(nds.NotConverged, match="within 1 rounds"):
        components_of(spark, chain, max_rounds=1)


def test_bad_input_raises_clear_errors(spark):
    records = corpus()[:10]
    df = spark.createDataFrame(records)
    with pytest.raises(KeyError, match="body"):
        nds.dedup(df, "body", "id")
    with pytest.raises(ValueError, match="threshold"):
        nds.dedup(df, "text", "id", threshold=2.0)
    twice = spark.createDataFrame(records + records[:1])
    with pytest.raises(ValueError, match="unique"):
        nds.dedup(twice, "text", "id")
    # Integer ids are checked beside the sketching: the same error.
    numbered = [{"id": i % 9, "text": r["text"]} for i, r in enumerate(records)]
    with pytest.raises(ValueError, match="unique"):
        nds.dedup(spark.createDataFrame(numbered), "text", "id")


def test_an_index_written_by_the_executors_is_the_one_an_add_makes(spark, tmp_path):
    # String ids with URLs; a row without terms is no page of the index.
    records = [dict(r, url="https://h%d.example/p%d" % (i % 4, i)) for i, r in enumerate(corpus())]
    records.append({"id": "zz-empty", "text": "", "url": "https://h0.example/empty"})
    ordered = pa.Table.from_pylist(sorted(records, key=lambda r: r["id"]))
    by_spark, by_add = tmp_path / "spark", tmp_path / "add"
    for d in (by_spark, by_add):
        neardup.Index.create(d, threshold=0.8)
    got = nds.add_to_index(spark.createDataFrame(records).repartition(3), by_spark, "text", "id",
                           "url", label="crawl-1", parts=5)
    want = neardup.Index.open(by_add).add(ordered, "text", "id", "url", label="crawl-1")
    assert (got["pages"], got["first_id"], got["generation"]) == (want["pages"], 0, 1)
    assert got["not_pages"] == 1 and got["parts"] > 1
    # A second add goes on from the first one's ids, in one commit again.
    more = [{"id": "m%02d" % i, "text": r["text"] + " more words here", "url": "https://m.example/%d" % i}
            for i, r in enumerate(records[:12])]
    got2 = nds.add_to_index(spark.createDataFrame(more).repartition(2), by_spark, "text", "id", "url",
                            label="crawl-2")
    want2 = neardup.Index.open(by_add).add(pa.Table.from_pylist(more), "text", "id", "url", label="crawl-2")
    assert (got2["first_id"], got2["pages"]) == (want["pages"], want2["pages"])
    # One key segment a part: once more than 8, the commit merges them in a commit of its own.
    assert got2["generation"] == 2 + (got2["merged_segments"] > 0) and got2["merge_error"] is None
    assert got2["merged_segments"] == 0 or got["parts"] + got2["parts"] > 8
    # Adds happen once: the same rows again are held on the executors, as Index.add holds them.
    again = nds.add_to_index(spark.createDataFrame(more).repartition(2), by_spark, "text", "id", "url",
                             label="crawl-2")
    again_add = neardup.Index.open(by_add).add(pa.Table.from_pylist(more), "text", "id", "url",
                                               label="crawl-2")
    assert (again["pages"], again["held"]) == (0, want2["pages"]) == (again_add["pages"], again_add["held"])
    # Both indexes answer every query alike: the same page ids, URLs, labels and evidence.
    a, b = neardup.Index.open(by_spark), neardup.Index.open(by_add)
    probe = pa.Table.from_pylist(records + more)
    qa, qb = a.query(probe, "text", "id", "url").to_pylist(), b.query(probe, "text", "id", "url").to_pylist()
    assert qa == qb and len(qa) > len(probe)
    sa, sb = a.stats(), b.stats()
    assert sa["pages"] == sb["pages"] and sa["segments"] > sb["segments"]
    # The CLI checks every segment of it (checksums, ids, keys).
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "check", str(by_spark)], check=True,
                   stdout=subprocess.DEVNULL)
    # And `neardup serve` answers from it: a real HTTP lookup of an indexed page's copy.
    served = subprocess.Popen([os.environ["NEARDUP_BIN"], "serve", "--index", str(by_spark),
                               "--listen", "127.0.0.1:0", "--read-only"],
                              stdout=subprocess.PIPE, text=True)
    try:
        addr = served.stdout.readline().split("listening on ")[1].strip()
        import urllib.request
        body = json.dumps({"url": "https://other.example/copy", "text": records[0]["text"]}).encode()
        req = urllib.request.Request(addr + "/v1/lookup", data=body,
                                     headers={"Content-Type": "application/json"})
        answer = json.load(urllib.request.urlopen(req, timeout=30))
    finally:
        served.terminate()
        served.wait(timeout=30)
    assert answer["duplicate"]
    want_ids = {m["match_id"] for m in qa if m["id"] == records[0]["id"]}
    assert {m["id"] for m in answer["matches"]} <= want_ids and records[0]["id"] in want_ids


def test_a_failed_index_add_changes_nothing_and_releases_the_lock(spark, tmp_path):
    records = corpus()[:20]
    d = tmp_path / "idx"
    idx = neardup.Index.create(d)
    before = idx.stats()
    with pytest.raises(ValueError, match="unique"):
        nds.add_to_index(spark.createDataFrame(records + records[:1]), d, "text", "id")
    assert neardup.Index.open(d).stats() == before
    # While an add in parts holds the lock, no other writer gets in.
    from neardup import _neardup
    held = _neardup.IndexParts(str(d))
    with pytest.raises(neardup.NeardupError, match="lock"):
        idx.add(pa.Table.from_pylist(records))
    # A part that does not cover the add's ids is refused at the commit.
    with pytest.raises(neardup.NeardupError, match="starts at page id"):
        held.commit([{"part": 0, "first_id": 5, "pages": 1, "segments": []}])
    assert nds.add_to_index(spark.createDataFrame(records), d, "text", "id")["pages"] == 20


def test_the_example_job_runs_as_a_plain_script_and_builds_an_index(spark, tmp_path):
    import pyarrow.parquet as pq
    out, idx = tmp_path / "result.parquet", tmp_path / "idx"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    p = subprocess.run([sys.executable, str(ROOT / "python/examples/spark_dedup.py"), "--crawl", str(SAMPLE),
                        "--output", str(out), "--master", "local[2]", "--index", str(idx),
                        "--label", "sample"], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    line = json.loads([x for x in p.stdout.splitlines() if x.startswith('{"session_s"')][-1])
    result = pq.read_table(out)
    assert result.num_rows > 0 and result["cluster"].drop_null().to_pylist()
    assert line["index_add"]["pages"] > 0 and line["index_add"]["generation"] == 1
    assert neardup.Index.open(idx).stats()["pages"] == line["index_add"]["pages"]
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "check", str(idx)], check=True,
                   stdout=subprocess.DEVNULL)
    # The output is never overwritten unasked.
    again = subprocess.run([sys.executable, str(ROOT / "python/examples/spark_dedup.py"), "--crawl",
                            str(SAMPLE), "--output", str(out)], capture_output=True, text=True, env=env)
    assert again.returncode != 0 and "exists" in again.stderr
