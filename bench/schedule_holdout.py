#!/usr/bin/env python3
"""Recrawl advice held out on the last crawl (issue 40): paper 004's advice (`neardup evolve`,
skip a stable cluster's members) beside the schedule from history (`neardup changes`), on the
same weekly crawls (bench/weekly_crawls.py) and the same held-out week.

For each seed, weekly_crawls.py writes WEEKS crawls of URLS URLs. The schedule is made by
`neardup changes` from all weeks, holding out each URL's last capture itself (its --json
summary); the paper's advice is made by `neardup evolve` from all weeks but the last, and its
`skip` URLs are checked against the truth of the last week. A text change is a few-words,
large-edit or content-replaced visit.

Usage: schedule_holdout.py [--neardup target/release/neardup] [--urls 1000] [--weeks 8]
                           [--seeds 1,2,3] [--probabilities 0.05,0.1,0.2] [--work DIR]
                           [--copies 0.2]
Prints a Markdown table.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = {"few-words", "large-edit", "content-replaced"}


def paper_advice(neardup, weeks, truth, out):
    subprocess.run([neardup, "evolve", *map(str, weeks[:-1]), "-o", str(out), "-q", "--force",
                    "--no-report"], check=True)
    last_date = max(t["date"][:10] for t in truth)
    changed = {t["url"] for t in truth if t["date"][:10] == last_date and t["change"] in TEXT}
    urls = fetched = missed = 0
    for line in (out / "recrawl.jsonl").read_text().splitlines():
        a = json.loads(line)
        urls += 1
        skip = a["action"] == "skip"
        fetched += not skip
        missed += skip and a["url"] in changed
    return {"urls": urls, "text_changed": len(changed), "fetches_saved": 1 - fetched / urls,
            "changes_missed": missed / max(1, len(changed))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neardup", default=str(ROOT / "target" / "release" / "neardup"))
    ap.add_argument("--urls", type=int, default=1000)
    ap.add_argument("--weeks", type=int, default=8)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--probabilities", default="0.05,0.1,0.2")
    ap.add_argument("--work")
    ap.add_argument("--copies", default="0", help="weekly_crawls.py --copies (a share of URLs "
                    "copied byte for byte to another host each week)")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="schedule-"))
    sample = sorted(map(str, (ROOT / "data" / "sample").glob("*.warc.gz")))
    rows = []
    for seed in args.seeds.split(","):
        d = work / f"seed{seed}"
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "weekly_crawls.py"), "--out", str(d),
                        "--urls", str(args.urls), "--weeks", str(args.weeks), "--seed", seed,
                        "--copies", args.copies, "--vocab-from", *sample], check=True,
                       capture_output=True)
        weeks = [d / f"week{i}.warc.gz" for i in range(1, args.weeks + 1)]
        truth = [json.loads(l) for l in (d / "truth.jsonl").read_text().splitlines()]
        p = paper_advice(args.neardup, weeks, truth, d / "evolve")
        rows.append((seed, "paper 004 advice (evolve)", "-", p["urls"], p["text_changed"],
                     p["fetches_saved"], p["changes_missed"], "-", "-"))
        for prob in args.probabilities.split(","):
            out = subprocess.run([args.neardup, "changes", *map(str, weeks), "-q", "--json", "-",
                                  "--change-probability", prob], check=True,
                                 capture_output=True, text=True).stdout
            h = json.loads(out)["holdout"]
            rows.append((seed, "schedule (changes)", prob, h["urls"], h["text_changed"],
                         h["spread"]["fetches_saved"], h["spread"]["changes_missed"],
                         h["due_now"]["fetches_saved"], h["due_now"]["changes_missed"]))
    print("| seed | method | P | URLs | text changes held out | fetches saved (spread) "
          "| changes missed (spread) | fetches saved (due now) | changes missed (due now) |")
    print("|---|---|---|---|---|---|---|---|---|")
    pct = lambda v: v if isinstance(v, str) else f"{100 * v:.1f}%"
    for r in rows:
        print("| " + " | ".join(map(str, r[:5])) + " | " + " | ".join(pct(v) for v in r[5:]) + " |")


if __name__ == "__main__":
    main()
