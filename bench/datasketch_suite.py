#!/usr/bin/env python3
"""datasketch's own tests run against neardup.datasketch by changing only their imports
(issue 39): each test file of a datasketch snapshot is copied, its `datasketch` imports pointed
at `neardup.datasketch`, and run with pytest; prints every test's outcome and the counts.

Then runs datasketch's documented examples (examples/*.py) twice, with datasketch and with
the imports switched, and compares what they print (numpy's global random state seeded the
same for both, PYTHONHASHSEED fixed; the example files themselves unchanged).

Usage: datasketch_suite.py SNAPSHOT [--python PY] [--files test_minhash.py ...]
                           [--examples minhash_examples.py ...]
  SNAPSHOT: a checkout of github.com/ekzhu/datasketch (its test/ and examples/ folders are
  read, nothing of them is kept in this project). PY: a Python with neardup, datasketch,
  numpy, scipy, pytest (and mockredispy and redis for the LSH tests' Redis cases).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FILES = ["test_minhash.py", "test_lean_minhash.py", "test_lsh.py", "test_weighted_minhash.py"]
EXAMPLES = ["minhash_examples.py", "lsh_examples.py", "weighted_minhash_examples.py"]

# Runs an example as `python example.py` would, numpy's global random state seeded first.
RUN = ("import numpy, runpy, sys; numpy.random.seed(0); sys.argv = [sys.argv[1]]; "
       "runpy.run_path(sys.argv[0], run_name='__main__')")

# `from datasketch import minhash` (a module) -> neardup.datasketch itself; in
# `from datasketch.x import A, B` the names neardup.datasketch has come from it, the others
# still from datasketch (a user switching the classes neardup offers).
MODULE = re.compile(r"^from datasketch(\.\w+)? import (minhash|lean_minhash|lsh)$", re.M)
NAMES = re.compile(r"^from (datasketch(?:\.\w+)?) import (.+)$", re.M)


def switched(text, offered):
    text = MODULE.sub(r"import neardup.datasketch as \2", text)

    def names(m):
        got = [n.strip() for n in m.group(2).split(",")]
        ours = [n for n in got if n in offered]
        theirs = [n for n in got if n not in offered]
        lines = []
        if ours:
            lines.append("from neardup.datasketch import " + ", ".join(ours))
        if theirs:
            lines.append(f"from {m.group(1)} import " + ", ".join(theirs))
        return "\n".join(lines)

    return NAMES.sub(names, text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--files", nargs="*", default=FILES)
    ap.add_argument("--examples", nargs="*", default=EXAMPLES)
    a = ap.parse_args()
    src = Path(a.snapshot) / "test"
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "test"
        dst.mkdir()
        (dst / "__init__.py").write_text("")
        if (src / "utils.py").exists():
            shutil.copy(src / "utils.py", dst / "utils.py")
        offered = subprocess.run(
            [a.python, "-c", "import neardup.datasketch as d; print(' '.join(dir(d)))"],
            capture_output=True, text=True, check=True).stdout.split()
        for name in a.files:
            if (src / name).exists():
                (dst / name).write_text(switched((src / name).read_text(), set(offered)))
        r = subprocess.run([a.python, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
                            *[f"test/{n}" for n in a.files if (dst / n).exists()]],
                           cwd=tmp, capture_output=True, text=True)
        outcomes = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^(PASSED|FAILED|ERROR) (test/\S+)", line)
            if m:
                outcomes[m.group(2)] = m.group(1)
            m = re.match(r"^(FAILED|ERROR) (test/\S+) - (.*)$", line)
            if m:
                outcomes[m.group(2)] = f"{m.group(1)}: {m.group(3)[:150]}"
        for test, outcome in sorted(outcomes.items()):
            print(f"{outcome:8.150} {test}")
        passed = sum(o == "PASSED" for o in outcomes.values())
        print(f"{passed} passed, {len(outcomes) - passed} failed")
        if not outcomes:
            print(r.stdout[-3000:], r.stderr[-3000:])
        examples(a, Path(a.snapshot) / "examples", Path(tmp), set(offered))


def run_example(python, path):
    """(exit code, stdout, the last line of stderr: the exception, if one was raised)."""
    r = subprocess.run([python, "-c", RUN, str(path)], capture_output=True, text=True,
                       cwd=path.parent, env={**os.environ, "PYTHONHASHSEED": "0"})
    err = r.stderr.strip().splitlines()
    return r.returncode, r.stdout, err[-1] if err else ""


def examples(a, src, tmp, offered):
    same = 0
    for name in a.examples:
        if not (src / name).exists():
            continue
        theirs = run_example(a.python, src / name)
        mine = tmp / ("neardup_" + name)
        mine.write_text(switched((src / name).read_text(), offered))
        ours = run_example(a.python, mine)
        verdict = "same output" if ours == theirs else "DIFFERENT"
        same += ours == theirs
        print(f"example {name}: {verdict} (exit {ours[0]}, {len(ours[1].splitlines())} lines"
              + (f", ends with {ours[2]!r}" if ours[2] else "") + ")")
        if ours != theirs:
            print("  datasketch:", theirs)
            print("  neardup:   ", ours)
    print(f"{same} of {len(a.examples)} examples print the same")


if __name__ == "__main__":
    main()
