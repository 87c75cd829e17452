"""The synonym sets' validity/applicability frontier: what each pick-check threshold keeps, on blind labels
and on queries of five styles.

    python benchmarks/lexsub/frontier.py [--n 200] [--seed 0] [--md FILE]

Per set and check setting: one threshold ``T`` for every class of pick alike
(``make(name, check_threshold=T, verb_check_threshold=T, long_check_threshold=T)``; 0 is the chooser alone,
without the check), on a grid, and the set's shipped triple (a threshold for verbs and one for the other
targets in short texts, one for every target in long texts: ``check.CLASSES``):

* **CV precision**: the pick check's cross-validated precision at that setting over the labelled picks of
  that set's source (``check_fit.py``'s rows, folds and model; Wilson 95% interval), as the shipped
  thresholds were chosen;
* **changed**: the share of queries the set changes per style (``benchmarks/variation_substance.py``'s five
  styles, ``--n`` each, seed ``--seed``), with the set-level word cap, as ``bench perturb`` runs it, and pooled;
* **SWORDS**: on a file in SWORDS's format (``--swords``, default the development split in ``../shared``;
  ``--swords none`` leaves it out), the share of targets the set answers (``bench perturb --lexsub``'s path),
  of all targets and of the noun and verb targets, and the precision of the answers SWORDS judges
  (acceptable: at least half of the annotators). Neither the chooser nor the check is fitted on SWORDS
  (both on labelled queries and sentences), so this is held-out; the grid is shown, no point is chosen on it.

and, at the shipped thresholds, the **ceiling**: the share of queries with at least one candidate (not
only the chooser's pick) that reaches both the chooser's threshold and the check's, before the word cap:
no choice among the candidates the check accepts can change more queries than that. It is what the set
changes before the cap (the set takes the first such candidate in the chooser's order); the gap to the
changed columns is the cap, which on a batch of 200 leaves about one swap per word (``levers.py``).

The shipped setting is marked. Writes ``benchmarks/results/swapsyn_frontier.md``. Numbers are
measurements, never assertions.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

MD = ROOT / "benchmarks" / "results" / "swapsyn_frontier.md"
SWORDS_DEV = ROOT.parent / "shared" / "data" / "swords" / "swords-v1.1_dev.json.gz"
THRESHOLDS = (0.0, 0.50, 0.60, 0.70, 0.75, 0.80, 0.85, 0.90)
SETS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")


def shipped(name: str) -> tuple:
    """The set's shipped check thresholds, in the order of ``check.CLASSES`` (verbs, other targets, long texts)."""
    from perturb.generators.swapsyn import check, chooser

    got = check.thresholds_of(chooser.load_model(), "glove" if name == "SWAPSYN-GLOVE" else "wordnet")
    return tuple(round(got[c], 2) for c in check.CLASSES)


def grid(name: str) -> tuple:
    """The settings (one threshold per ``check.CLASSES``): :data:`THRESHOLDS` for all, then the shipped triple."""
    return tuple((t, t, t) for t in THRESHOLDS) + (shipped(name),)


def cv_precision() -> dict:
    """(set, threshold) -> (kept, valid) of the check's cross-validated curve over the picked rows."""
    from benchmarks.lexsub import check_fit
    from perturb.generators.swapsyn import check, chooser

    rows, p = check_fit.cross_validated_rows()
    idx = check_fit.picked(rows, chooser.load_model()["thresholds"])
    out = {}
    for name in SETS:
        for t in grid(name):
            kept = check_fit.kept(rows, p, idx, check_fit.SOURCE[name], dict(zip(check.CLASSES, t)))
            out[(name, t)] = (len(kept), sum(rows[i]["valid"] for i in kept))
    return out


def applicability(n: int, seed: int) -> dict:
    """(set, threshold, style) -> (changed, queries), the word cap applied over each style's batch."""
    from benchmarks.variation_substance import styles
    from perturb import make

    out = {}
    for style, texts in styles(n, seed).items():
        items = [(f"q{i}", t) for i, t in enumerate(texts)]
        for name in SETS:
            for t in grid(name):
                gen = make(name, verb_check_threshold=t[0], check_threshold=t[1], long_check_threshold=t[2])
                done = gen.cap_set(texts, gen.perturb_batch(items, seed))
                out[(name, t, style)] = (sum(r.applied for r in done), len(texts))
                print(f"{name} check {_label(t)} {style}: {out[(name, t, style)][0]}/{len(texts)}", flush=True)
    return out


def swords(path: Path) -> dict:
    """(set, setting) -> (answered, targets, answered nouns and verbs, noun and verb targets, acceptable, judged)
    on the SWORDS-format file ``path``, through each set's :meth:`lexsub` (``bench perturb --lexsub``)."""
    from perturb import make
    from perturb.checks.lexsub import read_lexsub, summary

    lex = read_lexsub(path)
    out = {}
    for name in SETS:
        for t in grid(name):
            gen = make(name, verb_check_threshold=t[0], check_threshold=t[1], long_check_threshold=t[2])
            picks = gen.lexsub(lex.targets)
            rows = {r["pos"]: r for r in summary(lex, picks)}
            nv = [rows[p] for p in ("NOUN", "VERB") if p in rows]
            out[(name, t)] = (rows["all"]["picks"], rows["all"]["targets"], sum(r["picks"] for r in nv),
                              sum(r["targets"] for r in nv), rows["all"]["acceptable"], rows["all"]["judged"])
            print(f"{name} check {_label(t)} SWORDS: {out[(name, t)]}", flush=True)
    return out


