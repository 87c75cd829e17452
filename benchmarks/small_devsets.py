"""Development collections of six query styles, and the candidate dumps the labelled development
sets of SWAPWORDS, TRANSTENSE, MISSPELL, NOSTOPWORD and EXTRAPUNC were drawn from.

Reads /work/shared (development only; the product never does). Usage:
    python benchmarks/small_devsets.py styles            # queries per style
    python benchmarks/small_devsets.py applicability     # eligible / changed per style, seed 11
    python benchmarks/small_devsets.py dump SET N        # N candidates per style to label
    python benchmarks/small_devsets.py build SET [OUT]   # rescore SET's development rows with today's
                                                         # verifier (benchmarks/data/validity/SET.tsv, or OUT)
    python benchmarks/small_devsets.py kinds [SET]       # SWAPWORDS's kind table (python -m benchmarks.tuning kinds)
"""
from __future__ import annotations

import json
import re
import sys
from fnmatch import fnmatch
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED, penha_queries  # noqa: E402


def styles() -> Dict[str, List[Tuple[str, str]]]:
    """style -> [(qid, text)]: the development collections of the five query styles (titles twice)."""
    from bench.data.collections import load_chatterbot

    with open(SHARED / "cranfield" / "queries.jsonl", encoding="utf-8") as fh:
        long_q = [(r["_id"], r["text"]) for r in map(json.loads, fh)]
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        titles = [(r["_id"], " ".join(r["title"].split())) for r in map(json.loads, fh) if r.get("title", "").strip()]
    pick = np.random.default_rng(150).choice(len(titles), size=150, replace=False)
    titles = [titles[k] for k in sorted(pick)]
    chat = load_chatterbot()
    return {
        "keyword-title": titles,
        "keyword-title-upper": [(q, t.upper()) for q, t in titles],
        "long-question": long_q,
        "chat-question": sorted((q, v.text) for q, v in chat.queries.items()),
        "web-query": penha_queries("variations_trec2019_labeled.csv"),
        "community-question": penha_queries("variations_antique_labeled.csv"),
    }


LABEL_STYLES = ("keyword-title-upper", "long-question", "chat-question", "web-query", "community-question")
SEED = 11


def _sample(qs, n, key):
    rng = np.random.default_rng(sum(map(ord, key)))
    idx = rng.permutation(len(qs))[:n]
    return [qs[k] for k in sorted(idx)]


def candidates(gen_name: str, per_style: int):
    """Unlabelled candidate rows (style, qid, original, variation, detail, score) for labelling."""
    from perturb import make
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy
    from perturb.base import query_rng

    st = styles()
    gen = make(gen_name)
    rows = []
    for style in LABEL_STYLES:
        qs = st[style]
        if gen_name in ("SWAPWORDS", "TRANSTENSE"):
            docs = parsing.parse([tagging_copy(t) for _, t in qs])
            pool = [(q, t, d) for (q, t), d in zip(qs, docs) if gen.scored(d, t)]
            for q, t, d in _sample(pool, per_style, gen_name + style):
                rng = query_rng(SEED, gen_name + "-dev", t)
                if gen_name == "SWAPWORDS":
                    cs = gen.scored(d, t)
                    hi = [c for c in cs if c.score >= 0.3]
                    lo = [c for c in cs if c.score < 0.3]
                    pick = [hi[k] for k in sorted(rng.permutation(len(hi))[:3])] + \
                        ([lo[int(rng.integers(len(lo)))]] if lo else [])
                    for c in pick:
                        (sa, ea, _), (sb, eb, _) = c.spans
                        rows.append((style, q, t, gen.apply(d, t, c),
                                     f"swapped {t[sa:ea]!r} <-> {t[sb:eb]!r} ({c.kind})", c.score))
                else:
                    for c in gen.scored(d, t)[:4]:
                        rows.append((style, q, t, c.apply(t), c.detail, c.score))
        else:
            for q, t in _sample(qs, per_style, gen_name + style):
                p = gen.perturb(t, query_rng(SEED, gen_name, t))
                if p.applied:
                    rows.append((style, q, t, p.text, p.detail, 1.0))
    return rows


