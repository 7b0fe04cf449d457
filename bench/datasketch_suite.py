#!/usr/bin/env python3
"""datasketch's own tests against neardup.datasketch after the plain switch a user makes over a
codebase, `sed s/datasketch/neardup.datasketch/g` (issues 39 and 59): each test file of a
datasketch snapshot is run twice with pytest, unchanged against the datasketch installed (the
control: what datasketch itself passes) and switched against neardup.datasketch; prints every
test's two outcomes and the counts.

Then runs datasketch's documented examples (examples/*.py) twice, with datasketch and switched,
and compares what they print (numpy's global random state seeded the same for both,
PYTHONHASHSEED fixed; the example files themselves unchanged).

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
import tempfile
import sys
from pathlib import Path

FILES = ["test_minhash.py", "test_lean_minhash.py", "test_lsh.py", "test_weighted_minhash.py"]
EXAMPLES = ["minhash_examples.py", "lsh_examples.py", "weighted_minhash_examples.py"]

# Runs an example as `python example.py` would, numpy's global random state seeded first.
RUN = ("import numpy, runpy, sys; numpy.random.seed(0); sys.argv = [sys.argv[1]]; "
       "runpy.run_path(sys.argv[0], run_name='__main__')")


def switched(text):
    """What `sed s/datasketch/neardup.datasketch/g` makes of a file."""
    return text.replace("datasketch", "neardup.datasketch")


def run_tests(python, src, files, switch):
    """{test id: outcome} of the files copied from `src` (switched or not) into a fresh folder."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "test"
        dst.mkdir()
        (dst / "__init__.py").write_text("")
        if (src / "utils.py").exists():
            shutil.copy(src / "utils.py", dst / "utils.py")
        for name in files:
            if (src / name).exists():
                text = (src / name).read_text()
                (dst / name).write_text(switched(text) if switch else text)
        r = subprocess.run([python, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
                            *[f"test/{n}" for n in files if (dst / n).exists()]],
                           cwd=tmp, capture_output=True, text=True)
    outcomes = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(PASSED|FAILED|ERROR) (test/\S+)", line)
        if m:
            outcomes[m.group(2)] = m.group(1)
        m = re.match(r"^(FAILED|ERROR) (test/\S+) - (.*)$", line)
        if m:
            outcomes[m.group(2)] = f"{m.group(1)}: {m.group(3)[:150]}"
    if not outcomes:
        print(r.stdout[-3000:], r.stderr[-3000:])
    return outcomes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--files", nargs="*", default=FILES)
    ap.add_argument("--examples", nargs="*", default=EXAMPLES)
    a = ap.parse_args()
    if os.sep in a.python:
        a.python = os.path.abspath(a.python)  # the tests run in another folder
    version = subprocess.run([a.python, "-c", "import importlib.metadata as m; "
                              "print(m.version('datasketch'))"],
                             capture_output=True, text=True).stdout.strip()
    src = Path(a.snapshot) / "test"
    theirs = run_tests(a.python, src, a.files, switch=False)
    ours = run_tests(a.python, src, a.files, switch=True)
    print(f"{'datasketch ' + version:40.40} {'neardup.datasketch':40.40} test")
    for test in sorted(set(theirs) | set(ours)):
        print(f"{theirs.get(test, '-'):40.40} {ours.get(test, '-'):40.40} {test}")
    both = [t for t in theirs if theirs[t] == "PASSED"]
    kept = sum(ours.get(t) == "PASSED" for t in both)
    print(f"datasketch {version} passes {len(both)} of {len(theirs)}; neardup.datasketch, "
          f"switched by sed, passes {sum(o == 'PASSED' for o in ours.values())} of {len(ours)}, "
          f"{kept} of the {len(both)} datasketch passes")
    with tempfile.TemporaryDirectory() as tmp:
        examples(a, Path(a.snapshot) / "examples", Path(tmp))


def run_example(python, path):
    """(exit code, stdout, the last line of stderr: the exception, if one was raised)."""
    r = subprocess.run([python, "-c", RUN, str(path)], capture_output=True, text=True,
                       cwd=path.parent, env={**os.environ, "PYTHONHASHSEED": "0"})
    err = r.stderr.strip().splitlines()
    return r.returncode, r.stdout, err[-1] if err else ""


def examples(a, src, tmp):
    same = 0
    for name in a.examples:
        if not (src / name).exists():
            continue
        theirs = run_example(a.python, src / name)
        mine = tmp / ("neardup_" + name)
        mine.write_text(switched((src / name).read_text()))
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
