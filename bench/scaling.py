#!/usr/bin/env python3
"""How `neardup dedup` scales with threads (issue 60): whole processes at -j1, -j2, 4, 8, 16 (those
the machine has), interleaved round by round, on up to three inputs:

  synthetic  N synthetic text pages (bench/make_synthetic.py) in S JSONL shards
  crawl      a multi-file crawl folder (the development crawl: ../shared/datasets/build-dev-crawl.py)
  warc       one large .warc.gz: the first MB megabytes of whole gzip members of the crawl's
             largest file (or --warc FILE as it is)
  file       one large file of pages as it is (--file FILE: a JSONL file, or a Parquet file of
             row groups, the data cleaner's usual input; e.g. the peers' corpus)

For each input and thread count it prints the median wall and CPU seconds of the whole process,
CPU/wall, the speed-up over -j1 and the peak RSS; then each stage's wall and CPU seconds (from
the run's summary.json `stages`: read+sketch, identity-sets, candidates, scoring, clustering,
rows, write) with CPU/wall, so a stage that keeps one core busy while others wait shows as
CPU/wall near 1. Per-child CPU and peak memory come from wait4, so nothing else is needed on
the machine (no /usr/bin/time, no bc).

Usage: bench/scaling.sh [--bin PATH] [--threads 1,2,4] [--rounds 5] [--pages 1000000]
                        [--shards 16] [--crawl DIR] [--warc FILE] [--warc-mb 40]
                        [--file FILE] [--inputs synthetic,crawl,warc,file] [--work DIR]
                        [--report]
"""

import argparse
import multiprocessing
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def synthetic(work, pages, shards):
    """Shards of synthetic pages, made in parallel, reused when already there."""
    folder = os.path.join(work, f"synthetic-{pages}-{shards}")
    if os.path.isdir(folder) and len(os.listdir(folder)) == shards:
        return folder
    os.makedirs(folder, exist_ok=True)
    per = pages // shards
    procs = []
    for i in range(shards):
        n = per if i < shards - 1 else pages - per * (shards - 1)
        out = os.path.join(folder, f"shard-{i:03}.jsonl")
        procs.append(subprocess.Popen([sys.executable, os.path.join(HERE, "make_synthetic.py"),
                                       "--pages", str(n), "--start", str(i * per),
                                       "--seed", str(7 + i), "--out", out]))
        if len(procs) >= (os.cpu_count() or 1):
            procs.pop(0).wait()
    for p in procs:
        p.wait()
    return folder


def warc_slice(work, crawl, mb):
    """The first `mb` megabytes of whole gzip members of the crawl's largest .warc.gz."""
    files = [os.path.join(crawl, f) for f in os.listdir(crawl) if f.endswith(".warc.gz")]
    if not files:
        return None
    big = max(files, key=os.path.getsize)
    out = os.path.join(work, f"slice-{mb}mb.warc.gz")
    if os.path.exists(out):
        return out
    want = mb << 20
    with open(big, "rb") as f, open(out + ".partial", "wb") as w:
        data = f.read(want + (8 << 20))
        at = 0
        view = memoryview(data)
        while at < len(data) and at < want:
            # Fed in 64 KiB pieces: handing zlib the whole rest each time copied it per member.
            d = zlib.decompressobj(wbits=31)
            fed = at
            try:
                while not d.eof and fed < len(data):
                    d.decompress(view[fed:fed + (64 << 10)])
                    fed = min(fed + (64 << 10), len(data))
            except zlib.error:
                break
            if not d.eof:
                break
            end = fed - len(d.unused_data)
            w.write(view[at:end])
            at = end
    os.replace(out + ".partial", out)
    return out


