"""neardup.paragraphs gives the CLI's cuts and cleaned files; Parquet keeps its schema; bad
settings are ValueErrors naming them."""

import json
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neardup

MENU = "Home | Products | About us | Contact | Privacy policy"
COOKIE = "We use cookies to improve your experience. By continuing you agree."


def texts(n=60):
    out = []
    for i in range(n):
        paras = ([MENU] if i % 2 == 0 else []) + [
            f"Article {i}: " + " ".join(f"word{(i * 7 + k) % 97}" for k in range(25)),
            f"第{i}段落の本文です。" + "東京" * (i % 5 + 3),
        ]
        if i % 3 == 0:
            paras.append(COOKIE)
        out.append("\n\n".join(paras) + "\n")
    return out


def test_python_cuts_what_the_cli_cuts(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t, "n": i}, ensure_ascii=False) + "\n"
                            for i, t in enumerate(texts())))
    spans, summary = neardup.paragraphs([path], write_clean=tmp_path / "py")
    subprocess.run([os.environ["NEARDUP_BIN"], "paragraphs", str(path), "-q", "--out",
                    str(tmp_path / "out"), "--write-clean", str(tmp_path / "cli")], check=True)
    cli = [json.loads(l) for l in (tmp_path / "out" / "spans.jsonl").read_text().splitlines()]
    assert spans.to_pylist() == cli
    assert (tmp_path / "py" / "docs.jsonl").read_bytes() == (tmp_path / "cli" / "docs.jsonl").read_bytes()
    assert summary["units_cut"] == len(cli) == 29 + 19
    assert summary["most_repeated"][0]["text"] == MENU
    # Every cut span is the unit's text, in characters of the original.
    originals = texts()
    for r in cli:
        assert originals[r["record"]][r["start"]:r["end"]] in (MENU, COOKIE)
    cleaned = [json.loads(l) for l in (tmp_path / "py" / "docs.jsonl").read_text().splitlines()]
    assert cleaned[0]["text"].startswith(MENU) and MENU not in cleaned[2]["text"]
    assert all(c["n"] == i for i, c in enumerate(cleaned))


def test_boilerplate_policy_and_parquet(tmp_path):
    table = pa.table({"id": list(range(60)), "text": texts()}).replace_schema_metadata({"k": "v"})
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=25)
    spans, summary = neardup.paragraphs(tmp_path / "t.parquet", policy="boilerplate", max_docs=25,
                                        write_clean=tmp_path / "clean")
    # The menu (30 documents) is cut everywhere, the cookie notice (20) nowhere.
    assert summary["units_cut"] == 30 and set(spans["rule"].to_pylist()) == {"boilerplate"}
    out = pq.read_table(tmp_path / "clean" / "t.parquet")
    assert out.schema == table.schema
    assert not any(MENU in t for t in out["text"].to_pylist())
    assert out["id"].to_pylist() == list(range(60))


@pytest.mark.parametrize("kw, name", [({"unit": "word"}, "unit"), ({"policy": "all"}, "policy"),
                                      ({"max_docs": 3}, "max_docs")])
def test_bad_settings_are_value_errors(tmp_path, kw, name):
    (tmp_path / "d.jsonl").write_text('{"text": "x"}\n')
    with pytest.raises(ValueError, match=name):
        neardup.paragraphs([tmp_path / "d.jsonl"], **kw)


def test_contamination_is_the_clis(tmp_path):
    item = "What is the capital of France? The answer is Paris, the city of light and of the government."
    (tmp_path / "eval.jsonl").write_text(json.dumps({"id": "q0", "text": item}) + "\n")
    docs = [{"id": i, "text": f"Document {i} about other things. " + (item.upper() if i % 3 == 0 else "")}
            for i in range(12)]
    table = pa.Table.from_pylist(docs)
    pq.write_table(table, tmp_path / "c.parquet")
    spans, summary = neardup.contamination(tmp_path / "c.parquet", tmp_path / "eval.jsonl",
                                           action="drop", write_clean=tmp_path / "py")
    subprocess.run([os.environ["NEARDUP_BIN"], "decontaminate", str(tmp_path / "c.parquet"), "--eval",
                    str(tmp_path / "eval.jsonl"), "-q", "--out", str(tmp_path / "out"),
                    "--action", "drop", "--write-clean", str(tmp_path / "cli")], check=True)
    cli = [json.loads(l) for l in (tmp_path / "out" / "contamination.jsonl").read_text().splitlines()]
    assert spans.to_pylist() == cli and [r["record"] for r in cli] == [0, 3, 6, 9]
    assert summary["documents_contaminated"] == 4
    kept = pq.read_table(tmp_path / "py" / "c.parquet")
    assert kept.equals(pq.read_table(tmp_path / "cli" / "c.parquet"))
    assert kept["id"].to_pylist() == [i for i in range(12) if i % 3]
    with pytest.raises(ValueError, match="action"):
        neardup.contamination(tmp_path / "c.parquet", tmp_path / "eval.jsonl", action="erase")


