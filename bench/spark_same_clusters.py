#!/usr/bin/env python3
"""Whether each round's neardup-on-Spark clusters are the single-machine CLI's with the same
settings (bench/peers_spark.sh): neardup-spark against neardup-bands, neardup-spark-BxR against
neardup-bands-BxR, compared as sets of sorted id lists.

    python bench/spark_same_clusters.py CLI_RESULTS_DIR CORPUS_NAME SPARK_RESULTS_DIR...
"""
import json
import os
import sys

PAIRS = {"neardup-spark": "neardup-bands", "neardup-spark-12x10": "neardup-bands-12x10",
         "neardup-spark-16x8": "neardup-bands-16x8"}


def clusters(path):
    with open(path) as f:
        return {tuple(sorted(json.loads(line))) for line in f}


def main():
    cli_dir, corpus, spark_dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    failed = False
    for spark, cli in PAIRS.items():
        ref_path = os.path.join(cli_dir, "%s__%s.clusters.verified.jsonl" % (cli, corpus))
        if not os.path.exists(ref_path):
            continue
        ref = clusters(ref_path)
        for d in spark_dirs:
            path = os.path.join(d, "%s__%s.clusters.verified.jsonl" % (spark, corpus))
            if not os.path.exists(path):
                continue
            got = clusters(path)
            same = got == ref
            failed |= not same
            print("%s %s: %d clusters, %d pages; %s %s (only Spark %d, only CLI %d)" % (
                d, spark, len(got), sum(map(len, got)), "identical to" if same else "DIFFERENT from",
                cli, len(got - ref), len(ref - got)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