def _swords_cells(got) -> str:
    """The SWORDS cells of a row: answered (all; nouns and verbs), then precision (Wilson 95%)."""
    from bench.evaluation.intervals import wilson_ci

    if got is None:
        return ""
    picks, n, nv_picks, nv, good, judged = got
    prec = "-"
    if judged:
        lo, hi = wilson_ci(good, judged)
        prec = f"{good}/{judged} = {good / judged:.3f} ({lo:.2f}-{hi:.2f})"
    return f" {100.0 * picks / n:.1f}% | {100.0 * nv_picks / nv:.1f}% | {prec} |"


def checked_ranks(gen, texts) -> list:
    """Per text, every candidate ``gen`` (a shipped synonym set) scores at or above its chooser threshold,
    in the chooser's order, each with its pick-check probability: ``[(candidate, probability)]``."""
    from perturb.generators.swapsyn import chooser
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    model = chooser.load_model()
    docs = parsing.parse([tagging_copy(t) for t in texts])
    return [[(c, gen.check_probability(model, text, doc, c)) for c in chooser.ranked(cands, gen.threshold)]
            for text, doc, cands in zip(texts, docs, chooser.full_scores(texts, gen.allowed(texts, docs), model))]


def ceiling(n: int, seed: int) -> dict:
    """(set, style) -> (queries with a candidate both the chooser and the check accept, queries)."""
    from benchmarks.variation_substance import styles
    from perturb import make

    out = {}
    for style, texts in styles(n, seed).items():
        for name in SETS:
            gen = make(name)
            hits = sum(any(gen.check_passes(c.pos, text, p) for c, p in ranks)
                       for text, ranks in zip(texts, checked_ranks(gen, texts)))
            out[(name, style)] = (hits, len(texts))
    return out


def _label(t: tuple) -> str:
    """A setting as the table shows it: one threshold, or ``verbs V / other O / long L``."""
    return f"{t[0]:.2f}" if len(set(t)) == 1 else f"verbs {t[0]:.2f} / other {t[1]:.2f} / long {t[2]:.2f}"


def _shares(cells) -> str:
    """``(changed, queries)`` per style as percentages, then pooled, closing a table row."""
    pooled = 100.0 * sum(c for c, _ in cells) / sum(q for _, q in cells)
    return " | ".join(f"{100.0 * c / q:.1f}%" for c, q in cells) + f" | {pooled:.1f}% |"


def table(cv: dict, changed: dict, argv: str, top: dict, lexsub: dict = None) -> str:
    from bench.evaluation.intervals import wilson_ci
    from perturb.generators.swapsyn import check

    style_names = list(dict.fromkeys(s for _, _, s in changed))
    lines = ["# The synonym sets' frontier: pick-check threshold, cross-validated precision, queries changed", "",
             f"`{argv}`", "",
             "Check threshold 0 is the chooser alone; one number is one threshold for every target, the shipped row "
             f"has one for verb targets and one for the others in texts of fewer than {check.LONG_WORDS} words and one "
             f"for every target in longer texts ({check.CLOSED:g}: closed, no such pick). CV precision: the check's "
             "cross-validated precision over the labelled picks of the set's source (benchmarks/results/swapsyn_check.md; "
             "Wilson 95%). Changed: share of queries changed per style, the word cap applied over each style's batch."
             + (" SWORDS: share of the file's targets answered (all; nouns and verbs) and the precision of the answers "
                "it judges (acceptable: at least half of the annotators; Wilson 95%), through `bench perturb --lexsub`'s "
                "path; neither the chooser nor the check is fitted on SWORDS." if lexsub else ""), ""]
    sw_head = " SWORDS answered | nouns+verbs | SWORDS precision |" if lexsub else ""
    sw_rule = "---:|---:|---|" if lexsub else ""
    for name in SETS:
        mark = shipped(name)
        lines += [f"## {name}", "", "| check threshold | CV precision | " + " | ".join(style_names) + " | pooled |" + sw_head,
                  "|---:|---|" + "---:|" * (len(style_names) + 1) + sw_rule]
        for t in grid(name):
            n, k = cv[(name, t)]
            lo, hi = wilson_ci(k, n) if n else (float("nan"), float("nan"))
            prec = f"{k}/{n} = {k / n:.3f} ({lo:.2f}-{hi:.2f})" if n else "-"
            label = f"**{_label(t)} (shipped)**" if t == mark else _label(t)
            lines.append(f"| {label} | {prec} | " + _shares([changed[(name, t, s)] for s in style_names])
                         + _swords_cells(lexsub.get((name, t)) if lexsub else None))
        lines += ["| ceiling at the shipped point | - | " + _shares([top[(name, s)] for s in style_names])
                  + (" - | - | - |" if lexsub else ""), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--md", type=Path, default=MD)
    ap.add_argument("--swords", default=str(SWORDS_DEV),
                    help="a SWORDS-format file for the SWORDS columns, or 'none' (default: the development split)")
    args = ap.parse_args(argv)
    os.environ["DRBENCH_HOME"] = tempfile.mkdtemp(prefix="drbench-frontier-")
    cv = cv_precision()
    changed = applicability(args.n, args.seed)
    shown = " ".join(["python benchmarks/lexsub/frontier.py"] + (argv if argv is not None else sys.argv[1:]))
    lexsub = None
    if args.swords != "none" and (Path(args.swords).is_file() or args.swords != str(SWORDS_DEV)):
        lexsub = swords(Path(args.swords))
    elif args.swords != "none":
        print(f"no SWORDS columns: {SWORDS_DEV} is not there (give --swords FILE)", flush=True)
    text = table(cv, changed, shown, ceiling(args.n, args.seed), lexsub)
    print(text)
    args.md.write_text(text, encoding="utf-8")
    print(f"wrote {args.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
