"""Scale-out benchmark on a synthetic corpus: shard encoding throughput (local, Ray with 1 and 2
workers), peak memory, and exact vs approximate search (recall and time).

    python benchmarks/scale_synthetic.py [--n 200000] [--shard-size 25000] [--queries 1000]
        [--minilm-slice 2000] [--out benchmarks/results/scale_synthetic.json] [--workdir DIR]

1. Writes a seeded synthetic BEIR folder: ``--n`` passages of 30-80 generated words (mean ~55,
   about the length of an MS MARCO passage) over a Zipf-distributed vocabulary of generated
   words, and ``--queries`` queries made of 3-8 words of one passage each (that passage is the
   relevant one). The corpus is written passage by passage, never held in memory.
2. Encodes the whole corpus with the tiny random 2-layer, 32-wide BERT of the tests (max length
   64) from the file in streamed shards (``bench.data.readers.iter_corpus_chunks`` ->
   ``bench.encoding.shards.encode_corpus``) into an empty cache, once per executor: local (torch's default
   threads), local with one torch thread (like a Ray worker, which gets one CPU), Ray with one
   worker, Ray with two workers (each run in a fresh process: peak RSS is that run's). Reports
   passages/s overall and per worker, the per-shard log (passages/s inside each worker), the
   driver's and each worker's peak RSS, and whether the three caches hold byte-identical shards.
3. Index phase (fresh process, vectors memory-mapped from the local cache): exact sharded search
   of the queries (top 100), IVF (default nlist, nprobe 32) and HNSW (M 32, efConstruction 200,
   efSearch 128): build and search seconds, recall@10 / recall@100 against exact, MRR@10.
4. The registered model ``minilm-l6`` (max passage length 128) on the first ``--minilm-slice``
   passages, local and Ray with two workers, shards of ``slice / 4``: the per-shard throughput of a
   real model, used for the MS MARCO passage plan printed at the end (time, memory, shards for
   N workers).

Writes ``--out`` (JSON) and prints it. Numbers depend on the machine and its load; nothing is
asserted. The tiny model measures the pipeline (tokenisation, shard I/O, scheduling), not a
realistic encoder; step 4 is the realistic encoder.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MSMARCO_PASSAGES = 8_841_823
MSMARCO_DEV_QUERIES = 6_980


# --------------------------------------------------------------------------------------------
# synthetic data


def _vocabulary(rng, size: int):
    syll = ["ka", "lo", "mi", "ne", "ru", "ta", "po", "si", "de", "ga", "vi", "zo", "be", "nu", "ri", "te",
            "sha", "qua", "tor", "len", "mar", "pel", "dan", "fir", "gol", "hen"]
    words, seen = [], set()
    while len(words) < size:
        w = "".join(rng.choice(syll, size=int(rng.integers(2, 5))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def write_corpus(folder: Path, n: int, n_queries: int, seed: int = 0) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    vocab = np.array(_vocabulary(rng, 20000))
    ranks = np.arange(1, len(vocab) + 1)
    p = 1.0 / ranks ** 1.07
    p /= p.sum()
    targets = set(np.sort(rng.choice(n, size=n_queries, replace=False)).tolist())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    queries, qrels = [], []
    t0 = time.perf_counter()
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        block = 10000
        for start in range(0, n, block):
            m = min(block, n - start)
            lengths = rng.integers(30, 81, size=m)
            words = rng.choice(len(vocab), size=int(lengths.sum()), p=p)
            pos = 0
            for j in range(m):
                w = vocab[words[pos:pos + lengths[j]]]
                pos += lengths[j]
                did = f"p{start + j}"
                title = " ".join(w[:4])
                fh.write(json.dumps({"_id": did, "title": title, "text": " ".join(w[4:])}) + "\n")
                if start + j in targets:
                    k = int(rng.integers(3, 9))
                    qw = rng.choice(w, size=k, replace=False)
                    queries.append((f"q{len(queries)}", " ".join(qw)))
                    qrels.append((f"q{len(queries) - 1}", did))
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid, text in queries:
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, did in qrels:
            fh.write(f"{qid}\t{did}\t1\n")
    return {"passages": n, "queries": len(queries), "corpus_bytes": (folder / "corpus.jsonl").stat().st_size,
            "seconds_to_write": round(time.perf_counter() - t0, 1)}


# --------------------------------------------------------------------------------------------
# child processes


ENCODE_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
from bench.data.readers import iter_corpus_chunks
from bench.encoding.encoder import Encoder
from bench.encoding.executor import LocalExecutor, RayExecutor
from bench.models.spec import resolve_model, spec_from_folder
from bench.encoding.shards import encode_corpus

model, corpus, cache, shard, executor, workers, limit, threads = {model!r}, {corpus!r}, {cache!r}, {shard}, {executor!r}, {workers}, {limit}, {threads}
if threads:
    import torch
    torch.set_num_threads(threads)
spec = spec_from_folder(model) if os.path.isdir(model) else resolve_model(model).with_overrides(max_passage_length=128)
enc = Encoder(spec, "passage", batch_size=64, progress=False)
chunks = iter_corpus_chunks(corpus, shard)
if limit:
    def head(chunks, limit):
        seen = 0
        for ids, texts in chunks:
            if seen >= limit:
                return
            yield ids[:limit - seen], texts[:limit - seen]
            seen += len(texts)
    chunks = head(chunks, limit)
if executor == "local":
    ex = LocalExecutor()
    enc.load()  # model load outside the timed part, as a Ray worker loads it before its first shard
else:
    ex = RayExecutor(num_cpus=2, workers=workers)
    ex._ray()  # cluster start outside the timed part
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
out = encode_corpus(enc, chunks, os.path.join(cache, enc.key), shard, executor=ex)
wall = time.perf_counter() - t0
worker_rss = list(ex.worker_rss_mb) if executor != "local" else []
ex.shutdown()
import hashlib
digests = sorted(hashlib.sha256(open(p, "rb").read()).hexdigest() for p in out.sharded.paths)
print("RESULT" + json.dumps({{"executor": executor, "workers": workers or 1, "torch_threads_local": threads or None, "passages": len(out.sharded),
    "dim": out.sharded.dim, "shards": out.n_shards, "shard_size": shard, "wall_seconds": round(wall, 2),
    "passages_per_s": round(len(out.sharded) / wall, 1),
    "passages_per_s_per_worker": round(len(out.sharded) / wall / (workers or 1), 1),
    "shard_log": out.shard_log, "driver_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    "driver_rss_before_encoding_mb": round(rss_before, 1),
    "worker_peak_rss_mb": [round(x, 1) for x in worker_rss], "shard_sha256": hashlib.sha256("".join(digests).encode()).hexdigest()}}))
"""

