"""Does a rule of the earlier synonym swaps help the fitted chooser? Each rule is applied as a veto on
SWORDS targets (a vetoed target abstains) to the cross-validated picks of benchmarks/lexsub/fit.py, and
the curve is compared with the chooser alone: the best coverage at >= 0.90 precision (every higher
threshold with >= 20 judged picks also >= 0.90), per source.

    python benchmarks/lexsub/rules.py ../shared/data/swords/swords-v1.1_dev.json.gz benchmarks/lexsub/features-swords-v1.tsv

Rules (as the earlier generators stated them): ``in term`` (a noun in a compound or with an adjective;
an attributive adjective: :func:`perturb.generators.swapsyn.candidates.in_term`, kept as SWAPSYN-WNET's veto), ``in collocation`` (a verb with a particle or a preposition right after it;
an adverb on a past participle or a light verb; a noun in an "X of Y" phrase or before a participle),
``light verb`` (make, take, get, ...), ``rare target`` (wordfreq Zipf < 3)."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import fit  # noqa: E402
from perturb.checks.lexsub import read_lexsub  # noqa: E402
from perturb.generators.swapsyn.candidates import in_term  # noqa: E402
from perturb.resources import parsing  # noqa: E402
from perturb.resources.words import LIGHT_VERBS, tagging_copy, zipf  # noqa: E402


def in_collocation(tok) -> bool:
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    if tok.pos_ == "VERB" and (any(c.dep_ == "prt" for c in tok.children) or (
            nxt is not None and nxt.head.i == tok.i and nxt.dep_ in ("prep", "prt", "agent", "dative"))):
        return True
    if tok.pos_ == "ADV" and tok.head.i != tok.i and (tok.head.tag_ == "VBN" or tok.head.lemma_.lower() in LIGHT_VERBS):
        return True
    if tok.pos_ == "NOUN":
        if any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children) or (nxt is not None and nxt.tag_ == "VBN"):
            return True
        if tok.dep_ == "pobj" and tok.head.lower_ == "of" and tok.head.head.pos_ in ("NOUN", "PROPN"):
            return True
    return False


RULES = {
    "in term": in_term,
    "in collocation": in_collocation,
    "light verb": lambda tok: tok.pos_ == "VERB" and tok.lemma_.lower() in LIGHT_VERBS,
    "rare target": lambda tok: zipf(tok.lower_) < 3.0,
}


def best_point(rows, targets, source):
    t = fit.choose(rows, targets, source)
    return t, fit.curve_point(rows, targets, source, t)


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    lex = read_lexsub(args[0])
    docs = parsing.parse([tagging_copy(t.text) for t in lex.targets])
    flags = {}
    for t, doc in zip(lex.targets, docs):
        tok = next((x for x in doc if x.idx == t.start), None)
        flags[t.tid] = {name: bool(tok is not None and f(tok)) for name, f in RULES.items()}
    rows = fit.read_rows(args[1])
    fit.cv_scores(rows)
    targets = {t.tid: t.pos for t in lex.targets}
    print("| source | rule | targets vetoed | threshold | coverage / precision (CV) |\n|---|---|---|---|---|")
    for source in sorted({r["source"] for r in rows}):
        t, p = best_point(rows, targets, source)
        print(f"| {source} | none | 0 | {t:.2f} | {fit.fmt(p)} |")
        for name in RULES:
            kept = [r for r in rows if not flags[r["tid"]][name]]
            t, p = best_point(kept, targets, source)
            print(f"| {source} | {name} | {sum(f[name] for f in flags.values())} | {t:.2f} | {fit.fmt(p)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