def spawn(cmd):
    """Runs `cmd` (in the launcher process): wall seconds, exit status, CPU seconds, peak RSS
    KiB and stderr. Linux counts into a child's peak RSS the size of the process it was forked
    from, so children are forked from a small launcher (a forkserver's), never from this
    process once it has read files."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, status, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, err


LAUNCHER = None


def run_once(binary, inp, threads, out, report):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "dedup", inp, "--out", out, "-q", f"-j{threads}"]
    if not report:
        cmd.append("--no-report")
    wall, status, cpu, maxrss, err = LAUNCHER.apply(spawn, (cmd,))
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err.decode(errors='replace')[-2000:]}")
    summary = json.load(open(os.path.join(out, "summary.json")))
    stages = {s["stage"]: (s["wall_seconds"], s["cpu_seconds"]) for s in summary.get("stages", [])}
    return {"wall": wall, "cpu": cpu, "rss_mib": maxrss / 1024,
            "stages": stages, "pages": summary.get("pages_sketched")}


def gzip_one_core(path, rounds):
    """One-core `gzip -dc` of a file, median seconds (the crawl goals' yardstick)."""
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run(["gzip", "-dc", path], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def table(name, inp, runs, threads, gzip_s):
    med = lambda xs: statistics.median(xs)
    print(f"\n### {name}: `{inp}` ({runs[threads[0]][0]['pages']} pages sketched)\n")
    rounds = len(runs[threads[0]])
    print(f"Whole process, median of {rounds} interleaved rounds:\n")
    print("| threads | wall s (rounds) | median wall | CPU s | CPU/wall | speed-up | wall / -j1 | peak RSS MiB |"
          + (" wall / one-core gzip -dc |" if gzip_s else ""))
    print("|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if gzip_s else ""))
    base = med([r["wall"] for r in runs[threads[0]]])
    for j in threads:
        rs = runs[j]
        w, c, m = med([r["wall"] for r in rs]), med([r["cpu"] for r in rs]), med([r["rss_mib"] for r in rs])
        line = (f"| {j} | {' / '.join('%.2f' % r['wall'] for r in rs)} | {w:.2f} | {c:.2f} | "
                f"{c / w:.2f} | {base / w:.2f}x | {w / base:.3f} | {m:.0f} |")
        if gzip_s:
            line += f" {w / gzip_s:.2f}x |"
        print(line)
    stages = []
    for r in runs[threads[0]]:
        for s in r["stages"]:
            if s not in stages:
                stages.append(s)
    print("\nPer stage (summary.json `stages`), median wall / CPU seconds and CPU/wall:\n")
    print("| stage | " + " | ".join(f"-j{j} wall / CPU | -j{j} CPU/wall" for j in threads) + " |")
    print("|---|" + "---:|---:|" * len(threads))
    for s in stages:
        cells = []
        for j in threads:
            ws = [r["stages"][s][0] for r in runs[j] if s in r["stages"]]
            cs = [r["stages"][s][1] for r in runs[j] if s in r["stages"]]
            if not ws:
                cells += ["—", "—"]
                continue
            w, c = med(ws), med(cs)
            cells += [f"{w:.2f} / {c:.2f}", f"{c / w:.2f}" if w > 0 else "—"]
        print(f"| {s} | " + " | ".join(cells) + " |")


def main():
    global LAUNCHER
    LAUNCHER = multiprocessing.get_context("forkserver").Pool(1)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "neardup"))
    ap.add_argument("--threads", help="comma-separated; default 1,2,4,8,16 up to the cores here")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--crawl", help="a crawl folder of .warc.gz files (the development crawl)")
    ap.add_argument("--warc", help="one large .warc.gz (default: a slice of the crawl's largest file)")
    ap.add_argument("--warc-mb", type=int, default=40)
    ap.add_argument("--file", help="one large JSONL or Parquet file of pages, read as it is")
    ap.add_argument("--inputs", default="synthetic,crawl,warc,file")
    ap.add_argument("--work", help="where inputs are made and kept (default: a temporary folder)")
    ap.add_argument("--report", action="store_true", help="build the HTML report too")
    a = ap.parse_args()
    cores = os.cpu_count() or 1
    threads = ([int(x) for x in a.threads.split(",")] if a.threads
               else [j for j in (1, 2, 4, 8, 16) if j <= cores])
    work = a.work or tempfile.mkdtemp(prefix="neardup-scaling-")
    os.makedirs(work, exist_ok=True)
    wanted = a.inputs.split(",")
    inputs = []
    if "synthetic" in wanted:
        inputs.append(("synthetic", synthetic(work, a.pages, a.shards), False))
    if "crawl" in wanted and a.crawl:
        inputs.append(("crawl", a.crawl, True))
    if "warc" in wanted and (a.warc or a.crawl):
        w = a.warc or warc_slice(work, a.crawl, a.warc_mb)
        if w:
            inputs.append(("warc", w, True))
    if "file" in wanted and a.file:
        inputs.append(("file", a.file, False))
    print(f"neardup dedup scaling: {cores} cores here, threads {threads}, {a.rounds} rounds, "
          f"{'report on' if a.report else '--no-report'}; binary {a.bin}")
    for name, inp, crawl_like in inputs:
        runs = {j: [] for j in threads}
        for _ in range(a.rounds):
            for j in threads:
                runs[j].append(run_once(a.bin, inp, j, os.path.join(work, "out"), a.report))
        gzip_s = None
        if crawl_like:
            files = ([os.path.join(inp, f) for f in sorted(os.listdir(inp)) if f.endswith(".gz")]
                     if os.path.isdir(inp) else [inp])
            gzip_s = sum(gzip_one_core(f, min(a.rounds, 3)) for f in files)
        table(name, inp, runs, threads, gzip_s)
        sys.stdout.flush()
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
