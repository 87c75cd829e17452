"""Features of the synonym sets' candidates on the labelled queries of
benchmarks/data/validity/SWAPSYN-*.tsv, through the generators' own code (perturb.generators.swapsyn.chooser:
targets, candidates, MiniLM features), for fitting the chooser on queries (benchmarks/lexsub/query_fit.py).

    python benchmarks/lexsub/query_features.py [--out benchmarks/lexsub/features-queries-v1.tsv.gz]

* Labels: every row with ``valid`` 0/1 of both files. Its (target, substitute) is recovered by a word
  diff of ``original`` and ``variation``: exactly one word replaced by one word (an "a"/"an" right
  before it may change too); other rows are counted and skipped. A pair's label is the majority of the
  rows labelling it (both files pooled: a judgement is about the text pair, not the set), ties invalid;
  ``provenance`` lists the samples of those rows (``blind-chooser``: the blind sample of the shipped
  chooser, never fitted on).
* Candidates: per distinct query and source, every candidate of :func:`chooser.candidates_of` (the
  target vetoes are not applied; ``in_term`` records :func:`in_term` of the target, ``query_word``
  whether the generator's "not another query word" veto refuses the candidate). A labelled pair that
  is not a candidate of the source is counted and skipped (the generator can never propose it).
* MiniLM features for the ``ENCODED`` best candidates of each query by the shipped cheap score, the
  ``ENCODED`` first by the fixed prior of features.py, and every labelled candidate; empty for the rest.

One row per (query, source, candidate): columns as features-swords-v1.tsv (``target_id`` = query
number:offset, ``context`` = query number) plus ``label`` (1/0, empty when unlabelled), ``query``,
``style``, ``provenance``, ``case``, ``in_term``, ``query_word``; gzip-compressed (no time stamp).
About 8 minutes on two busy cores (1,035 queries, 50,757 candidates through MiniLM).
"""
from __future__ import annotations

import argparse
import csv
import gzip
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from features import _prior  # noqa: E402 (benchmarks/lexsub/features.py)
from perturb.generators.swapsyn import chooser  # noqa: E402
from perturb.generators.swapsyn.candidates import SOURCES, in_term  # noqa: E402
from perturb.generators.swapsyn.generator import QUERY_WORD, query_words  # noqa: E402
from perturb.engine import Candidate, first_refusal  # noqa: E402
from perturb.resources import parsing  # noqa: E402
from perturb.resources.words import case_style, tagging_copy  # noqa: E402
from perturb.spec import Edit  # noqa: E402

FILES = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")
ENCODED = 16
_TOKEN = re.compile(r"[A-Za-z]+|[^A-Za-z]")


def one_word_swap(original: str, variation: str):
    """(offset, old word, new word) when ``variation`` is ``original`` with one word replaced by one
    word (an "a"/"an" right before it may follow the new word); else None."""
    a, b = _TOKEN.findall(original), _TOKEN.findall(variation)
    if len(a) != len(b):
        return None
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(diff) == 2 and a[diff[0]].lower() in ("a", "an") and b[diff[0]].lower() in ("a", "an"):
        diff = diff[1:]
    if len(diff) != 1 or not a[diff[0]].isalpha() or not b[diff[0]].isalpha():
        return None
    i = diff[0]
    return sum(len(t) for t in a[:i]), a[i], b[i]


def read_labels():
    """query -> {(offset, new lower): [votes, samples, styles]}, and the counts of skipped rows."""
    pairs = defaultdict(dict)
    skipped = Counter()
    for name in FILES:
        with open(ROOT / "benchmarks" / "data" / "validity" / f"{name}.tsv", encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                if r["valid"] not in ("0", "1"):
                    continue
                swap = one_word_swap(r["original"], r["variation"])
                if swap is None:
                    skipped["not a one-word swap"] += 1
                    continue
                key = (swap[0], swap[2].lower())
                votes = pairs[r["original"]].setdefault(key, [[], set(), set()])
                votes[0].append(int(r["valid"]))
                votes[1].add(r["provenance"])
                votes[2].add(r["style"])
    return pairs, skipped


def _vetoed(doc, c) -> bool:
    tokens = {t.idx: t for t in doc}
    ctx = {"words": query_words(doc, c.start), "lemma": c.lemma, "token": tokens.get(c.start)}
    return first_refusal((QUERY_WORD,), Candidate(Edit.replace(c.start, c.end, c.new), ctx)) is not None


def _to_encode(cands, labelled, model) -> list:
    cheap = [chooser.logistic(model["cheap"], c.x) for c in cands]
    by_cheap = sorted(range(len(cands)), key=lambda j: (-cheap[j], j))[:ENCODED]
    by_prior = sorted(range(len(cands)), key=lambda j: _prior(cands[j]))[:ENCODED]
    keep = set(by_cheap) | set(by_prior) | {j for j, c in enumerate(cands) if (c.start, c.new.lower()) in labelled}
    return [cands[j] for j in sorted(keep)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE / "features-queries-v1.tsv.gz"))
    args = ap.parse_args(argv)
    t0 = time.time()
    pairs, skipped = read_labels()
    queries = sorted(pairs)
    docs = parsing.parse([tagging_copy(q) for q in queries])
    model = chooser.load_model()
    n_free = len(chooser.CHEAP) - len(chooser.POS_FEATURES)
    lines = ["target_id\tcontext\tpos\tsource\tlemma\tnew\tlabel\t" + "\t".join(chooser.FEATURES) +
             "\tquery\tstyle\tprovenance\tcase\tin_term\tquery_word"]
    for source in SOURCES:
        per = [chooser.candidates_of(q, d, source) for q, d in zip(queries, docs)]
        full = chooser.with_context(queries, [_to_encode(c, pairs[q], model) for q, c in zip(queries, per)])
        found = set()
        for qi, (q, doc, cands, row) in enumerate(zip(queries, docs, per, full)):
            encoded = {(c.start, c.lemma): c for c in row}
            terms = {t.idx: in_term(t) for t in doc}
            for c in cands:
                lab = pairs[q].get((c.start, c.new.lower()))
                if lab is not None:
                    found.add((q, c.start, c.new.lower()))
                e = encoded.get((c.start, c.lemma))
                x = e.x if e is not None else c.x[:n_free] + (None,) * 3 + c.x[n_free:]
                label = "" if lab is None else str(int(sum(lab[0]) * 2 > len(lab[0])))
                lines.append("\t".join(
                    [f"q{qi}:{c.start}", f"q{qi}", c.pos, source, c.lemma, c.new, label] +
                    ["" if v is None else f"{v:.4f}" for v in x] +
                    [q, "" if lab is None else ",".join(sorted(lab[2])), "" if lab is None else ",".join(sorted(lab[1])),
                     case_style(q), str(int(terms.get(c.start, False))), str(int(_vetoed(doc, c)))]))
        missing = sum(1 for q in queries for k in pairs[q] if (q, *k) not in found)
        skipped[f"labelled pair not a {source} candidate"] = missing
        print(f"{source}: {sum(len(r) for r in full)} candidates encoded, {len(found)} labelled pairs found, "
              f"{missing} not candidates, {time.time() - t0:.0f} s", flush=True)
    with open(args.out, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))
    print(f"{len(queries)} queries, {sum(len(v) for v in pairs.values())} labelled one-word pairs; skipped: "
          + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())))
    print(f"wrote {args.out} ({len(lines) - 1} rows) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