INDEX_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from bench.data.readers import iter_corpus_chunks, load_beir
from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.search.ann import IndexConfig, ShardedFlatIndex, build_index, recall_vs_exact
from bench.evaluation.measures import parse_measures, per_query
from bench.models.spec import spec_from_folder
from bench.encoding.shards import encode_corpus

model, folder, cache, shard = {model!r}, {folder!r}, {cache!r}, {shard}
spec = spec_from_folder(model)
enc = Encoder(spec, "passage", progress=False)
out = encode_corpus(enc, iter_corpus_chunks(folder, shard), os.path.join(cache, enc.key), shard)
assert out.passages_encoded == 0, "the index phase must find every shard in the cache"
doc_ids, emb = out.doc_ids, out.embeddings
import json as _j
queries = [(_j.loads(l)["_id"], _j.loads(l)["text"]) for l in open(os.path.join(folder, "queries.jsonl"))]
qrels = {{}}
for line in list(open(os.path.join(folder, "qrels", "test.tsv")))[1:]:
    q, d, g = line.split("\t")
    qrels.setdefault(q, {{}})[d] = int(g)
qids = [q for q, _ in queries]
qenc = Encoder(spec, "query", progress=False, shared=enc)
q = qenc.encode([t for _, t in queries])
res = {{"passages": len(doc_ids), "queries": len(qids), "dim": int(emb.shape[1])}}
ms = parse_measures("MRR@10")
def mrr(run):
    return float(np.mean(list(per_query(ms, qrels, run, qids)["MRR@10"].values())))
t0 = time.perf_counter(); exact = ShardedFlatIndex(doc_ids, emb, spec.similarity); build = time.perf_counter() - t0
t0 = time.perf_counter(); run = exact.search(qids, q, 100); secs = time.perf_counter() - t0
res["exact"] = {{"index": "ShardedFlatIndex (faiss inner product, shard by shard)", "build_seconds": round(build, 2),
                "search_seconds": round(secs, 2), "queries_per_s": round(len(qids) / secs, 1), "MRR@10": round(mrr(run), 4)}}
