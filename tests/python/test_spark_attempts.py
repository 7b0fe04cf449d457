"""neardup.spark.add_to_index when Spark runs a part more than once: a task that fails after
writing its files and is retried, and a second attempt at a part writing beside the first (what
a speculative copy does on disk), give the index one add makes, and only the attempts whose
answers Spark kept land. Its own Spark (local[2,4]: tasks are retried; speculation on, though
local mode never launches a copy on the host that runs the task, so the copy is written by a
hook in the executors), in a subprocess, beside the shared session."""

import json
import os
import subprocess
import sys
import textwrap

import pyarrow as pa

import neardup
from test_dedup import corpus

# Loaded by every executor's Python (PYTHONPATH through spark.executorEnv): wraps the part
# writer so that part 0's first attempt fails after finishing its files, and part 1's first
# attempt has a twin attempt writing the same part beside it (left half-written).
HOOK = '''
import os, threading
import neardup._neardup as native

_Writer = native.IndexPartWriter
_marks = os.environ["NEARDUP_TEST_MARKS"]


def _first(name):
    try:
        os.close(os.open(os.path.join(_marks, name), os.O_CREAT | os.O_EXCL))
        return True
    except FileExistsError:
        return False


class Writer:
    def __init__(self, path, generation, part, first_id, attempt=0):
        self._w = _Writer(path, generation, part, first_id, attempt)
        self._args = (path, generation, part, first_id, attempt + 1_000_000)
        self._part = part
        self._twin = part == 1 and _first("twin")

    def push(self, batch):
        self._w.push(batch)
        if self._twin:
            twin = _Writer(*self._args)
            t = threading.Thread(target=twin.push, args=(batch,))
            t.start()
            t.join()
            self._twin_writer = twin  # never finished: cut off half-way, as a killed copy

    def finish(self, label):
        done = self._w.finish(label)
        if self._part == 0 and _first("fail"):
            raise RuntimeError("neardup test: this attempt fails after writing its files")
        return done


native.IndexPartWriter = Writer
'''

SCRIPT = '''
import json, os, sys
from pyspark.sql import SparkSession
from neardup import spark as nds
records = json.load(open(sys.argv[1]))
s = (SparkSession.builder.master("local[2,4]").appName("neardup-attempts")
     .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
     .config("spark.speculation", "true").config("spark.speculation.interval", "100ms")
     .config("spark.speculation.quantile", "0.1").config("spark.speculation.multiplier", "1.1")
     .config("spark.executorEnv.PYTHONPATH", sys.argv[3])
     .config("spark.executorEnv.NEARDUP_TEST_MARKS", sys.argv[4])
     .getOrCreate())
s.sparkContext.setLogLevel("ERROR")
got = nds.add_to_index(s.createDataFrame(records).repartition(3), sys.argv[2], "text", "id", "url",
                       label="crawl", parts=3)
print("RESULT " + json.dumps(got))
s.stop()
'''


def test_retried_and_twin_attempts_at_index_parts_give_the_one_add(tmp_path):
    records = [dict(r, url="https://h%d.example/p%d" % (i % 4, i)) for i, r in enumerate(corpus())]
    (tmp_path / "records.json").write_text(json.dumps(records))
    hooks, marks = tmp_path / "hooks", tmp_path / "marks"
    hooks.mkdir()
    marks.mkdir()
    (hooks / "sitecustomize.py").write_text(HOOK)
    (tmp_path / "job.py").write_text(SCRIPT)
    by_spark, by_add = tmp_path / "spark", tmp_path / "add"
    for d in (by_spark, by_add):
        neardup.Index.create(d, threshold=0.8)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    p = subprocess.run([sys.executable, str(tmp_path / "job.py"), str(tmp_path / "records.json"),
                        str(by_spark), str(hooks), str(marks)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    got = json.loads([x for x in p.stdout.splitlines() if x.startswith("RESULT ")][-1][7:])
    # The hook ran: part 0's first attempt failed (and was retried), part 1 had a twin.
    assert sorted(os.listdir(marks)) == ["fail", "twin"]
    assert "this attempt fails after writing its files" in p.stderr
    want = neardup.Index.open(by_add).add(pa.Table.from_pylist(sorted(records, key=lambda r: r["id"])),
                                          "text", "id", "url", label="crawl")
    assert (got["pages"], got["first_id"]) == (want["pages"], 0)
    a, b = neardup.Index.open(by_spark), neardup.Index.open(by_add)
    probe = pa.Table.from_pylist(records)
    assert a.query(probe, "text", "id", "url").to_pylist() == b.query(probe, "text", "id", "url").to_pylist()
    assert a.stats()["pages"] == b.stats()["pages"]
    subprocess.run([os.environ["NEARDUP_BIN"], "index", "check", str(by_spark)], check=True,
                   stdout=subprocess.DEVNULL)
    # Only the files of the attempts whose answers Spark kept are there: one catalog, key and
    # titles segment per part, none of the failed attempt's or the twin's.
    segs = sorted(f for f in os.listdir(by_spark) if f.startswith("seg-"))
    assert len(segs) == a.stats()["segments"], textwrap.shorten(str(segs), 400)
    assert not [f for f in segs if "-a1000" in f], segs
