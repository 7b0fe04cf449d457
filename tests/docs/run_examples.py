#!/usr/bin/env python3
"""Runs every `sh` and `python` example of README.md and python/README.md as written.

Each shell block runs line by line (bash, pipefail) in a fresh copy of the example world
`neardup demo` writes (`crawl/` the sample crawl, `week1/`..`week3/`, `corpus.jsonl`, ...), with
the `neardup` under test first on PATH. A line succeeds when it exits 0, or with the code its
comment names (`# exit code 3 ...`); a `# ⇒ TEXT` line after it says what its output must show
(`N` a number above zero, `…` anything). A line starting `neardup serve` starts the
service in the background (waited for on its --listen address, stopped after the block).
Python blocks of one file run in order in one namespace, as a reader pastes them into one
session, in a world of their own. Spark reads its settings from tests/spark-conf (SPARK_CONF_DIR),
as the pytest suite's Spark does: 4 shuffle partitions for a few hundred rows, no web UI.

An HTML comment right above a block may say, for the examples that need it:
    <!-- example: skip REASON -->          not run (REASON says what runs it instead)
    <!-- example: setup COMMAND -->        a shell command run in the world first

Usage: run_examples.py --neardup BIN [--python PY] [--only FILE:LINE] [FILE...]
Exit status 0 when every example ran; the report names each block as ok, skipped or FAILED.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def blocks(path):
    """(line, lang, text, directives) of every sh/python fenced block."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(sh|python)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i + 1, m.group(1)
        directives = []
        j = i - 1
        while j >= 0 and lines[j].startswith("<!-- example:"):
            directives.insert(0, lines[j][len("<!-- example:"):].rstrip(" ->").strip())
            j -= 1
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        out.append((start, lang, "\n".join(body), directives))
        i += 1
    return out


def world(dest, template):
    """The example world: what `neardup demo` writes (made once, copied for each block), in a
    folder beside a link to the checkout's python/ (as when the world is made in a checkout:
    `../python/examples/...`)."""
    shutil.copytree(template, dest, symlinks=True)
    if not (dest.parent / "python").exists():
        (dest.parent / "python").symlink_to(ROOT / "python")


EXPECT = re.compile(r"^#\s*⇒\s?(.*)$")


def expectation(text):
    """The regular expression of a `# ⇒ TEXT` line: TEXT as written, where `N` stands for a
    number above zero and `…` for anything on one line."""
    out = ""
    for part in re.split(r"(\bN\b|…)", text.strip()):
        if part == "N":
            out += r"(?:[1-9][\d,]*(?:\.\d+)?|0\.\d*[1-9]\d*)"
        elif part == "…":
            out += r".*?"
        else:
            out += re.escape(part)
    return out


def listen_addr(line):
    m = re.search(r"--listen\s+(\S+)", line)
    host, port = (m.group(1) if m else "127.0.0.1:8088").rsplit(":", 1)
    return host, int(port)


def wait_for(host, port, proc, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def run_sh(text, cwd, env, log):
    """Runs a shell block line by line; returns None or the failure's description. A `# ⇒
    TEXT` line checks the output (stdout and stderr) of the command before it."""
    server = None
    last, output = None, ""
    try:
        for raw in text.splitlines():
            line = raw.strip()
            m = EXPECT.match(line)
            if m:
                if last is None:
                    return f"{line}: no command before it"
                if not re.search(expectation(m.group(1)), output):
                    return f"{last}: its output does not show {m.group(1)!r}"
                continue
            if not line or line.startswith("#"):
                continue
            m = re.search(r"#.*\bexit code (\d+)", line)
            want = int(m.group(1)) if m else 0
            if line.startswith("neardup serve"):
                cmd = line.split("#", 1)[0]
                server = subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=cwd, env=env,
                                          stdout=log, stderr=log)
                if not wait_for(*listen_addr(cmd), server):
                    return f"{line}: the service did not start"
                last, output = None, ""
                continue
            log.write(f"$ {line}\n".encode())
            log.flush()
            r = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
            log.write(r.stdout + b"\n")
            log.flush()
            last, output = line, r.stdout.decode("utf-8", "replace")
            if r.returncode != want:
                return f"{line}: exit {r.returncode}, expected {want}"
        return None
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