for kind, cfg in (("ivf", IndexConfig(kind="ivf")), ("hnsw", IndexConfig(kind="hnsw"))):
    t0 = time.perf_counter(); ix = build_index(doc_ids, emb, spec.similarity, cfg); build = time.perf_counter() - t0
    t0 = time.perf_counter(); run = ix.search(qids, q, 100); secs = time.perf_counter() - t0
    rec = recall_vs_exact(ix, emb, q, 100, at=(10,))
    res[kind] = {{"index": ix.name, "params": ix.describe(100), "build_seconds": round(build, 2),
                 "search_seconds": round(secs, 2), "queries_per_s": round(len(qids) / secs, 1),
                 "recall@10": round(rec["recall@10"], 4), "recall@100": round(rec["recall@100"], 4),
                 "MRR@10": round(mrr(run), 4)}}
    del ix
# exact search cost at a real model's width, for the MS MARCO plan: 384-dim random vectors
rng = np.random.default_rng(0)
blk = rng.normal(size=(50000, 384)).astype(np.float32); qq = rng.normal(size=(1000, 384)).astype(np.float32)
import faiss
t0 = time.perf_counter(); faiss.knn(qq, blk, 116, metric=faiss.METRIC_INNER_PRODUCT); secs = time.perf_counter() - t0
res["exact_cost_384d"] = {{"queries": 1000, "docs": 50000, "seconds": round(secs, 3),
                          "ns_per_query_doc": round(secs / (1000 * 50000) * 1e9, 3)}}
