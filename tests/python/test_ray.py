"""neardup.ray on a real Ray (ray[data] from PyPI, a local Ray of 2 CPUs started once): the
CLI's and `neardup.dedup`'s answer, every evidence column, whatever the blocks; the committed
sample crawl read in Ray's workers gives the CLI's clusters; the keep rules change every door
alike; a worker killed mid-run changes nothing, and one killed after writing an index part
leaves the index an add without it makes; the kept corpus is the CLI's; bad ids raise."""

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import neardup
from test_doors import answer, assert_same, cli_answer
from test_dedup import corpus

ray = pytest.importorskip("ray")
from neardup import ray as ndr  # noqa: E402
from neardup import spark as nds  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = sorted((ROOT / "data" / "sample").glob("*.warc.gz"))


# Armed (the file made) by a test, the next index part a worker writes is written and its
# worker dies before the task returns (test_an_index_part_whose_worker_died_after_writing_...).
DIE_AFTER_WRITE = os.path.join(os.environ.get("TMPDIR", "/tmp"), "neardup-ray-die-%d" % os.getpid())


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    def die_after_write_hook():
        """Every worker's setup (a closure: pickled whole, as workers cannot import this
        module): `neardup.ray._write_part`, the index part's task body, looked up by name
        when a task runs, wrapped to die once after writing when armed."""
        import os

        import neardup.ray as m
        write = m._write_part

        def write_then_die_once(*args, **kwargs):
            out = write(*args, **kwargs)
            armed = os.environ["NEARDUP_TEST_DIE_AFTER_WRITE"]
            try:
                os.rename(armed, armed + ".fired")  # one worker claims the one death
            except OSError:
                return out
            os._exit(1)

        m._write_part = write_then_die_once

    ndr.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"OPENBLAS_NUM_THREADS": "1",
                                       "NEARDUP_TEST_DIE_AFTER_WRITE": DIE_AFTER_WRITE},
                          "worker_process_setup_hook": die_after_write_hook})
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


def rows(ds):
    return pa.concat_tables(ray.get(ds.to_arrow_refs())).to_pylist()


@pytest.fixture(scope="module")
def records():
    """Ids that sort in input order (the page order is the ids')."""
    return [{"id": "d%04d" % i, "text": r["text"]} for i, r in enumerate(corpus(seed=3, bases=60))]


@pytest.fixture(scope="module")
def jsonl(records, tmp_path_factory):
    path = tmp_path_factory.mktemp("jsonl") / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_read_gives_what_neardup_read_gives_for_every_format(records, tmp_path):
    """JSONL, Parquet and WARC files, one task each: every record neardup.read reads, with its
    file's position in the paths and its own in the file."""
    import pyarrow.parquet as pq
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:40]))
    pq.write_table(pa.Table.from_pylist(records[40:]), tmp_path / "rows.parquet")
    paths = [str(tmp_path / "rows.jsonl"), str(tmp_path / "rows.parquet"), str(SAMPLE[0])]
    got = sorted(rows(ndr.read(paths)), key=lambda r: (r["input"], r["record"]))
    want = []
    for i, p in enumerate(paths):
        alone = [r for b in neardup.read([p]) for r in b.to_pylist()]
        want += [dict(r, input=i, record=k) for k, r in enumerate(alone)]
    assert [(r["input"], r["record"], r["id"], r["text"], r["offset"]) for r in got] == [
        (r["input"], r["record"], r["id"], r["text"], r["offset"]) for r in want]
    assert {r["input"] for r in got} == {0, 1, 2}


@pytest.mark.parametrize("blocks", [2, 7, 16])
def test_the_clis_answer_whatever_the_blocks(records, jsonl, tmp_path, blocks):
    ident = lambda r: r["id"]
    want = cli_answer(tmp_path, [jsonl], {}, ident)
    assert_same(answer(neardup.dedup(records).to_pylist(), ident), want, "neardup.dedup")
    ds = ray.data.from_items(records, override_num_blocks=blocks)
    stats = {}
    got = rows(ndr.dedup(ds, "text", "id", partitions=blocks, stats=stats))
    assert len(got) == len(records) and {r["id"] for r in got} == {r["id"] for r in records}
    assert_same(answer(got, ident), want, f"neardup.ray.dedup ({blocks} blocks)")
    assert stats["edges"] > 0


