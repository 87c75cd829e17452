"""Development measurements of BACKTRANS (Apertium, generate then verify): round trips of the dev
collections, candidates to label, the threshold curve, applicability per style with the reasons a
query gets no passing candidate, and Penha et al.'s human labels. Reads /work/shared (dev only).

    python benchmarks/backtrans_dev.py trips            # round trips of every style, cached
    python benchmarks/backtrans_dev.py sample OUT.tsv   # candidates to label (all scores)
    python benchmarks/backtrans_dev.py report           # rescore the dev set, curve, applicability, Penha
"""
from __future__ import annotations

import collections
import csv
import json
import os
import random
import sys
from pathlib import Path

SHARED = Path("/work/shared/data")
CACHE = Path(os.environ.get("DRBENCH_BT_TRIPS", "/tmp/bt/trips.json"))
DEV = Path(__file__).resolve().parents[1] / "docs/validity/dev-BACKTRANS.tsv"


def styles():
    out = {}
    out["long-question"] = [(r["_id"], r["text"]) for r in map(json.loads, open(SHARED / "cranfield/queries.jsonl"))]
    titles = [(r["_id"], r["title"]) for r in map(json.loads, open(SHARED / "cranfield/corpus.jsonl")) if r.get("title")]
    titles = random.Random(22).sample(titles, 150)
    out["keyword-title"] = titles
    out["caps-title"] = [(q, t.upper()) for q, t in titles]
    from bench.data.collections import load_dataset

    out["chat-question"] = [(q, v.text) for q, v in sorted(load_dataset("chatterbot").queries.items())]
    for style, name in (("web-query", "trec2019"), ("community-question", "antique")):
        seen = {}
        for r in csv.DictReader(open(SHARED / f"penha-variations/variations_{name}_labeled.csv")):
            seen.setdefault(r["q_id"], r["original_query"])
        out[style] = sorted(seen.items())
    return out


PIVOTS = [p for p in os.environ.get("DRBENCH_BT_PIVOTS", "").split(",") if p]  # default: the generator's


def _gen():
    from perturb.generators.backtrans.generator import BackTranslate

    return BackTranslate(backend="apertium", pivots=PIVOTS or None)


def load_table(gen=None):
    """The cached round trips of ``gen``'s pivots (pivot -> text as sent -> [pivot text, back])."""
    gen = gen or _gen()
    table = json.loads(CACHE.read_text())
    missing = [p for p in gen.pivots if p not in table]
    if missing:
        raise SystemExit(f"{CACHE} has no round trips for {missing}: run `backtrans_dev.py trips` with these pivots")
    return {p: table[p] for p in gen.pivots}


def _sent(text):
    from perturb.resources.words import case_style

    return text.lower() if case_style(text) in ("upper", "title") else text


def trips():
    gen = _gen()
    texts = sorted({_sent(t) for qs in styles().values() for _, t in qs})
    rt = gen._round_trips(texts)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    old.update({p: {t: r for t, r in zip(texts, res)} for p, res in rt.items()})
    CACHE.write_text(json.dumps(old, sort_keys=True))


def candidates_of(gen, table, text):
    s = _sent(text)
    return gen.verified_candidates(text, s, {p: (tuple(table[p][s]) if table[p].get(s) else None) for p in table})


def sample(out_path, per_style=28, seed=5):
    from perturb.checks.devset import split_of

    gen = _gen()
    table = load_table(gen)
    rng = random.Random(seed)
    rows = []
    for style, qs in styles().items():
        if style == "keyword-title":
            continue  # the caps-title rows are the same titles
        qs = list(qs)
        rng.shuffle(qs)
        n = 0
        for qid, text in qs:
            cands = candidates_of(gen, table, text)
            if not cands:
                continue
            good = [c for c in cands if c.score >= 0]
            bad = [c for c in cands if c.score < 0]
            pick = rng.sample(good, min(2, len(good))) + rng.sample(bad, min(1, len(bad)))
            from perturb.generators.backtrans import score as backtrans_score
            old = [t.lower() for t, _, _ in backtrans_score.tokens(_sent(text))]
            from perturb.resources.words import apply_case_style, case_style
            for c in pick:
                rows.append(["BACKTRANS", style, qid, text, apply_case_style(c.text, case_style(text)), c.detail(old),
                             f"{c.score:g}", split_of(style, qid), "", ""])
            n += 1
            if n >= per_style:
                break
    from perturb.checks.devset import COLUMNS

    Path(out_path).write_text("\n".join("\t".join(r) for r in [list(COLUMNS)] + rows) + "\n", encoding="utf-8")
    print(len(rows), "rows")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "trips":
        trips()
    elif cmd == "sample":
        sample(sys.argv[2])
    elif cmd == "report":
        from benchmarks.backtrans_report import report

        report()
