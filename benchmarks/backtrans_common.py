"""What the BACKTRANS scripts share: the dev collections by style, the Apertium generator with the
pivots ``$DRBENCH_BT_PIVOTS`` names, the round trips cached by ``backtrans_dev.py trips``
(``$DRBENCH_BT_TRIPS``, default /tmp/bt/trips.json) and the candidates of a query from them."""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

from benchmarks.common import SHARED, penha_queries

CACHE = Path(os.environ.get("DRBENCH_BT_TRIPS", "/tmp/bt/trips.json"))
PIVOTS = [p for p in os.environ.get("DRBENCH_BT_PIVOTS", "").split(",") if p]  # default: the generator's


def dev_path() -> Path:
    from benchmarks.tuning.rules import labelled_path

    return labelled_path("BACKTRANS")


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
        out[style] = penha_queries(f"variations_{name}_labeled.csv")
    return out


def backtranslator():
    from perturb.generators.backtrans.generator import BackTranslate

    return BackTranslate(backend="apertium", pivots=PIVOTS or None)


def load_table(gen=None):
    """The cached round trips of ``gen``'s pivots (pivot -> text as sent -> [pivot text, back])."""
    gen = gen or backtranslator()
    table = json.loads(CACHE.read_text())
    missing = [p for p in gen.pivots if p not in table]
    if missing:
        raise SystemExit(f"{CACHE} has no round trips for {missing}: run `backtrans_dev.py trips` with these pivots")
    return {p: table[p] for p in gen.pivots}


def as_sent(text):
    from perturb.resources.words import case_style

    return text.lower() if case_style(text) in ("upper", "title") else text


def candidates_of(gen, table, text):
    s = as_sent(text)
    return gen.verified_candidates(text, s, {p: (tuple(table[p][s]) if table[p].get(s) else None) for p in table})
