"""Speed of the variations suite against the naive pipeline, and encoding throughput.

    python benchmarks/pipeline_speed.py [--dataset ../shared/data/cranfield] [--model minilm-l6]

Measures, on one machine, in one process each time with a fresh cache directory:
1. naive: for each of the nine query sets (ORIGINAL + eight variations), encode the whole corpus
   again, encode the queries, search, measure (no cache);
2. cold: the suite with an empty embedding cache;
3. warm: the same suite run again (everything cached);
4. encoding throughput of Encoder.encode (length-sorted, pooled) against a bare batched forward
   loop (tokenise + model forward, fixed order, no pooling) over the same corpus texts;
5. peak RSS of each phase (resource.getrusage; the process's high-water mark).
Prints a JSON summary. Numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"))
    ap.add_argument("--model", default="minilm-l6")
    ap.add_argument("--skip-naive", action="store_true")
    args = ap.parse_args()

    import numpy as np
    import torch

    from bench.data.collections import load_dataset
    from bench.encoding.encoder import Encoder
    from bench.evaluation.measures import parse_measures, per_query
    from bench.models.spec import resolve_model
    from bench.core.timing import Timer
    from bench.search.exact import DenseIndex
    from suites.variations import VariationsConfig, build_sets, run

    ds = load_dataset(args.dataset)
    spec = resolve_model(args.model)
    measures = parse_measures("MRR@10 nDCG@10 R@100")
    out = {"dataset": ds.name, "model": spec.name, "n_docs": len(ds.corpus), "threads": torch.get_num_threads()}
    doc_ids = ds.doc_ids()
    doc_texts = [ds.corpus[d].full_text() for d in doc_ids]

    with tempfile.TemporaryDirectory() as tmp:
        cfg = VariationsConfig(seed=0, measures=measures, cache_root=Path(tmp) / "cache", progress=False)
        sets, _ = build_sets(ds, cfg, Timer())
        ok = [vs for vs in sets if vs.status == "ok"]
        out["sets"] = [vs.label for vs in ok]

        # 4. encoding throughput on the corpus
        enc = Encoder(spec, "passage", progress=False)
        model, tok = enc.load()
        t0 = time.perf_counter()
        with torch.inference_mode():
            for i in range(0, len(doc_texts), enc.batch_size):
                b = tok(doc_texts[i:i + enc.batch_size], padding=True, truncation=True,
                        max_length=enc.max_length, return_tensors="pt")
                model(**b)
        bare = time.perf_counter() - t0
        t0 = time.perf_counter()
        enc.encode(doc_texts)
        ours = time.perf_counter() - t0
        out["encode"] = {"bare_forward_s": round(bare, 2), "encoder_s": round(ours, 2),
                         "bare_passages_per_s": round(len(doc_texts) / bare, 1),
                         "encoder_passages_per_s": round(len(doc_texts) / ours, 1),
                         "throughput_ratio": round(bare / ours, 3)}

        # 1. naive
        if not args.skip_naive:
            t0 = time.perf_counter()
            for vs in ok:
                penc = Encoder(spec, "passage", progress=False, shared=enc)
                qenc = Encoder(spec, "query", progress=False, shared=enc)
                index = DenseIndex(doc_ids, penc.encode(doc_texts), spec.similarity)
                run_ = index.search(vs.qids, qenc.encode(vs.texts), 100)
                per_query(measures, ds.qrels, run_, vs.qids)
            out["naive_s"] = round(time.perf_counter() - t0, 2)

        # 2. cold and 3. warm (generation excluded: same frozen sets for all three)
        vdir = Path(tmp) / "variations"
        from perturb.io.sets import write_tsv

        for vs in ok[1:]:
            write_tsv(vs, vdir / f"{vs.name}.tsv")
        cfg.variations_dir = vdir
        for phase in ("cold", "warm"):
            t0 = time.perf_counter()
            res = run(spec, ds, cfg, None)
            out[f"{phase}_s"] = round(time.perf_counter() - t0, 2)
            out[f"{phase}_encoding"] = res["timings"]["encoding"]
        out["peak_rss_mb"] = round(peak_rss_mb(), 1)
        emb_mb = len(doc_texts) * enc.dim * 4 / 2**20
        out["corpus_embeddings_mb"] = round(emb_mb, 2)
    if "naive_s" in out:
        out["speedup_cold"] = round(out["naive_s"] / out["cold_s"], 2)
        out["speedup_warm"] = round(out["naive_s"] / out["warm_s"], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