RTL = "هذه الفقرة تتكرر في عدة مستندات كما تتكرر القوائم والإعلانات في صفحات الويب."


@pytest.mark.parametrize("policy", ["first-copy", "boilerplate"])
def test_spark_cuts_what_the_cli_cuts(spark, tmp_path, policy):
    """The Spark job's spans and cleaned texts are the CLI's (ids in input order), under both
    policies, with CJK, right-to-left text and a paragraph repeated inside one document."""
    from neardup import spark as nds
    docs = texts(40)
    docs = [t + ("\n" + RTL + "\n" if i % 4 == 1 else "") + (MENU + "\n" if i == 6 else "")
            for i, t in enumerate(docs)]
    records = [{"id": f"d{i:03d}", "text": t} for i, t in enumerate(docs)]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    max_docs = ["--max-docs", "5"] if policy == "boilerplate" else []
    subprocess.run([os.environ["NEARDUP_BIN"], "paragraphs", str(path), "-q", "--policy", policy,
                    *max_docs, "--out", str(tmp_path / "out"), "--write-clean",
                    str(tmp_path / "cli")], check=True)
    cli = [json.loads(l) for l in (tmp_path / "out" / "spans.jsonl").read_text().splitlines()]
    assert cli and all(len(r["language"]) == 3 for r in cli)
    df = spark.createDataFrame(records).repartition(3)
    cleaned, spans = nds.paragraphs(df, "text", "id", policy=policy,
                                    max_docs=5 if policy == "boilerplate" else None)
    got = sorted(tuple(r[k] for k in ("id", "language", "unit", "start", "end", "docs", "first_id",
                                      "first_unit", "rule")) for r in spans.collect())
    want = sorted((r["id"], r["language"], r["unit"], r["start"], r["end"], r["docs"],
                   records[r["first_record"]]["id"], r["first_unit"], r["rule"]) for r in cli)
    assert got == want
    cli_clean = {json.loads(l)["id"]: json.loads(l)["text"]
                 for l in (tmp_path / "cli" / "docs.jsonl").read_text().splitlines()}
    assert {r["id"]: r["text"] for r in cleaned.collect()} == cli_clean


@pytest.mark.parametrize("action", ["cut", "drop"])
def test_spark_finds_and_cuts_the_contamination_the_cli_finds(spark, tmp_path, action):
    """The Spark job's spans and corpus are `neardup decontaminate`'s."""
    from neardup import spark as nds
    q = ("What is the capital of France? The answer is Paris, the city of light and of the "
         "government, on the river Seine.")
    q2 = "東京は日本の首都であり、世界で最も人口の多い都市圏の一つとして知られている大都市です。"
    eval_path = tmp_path / "eval.jsonl"
    eval_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"id": "q0", "text": q}, {"id": "q1", "text": q2}, {"id": "q2", "text": "too short"}]))
    records = []
    for i in range(30):
        t = f"Document {i} talks about other things for a while, words and more words. "
        if i % 4 == 0:
            t += "Quoted: " + q.upper() + " And then it goes on about something else. "
        if i % 7 == 3:
            t += "引用：" + q2 + "以上。"
        records.append({"id": f"d{i:03d}", "text": t})
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    subprocess.run([os.environ["NEARDUP_BIN"], "decontaminate", str(path), "--eval", str(eval_path),
                    "-q", "--action", action, "--margin", "20", "--out", str(tmp_path / "out"),
                    "--write-clean", str(tmp_path / "cli")], check=True)
    cli = [json.loads(l) for l in (tmp_path / "out" / "contamination.jsonl").read_text().splitlines()]
    assert len(cli) == 8 + 4
    df = spark.createDataFrame(records).repartition(3)
    cleaned, spans = nds.contamination(df, [str(eval_path)], "text", "id", action=action,
                                       margin=20)
    keys = ("id", "language", "eval_file", "item_id", "start", "end", "ngrams")
    assert sorted(tuple(r[k] for k in keys) for r in spans.collect()) == sorted(
        tuple(r[k] for k in keys) for r in cli)
    want = {json.loads(l)["id"]: json.loads(l)["text"]
            for l in (tmp_path / "cli" / "c.jsonl").read_text().splitlines()}
    assert {r["id"]: r["text"] for r in cleaned.collect()} == want
