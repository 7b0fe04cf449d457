#!/usr/bin/env python3
"""The fuzzing hours each target has had (fuzz/hours.tsv, summed) and what it still owes of an
hour, and, with --chains N, the run.sh commands that give the owed time in N chains of about
equal length (one per core).

    python3 fuzz/owed.py [--hour SECONDS] [--chains N]
"""

import argparse
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent


def targets():
    """The targets run.sh runs by default, in its order."""
    text = (HERE / "run.sh").read_text()
    m = re.search(r"targets=\(([a-z_ ]+)\)", text)
    return m.group(1).split()


def spent():
    """Seconds and executions per target, summed over hours.tsv."""
    total = {}
    for line in (HERE / "hours.tsv").read_text().splitlines():
        cols = line.split("\t")
        if len(cols) < 4 or not cols[2].isdigit():
            continue
        s, r = total.get(cols[1], (0, 0))
        total[cols[1]] = (s + int(cols[2]), r + int(cols[3] or 0))
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hour", type=int, default=3600)
    ap.add_argument("--chains", type=int, default=0)
    a = ap.parse_args()
    done = spent()
    owed = []
    print(f"{'target':<22}{'seconds':>9}{'runs':>14}{'owed':>7}")
    for t in targets():
        s, r = done.get(t, (0, 0))
        o = max(0, a.hour - s)
        print(f"{t:<22}{s:>9}{r:>14}{o:>7}")
        if o:
            owed.append((o, t))
    print(f"owed in all: {sum(o for o, _ in owed)} s")
    if a.chains > 0 and owed:
        chains = [[0, []] for _ in range(a.chains)]
        for o, t in sorted(owed, reverse=True):
            c = min(chains, key=lambda c: c[0])
            c[0] += o
            c[1].append((o, t))
        for length, items in chains:
            if items:
                runs = "; ".join(f"nice bash run.sh {o + 20} {t}" for o, t in items)
                print(f"({runs}) &    # {length} s")


if __name__ == "__main__":
    main()
