"""neardup.Index: create, add rows and crawl files under labels, query rows and files
against everything added, the same answers as the CLI's `neardup index` on the same folder,
and errors as exceptions with a kind."""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

import neardup
from test_dedup import SAMPLE, corpus


def test_rows_added_are_found_by_later_queries(tmp_path):
    records = corpus(seed=11, bases=20)
    first, later = records[: len(records) // 2], records[len(records) // 2:]
    idx = neardup.Index.create(tmp_path / "idx", threshold=0.8)
    added = idx.add(pa.Table.from_pylist(first), label="monday")
    assert added["pages"] == len(first) and added["first_id"] == 0
    assert added["skipped"]["records"] == 0
    got = idx.query(later)
    assert isinstance(got, pa.Table)
    d = got.to_pydict()
    assert d["row"] and all(0 <= r < len(later) for r in d["row"])
    assert d["id"] == [later[r]["id"] for r in d["row"]]
    firsts = {r["id"] for r in first}
    assert set(d["match_id"]) <= firsts
    assert set(d["match_label"]) == {"monday"}
    for rule, est in zip(d["rule"], d["estimated_jaccard"]):
        assert rule and est >= 0.4
    # The same as dedup over both: every later row dedup sends to a first row is matched.
    both = neardup.dedup(records).to_pydict()
    n = len(first)
    expect = {both["id"][i] for i in range(n, len(records))
              if not both["keep"][i] and both["canonical_row"][i] < n}
    assert expect <= set(d["id"]), expect - set(d["id"])
    # The index on disk is the CLI's: its query over the same rows gives the same matches.
    path = tmp_path / "later.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in later))
    out = tmp_path / "q.jsonl"
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "query", str(idx.path), str(path),
                    "--output", str(out), "-q"], check=True)
    cli = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["match_id"]) for r in cli] == list(zip(d["id"], d["match_id"]))
    again = neardup.Index.open(idx.path)
    stats = again.stats()
    assert stats["pages"] == len(first) and [c["label"] for c in stats["crawls"]] == ["monday"]


def test_crawl_files_and_limits(tmp_path):
    idx = neardup.Index.create(str(tmp_path / "idx"))
    assert idx.add(paths=SAMPLE, label="stable")["pages"] > 10
    got = idx.query(paths=[SAMPLE]).to_pydict()
    assert got["url"] and set(got["match_label"]) == {"stable"}
    # Every page finds itself, identical.
    assert all(any(u == m and b for m, b in zip(got["match_url"], got["identical_body"]))
               for u in set(got["url"]))
    one = idx.query(paths=[SAMPLE], max_matches=1).to_pydict()
    assert set(one["url"]) == set(got["url"]) and len(one["url"]) == len(set(one["url"]))
    assert neardup.Index.open(idx.path).stats()["crawls"][0]["label"] == "stable"


def test_adds_happen_once_through_python_and_the_cli(tmp_path):
    idx = neardup.Index.create(tmp_path / "idx")
    first = idx.add(paths=SAMPLE, label="stable")
    assert first["pages"] > 10 and first["held"] == 0
    # The same file under the same label again (a rerun after a crash): nothing to do.
    rerun = idx.add(paths=SAMPLE, label="stable")
    assert rerun["already_added"] and rerun["pages"] == 0 and rerun["generation"] == 1
    assert not first["already_added"]
    # Under another label it is refused with what was found, and the index is as it was.
    with pytest.raises(neardup.NeardupError) as e:
        idx.add(paths=SAMPLE, label="nightly")
    assert e.value.kind == "already-added" and "generation 1" in str(e.value)
    assert "again=True" in str(e.value)
    # Asked to read it again: every record is held, nothing stored twice.
    again = idx.add(paths=SAMPLE, label="stable", again=True)
    assert (again["pages"], again["held"]) == (0, first["pages"])
    # The CLI on the same folder: nothing to do under the label, refused under another,
    # naming the flag.
    cli = [os.environ["NEARDUP_BIN"], "index", "add", str(idx.path), str(SAMPLE), "--label"]
    o = subprocess.run(cli + ["stable"], capture_output=True, text=True)
    assert o.returncode == 0 and "already added, nothing to do" in o.stdout
    o = subprocess.run(cli + ["nightly"], capture_output=True, text=True)
    assert o.returncode != 0 and "already added" in o.stderr and "--again" in o.stderr
    # Rows: the same id, URL and text is the same record; another id is another record.
    rows = [{"id": "a", "text": "one two three four five six seven", "url": "https://x.example/"}]
    assert idx.add(rows, url="url")["pages"] == 1
    assert idx.add(rows, url="url")["held"] == 1
    assert idx.add([dict(rows[0], id="b")], url="url")["pages"] == 1
    assert neardup.Index.open(idx.path).stats()["pages"] == first["pages"] + 2


