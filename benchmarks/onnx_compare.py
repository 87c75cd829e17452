"""The ONNX Runtime backends against torch on one collection: speed, identical top-10, metrics.

    python benchmarks/onnx_compare.py [--dataset /work/shared/data/cranfield] [--model minilm-l6]
        [--docs 0] [--queries 0] [--sample 256] [--rounds 3] [--out benchmarks/results/onnx_compare.json]

For each backend (torch, onnx, onnx-int8: the last a named deviation) the corpus (or, with
``--docs N``, a seeded sample of N documents, every judged document of the sampled queries kept)
is encoded with the encoder's own length-sorted pipeline and the queries with its canonical query
batches, in memory (no embedding cache), then searched exactly (top 100). Reported: corpus and
query encoding time (median over ``--rounds`` alternated passes over the first ``--sample`` passages,
plus the one full pass), the share of queries whose top-10 is identical to torch's (same documents
in the same order) and the same as a set, and each measure's mean with its difference to torch.
The ONNX export is made once into the cache home (DRBENCH_HOME) before timing. Numbers are
measurements, never assertions; the machine may be shared (``uptime`` is recorded).
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BACKENDS = ("torch", "onnx", "onnx-int8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="/work/shared/data/cranfield")
    ap.add_argument("--model", default="minilm-l6")
    ap.add_argument("--docs", type=int, default=0, help="encode a seeded sample of this many documents (0: all)")
    ap.add_argument("--queries", type=int, default=0, help="a seeded sample of this many judged queries (0: all)")
    ap.add_argument("--sample", type=int, default=256, help="passages of the alternated speed passes")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    logging.getLogger().setLevel(logging.ERROR)  # onnxruntime.quantization's pre-processing hint

    import numpy as np
    import torch

    from bench.data.collections import load_dataset
    from bench.encoding import runtime
    from bench.encoding.encoder import Encoder
    from bench.evaluation.measures import parse_measures, per_query
    from bench.models.spec import resolve_model
    from bench.search.exact import DenseIndex

    ds = load_dataset(args.dataset)
    spec = resolve_model(args.model)
    measures = parse_measures("nDCG@10 MRR@10 R@100")
    qids = ds.judged_query_ids()
    if args.queries and args.queries < len(qids):
        pick = np.random.default_rng(0).choice(len(qids), size=args.queries, replace=False)
        qids = [qids[i] for i in sorted(pick)]
    doc_ids = ds.doc_ids()
    if args.docs and args.docs < len(doc_ids):
        rng = np.random.default_rng(0)
        keep = {d for q in qids for d in ds.qrels[q]}
        rest = [d for d in doc_ids if d not in keep]
        extra = max(0, args.docs - len(keep))
        keep |= {rest[i] for i in rng.choice(len(rest), size=min(extra, len(rest)), replace=False)}
        doc_ids = [d for d in doc_ids if d in keep]
    texts = [ds.corpus[d].full_text() for d in doc_ids]
    qtexts = [ds.queries[q].text for q in qids]
    sample = texts[:args.sample]
    report = {"dataset": ds.name, "model": spec.name, "n_docs": len(doc_ids), "n_queries": len(qids),
              "docs_sampled": bool(args.docs), "queries_sampled": bool(args.queries), "speed_sample": len(sample),
              "torch_threads": torch.get_num_threads(),
              "uptime_before": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
    encoders = {}
    for b in BACKENDS:
        s = runtime.apply(spec, "cpu", None, b)
        encoders[b] = (Encoder(s, "passage", progress=False), Encoder(s, "query", progress=False))
        encoders[b][0].load()  # export (onnx) and load: not timed
        report.setdefault("versions", {})[b] = runtime.record(s)["backend_version"] if b != "torch" else \
            f"torch {torch.__version__}"
    timing = {b: [] for b in BACKENDS}
    for r in range(args.rounds):
        for b in (BACKENDS if r % 2 == 0 else BACKENDS[::-1]):
            out = np.empty((len(sample), encoders[b][0].dim), dtype=np.float32)
            t0 = time.perf_counter()
            encoders[b][0].encode_into(sample, out)
            timing[b].append(time.perf_counter() - t0)
    runs, res = {}, {}
    for b in BACKENDS:
        penc, qenc = encoders[b]
        t0 = time.perf_counter()
        emb = penc.encode(texts)
        t_corpus = time.perf_counter() - t0
        t0 = time.perf_counter()
        q = qenc.encode_canonical(qtexts)
        t_query = time.perf_counter() - t0
        runs[b] = DenseIndex(doc_ids, emb, spec.similarity).search(qids, q, 100)
        pq = per_query(measures, ds.qrels, runs[b], qids)
        res[b] = {"sample_s_median": round(statistics.median(timing[b]), 3),
                  "sample_s": [round(x, 3) for x in timing[b]],
                  "sample_passages_per_s": round(len(sample) / statistics.median(timing[b]), 1),
                  "corpus_s": round(t_corpus, 2), "queries_s": round(t_query, 2),
                  "means": {m: round(float(np.mean(list(v.values()))), 5) for m, v in pq.items()}}
    for b in BACKENDS[1:]:
        same = sum([d for d, _ in runs[b][q][:10]] == [d for d, _ in runs["torch"][q][:10]] for q in qids)
        same_set = sum({d for d, _ in runs[b][q][:10]} == {d for d, _ in runs["torch"][q][:10]} for q in qids)
        res[b]["top10_identical_share"] = round(same / len(qids), 4)
        res[b]["top10_same_set_share"] = round(same_set / len(qids), 4)
        res[b]["mean_differences_vs_torch"] = {m: round(res[b]["means"][m] - res["torch"]["means"][m], 5)
                                               for m in res[b]["means"]}
        res[b]["speedup_vs_torch_sample"] = round(res["torch"]["sample_s_median"] / res[b]["sample_s_median"], 2)
    report["backends"] = res
    report["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