def test_components_found_in_the_workers_give_the_clis_answer(records, jsonl, tmp_path):
    """local_edges=0: the components' rounds, canonical pages and evidence in the workers."""
    ident = lambda r: r["id"]
    want = cli_answer(tmp_path, [jsonl], {}, ident)
    stats = {}
    got = rows(ndr.dedup(ray.data.from_items(records, override_num_blocks=3), local_edges=0,
                         partitions=3, stats=stats))
    assert stats["components"] == "distributed" and stats["rounds"] >= 1
    assert_same(answer(got, ident), want, "neardup.ray.dedup (components in the workers)")
    # Integer ids too (the canonical page's id is its order): neardup.dedup's answer on them.
    numbered = [{"n": 5 * i + 1, "text": r["text"]} for i, r in enumerate(records)]
    by_n = lambda r: r["n"] if "n" in r else r["id"]
    got = rows(ndr.dedup(ray.data.from_items(numbered, override_num_blocks=2), "text", "n",
                         local_edges=0))
    want = neardup.dedup(pa.Table.from_pylist(numbered), "text", "n").to_pylist()
    assert_same(answer(got, by_n), answer(want, by_n),
                "neardup.ray.dedup (integer ids, components in the workers)")


def test_connected_components_of_chains_stars_and_random_graphs():
    from test_spark import chain_star_and_random, union_find
    _, edges = chain_star_and_random(300)

    def components(edges, **kw):
        ds = ray.data.from_items([{"a": a, "b": b} for a, b in edges], override_num_blocks=3)
        return {r["node"]: r["component"] for r in rows(ndr.connected_components(ds, 3, **kw))}

    want = union_find(edges)
    linked = {x for a, b in edges if a != b for x in (a, b)}
    assert components(edges) == {x: c for x, c in want.items() if x in linked}
    with pytest.raises(ndr.NotConverged, match="within 1 rounds"):
        components([(i, i + 1) for i in range(200)], max_rounds=1)


def test_the_sample_crawl_read_in_the_workers_gives_the_clis_answer(tmp_path):
    url = lambda r: r["url"]
    want = cli_answer(tmp_path, SAMPLE, {}, url)
    def html_pages(t):
        t = t.filter(pc.and_(pc.equal(t.column("status"), 200), pc.equal(t.column("kind"), "html")))
        return t.append_column("order", pc.add(
            pc.multiply(pc.cast(t.column("input"), pa.int64()), 1 << 32), t.column("record")))

    pages = ndr.read([str(p) for p in SAMPLE]).map_batches(html_pages, batch_format="pyarrow")
    pages = pages.materialize()
    read = rows(pages)
    # The workers read what neardup.read reads, record for record.
    alone = [r for p in SAMPLE for b in neardup.read([str(p)]) for r in b.to_pylist()]
    assert sorted((r["file"], r["offset"]) for r in read) == sorted(
        (r["file"], r["offset"]) for r in alone if r["status"] == 200 and r["kind"] == "html")
    urls = {r["order"]: r["url"] for r in read}
    got = rows(ndr.dedup(pages, "text", "order", "url", html=True))
    for r in got:
        r["url"] = urls[r["id"]]
    assert_same(answer(got, url), want, "neardup.ray.dedup of the sample crawl")


def test_the_keep_rule_changes_the_canonical_pages_in_every_door_alike(spark, tmp_path):
    """Each later copy is the longer text: "first" keeps the originals, "longest-text" the
    copies, and the CLI, Python, Spark and Ray say the same under each rule."""
    import random
    rng = random.Random(5)
    words = [f"w{i}" for i in range(3000)]
    bases = [" ".join(rng.choice(words) for _ in range(300)) for _ in range(8)]
    records = [{"id": "a%02d" % i, "text": b} for i, b in enumerate(bases)]
    records += [{"id": "b%02d" % i, "text": b + " and five more words here"}
                for i, b in enumerate(bases)]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    ident = lambda r: r["id"]
    answers = {}
    for keep in ("first", "longest-text"):
        want = answers[keep] = cli_answer(tmp_path / keep, [path], {"keep": keep}, ident)
        assert len(want[0]) == 8
        got = neardup.dedup(records, keep=keep).to_pylist()
        assert_same(answer(got, ident), want, f"neardup.dedup keep={keep}")
        got = rows(ndr.dedup(ray.data.from_items(records, override_num_blocks=3), keep=keep))
        assert_same(answer(got, ident), want, f"neardup.ray.dedup keep={keep}")
        got = nds.dedup(spark.createDataFrame(records).repartition(3), keep=keep)
        assert_same(answer(got.toArrow().to_pylist(), ident), want,
                    f"neardup.spark.dedup keep={keep}")
    assert set(answers["first"][1].values()) == {r["id"] for r in records[:8]}
    assert set(answers["longest-text"][1].values()) == {r["id"] for r in records[8:]}


