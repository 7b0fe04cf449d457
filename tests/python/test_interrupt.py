"""Ctrl-C (SIGINT) while neardup works with the GIL released: control comes back within a
second as KeyboardInterrupt, and an index is left as it was; and two threads using one Index
at once."""

import json
import os
import signal
import threading
import time

import pytest

import neardup
from test_dedup import corpus

pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="Python runs signal handlers on the main thread only")


def big_jsonl(path, docs=120_000):
    """About 90 MB of distinct documents: several seconds of work on one thread."""
    words = ["w%d" % i for i in range(5000)]
    with open(path, "w") as f:
        for i in range(docs):
            text = " ".join(words[(i * 7 + k * 13) % 5000] for k in range(120))
            f.write(json.dumps({"id": "d%d" % i, "text": "%d %s" % (i, text)}) + "\n")
    return path


@pytest.fixture
def interrupt_after():
    """`interrupt_after(seconds)` sends this process a SIGINT after `seconds` and returns a
    list that gets the time it was sent; a SIGINT not sent by the test's end never is."""
    timers = []

    def start(seconds):
        sent = []

        def fire():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        t = threading.Timer(seconds, fire)
        timers.append(t)
        t.start()
        return sent
    yield start
    for t in timers:
        t.cancel()


def test_ctrl_c_stops_dedup_within_a_second(tmp_path, interrupt_after):
    big = big_jsonl(tmp_path / "big.jsonl")
    start = time.monotonic()
    sent = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        neardup.dedup(paths=[big], threads=1)
    back = time.monotonic()
    assert sent, "the job ended before the signal: make the input larger"
    assert back - sent[0] < 1.0, f"control came back {back - sent[0]:.2f} s after Ctrl-C"
    # The same job, not interrupted, takes longer than the time to the signal and back: it
    # really was stopped half-way (not merely waited for).
    t0 = time.monotonic()
    table = neardup.dedup(paths=[big], threads=1)
    assert table.num_rows == 120_000
    assert time.monotonic() - t0 > back - start


def test_ctrl_c_during_an_add_leaves_the_index_as_it_was(tmp_path):
    idx = neardup.Index.create(tmp_path / "idx", threshold=0.8)
    first = corpus(seed=3, bases=20)
    idx.add(first, label="monday")
    before = idx.stats()
    big = big_jsonl(tmp_path / "big.jsonl", docs=40_000)
    sent = []

    def progress(done, total):
        # The Ctrl-C arrives while the add is reading (the callback runs on the job's thread).
        if not sent and done > 0:
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
    with pytest.raises(KeyboardInterrupt):
        idx.add(paths=[big], label="tuesday", threads=1, progress=progress)
    assert sent and time.monotonic() - sent[0] < 1.0
    assert idx.stats() == before
    again = neardup.Index.open(idx.path)
    assert again.stats() == before
    # Nothing of the stopped add is left to be refused or skipped: the add happens in full.
    added = idx.add(paths=[big], label="tuesday", threads=1)
    assert added["pages"] == 40_000 and added["held"] == 0
    assert idx.stats()["pages"] == before["pages"] + 40_000


def test_ctrl_c_stops_reading_between_batches(tmp_path, interrupt_after):
    # Each batch is read with the GIL released; the loop's own work takes the rest of the time.
    big = big_jsonl(tmp_path / "big.jsonl", docs=60_000)
    sent = interrupt_after(0.3)
    seen = 0
    with pytest.raises(KeyboardInterrupt):
        for batch in neardup.read(big, batch_pages=20):
            seen += sum(len(t.split()) > 0 for t in batch.column("text").to_pylist())
    back = time.monotonic()
    assert sent and back - sent[0] < 1.0
    assert 0 < seen < 60_000
    # The reader left half-way holds nothing: the file reads again from its start.
    assert next(iter(neardup.read(big, batch_pages=20))).column("id")[0].as_py() == "d0"


def test_two_threads_adding_and_querying_one_index(tmp_path):
    idx = neardup.Index.create(tmp_path / "idx", threshold=0.8)
    docs = corpus(seed=9, bases=60)
    halves = {"a": docs[: len(docs) // 2], "b": docs[len(docs) // 2:]}
    errors, queried = [], []

    def add(label):
        try:
            for k in range(3):
                part = halves[label][k::3]
                idx.add([dict(r, id="%s-%d-%s" % (label, k, r["id"])) for r in part],
                        label="%s%d" % (label, k))
        except Exception as e:  # noqa: BLE001 - any error fails the test below
            errors.append(e)

    def query():
        try:
            for _ in range(6):
                queried.append(idx.query(docs).num_rows)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=add, args=("a",)), threading.Thread(target=add, args=("b",)),
               threading.Thread(target=query)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    stats = idx.stats()
    assert stats["pages"] == len(docs)
    assert sorted(c["label"] for c in stats["crawls"]) == ["a0", "a1", "a2", "b0", "b1", "b2"]
    # Each query saw the index as some commit left it: never more matches than at the end.
    final = idx.query(docs).num_rows
    assert queried and all(q <= final for q in queried)