def score_of(gen, style_queries, original: str, variation: str):
    """The current verifier's score of a labelled (original, variation) pair."""
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    doc = parsing.parse([tagging_copy(original)])[0]
    if gen.name == "SWAPWORDS":
        found = [(c.score, f"{original[slice(*c.spans[0][:2])]} <-> {original[slice(*c.spans[1][:2])]}: {c.kind}")
                 for c in gen.scored(doc, original) if gen.apply(doc, original, c) == variation]
    else:
        found = [(c.score, c.detail) for c in gen.scored(doc, original) if c.apply(original) == variation]
    if not found:
        raise SystemExit(f"no candidate of {original!r} gives {variation!r}")
    return max(found)


def build(gen_name: str, out_path: str = "") -> None:
    """Rescore the development rows of ``gen_name``'s labelled set (labelled by reading before any
    threshold was chosen) with the current verifier (SWAPWORDS, TRANSTENSE; the other sets score
    1.0) and write the set back (to ``out_path`` when given), its other samples as they are. A
    SWAPWORDS detail keeps the labelling round it names ("a <-> b (round 4): kind")."""
    import dataclasses

    from perturb import make
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import DEVELOPMENT, read_devset, write_devset

    gen = make(gen_name)
    path = labelled_path(gen_name)
    rows = []
    for c in read_devset(path):
        if gen_name in ("SWAPWORDS", "TRANSTENSE") and c.generator == gen_name and fnmatch(c.provenance, DEVELOPMENT):
            score, detail = score_of(gen, None, c.original, c.variation)
            tag = re.search(r" \((round \d+)\): ", c.detail)
            if gen_name == "SWAPWORDS" and tag:
                spans, kind = detail.rsplit(": ", 1)
                detail = f"{spans} ({tag.group(1)}): {kind}"
            c = dataclasses.replace(c, score=score, detail=detail)
        rows.append(c)
    write_devset(out_path or path, rows)


def applicability(seed: int = SEED) -> Dict[str, Dict[str, Tuple[int, int]]]:
    """style -> generator -> (changed, eligible) over the whole development collections.

    Eligible: SWAPWORDS every query of two words or more; TRANSTENSE a token the tagger calls a
    finite verb, auxiliary or modal (VBD VBZ VBP MD); NOSTOPWORD a whole-token NLTK stop word."""
    import re as _re

    from perturb import make
    from perturb.resources import parsing
    from perturb.resources.words import FINITE_TAGS, stopwords, tagging_copy

    stops = stopwords()
    out: Dict[str, Dict[str, Tuple[int, int]]] = {}
    for style, qs in styles().items():
        items = [(q, t) for q, t in qs]
        docs = parsing.parse([tagging_copy(t) for _, t in items])
        eligible = {
            "SWAPWORDS": [len(t.split()) >= 2 for _, t in items],
            "TRANSTENSE": [any(tok.tag_ in FINITE_TAGS for tok in d) for d in docs],
            "NOSTOPWORD": [any(_re.sub(r"^[^\w']+|[^\w']+$", "", w).lower() in stops for w in t.split())
                           for _, t in items],
        }
        out[style] = {}
        for name, elig in eligible.items():
            done = make(name).perturb_batch(items, seed)
            out[style][name] = (sum(p.applied for p, e in zip(done, elig) if e), sum(elig))
    return out


def kind_scores(name: str = "SWAPWORDS"):
    """Each evidence kind's Laplace-smoothed validity on the tuning half of the development rows:
    (valid + 1) / (labelled + 2), the scores of perturb.generators.swapwords.pairs.EVIDENCE
    (benchmarks.tuning.kinds)."""
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import read_devset
    from benchmarks.tuning.kinds import kind_scores as table

    return table(read_devset(labelled_path(name)), name)


if __name__ == "__main__":
    if sys.argv[1] == "styles":
        for k, v in styles().items():
            print(k, len(v), v[:2])
    elif sys.argv[1] == "dump":
        for n, r in enumerate(candidates(sys.argv[2], int(sys.argv[3]))):
            print(n, r[0][:5], repr(r[2]), "=>", repr(r[3]), "|", r[4], "|", r[5], sep="\t")
    elif sys.argv[1] == "applicability":
        for style, per in applicability().items():
            print(style, *(f"{g} {c}/{n} = {100 * c / max(n, 1):.1f}%" for g, (c, n) in per.items()), sep="\t")
    elif sys.argv[1] == "kinds":
        for k, (score, v, n) in kind_scores(*sys.argv[2:3]).items():
            print(f"{score:.2f}\t{v}/{n}\t{k}")
    elif sys.argv[1] == "build":
        build(*sys.argv[2:4])