res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print("RESULT" + json.dumps(res))
"""


def _child(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT))
    lines = [line for line in res.stdout.splitlines() if line.startswith("RESULT")]
    if res.returncode != 0 or not lines:
        raise SystemExit(f"child failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}")
    return json.loads(lines[-1][len("RESULT"):])


def encode_run(model, corpus, cache, shard, executor, workers=0, limit=0, threads=0) -> dict:
    code = ENCODE_CHILD.format(root=str(ROOT), model=str(model), corpus=str(corpus), cache=str(cache), shard=shard,
                               executor=executor, workers=workers, limit=limit, threads=threads)
    out = _child(code)
    label = f"{executor} ({threads} torch thread)" if threads else executor
    print(f"  {label:24s} workers={out['workers']}: {out['passages_per_s']} passages/s "
          f"({out['passages_per_s_per_worker']}/worker), driver peak RSS {out['driver_peak_rss_mb']} MB, "
          f"workers {out['worker_peak_rss_mb']} MB", flush=True)
    return out


def _shard_rates(run: dict) -> dict:
    rates = [s["passages_per_s"] for s in run["shard_log"] if s["passages_per_s"]]
    rates.sort()
    return {"min": rates[0], "median": rates[len(rates) // 2], "max": rates[-1]} if rates else {}


def plan_msmarco(per_shard_rate: float, shard_size: int = 50_000, dim: int = 384, worker_rss_mb: float = 0.0,
                 exact_ns: float = 0.0) -> dict:
    """Time, memory and shards for MS MARCO passage (8.84M passages) on N workers."""
    shards = -(-MSMARCO_PASSAGES // shard_size)
    vectors_gb = MSMARCO_PASSAGES * dim * 4 / 1e9
    rows = []
    for n in (1, 2, 4, 8, 16, 32, 64):
        waves = -(-shards // n)
        hours = waves * shard_size / per_shard_rate / 3600
        rows.append({"workers": n, "shards_per_worker": round(shards / n, 1), "waves": waves,
                     "encode_hours": round(hours, 2)})
    exact_s = MSMARCO_DEV_QUERIES * MSMARCO_PASSAGES * exact_ns / 1e9
    return {
        "passages": MSMARCO_PASSAGES, "shard_size": shard_size, "shards": shards, "dim": dim,
        "per_worker_passages_per_s": per_shard_rate,
        "encode": rows,
        "memory": {
            "vectors_on_disk_gb": round(vectors_gb, 1),
            "shard_vectors_mb": round(shard_size * dim * 4 / 1e6, 1),
            "worker_rss_mb": worker_rss_mb,
            "driver": "doc ids (~0.6 GB as Python strings) + the texts of at most one shard per busy worker "
                      "(~20 MB each) + one shard array being written (~77 MB)",
            "index_ram_gb": {"flat (sharded, exact)": round(shard_size * dim * 4 / 1e9, 2),
                             "ivf (IndexIVFFlat)": round(vectors_gb, 1),
                             "hnsw (IndexHNSWFlat, M=32)": round(vectors_gb + MSMARCO_PASSAGES * 32 * 2 * 4 / 1e9, 1)},
        },
        "exact_search_dev_queries_seconds_one_process": round(exact_s, 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--shard-size", type=int, default=25_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--minilm-slice", type=int, default=2000, help="0 skips the MiniLM measurement")
    ap.add_argument("--workdir", type=Path, default=None, help="keep the data and caches here (default: a temp dir)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "scale_synthetic.json")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import build_tiny_bert

    tmp = tempfile.TemporaryDirectory(prefix="drbench-scale-") if args.workdir is None else None
    work = Path(tmp.name) if tmp else args.workdir
    work.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    out: dict = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                             "python": platform.python_version(), "loadavg_start": list(os.getloadavg())}}
    print(f"writing {args.n} passages ...", flush=True)
    data = work / "synthetic"
    out["corpus"] = write_corpus(data, args.n, args.queries)
    model = build_tiny_bert(work / "tiny-bert")
    out["model"] = {"encoder": "tiny random BERT (2 layers, hidden 32, MiniLM vocabulary, max length 64)"}
    print("encoding (tiny model):", flush=True)
    runs = {}
    # local uses torch's default threads (all cores); a Ray worker gets one CPU and one thread, so
    # "local, 1 thread" is the like-for-like comparison with one Ray worker
    for name, executor, workers, threads in (("local", "local", 0, 0), ("local_1_thread", "local", 0, 1),
                                             ("ray_1_worker", "ray", 1, 0), ("ray_2_workers", "ray", 2, 0)):
        runs[name] = encode_run(model, data, work / f"cache-{name}", args.shard_size, executor, workers,
                                threads=threads)
    same = len({r["shard_sha256"] for r in runs.values()}) == 1
    out["encode_tiny"] = {"runs": runs, "identical_shards_across_executors": same,
                          "per_shard_passages_per_s": {k: _shard_rates(v) for k, v in runs.items()}}
    print(f"  identical shard files across executors: {same}", flush=True)
    print("index phase ...", flush=True)
    out["index"] = _child(INDEX_CHILD.format(root=str(ROOT), model=str(model), folder=str(data),
                                             cache=str(work / "cache-local"), shard=args.shard_size))
    for kind in ("exact", "ivf", "hnsw"):
        r = out["index"][kind]
        print(f"  {kind:5s}: build {r['build_seconds']} s, search {r['search_seconds']} s "
              f"({r['queries_per_s']} q/s), MRR@10 {r['MRR@10']}"
              + (f", recall@10 {r['recall@10']}, recall@100 {r['recall@100']}" if kind != "exact" else ""), flush=True)
    if args.minilm_slice:
        print(f"minilm-l6 on the first {args.minilm_slice} passages:", flush=True)
        shard = max(1, args.minilm_slice // 4)
        mini = {name: encode_run("minilm-l6", data, work / f"cache-minilm-{name}", shard, executor, workers,
                                 limit=args.minilm_slice)
                for name, executor, workers in (("local", "local", 0), ("ray_2_workers", "ray", 2))}
        out["encode_minilm_slice"] = {
            "runs": mini, "identical_shards_across_executors": mini["local"]["shard_sha256"] ==
            mini["ray_2_workers"]["shard_sha256"],
            "per_shard_passages_per_s": {k: _shard_rates(v) for k, v in mini.items()}}
        rate = _shard_rates(mini["ray_2_workers"]).get("median") or mini["local"]["passages_per_s"]
        rss = max(mini["ray_2_workers"]["worker_peak_rss_mb"] or [0.0])
        out["msmarco_plan"] = plan_msmarco(rate, worker_rss_mb=rss,
                                           exact_ns=out["index"]["exact_cost_384d"]["ns_per_query_doc"])
    out["machine"]["loadavg_end"] = list(os.getloadavg())
    out["total_seconds"] = round(time.perf_counter() - t_all, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