PY_RUNNER = r"""
import json, os, sys, traceback
blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__"}
for b in blocks:
    try:
        exec(compile(b["text"], b["where"], "exec"), ns)
        print("EXAMPLE-OK", b["where"], flush=True)
    except BaseException:
        traceback.print_exc()
        print("EXAMPLE-FAILED", b["where"], flush=True)
        sys.exit(1)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neardup", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--only", help="FILE:LINE of one block")
    ap.add_argument("files", nargs="*", default=["README.md", "python/README.md"])
    a = ap.parse_args()
    a.python = os.path.abspath(a.python)  # not resolved: a venv's python is a link
    bindir = Path(tempfile.mkdtemp(prefix="neardup-bin-"))
    atexit.register(shutil.rmtree, bindir, ignore_errors=True)  # sys.exit runs it too
    (bindir / "neardup").symlink_to(Path(a.neardup).resolve())
    # xdg-open: there is no desktop here; the stand-in checks the file exists.
    (bindir / "xdg-open").write_text('#!/bin/sh\ntest -s "$1"\n')
    (bindir / "xdg-open").chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bindir}:{Path(a.python).parent}:{env['PATH']}"
    env["NEARDUP_BIN"] = str(Path(a.neardup).resolve())
    env["SPARK_CONF_DIR"] = str(ROOT / "tests" / "spark-conf")
    failed, report = 0, []
    template = Path(tempfile.mkdtemp(prefix="neardup-world-"))
    atexit.register(shutil.rmtree, template, ignore_errors=True)
    subprocess.run([str(bindir / "neardup"), "demo", str(template / "w"), "-q"], check=True)
    template = template / "w"
    for f in a.files:
        path = ROOT / f
        python_blocks = []
        for line, lang, text, directives in blocks(path):
            where = f"{f}:{line}"
            if a.only and a.only != where:
                continue
            skip = [d for d in directives if d.startswith("skip")]
            if skip:
                report.append(f"skipped {where}: {skip[0][4:].strip()}")
                continue
            if lang == "python":
                python_blocks.append({"where": where, "text": text})
                continue
            started = time.time()
            with tempfile.TemporaryDirectory(prefix="neardup-example-") as tmp:
                w = Path(tmp) / "w"
                world(w, template)
                log_path = Path(tmp) / "log"
                with open(log_path, "wb") as log:
                    why = None
                    for d in directives:
                        if d.startswith("setup "):
                            r = subprocess.run(["bash", "-o", "pipefail", "-c", d[6:]], cwd=w,
                                               env=env, stdout=log, stderr=log)
                            if r.returncode != 0:
                                why = f"setup {d[6:]!r}: exit {r.returncode}"
                    why = why or run_sh(text, w, env, log)
                if why:
                    failed += 1
                    report.append(f"FAILED {where}: {why}\n{log_path.read_text()[-3000:]}")
                else:
                    report.append(f"ok {where} ({time.time() - started:.1f} s)")
        if python_blocks:
            started = time.time()
            with tempfile.TemporaryDirectory(prefix="neardup-example-") as tmp:
                w = Path(tmp) / "w"
                world(w, template)
                spec = Path(tmp) / "blocks.json"
                spec.write_text(json.dumps(python_blocks))
                runner = Path(tmp) / "runner.py"
                runner.write_text(PY_RUNNER)
                r = subprocess.run([a.python, str(runner), str(spec)], cwd=w, env=env,
                                   capture_output=True, text=True, timeout=1800)
                done = re.findall(r"EXAMPLE-OK (\S+)", r.stdout)
                report.extend(f"ok {x}" for x in done)
                report.append(f"(the python blocks of {f}: {time.time() - started:.1f} s)")
                if r.returncode != 0:
                    failed += 1
                    bad = re.findall(r"EXAMPLE-FAILED (\S+)", r.stdout)
                    report.append(f"FAILED {bad[0] if bad else f}: python\n"
                                  f"{(r.stdout + r.stderr)[-3000:]}")
    print("\n".join(report))
    print(f"{sum(1 for x in report if x.startswith('ok'))} ok, {failed} failed, "
          f"{sum(1 for x in report if x.startswith('skipped'))} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
