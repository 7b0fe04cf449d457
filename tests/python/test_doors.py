"""One answer through every door: a matrix of settings run through the CLI (`neardup dedup`),
`neardup.dedup`, `neardup.spark.dedup` on local[2], `neardup.ray.dedup` on a local Ray of 2
CPUs and `neardup dedup --index` into an empty index, on the committed sample crawl and on a
JSONL corpus; every door gives the same clusters and canonical pages, and all but the index
the same evidence. Settings an index cannot
run are refused by `neardup index create`, naming the setting. Also: no front end decides a
default (`neardup.defaults()` is the library's resolution of an empty request, and the
Python signatures carry no setting's default)."""

import inspect
import json
import math
import os
import subprocess
from pathlib import Path

import pytest

import neardup
from neardup import spark as nds
from test_dedup import corpus

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
# Every evidence column of the one schema.
EVIDENCE = [name for name, _, _ in neardup.evidence_columns()]

# Each matching mode, containment off and on, verify, each keep rule, another num_perm, whole
# page vs main content, the title rule off.
MATRIX = [
    {},
    {"matching": "supershingles"},
    {"matching": "supershingles", "containment": 0.8},
    {"containment": None},
    {"verify": True},
    {"keep": "shortest-url"},
    {"keep": "longest-text"},
    {"keep": "newest"},
    {"num_perm": 96},
    {"content": "page"},
    {"different_titles_need": None},
    {"per_language": True},
]

# What `neardup index create` runs: LSH bands, union-find, the first page kept, no verify.
INDEX_RUNS = [s for s in MATRIX if s.get("matching", "bands") == "bands"
              and not s.get("verify") and s.get("keep", "first") == "first"
              and not s.get("per_language")]


def flags(settings):
    """The CLI's flags for Python's settings."""
    names = {"matching": "--lsh", "num_perm": "--minhashes", "shingle": "-k"}
    out = []
    for k, v in settings.items():
        flag = names.get(k, "--" + k.replace("_", "-"))
        if v is True:
            out.append(flag)
        else:
            out += [flag, "off" if v is None else str(v)]
    return out


def neardup_cli(*args):
    return subprocess.run([os.environ["NEARDUP_BIN"], *map(str, args)], check=True,
                          capture_output=True, text=True)


def answer(rows, key):
    """Clusters as sets of keys, each cluster's canonical key, each member's evidence, each
    clustered member's language (where the door gives one)."""
    by_cluster = {}
    for r in rows:
        if r.get("cluster") is not None:
            by_cluster.setdefault(r["cluster"], []).append(r)
    clusters, canonical, evidence, languages = set(), {}, {}, {}
    for members in by_cluster.values():
        if len(members) < 2:
            continue
        keys = frozenset(key(m) for m in members)
        clusters.add(keys)
        (canon,) = [key(m) for m in members if m.get("canonical") is True or m.get("keep") is True]
        canonical[keys] = canon
        for m in members:
            if key(m) != canon and "rule" in m:
                evidence[key(m)] = tuple(m.get(c) for c in EVIDENCE)
            if "language" in m:
                languages[key(m)] = m["language"]
    return clusters, canonical, evidence, languages


def same_evidence(a, b):
    """Evidence equal column by column; floats to the 6 significant digits tables written as
    text carry (the CLI's JSONL), Arrow tables carrying all of them."""
    if a.keys() != b.keys():
        return False
    for k in a:
        for x, y in zip(a[k], b[k]):
            if isinstance(x, float) and isinstance(y, float):
                if not math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-9):
                    return False
            elif x != y:
                return False
    return True


def assert_same(got, want, what, evidence=True):
    assert got[0] == want[0], f"{what}: clusters differ"
    assert got[1] == want[1], f"{what}: canonical pages differ"
    if evidence:
        assert same_evidence(got[2], want[2]), f"{what}: evidence differs"
    if got[3] and want[3]:
        assert got[3] == want[3], f"{what}: languages differ"
    assert want[0], f"{what}: no clusters to compare"


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory):
    """The JSONL corpus: ids that sort in input order (Spark orders pages by id)."""
    records = [{"id": "d%04d" % i, "text": r["text"]} for i, r in enumerate(corpus(seed=3, bases=60))]
    path = tmp_path_factory.mktemp("jsonl") / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def ray_door():
    """A local Ray of 2 CPUs for the module (neardup.ray's door)."""
    ray = pytest.importorskip("ray")
    from neardup import ray as ndr
    ndr.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ndr
    ray.shutdown()


