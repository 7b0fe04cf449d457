"""Compares `neardup index query` outputs (JSONL, every match of every page) with the first:
which pages are decided duplicates, each page's best match, its whole match list in order, and
the exact Jaccards of the pairs both score (how many differ, by how much, how many near 0.8).

    python3 bench/compare_queries.py REFERENCE.jsonl OTHER.jsonl...
"""
import collections
import json
import sys


def load(path):
    rows, order = {}, collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            rows[(r["id"], r["match_page"])] = r
            order[r["id"]].append(r["match_page"])
    return rows, order


def main():
    base, base_order = load(sys.argv[1])
    for path in sys.argv[2:]:
        rows, order = load(path)
        both = set(base) & set(rows)
        pages = set(base_order) | set(order)
        decided = sum(1 for q in pages if (q in base_order) != (q in order))
        best = sum(1 for q in base_order if base_order[q][:1] != order.get(q, [])[:1])
        lists = sum(1 for q in base_order if base_order[q] != order.get(q))
        exact = [(rows[k]["exact_jaccard"] - base[k]["exact_jaccard"], base[k]["exact_jaccard"])
                 for k in both
                 if base[k]["exact_jaccard"] is not None and rows[k]["exact_jaccard"] is not None
                 and rows[k]["exact_jaccard"] != base[k]["exact_jaccard"]]
        scored = sum(1 for k in both if base[k]["exact_jaccard"] is not None)
        near = sum(1 for d, j in exact if min(j, j + d) < 0.85 and max(j, j + d) > 0.75)
        print(f"{path}: rows {len(base)} -> {len(rows)} ({len(set(base) - set(rows))} lost, "
              f"{len(set(rows) - set(base))} new); pages {len(base_order)} -> {len(order)}; "
              f"decisions differing {decided}; best match differing {best}; match lists "
              f"differing {lists}; exact Jaccards differing {len(exact)} of {scored} "
              f"({sum(1 for d, _ in exact if d > 0)} up), largest change "
              f"{max((abs(d) for d, _ in exact), default=0):.4f}, {near} near 0.8")


if __name__ == "__main__":
    main()
