#!/usr/bin/env python3
"""The Spark runs of bench/peers_spark.sh timed the same way: the job from reading the DataFrame to
the written result, the Spark session's start apart, and the whole process.

neardup's job prints its own clocks (`session_s`, `job_s`). text-dedup's script prints none, so
its job is read off its Spark log: from the first job submitted ("Got job 0") to the last job
finished, and its session start from "Running Spark version" to the first job (log timestamps
have whole seconds: +-1 s).

    python bench/spark_job_times.py RESULTS_DIR...
"""
import datetime
import glob
import json
import os
import re
import statistics
import sys

STAMP = re.compile(r"^(\d\d/\d\d/\d\d \d\d:\d\d:\d\d) ")


def stamp(line):
    m = STAMP.match(line)
    return datetime.datetime.strptime(m.group(1), "%y/%m/%d %H:%M:%S") if m else None


def textdedup_times(log):
    start = first = last = None
    with open(log, errors="replace") as f:
        for line in f:
            if start is None and "SparkContext: Running Spark version" in line:
                start = stamp(line)
            elif first is None and "DAGScheduler: Got job 0 " in line:
                first = stamp(line)
            elif re.search(r"DAGScheduler: Job \d+ finished", line):
                last = stamp(line)
    if not (start and first and last):
        return None
    return (first - start).total_seconds(), (last - first).total_seconds()


def main():
    rows = {}
    for d in sys.argv[1:]:
        for f in sorted(glob.glob(os.path.join(d, "neardup-spark*__*.json"))):
            if f.endswith(".run.json"):
                continue
            r = json.load(open(f))
            rows.setdefault(r["name"], []).append((r["session_s"], r["job_s"], r["e2e_s"]))
        for f in glob.glob(os.path.join(d, "spark-textdedup-tuned__*.json")):
            if f.endswith(".run.json"):
                continue
            r = json.load(open(f))
            t = textdedup_times(os.path.join(d, "spark-textdedup-tuned.spark.log"))
            if t:
                rows.setdefault("spark-textdedup-tuned", []).append((t[0], t[1], r["e2e_s"]))
    print("| tool | runs | session start s (median) | job s: read to written (median) | jobs (s) | e2e s (median) |")
    print("|---|---:|---:|---:|---|---:|")
    med = {}
    for tool, rs in sorted(rows.items()):
        med[tool] = statistics.median(r[1] for r in rs)
        print("| %s | %d | %.1f | %.1f | %s | %.1f |" % (
            tool, len(rs), statistics.median(r[0] for r in rs), med[tool],
            ", ".join("%.1f" % r[1] for r in rs), statistics.median(r[2] for r in rs)))
    peer = med.pop("spark-textdedup-tuned", None)
    if peer:
        print()
        for tool, m in sorted(med.items()):
            print("job time, text-dedup / %s (medians): %.2fx" % (tool, peer / m))


if __name__ == "__main__":
    main()
