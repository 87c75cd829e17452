"""Applicability and substance of the eight shipped generators per query style.

    python benchmarks/variation_substance.py [--seed 0] [--n 200] [--json OUT] [--sets A,B] [--protocol validated|rodr]

For each style (keyword titles: Cranfield document titles in capitals; long questions: Cranfield's
225 queries; chat questions: chatterbot's judged queries; web questions: the original queries of
Penha et al.'s ANTIQUE and TREC DL 2019 files; MS MARCO questions: the 6,980 MS MARCO dev (small)
queries of shared/data/rodr-msmarco-dev), at most ``--n`` queries each, every generator of the
protocol (`--protocol`, default validated) is run once (seed ``--seed``, no variation cache) and reported:

* **changed**: the share of queries the generator changed (applicability);
* **content**: of the changed queries, the share whose edit touches a content word of the query (a
  NOUN, PROPN, main VERB or ADJ of the original, spaCy): the word replaced, misspelt, re-tensed or
  moved. The words an edit touches are the query's words in difflib's replace/delete blocks of the
  two word sequences (NOSTOPWORD removes only stop words by design, EXTRAPUNC touches no word);
* **top**: the most frequently touched words with their share of the changed queries;
* **overlap** (when both synonym sets run): of the queries SWAPSYN-GLOVE and SWAPSYN-WNET both
  change, the share they change to the same text.

Validity is not measured here: it comes from the labelled sets (docs/methods.md). Numbers are
measurements, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED, msmarco_queries, penha_queries  # noqa: E402
from perturb.checks.substance import parse_originals, substance_of  # noqa: E402


def styles(n: int, seed: int):
    from bench.data.collections import load_dataset

    rng = random.Random(seed)
    titles = [json.loads(line)["title"].upper() for line in open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8")]
    questions = [json.loads(line)["text"] for line in open(SHARED / "cranfield" / "queries.jsonl", encoding="utf-8")]
    chat = load_dataset("chatterbot")
    chat_q = [chat.queries[q].text for q in chat.judged_query_ids()]
    web = [t for f in ("variations_antique_labeled.csv", "variations_trec2019_labeled.csv")
           for _, t in penha_queries(f, normalise=True)]
    msmarco = [t for _, t in msmarco_queries()]
    out = {}
    for name, texts in (("keyword titles", titles), ("long questions", questions), ("chat questions", chat_q),
                        ("web questions", web), ("MS MARCO questions", msmarco)):
        texts = list(dict.fromkeys(t for t in texts if t.strip()))
        out[name] = sorted(rng.sample(texts, min(n, len(texts))))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--sets", default="", help="comma-separated set names (default: all eight)")
    ap.add_argument("--protocol", default="validated", help="validated (default) or rodr")
    args = ap.parse_args(argv)
    os.environ["DRBENCH_HOME"] = tempfile.mkdtemp(prefix="drbench-substance-")
    os.environ["DRBENCH_NO_VARIATION_CACHE"] = "1"
    from perturb import PAPER_ORDER
    from perturb.io.generation import generate_many

    names = [s for s in args.sets.split(",") if s] or list(PAPER_ORDER)
    unknown = sorted(set(names) - set(PAPER_ORDER))
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)}; the sets: {', '.join(PAPER_ORDER)}")
    by_style = styles(args.n, args.seed)
    summary = {}
    for style, texts in by_style.items():
        items = [(f"q{i}", t) for i, t in enumerate(texts)]
        docs = parse_originals(texts)
        sets = generate_many(names, items, [args.seed], protocol=args.protocol, cache=False)
        for name in names:
            vs = sets[name][0]
            sub = substance_of(texts, vs.texts, vs.applied, docs)
            changed = sub.changed
            top = [(w, round(100.0 * c / changed, 1)) for w, c in sub.top]
            row = {"queries": len(texts), "changed": changed, "changed_pct": round(100.0 * changed / len(texts), 1),
                   "content_pct": round(100.0 * sub.content_share, 1) if changed else None, "top": top}
            summary.setdefault(name, {})[style] = row
            print(f"{name:14s} {style:15s} changed {row['changed_pct']:5.1f}% ({changed}/{len(texts)})  content "
                  f"{'-' if row['content_pct'] is None else row['content_pct']:>5}%  top {top}", flush=True)
        if "SWAPSYN-GLOVE" in sets and "SWAPSYN-WNET" in sets:
            g, w = sets["SWAPSYN-GLOVE"][0], sets["SWAPSYN-WNET"][0]
            both = [i for i in range(len(texts)) if g.applied[i] and w.applied[i]]
            same = sum(g.texts[i] == w.texts[i] for i in both)
            summary.setdefault("overlap", {})[style] = {"both_changed": len(both), "identical": same}
            print(f"{'GLOVE = WNET':14s} {style:15s} identical in {same} of the {len(both)} queries both change", flush=True)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