def ray_rows(ds):
    import pyarrow as pa
    import ray
    return pa.concat_tables(ray.get(ds.to_arrow_refs())).to_pylist()


@pytest.fixture(scope="module")
def ray_sample_pages(ray_door):
    """The sample crawl read in Ray's workers, numbered as the Spark door numbers it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def html_pages(t):
        t = t.filter(pc.and_(pc.equal(t.column("status"), 200), pc.equal(t.column("kind"), "html")))
        return t.append_column("order", pc.add(
            pc.multiply(pc.cast(t.column("input"), pa.int64()), 1 << 32), t.column("record")))

    pages = ray_door.read(sorted(str(p) for p in SAMPLE.glob("*.warc.gz")))
    return pages.map_batches(html_pages, batch_format="pyarrow").materialize()


@pytest.fixture(scope="module")
def sample_pages(spark):
    """The sample crawl read in the executors: its pages in input order, as the CLI orders them."""
    from pyspark.sql import functions as F
    pages = nds.read(spark, sorted(str(p) for p in SAMPLE.glob("*.warc.gz")))
    return (pages.where((F.col("status") == 200) & (F.col("kind") == "html"))
            .withColumn("order", F.col("input").cast("long") * (1 << 32) + F.col("record")))


def cli_answer(tmp_path, inputs, settings, key):
    out = tmp_path / "cli"
    neardup_cli("dedup", *inputs, "--out", out, "--no-report", "-q", *flags(settings))
    rows = [json.loads(x) for x in (out / "clusters.jsonl").read_text().splitlines()]
    return answer(rows, key)


def index_answer(tmp_path, inputs, settings, key):
    idx, out = tmp_path / "idx", tmp_path / "via-index"
    neardup.Index.create(idx, **settings)
    neardup_cli("dedup", "--index", idx, *inputs, "--add-as", "run", "--out", out, "-q",
                "--no-report")
    rows = [json.loads(x) for x in (out / "clusters.jsonl").read_text().splitlines()]
    return answer(rows, key)


@pytest.mark.parametrize("settings", MATRIX, ids=lambda s: json.dumps(s, sort_keys=True))
def test_the_sample_crawl_gets_one_answer_through_every_door(spark, sample_pages, ray_door,
                                                            ray_sample_pages, tmp_path, settings):
    inputs = sorted(SAMPLE.glob("*.warc.gz"))
    url = lambda r: r["url"]
    want = cli_answer(tmp_path, inputs, settings, url)
    rows = neardup.dedup(paths=[str(p) for p in inputs], **settings).to_pylist()
    assert_same(answer(rows, url), want, "neardup.dedup")
    # The crawl's capture dates travel too (keep="newest" reads them).
    got = nds.dedup(sample_pages, "text", "order", "url", date_col="date", html=True,
                    **settings)
    urls = {r["order"]: r["url"] for r in sample_pages.select("order", "url").toArrow().to_pylist()}
    rows = got.toArrow().to_pylist()
    for r in rows:
        r["url"] = urls[r["id"]]
    assert_same(answer(rows, url), want, "neardup.spark.dedup")
    rows = ray_rows(ray_door.dedup(ray_sample_pages, "text", "order", "url", date_col="date",
                                   html=True, **settings))
    for r in rows:
        r["url"] = urls[r["id"]]
    assert_same(answer(rows, url), want, "neardup.ray.dedup")
    if settings in INDEX_RUNS:
        assert_same(index_answer(tmp_path, inputs, settings, url), want, "dedup --index",
                    evidence=False)


@pytest.mark.parametrize("settings", MATRIX, ids=lambda s: json.dumps(s, sort_keys=True))
def test_a_jsonl_corpus_gets_one_answer_through_every_door(spark, ray_door, jsonl, tmp_path,
                                                           settings):
    ident = lambda r: r["id"]
    want = cli_answer(tmp_path, [jsonl], settings, ident)
    records = [json.loads(x) for x in jsonl.read_text().splitlines()]
    rows = neardup.dedup(records, **settings).to_pylist()
    assert_same(answer(rows, ident), want, "neardup.dedup")
    got = nds.dedup(spark.createDataFrame(records).repartition(3), "text", "id", **settings)
    assert_same(answer(got.toArrow().to_pylist(), ident), want, "neardup.spark.dedup")
    import ray
    got = ray_door.dedup(ray.data.from_items(records, override_num_blocks=3), "text", "id",
                         **settings)
    assert_same(answer(ray_rows(got), ident), want, "neardup.ray.dedup")
    if settings in INDEX_RUNS:
        assert_same(index_answer(tmp_path, [jsonl], settings, ident), want, "dedup --index",
                    evidence=False)


@pytest.mark.parametrize("settings", [s for s in MATRIX if s not in INDEX_RUNS],
                         ids=lambda s: json.dumps(s, sort_keys=True))
def test_an_index_refuses_what_it_cannot_run_naming_the_setting(tmp_path, settings):
    with pytest.raises(ValueError) as e:
        neardup.Index.create(tmp_path / "idx", **settings)
    assert any(k in str(e.value) for k in settings), str(e.value)
    assert not (tmp_path / "idx" / "MANIFEST").exists()


def test_no_front_end_decides_a_default():
    d = neardup.defaults()
    assert (d["threshold"], d["containment"], d["different_titles_need"]) == (0.8, 0.8, 0.95)
    assert (d["matching"], d["keep"], d["content"], d["minhash"]) == ("bands", "first", "main", "oph")
    # The Python doors take settings as **settings: no default of theirs to drift.
    for f in [neardup.dedup, neardup.Index.create, nds.dedup]:
        params = inspect.signature(f).parameters
        assert not set(params) & set(d), (f.__name__, set(params) & set(d))
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    # What Parts (the Spark executors' settings) resolves with no setting is the defaults.
    cfg = neardup._neardup.Parts().config()
    assert cfg["config"]["threshold"] == d["threshold"]
    assert cfg["config"]["containment"] == d["containment"]
    assert cfg["config"]["different_titles_need"] == d["different_titles_need"]
    assert cfg["params"]["m"] == d["num_perm"] and cfg["params"]["k"] == d["shingle"]
    # The paper's supershingles bring no containment rule unless asked, in every door.
    paper = neardup._neardup.Parts(matching="supershingles").config()["config"]
    assert paper["containment"] is None and paper["different_titles_need"] is None
    with pytest.raises(TypeError, match="unexpected setting"):
        neardup.dedup([{"id": "a", "text": "x"}], treshold=0.5)


# Two sentences in each of four languages, for documents whose language is clear from their
# first lines.
OPENINGS = {
    "eng": ["The committee met on Tuesday to discuss the new budget for the city library.",
            "Several members asked whether the opening hours would change next summer."],
    "fra": ["Le comité s'est réuni mardi pour discuter du nouveau budget de la bibliothèque.",
            "Plusieurs membres ont demandé si les horaires changeraient l'été prochain."],
    "deu": ["Der Ausschuss traf sich am Dienstag, um den neuen Haushalt der Bibliothek zu besprechen.",
            "Mehrere Mitglieder fragten, ob sich die Öffnungszeiten im nächsten Sommer ändern."],
    "spa": ["El comité se reunió el martes para hablar del nuevo presupuesto de la biblioteca.",
            "Varios miembros preguntaron si el horario cambiaría el próximo verano."],
}


def multilingual(tmp_path):
    """A JSONL corpus where each base text (a long shared body of numbered records) appears
    under openings in two languages: near-duplicates across languages, and within each
    language a copy of its own."""
    import random
    rng = random.Random(11)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
    records = []
    for b in range(6):
        body = " ".join(f"{rng.choice(words)}{rng.randrange(1000)}" for _ in range(3000))
        langs = ["eng", "fra"] if b % 2 == 0 else ["deu", "spa"]
        for lang in langs:
            opening = " ".join(OPENINGS[lang] * 12)
            for copy in range(2):
                records.append({"id": "m%03d" % len(records),
                                "text": opening + "\n\n" + body + (" end" if copy else "")})
    path = tmp_path / "multilingual.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


def test_per_language_matches_within_each_language_in_every_door(spark, tmp_path):
    path, records = multilingual(tmp_path)
    ident = lambda r: r["id"]
    together = cli_answer(tmp_path / "together", [path], {}, ident)
    apart = cli_answer(tmp_path / "apart", [path], {"per_language": True}, ident)
    # Every language's copies cluster; across languages only without per_language.
    assert len(together[0]) == 6 and all(len(c) == 4 for c in together[0])
    assert len(apart[0]) == 12 and all(len(c) == 2 for c in apart[0])
    for c in apart[0]:
        assert len({apart[3][k] for k in c}) == 1
    assert set(apart[3].values()) == set(OPENINGS)
    for settings, want in [({}, together), ({"per_language": True}, apart)]:
        rows = neardup.dedup(records, **settings).to_pylist()
        assert [r["language"] for r in rows] == [
            want[3][r["id"]] for r in records], "neardup.dedup: languages differ"
        assert_same(answer(rows, ident), want, "neardup.dedup")
        got = nds.dedup(spark.createDataFrame(records).repartition(3), "text", "id", **settings)
        assert_same(answer(got.toArrow().to_pylist(), ident), want, "neardup.spark.dedup")


CLOTHES = ROOT / "tests" / "fixtures" / "clothes"


def clothes_pair(kind):
    """The first labelled pair of a kind in the committed clothes crawl."""
    import csv
    with open(CLOTHES / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] == kind:
                return r["url_a"], r["url_b"]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind,settings", [
    ("excerpt", {}), ("short-items", {}), ("catalogue-release", {"different_titles_need": None}),
])
def test_explain_says_the_same_in_the_cli_and_python(tmp_path, kind, settings):
    a, b = clothes_pair(kind)
    crawl = CLOTHES / "crawl.warc.gz"
    cli = json.loads(neardup_cli("dedup", crawl, "--explain", a, b, "--json", "-",
                                 *flags(settings)).stdout)
    py = neardup.explain(a, b, paths=[str(crawl)], **settings)
    assert py == cli
    text = neardup_cli("dedup", crawl, "--explain", a, b, *flags(settings)).stdout
    assert text == py["text"]
    # The decision the explanation states is the run's: the pair's clusters in the dedup
    # table, and the rules' verdict against the evidence.
    rows = {r["url"]: r for r in
            neardup.dedup(paths=[str(crawl)], **settings).to_pylist()}
    ca, cb = rows.get(a, {}).get("cluster"), rows.get(b, {}).get("cluster")
    assert py["same_cluster"] == (ca is not None and ca == cb)
    assert py["a"]["cluster"] == ca and py["b"]["cluster"] == cb
    holds = [c for c in py["checks"] if c["role"] == "accepts" and c["holds"]]
    fails = [c for c in py["checks"] if c["role"] == "requires" and not c["holds"]]
    assert py["accepted"] == (bool(holds) and not fails)
    assert py["a"]["compared"] and py["diff"], "the compared texts are shown"


def test_explain_of_rows_names_pages_by_their_url_column():
    body = "the quick brown fox jumps over the lazy dog and keeps running " * 8
    rows = [{"id": "a", "url": "https://a.example/x", "text": body},
            {"id": "b", "url": "https://b.example/x", "text": body + " one more line"},
            {"id": "c", "url": "https://c.example/y", "text": "something else entirely " * 20}]
    e = neardup.explain("https://a.example/x", "https://b.example/x", rows)
    assert e["accepted"] and e["same_cluster"] and e["verdict"].startswith("matched")
    assert e["a"]["compared"].startswith("the quick brown fox")
    e = neardup.explain("https://a.example/x", "https://c.example/y", rows)
    assert not e["accepted"] and not e["same_cluster"]
    with pytest.raises(neardup.NeardupError, match="no page with URL https://nowhere"):
        neardup.explain("https://a.example/x", "https://nowhere.example/", rows)