def test_a_worker_killed_mid_run_changes_nothing(records, tmp_path):
    """A block's task dies with its worker process the first time (after it has sketched and
    before it returns): Ray runs it again, and the answer is the one of a run without."""
    marker = str(tmp_path / "died")

    def die_once(t):
        if t.num_rows and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return t

    want = neardup.dedup(records).to_pylist()
    ds = ray.data.from_items(records, override_num_blocks=4).map_batches(
        die_once, batch_format="pyarrow", max_retries=3)
    got = rows(ndr.dedup(ds))
    assert os.path.exists(marker)
    ident = lambda r: r["id"]
    assert_same(answer(got, ident), answer(want, ident), "after a retried task")


def test_the_kept_corpus_is_the_clis(records, jsonl, tmp_path):
    from test_doors import neardup_cli
    neardup_cli("dedup", jsonl, "--out", tmp_path / "out", "--no-report", "-q", "--write-kept",
                tmp_path / "kept", "--kept-counts", "--kept-language")
    (kept,) = (tmp_path / "kept").rglob("*.jsonl")
    want = {r["id"]: r for r in map(json.loads, kept.read_text().splitlines())}
    ds = ray.data.from_items(records, override_num_blocks=3).materialize()
    result = ndr.dedup(ds).materialize()
    got = {r["id"]: r for r in rows(ndr.kept(ds, result, counts=True, language=True))}
    assert got.keys() == want.keys() and len(got) < len(records)
    for i, w in want.items():
        for c in ("text", "neardup_cluster_size", "neardup_removed_copies", "neardup_language"):
            assert got[i][c] == w[c], (i, c)
    with pytest.raises(ValueError, match="neardup_cluster_size"):
        ndr.kept(rows_with(ds, "neardup_cluster_size"), result, counts=True)


def rows_with(ds, column):
    return ds.map_batches(lambda t: t.append_column(column, pa.nulls(t.num_rows, pa.int64())),
                          batch_format="pyarrow")


def test_bad_ids_and_columns_raise_clear_errors(records):
    twice = records[:5] + [dict(records[0])]
    with pytest.raises(ValueError, match="unique and not null.*'d0000', on 2 rows"):
        ndr.dedup(ray.data.from_items(twice))
    with pytest.raises(ValueError, match=r"unique and not null \(null\)"):
        ndr.dedup(ray.data.from_items([{"id": 1, "text": "a b"}, {"id": None, "text": "c d"}]))
    with pytest.raises(KeyError, match="no id column 'page'"):
        ndr.dedup(ray.data.from_items(records[:3]), id_col="page")
    with pytest.raises(KeyError, match="no column 'body'"):
        ndr.dedup(ray.data.from_items(records[:3]), text_col="body")
    with pytest.raises(ValueError, match="min-hash functions"):
        ndr.dedup(ray.data.from_items(records[:3]), num_perm=0)


