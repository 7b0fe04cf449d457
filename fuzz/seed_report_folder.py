"""Seeds the report_folder fuzz target from the golden outputs (tests/golden): for each kind of
folder, its kind byte, then its files' first lines joined by 0xFF, in the target's order."""
import pathlib
import sys

FOLDERS = [
    ("dedup", ["clusters.jsonl", "summary.json", "samples.jsonl", "pairs.jsonl"]),
    ("mirrors", ["mirrors.jsonl", "summary.json"]),
    ("evolve", ["coefficients.jsonl", "summary.json", "events.jsonl", "recrawl.jsonl", "fig4-containment.svg"]),
    ("overlap", ["overlap.jsonl", "summary.json", "server-overlap.jsonl"]),
    ("replicas", ["replicas.jsonl", "summary.json", "sites.jsonl"]),
    ("eval", ["eval.json", "pr.svg"]),
    ("site-eval", ["site-eval.json", "roc.svg"]),
]

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
golden = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden"
for kind, (name, files) in enumerate(FOLDERS):
    parts = []
    for f in files:
        p = golden / name / f
        data = p.read_bytes() if p.exists() else b""
        if f.endswith(".jsonl"):
            data = b"".join(data.splitlines(keepends=True)[:12])
        parts.append(data)
    (out / f"seed-{name}").write_bytes(bytes([kind]) + b"\xff".join(parts))