def test_what_an_index_keeps_is_one_choice_through_python_and_the_cli(tmp_path):
    cli = [os.environ["NEARDUP_BIN"], "index"]

    def cli_storage(name, *flags):
        subprocess.run(cli + ["create", str(tmp_path / name), "-q", *flags], check=True)
        o = subprocess.run(cli + ["stats", str(tmp_path / name), "--json"], check=True,
                           capture_output=True, text=True)
        return json.loads(o.stdout)["storage"]

    # The defaults are the library's, the same through both doors.
    default = neardup.Index.create(tmp_path / "py").stats()["storage"]
    assert default == cli_storage("cli") == {"minvalue_bits": 16, "capture_prints": False,
                                             "key_bits": 40, "set_bits": 22}
    full = neardup.Index.create(tmp_path / "py-full", minvalue_bits=32, timelines=True)
    assert full.stats()["storage"] == cli_storage("cli-full", "--minvalue-bits", "32",
                                                  "--timelines")
    assert full.stats()["storage"] == {"minvalue_bits": 32, "capture_prints": True,
                                       "key_bits": 40, "set_bits": 32}
    sets = neardup.Index.create(tmp_path / "py-24", set_bits=24).stats()["storage"]
    assert sets == cli_storage("cli-24", "--set-bits", "24") and sets["set_bits"] == 24
    # A width an index does not keep is refused by both, naming it.
    for flag, bits in [("minvalue_bits", 8), ("set_bits", 21)]:
        with pytest.raises(ValueError, match="%s %d" % (flag, bits)):
            neardup.Index.create(tmp_path / ("py-%d" % bits), **{flag: bits})
        o = subprocess.run(cli + ["create", str(tmp_path / ("cli-%d" % bits)),
                                  "--" + flag.replace("_", "-"), str(bits)],
                           capture_output=True, text=True)
        assert o.returncode != 0 and "%s %d" % (flag, bits) in o.stderr
    # The same pages give the same matches whichever bits are kept (the sample's scores are
    # far from the threshold), with scores within the b-bit correction.
    answers = []
    for idx in [neardup.Index.open(tmp_path / "py"), full]:
        idx.add(paths=SAMPLE, label="stable")
        answers.append(idx.query(paths=SAMPLE))
    pairs = [sorted(zip(t.column("id").to_pylist(), t.column("match_id").to_pylist()))
             for t in answers]
    assert pairs[0] == pairs[1] and pairs[0]
    j = [sorted(t.column("estimated_jaccard").to_pylist()) for t in answers]
    assert all(abs(a - b) < 1e-4 for a, b in zip(*j))
    exact = [sorted(x for x in t.column("exact_jaccard").to_pylist() if x is not None)
             for t in answers]
    assert exact[0] == exact[1] and exact[0]


