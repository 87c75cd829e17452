"""A blind sample of the synonym sets' runner-up picks: where the pick check refuses the chooser's pick,
the next candidate (in the chooser's order) that both the chooser and the check accept.

    python benchmarks/lexsub/runnerup.py [--seed 5150] [--per-cell 30] [--pool 2000] [--out DIR] [--styles A,B]
    python benchmarks/lexsub/blind.py score DIR/labels.tsv --key DIR/key.tsv --validity-dir TMP --md FILE

The shipped sets leave such queries unchanged; the frontier's ceiling row
(``benchmarks/results/swapsyn_frontier.md``) counts them. Whether their swaps keep the information need
was never measured (the check is fitted on, and ``blind4`` measured, top picks only): this sample
measures it. Queries: the fresh queries of ``blind.py`` (no row of ``benchmarks/data/validity/SWAPSYN-*.tsv``
holds them), each style's batch as ``blind.py`` draws it. No word cap. Writes ``listing.tsv`` (for the
labeller: item, original, variation, shuffled) and ``key.tsv`` (``blind.py``'s key columns) to ``--out``.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lexsub import blind  # noqa: E402

OUT = blind.VALIDITY / "runnerup1"


def runner_ups(name: str, queries) -> list:
    """The :class:`blind.Swap` of each query whose top pick the check refuses and whose next accepted
    candidate exists."""
    from benchmarks.lexsub.frontier import checked_ranks
    from perturb import make
    from perturb.resources.words import with_article

    gen, out = make(name), []
    for (qid, text), ranks in zip(queries, checked_ranks(gen, [t for _, t in queries])):
        if not ranks or gen.checker.passes(ranks[0][1]):
            continue
        nxt = next((k for k in range(1, len(ranks)) if gen.checker.passes(ranks[k][1])), None)
        if nxt is None:
            continue
        c, p = ranks[nxt]
        detail = (f"{c.pos}:{c.word!r}->{c.new!r} (score {c.score:.4f}; lemma {c.lemma}; check {p:.4f}; "
                  f"rank {nxt + 1})")
        out.append(blind.Swap(name, "", qid, text, with_article(text, c.start, c.end, c.new), detail))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=5150)
    ap.add_argument("--per-cell", type=int, default=30)
    ap.add_argument("--pool", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--styles", default="msmarco-question,keyword-title-upper,keyword-title-lower,chat-question")
    args = ap.parse_args(argv)
    os.environ["DRBENCH_NO_VARIATION_CACHE"] = "1"
    used = blind.used_queries(sorted(blind.VALIDITY.glob("SWAPSYN-*.tsv")))
    styles = blind.collections()
    drawn = []
    for style in [s for s in args.styles.split(",") if s]:
        new = blind.fresh(style, styles[style], used)
        keep = {q for q, _ in new}
        queries = [x for x in blind.batch(style, styles[style], new, args.seed, args.pool) if x[0] in keep]
        for name in blind.SETS:
            found = [blind.Swap(s.set, style, s.qid, s.original, s.variation, s.detail) for s in runner_ups(name, queries)]
            rng = random.Random(f"{args.seed}:{name}:{style}:draw")
            got = sorted(rng.sample(found, min(args.per_cell, len(found))), key=lambda s: s.qid)
            print(f"{name} {style}: {len(queries)} fresh queries, {len(found)} runner-up picks, {len(got)} drawn", flush=True)
            drawn += got
    rows, key = blind.listing(drawn, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    blind.write_tsv(args.out / "listing.tsv", ("item", "original", "variation"), rows)
    blind.write_tsv(args.out / "key.tsv", blind.KEY_COLUMNS, key)
    print(f"{len(rows)} pairs to label ({len(key)} set rows): {args.out / 'listing.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
