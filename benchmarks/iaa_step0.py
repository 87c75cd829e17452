"""IAA at step 0: MRR@10 of a model with untrained IAA modules attached, per aside placement.

    python benchmarks/iaa_step0.py [--model minilm-l6] [--dataset chatterbot] [--placements before-ln,after-ln,scaled]

For the backbone and each of iaa-s / iaa-l / iaa-m under each ``--iaa-skip`` placement: MRR@10 over
the dataset's judged queries (exact search over the whole corpus, cosine after L2 normalisation) and
the mean cosine of every query and passage vector to the backbone's. The up-projections start at
zero, so the numbers do not depend on the seed. docs/methods.md ("Where the aside skip joins")
shows the chatterbot table this prints.
"""
from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    import torch

    from bench.data.collections import load_dataset
    from bench.models.loading import load_backbone
    from bench.models.spec import resolve_model
    from bench.training.dual import build_dual_encoder
    from bench.tuning.config import TuningConfig

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="minilm-l6")
    ap.add_argument("--dataset", default="chatterbot")
    ap.add_argument("--placements", default="before-ln,after-ln,scaled")
    args = ap.parse_args(argv)
    spec, ds = resolve_model(args.model), load_dataset(args.dataset)
    base, tok = load_backbone(spec)
    qids, dids = ds.judged_query_ids(), ds.doc_ids()
    qt, dt = [ds.queries[q].text for q in qids], [ds.corpus[d].full_text() for d in dids]

    def enc(dual, texts, role):
        with torch.no_grad():
            v = np.concatenate([dual.embed(texts[i:i + 64], role).float().numpy() for i in range(0, len(texts), 64)])
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def mrr(q, d):
        s, rr = q @ d.T, []
        for i, qid in enumerate(qids):
            rel = {x for x, g in ds.qrels[qid].items() if g > 0}
            top = np.argsort(-s[i], kind="stable")[:10]
            rr.append(next((1.0 / (r + 1) for r, j in enumerate(top) if dids[j] in rel), 0.0))
        return float(np.mean(rr))

    ref = build_dual_encoder(spec, "full-tune", base, tok, TuningConfig(), seed=0)
    q0, d0 = enc(ref, qt, "query"), enc(ref, dt, "passage")
    print(f"backbone MRR@10 {mrr(q0, d0):.4f}", flush=True)
    for skip in args.placements.split(","):
        for m in ("iaa-s", "iaa-l", "iaa-m"):
            dual = build_dual_encoder(spec, m, base, tok, TuningConfig(iaa_skip=skip), seed=0)
            q, d = enc(dual, qt, "query"), enc(dual, dt, "passage")
            cos = float(np.mean(np.sum(np.vstack([q, d]) * np.vstack([q0, d0]), axis=1)))
            print(f"{skip} {m} MRR@10 {mrr(q, d):.4f} cosine to the backbone {cos:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