def test_a_cluster_is_one_answer_through_python_the_cli_and_the_service(tmp_path):
    words = " ".join("event%d" % (i % 97) for i in range(300))
    rows = [{"id": "day-%d" % d, "url": "https://trap.example/cal?day=%d" % d,
             "text": "Events on day %d. %s" % (d, words)} for d in range(5)]
    rows.append({"id": "other", "url": "https://other.example/", "text": "something else " * 40})
    idx = neardup.Index.create(tmp_path / "idx")
    idx.add(rows, url="url", label="cal")
    py = idx.cluster(0, limit=3)
    assert (py["cluster"], py["size"], py["offset"], py["more"]) == (0, 5, 0, True)
    assert [m["page"] for m in py["members"]] == [0, 1, 2]
    assert all(m["rule"] and m["estimated_jaccard"] >= 0.8 for m in py["members"])
    assert idx.cluster(0, offset=3)["members"][-1]["id"] == "day-4"
    assert idx.cluster(5)["size"] == 1 and idx.cluster(99) is None
    cli = subprocess.run([os.environ["NEARDUP_BIN"], "index", "cluster", str(idx.path), "0",
                          "--limit", "3"], check=True, capture_output=True, text=True).stdout
    assert json.loads(cli) == py
    served = subprocess.Popen([os.environ["NEARDUP_BIN"], "serve", "--index", str(idx.path),
                               "--listen", "127.0.0.1:0", "--read-only"],
                              stdout=subprocess.PIPE, text=True)
    try:
        import urllib.request
        base = served.stdout.readline().split("listening on ")[1].strip()
        http = json.load(urllib.request.urlopen(base + "/v1/cluster/0?limit=3", timeout=30))
        body = json.dumps({"url": "https://trap.example/cal?day=9",
                           "text": "Events on day 9. " + words}).encode()
        req = urllib.request.Request(base + "/v1/lookup?budget=5", data=body,
                                     headers={"Content-Type": "application/json"})
        looked = json.load(urllib.request.urlopen(req, timeout=30))
    finally:
        served.terminate()
        served.wait(timeout=30)
    assert http == py
    assert (looked["cluster"], looked["cluster_size"], looked["duplicate"]) == (0, 5, True)


def test_index_mistakes_raise(tmp_path):
    with pytest.raises(neardup.NeardupError) as e:
        neardup.Index.open(tmp_path / "none")
    assert e.value.kind == "index"
    neardup.Index.create(tmp_path / "idx")
    with pytest.raises(neardup.NeardupError):
        neardup.Index.create(tmp_path / "idx")
    with pytest.raises(ValueError, match="threshold"):
        neardup.Index.create(tmp_path / "other", threshold=1.5)
    idx = neardup.Index.open(tmp_path / "idx")
    with pytest.raises(ValueError, match="row 0: text is None"):
        idx.add([{"text": None}])
    assert idx.stats()["pages"] == 0


def test_a_set_of_shards_answers_as_one_index_through_python_and_the_cli(tmp_path):
    crawls = sorted(SAMPLE.parent.glob("rustdocs-*.warc.gz"))
    records = corpus(seed=5, bases=12)
    one = neardup.Index.create(tmp_path / "one")
    shards = neardup.Index.create(tmp_path / "set", shards=["a", tmp_path / "elsewhere"])
    took = set()
    for i, crawl in enumerate(crawls):
        a = one.add(paths=crawl, label=crawl.name)
        b = shards.add(paths=crawl, label=crawl.name)
        assert (a["pages"], a["first_id"], a["shard"]) == (b["pages"], b["first_id"], None)
        took.add(b["shard"])
    a, b = one.add(records, label="rows"), shards.add(records, label="rows")
    assert (a["pages"], a["first_id"]) == (b["pages"], b["first_id"])
    assert took == {0, 1}
    assert one.stats()["pages"] == neardup.Index.open(shards.path).stats()["pages"]
    for max_matches in (None, 1):
        got = shards.query(paths=crawls, max_matches=max_matches)
        assert got.num_rows > 0
        assert got == one.query(paths=crawls, max_matches=max_matches)
        assert shards.query(records, max_matches=max_matches) == one.query(
            records, max_matches=max_matches)
    # The CLI on the set's folder reads it as one index too.
    out = subprocess.run([os.environ["NEARDUP_BIN"], "index", "query", str(shards.path),
                          str(crawls[0]), "-q"], capture_output=True, check=True).stdout
    assert out == subprocess.run([os.environ["NEARDUP_BIN"], "index", "query",
                                  str(one.path), str(crawls[0]), "-q"],
                                 capture_output=True, check=True).stdout