def test_no_default_of_its_own():
    """Settings travel as **settings, resolved by the library (`neardup.defaults()`)."""
    import inspect
    params = inspect.signature(ndr.dedup).parameters
    assert not set(params) & set(neardup.defaults())
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_an_index_written_by_the_workers_is_the_one_an_add_makes(records, tmp_path):
    import subprocess
    rows_ = [dict(r, url="https://h%d.example/p%d" % (i % 4, i)) for i, r in enumerate(records)]
    rows_.append({"id": "zz-empty", "text": "", "url": "https://h0.example/empty"})
    ordered = pa.Table.from_pylist(sorted(rows_, key=lambda r: r["id"]))
    by_ray, by_add = tmp_path / "ray", tmp_path / "add"
    for d in (by_ray, by_add):
        neardup.Index.create(d, threshold=0.8)
    got = ndr.add_to_index(ray.data.from_items(rows_, override_num_blocks=3), by_ray, "text",
                           "id", "url", label="crawl-1", parts=5)
    want = neardup.Index.open(by_add).add(ordered, "text", "id", "url", label="crawl-1")
    assert (got["pages"], got["first_id"], got["generation"]) == (want["pages"], 0, 1)
    assert got["not_pages"] == 1 and got["parts"] > 1
    # The same rows again are held in the workers, as Index.add holds them.
    again = ndr.add_to_index(ray.data.from_items(rows_, override_num_blocks=2), by_ray, "text",
                             "id", "url", label="crawl-1")
    again_add = neardup.Index.open(by_add).add(ordered, "text", "id", "url", label="crawl-1")
    assert (again["pages"], again["held"]) == (0, want["pages"]) == (
        again_add["pages"], again_add["held"])
    a, b = neardup.Index.open(by_ray), neardup.Index.open(by_add)
    probe = pa.Table.from_pylist(rows_)
    qa = a.query(probe, "text", "id", "url").to_pylist()
    assert qa == b.query(probe, "text", "id", "url").to_pylist() and len(qa) > len(rows_)
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "check", str(by_ray)], check=True,
                   stdout=subprocess.DEVNULL)
    # A failed add (repeated ids) changes nothing and releases the lock.
    before = a.stats()
    with pytest.raises(ValueError, match="unique"):
        ndr.add_to_index(ray.data.from_items(rows_ + rows_[:1]), by_ray, "text", "id")
    assert neardup.Index.open(by_ray).stats() == before


def test_an_index_part_whose_worker_died_after_writing_is_committed_once(records, tmp_path):
    """A part's task writes its segments and its worker dies before it returns: Ray runs the
    task again, the new attempt writes files of its own, and the commit names that attempt's
    alone: the index is the one an add without the death makes."""
    import subprocess
    rows_ = [dict(r, url="https://h%d.example/p%d" % (i % 4, i)) for i, r in enumerate(records)]
    by_ray, by_add = tmp_path / "ray", tmp_path / "add"
    for d in (by_ray, by_add):
        neardup.Index.create(d, threshold=0.8)
    open(DIE_AFTER_WRITE, "w").close()
    try:
        got = ndr.add_to_index(ray.data.from_items(rows_, override_num_blocks=3), by_ray,
                               "text", "id", "url", label="crawl-1", parts=3)
        assert os.path.exists(DIE_AFTER_WRITE + ".fired"), "no worker died after writing"
    finally:
        for f in (DIE_AFTER_WRITE, DIE_AFTER_WRITE + ".fired"):
            if os.path.exists(f):
                os.remove(f)
    ordered = pa.Table.from_pylist(sorted(rows_, key=lambda r: r["id"]))
    want = neardup.Index.open(by_add).add(ordered, "text", "id", "url", label="crawl-1")
    assert (got["pages"], got["first_id"]) == (want["pages"], 0)
    a, b = neardup.Index.open(by_ray), neardup.Index.open(by_add)
    assert a.stats()["pages"] == b.stats()["pages"] == len(rows_)
    probe = pa.Table.from_pylist(rows_)
    assert a.query(probe, "text", "id", "url").to_pylist() == b.query(
        probe, "text", "id", "url").to_pylist()
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "check", str(by_ray)], check=True,
                   stdout=subprocess.DEVNULL)


def test_the_example_job_runs_as_a_script_and_builds_an_index(tmp_path):
    import subprocess
    import sys
    out, idx = tmp_path / "out", tmp_path / "idx"
    run = subprocess.run([sys.executable, str(ROOT / "python/examples/ray_dedup.py"), "--crawl",
                          *map(str, SAMPLE), "--output", str(out), "--index", str(idx),
                          "--num-cpus", "2"], capture_output=True, text=True,
                         env=dict(os.environ, RAY_ADDRESS=""))
    assert run.returncode == 0, run.stderr[-3000:]
    printed = json.loads([l for l in run.stdout.splitlines() if l.startswith("{")][-1])
    import pyarrow.parquet as pq
    result = pq.read_table(out)
    assert result.num_rows > 0 and result.column("cluster").null_count < result.num_rows
    assert printed["index_add"]["pages"] == neardup.Index.open(idx).stats()["pages"] > 0
    # An existing output is refused unless --overwrite.
    again = subprocess.run([sys.executable, str(ROOT / "python/examples/ray_dedup.py"),
                            "--crawl", str(SAMPLE[0]), "--output", str(out)],
                           capture_output=True, text=True)
    assert again.returncode != 0 and "exists" in again.stderr
