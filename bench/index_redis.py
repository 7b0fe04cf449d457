"""datasketch's MinHashLSH with its Redis storage, beside neardup's persistent index, in one run
(issue 18). Both index the same JSONL corpus (the peers' rustdocs corpus by default) at
Jaccard 0.8 and then look up a sample of its documents one at a time.

datasketch: MinHash(128) per document (not timed), then timed: inserting every signature into
MinHashLSH(threshold=0.8, storage redis) through an insertion session (its batched, fastest
path), and querying the sample one document at a time. Redis: Debian's redis-server on
loopback, persistence off (the fastest Redis can be); its used_memory is reported.

neardup: `neardup index add` timed as a whole process (reading the JSONL and sketching
included, which the datasketch side is not charged for), and `index_latency` for the same
sample one page at a time (band keys and catalog records read from the index files).

Usage: python index_redis.py --neardup BIN --latency BIN [--corpus F] [--sample N] [--work D]
"""
import argparse, json, os, shutil, socket, subprocess, sys, tempfile, time

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, round((len(v) - 1) * q))]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neardup", required=True)
    ap.add_argument("--latency", required=True)
    ap.add_argument("--corpus", default="/work/bench-work/corpus/rustdocs.jsonl")
    ap.add_argument("--sample", type=int, default=5000)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="neardup-index-redis-")
    os.makedirs(work, exist_ok=True)
    docs = [json.loads(l) for l in open(a.corpus)]
    sample_path = os.path.join(work, "sample.jsonl")
    with open(sample_path, "w") as f:
        step = max(1, len(docs) // a.sample)
        sample = docs[::step][: a.sample]
        for d in sample:
            f.write(json.dumps(d) + "\n")
    out = {"corpus": a.corpus, "documents": len(docs), "sample": len(sample)}

    # neardup
    idx = os.path.join(work, "idx")
    shutil.rmtree(idx, ignore_errors=True)
    subprocess.run([a.neardup, "index", "create", idx, "-q", "--no-wrap", "-k", "5", "--content", "page"], check=True)
    t = time.perf_counter()
    subprocess.run([a.neardup, "index", "add", idx, a.corpus, "-q", "--text-field", "text", "--id-field", "id", "--url-field", "url"], check=True)
    add_s = time.perf_counter() - t
    stats = json.loads(subprocess.run([a.neardup, "index", "stats", idx, "--json"], check=True, capture_output=True, text=True).stdout)
    lat = json.loads(subprocess.run([a.latency, idx, sample_path], check=True, capture_output=True, text=True).stdout)
    out["neardup"] = {"add_seconds": add_s, "adds_per_s": len(docs) / add_s, "index_bytes": stats["bytes"],
                      "bytes_per_page": stats["bytes_per_page"], "query": lat,
                      "queries_per_s": 1000.0 / lat["mean_ms"]}

    # datasketch + redis
    from datasketch import MinHash, MinHashLSH
    import redis
    port = free_port()
    srv = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                           stdout=subprocess.DEVNULL)
    try:
        r = redis.Redis(port=port)
        for _ in range(100):
            try:
                r.ping(); break
            except Exception:
                time.sleep(0.05)
        def mh(text):
            m = MinHash(num_perm=128)
            toks = text.split()
            m.update_batch([" ".join(toks[i:i + 5]).encode() for i in range(max(1, len(toks) - 4))])
            return m
        t = time.perf_counter()
        sigs = [mh(d["text"]) for d in docs]
        sig_s = time.perf_counter() - t
        lsh = MinHashLSH(threshold=0.8, num_perm=128, storage_config={"type": "redis", "basename": b"bench", "redis": {"host": "127.0.0.1", "port": port}})
        t = time.perf_counter()
        with lsh.insertion_session(buffer_size=50000) as s:
            for d, m in zip(docs, sigs):
                s.insert(d["id"], m)
        ins_s = time.perf_counter() - t
        by_id = {d["id"]: m for d, m in zip(docs, sigs)}
        ms = []
        for d in sample:
            t = time.perf_counter()
            lsh.query(by_id[d["id"]])
            ms.append((time.perf_counter() - t) * 1e3)
        mem = r.info("memory")["used_memory"]
        out["datasketch_redis"] = {"minhash_seconds_not_timed_in_rate": sig_s, "insert_seconds": ins_s,
                                   "inserts_per_s": len(docs) / ins_s, "redis_used_memory": mem,
                                   "bytes_per_page": mem / len(docs),
                                   "query": {"p50_ms": pct(ms, 0.5), "p90_ms": pct(ms, 0.9), "p99_ms": pct(ms, 0.99), "max_ms": max(ms),
                                             "mean_ms": sum(ms) / len(ms)},
                                   "queries_per_s": 1000.0 / (sum(ms) / len(ms))}
    finally:
        srv.terminate(); srv.wait()
    print(json.dumps(out, indent=1))

if __name__ == "__main__":
    main()
