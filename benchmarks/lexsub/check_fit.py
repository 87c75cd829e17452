"""Fit the synonym swaps' pick check on blind labels of the chooser's picks, cross-validated.

    python benchmarks/lexsub/check_fit.py [--samples DIR,DIR] [--write] [--md FILE]

Rows: every labelled row of the blind samples' ``key.tsv`` / ``labels.tsv`` (default
``benchmarks/data/validity/blind`` to ``blind6``: picks of the SWORDS-only chooser, of the query-fitted
chooser, of the query-fitted chooser with the first pick check (``blind3``), with the check refitted on
``blind3`` (``blind4``), after the prune (``blind5``) and with the function-word veto (``blind6``), each on
queries no earlier labelled file held; ``blind12``, every pick spec version 8 made on 800 claim-like
sentences of the Cranfield abstracts; ``blind13`` and ``blind15``, every pick spec versions 9 and 8 made on a
second draw of 800 such sentences; ``blind16``, every pick spec versions 9 and 10 made on the rest of those
sentences, on 800 example sentences of the FreeDict dictionary, and the picks version 10 added on the MS MARCO
questions), one row per set that drew the pair.
Each row's features are computed by the generators' own code: the pair is found among the target's
candidates (``chooser.candidates_of``), given its in-context features (``chooser.with_context``) and
full score by the shipped ``chooser.json``, and described by :func:`perturb.generators.swapsyn.check.features`.
Cross-validation: 5 folds by the SHA-256 of the lower-cased query (a query's rows in one fold). The
shipped model: gradient-boosted trees (``boost.py`` at its defaults: 100 trees of depth 3, rate 0.1, L2 1.0,
at least 20 rows a leaf) whose probability never falls as the pick's score or one of its MiniLM cosines rises
(:data:`MONOTONE`); compared: the same trees unconstrained, and logistic models (``fit.py``'s solver, L2 1.0 on
standardised features; version 10's check was the one over every feature). The curve counts the rows the chooser
would pick (full score at or above its source's threshold); the threshold is the lowest on a 0.01
grid whose cross-validated precision over those rows, per source and class of pick (verbs and the other
targets in texts of fewer than ``check.LONG_WORDS`` words, every target in longer texts: ``check.CLASSES``;
one model for all), is at least 0.90 over at least 20 rows; a class where no threshold of the grid reaches
that is closed (``check.CLOSED``: none of its picks is made).
``--write`` fits on every row and writes the model, the thresholds and the longest text's word count (``max_words``:
the generator clips the word count to it) into ``chooser.json`` under ``check`` and the report to
``benchmarks/results/swapsyn_check.md``.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lexsub import boost  # noqa: E402
from benchmarks.lexsub.fit import fit_logistic, model_text  # noqa: E402
from bench.evaluation.intervals import wilson_ci  # noqa: E402
from perturb.generators.swapsyn import check, chooser  # noqa: E402

VALIDITY = ROOT / "benchmarks" / "data" / "validity"
SAMPLES = tuple(VALIDITY / name for name in ("blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind12",
                                              "blind13", "blind15", "blind16"))
MD = ROOT / "benchmarks" / "results" / "swapsyn_check.md"
MIN_PRECISION, MIN_ROWS, FOLDS, L2 = 0.90, 20, 5, 1.0
GRID = [round(0.50 + 0.01 * i, 2) for i in range(50)]
SOURCE = {"SWAPSYN-GLOVE": "glove", "SWAPSYN-WNET": "wordnet"}
#: compared models: name -> (features, kind); ``trees`` and ``monotone trees`` are :mod:`boost`'s, ``logistic``
#: ``fit.py``'s solver
VARIANTS = {"logistic, score only": (("score_logit",), "logistic"),
            "logistic, score + parse flags": (("score_logit",) + check.FLAGS + ("upper", "glove"), "logistic"),
            "logistic, every feature but the word count": (tuple(n for n in check.NAMES if n != "log_words"), "logistic"),
            "logistic, every feature (version 10's check)": (check.NAMES, "logistic"),
            "boosted trees, every feature": (check.NAMES, "trees"),
            "monotone boosted trees, every feature but the word count": (tuple(n for n in check.NAMES if n != "log_words"),
                                                                         "monotone trees"),
            "monotone boosted trees, every feature (shipped)": (check.NAMES, "monotone trees")}
SHIPPED = "monotone boosted trees, every feature (shipped)"
#: the features the shipped trees' probability never falls with (the others fixed): the pick's score and its three
#: MiniLM cosines, each higher for a substitute that fits the context better
MONOTONE = ("score_logit", "cos_layer4", "cos_layer6", "cos_sentence")
COMMAND = "python benchmarks/lexsub/check_fit.py --write"


def _tsv(path: Path) -> list:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def swap_of(original: str, variation: str):
    """(offset, new word) of a one-word swap: the first differing character moved back to the word start."""
    i = 0
    while i < min(len(original), len(variation)) and original[i] == variation[i]:
        i += 1
    while i > 0 and original[i - 1].isalpha():
        i -= 1
    j = i
    while j < len(variation) and variation[j].isalpha():
        j += 1
    return i, variation[i:j]


def labelled_rows(samples) -> list:
    """The labelled key rows of the samples: sample, set, style, original, variation, offset, new, valid."""
    out = []
    for folder in samples:
        labels = {r["item"]: r["valid"] for r in _tsv(Path(folder) / "labels.tsv")}
        for r in _tsv(Path(folder) / "key.tsv"):
            if labels.get(r["item"], "") in ("0", "1"):
                off, new = swap_of(r["original"], r["variation"])
                out.append({"sample": Path(folder).name, "set": r["set"], "style": r["style"], "original": r["original"],
                            "variation": r["variation"], "off": off, "new": new, "valid": int(labels[r["item"]])})
    return out


def featurise(rows: list) -> list:
    """The rows whose pair is a candidate of the set's source, with ``score`` and ``x`` (:data:`check.NAMES`)."""
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    texts = sorted({r["original"] for r in rows})
    docs = dict(zip(texts, parsing.parse([tagging_copy(t) for t in texts], 64)))
    found, picks = [], []
    for r in rows:
        source = SOURCE[r["set"]]
        cands = [c for c in chooser.candidates_of(r["original"], docs[r["original"]], source, only=r["off"])
                 if c.new == r["new"]]
        if cands:
            found.append(r)
            picks.append(cands[0])
    model, out = chooser.load_model(), []
    for r, row in zip(found, chooser.full_scores([r["original"] for r in found], [[c] for c in picks], model)):
        if row:
            tok = next(t for t in docs[r["original"]] if t.idx == r["off"])
            out.append(dict(r, score=row[0].score, x=check.features(row[0], tok, r["original"], SOURCE[r["set"]]),
                            pos=row[0].pos, word=row[0].word, lemma=row[0].lemma))
    return out


def fold(text: str) -> int:
    return int(hashlib.sha256(text.lower().encode("utf-8")).hexdigest(), 16) % FOLDS


def columns(rows, names) -> np.ndarray:
    idx = [check.NAMES.index(n) for n in names]
    return np.array([[r["x"][i] for i in idx] for r in rows], dtype=float)


def fitted(X: np.ndarray, y: np.ndarray, kind: str, names) -> dict:
    """A model of ``kind`` over the columns ``names``: ``trees``, :func:`boost.fit` at its defaults; ``monotone
    trees``, the same, its probability never falling as a feature of :data:`MONOTONE` rises; ``logistic``, L2
    :data:`L2`."""
    if kind == "logistic":
        return fit_logistic(X, y, L2)
    up = {names.index(n): 1 for n in MONOTONE if n in names} if kind == "monotone trees" else {}
    return boost.fit(X, y, monotone=up)


def predict(part: dict, X: np.ndarray) -> np.ndarray:
    """The probabilities of a fitted model (:func:`fitted`) for the rows of ``X``, as the generator computes them."""
    prob = check.boosted if "trees" in part else chooser.logistic
    return np.array([prob(part, row) for row in X.tolist()])


def cross_validated(rows, names, kind: str = "monotone trees", X: np.ndarray = None, train: np.ndarray = None) -> np.ndarray:
    """Each row's probability from a model of ``kind`` fitted on the other folds' rows (of those, only the rows
    ``train`` marks, when given), over the columns ``names`` of the rows (or of ``X``, when given)."""
    X = columns(rows, names) if X is None else X
    y, f = np.array([r["valid"] for r in rows], dtype=float), np.array([fold(r["original"]) for r in rows])
    p = np.zeros(len(rows))
    for k in range(FOLDS):
        tr = (f != k) if train is None else (f != k) & train
        p[f == k] = predict(fitted(X[tr], y[tr], kind, list(names)), X[f == k])
    return p


def cross_validated_rows(samples=SAMPLES) -> tuple:
    """(rows, probabilities): the samples' featurised rows and the shipped check's cross-validated probability of each."""
    rows = featurise(labelled_rows(samples))
    return rows, cross_validated(rows, *VARIANTS[SHIPPED])


def picked(rows, thresholds) -> list:
    return [i for i, r in enumerate(rows) if r["score"] >= thresholds[SOURCE[r["set"]]]]


def curve(rows, p, idx) -> list:
    """(threshold, kept, valid) on the grid, over the rows ``idx``."""
    return [(t, sum(p[i] >= t for i in idx), sum(rows[i]["valid"] for i in idx if p[i] >= t)) for t in GRID]


def choose(points) -> float:
    ok = [t for t, n, k in points if n >= MIN_ROWS and k / n >= MIN_PRECISION]
    if not ok:
        raise SystemExit(f"no check threshold reaches cross-validated precision {MIN_PRECISION} over >= {MIN_ROWS} rows")
    return min(ok)


def of_class(rows, idx, source: str, klass: str) -> list:
    """The rows of ``idx`` of that source whose pick is of that class (:func:`check.target_class`)."""
    return [i for i in idx if SOURCE[rows[i]["set"]] == source and check.target_class(rows[i]["pos"], rows[i]["original"]) == klass]


def thresholds_per_source(rows, p, idx) -> dict:
    """source -> {class -> :func:`choose` over the picked rows of that source and class, None if none}."""
    out = {}
    for source in ("glove", "wordnet"):
        out[source] = {}
        for c in check.CLASSES:
            try:
                out[source][c] = choose(curve(rows, p, of_class(rows, idx, source, c)))
            except SystemExit:
                out[source][c] = None
    return out


def check_threshold_of(model: dict, row: dict) -> float:
    """The shipped check threshold that applies to a featurised row (its source and class)."""
    return check.thresholds_of(model, SOURCE[row["set"]])[check.target_class(row["pos"], row["original"])]


def kept(rows, p, idx, source: str, ts: dict) -> list:
    """The rows of ``idx`` of that source at or above the threshold of their class in ``ts``."""
    return [i for c in check.CLASSES for i in of_class(rows, idx, source, c) if ts[c] is not None and p[i] >= ts[c]]


def auc(scores, labels) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg)) if pos and neg else float("nan")


def _ci(k: int, n: int) -> str:
    if not n:
        return "-"
    lo, hi = wilson_ci(k, n)
    return f"{k}/{n} = {k / n:.3f} ({lo:.2f}-{hi:.2f})"


def report(rows, thresholds, results, chosen) -> str:
    idx = picked(rows, thresholds)
    lines = ["# The synonym swaps' pick check, cross-validated on blind labels of picks", "", f"`{COMMAND}`", "",
             f"{len(rows)} labelled picks of the blind samples ({', '.join(sorted({r['sample'] for r in rows}))}), "
             f"{len(idx)} of them at or above the shipped chooser's thresholds ({thresholds['glove']:g} GloVe, "
             f"{thresholds['wordnet']:g} WordNet): the rows the curve counts. Cross-validated: {FOLDS} folds by the "
             f"SHA-256 of the lower-cased query. Threshold: the lowest on a 0.01 grid with precision >= {MIN_PRECISION:g} "
             f"over >= {MIN_ROWS} rows, per source and class of pick (verbs / the others in texts of fewer than "
             f"{check.LONG_WORDS} words; every target in longer texts). Precision with its Wilson 95% interval.", "",
             "| model | AUC over the picked rows | thresholds, verbs / other / long (GloVe; WordNet) | GloVe kept | WordNet kept |",
             "|---|---:|---:|---|---|"]
    y = [rows[i]["valid"] for i in idx]
    for name, (p, ts) in results.items():
        cells = []
        for source in ("glove", "wordnet"):
            base = [i for i in idx if SOURCE[rows[i]["set"]] == source]
            keep = kept(rows, p, idx, source, ts[source])
            cells.append(f"{_ci(sum(rows[i]['valid'] for i in keep), len(keep))} of {len(base)}")
        shown = "; ".join(" / ".join("-" if ts[s][c] is None else f"{ts[s][c]:g}" for c in check.CLASSES)
                          for s in ("glove", "wordnet"))
        lines.append(f"| {name} | {auc([p[i] for i in idx], y):.3f} | {shown} | " + " | ".join(cells) + " |")
    p, ts = results[chosen]
    lines += ["", f"Curve of the shipped check ({chosen}) per source and class of pick: threshold, picks kept, "
              f"precision; the chosen threshold in bold.", ""]
    for source in ("glove", "wordnet"):
        per = {c: of_class(rows, idx, source, c) for c in check.CLASSES}
        lines += [f"{'GloVe' if source == 'glove' else 'WordNet'}:", "",
                  "| threshold | " + " | ".join(f"{c} kept | {c} precision" for c in check.CLASSES) + " |",
                  "|---:|" + "---:|---|" * len(check.CLASSES)]
        points = list(zip(*(curve(rows, p, per[c]) for c in check.CLASSES)))
        for k, point in enumerate(points):
            t = point[0][0]
            chosen_here = [c for c in check.CLASSES if ts[source][c] == t]
            if k % 5 and not chosen_here:
                continue
            cells = []
            for c, (_, n, k_) in zip(check.CLASSES, point):
                kept_, prec = f"{n} of {len(per[c])}", _ci(k_, n)
                cells += [f"**{kept_}**", f"**{prec}**"] if c in chosen_here else [kept_, prec]
            lines.append(f"| {t:.2f} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_model(rows, thresholds: dict) -> None:
    X, y = columns(rows, check.NAMES), np.array([r["valid"] for r in rows], dtype=float)
    path = chooser.MODEL_FILE
    model = json.loads(path.read_text(encoding="utf-8"))
    part = fitted(X, y, VARIANTS[SHIPPED][1], list(check.NAMES))
    model["check"] = dict(part, features=list(check.NAMES), rows=len(rows), valid=int(y.sum()),
                          max_words=max(check.words_of(r["original"]) for r in rows),
                          fitted_on=f"{len(rows)} blind labels of picks ({', '.join(sorted({r['sample'] for r in rows}))})",
                          rule=f"per source and class of pick (verbs and other targets in texts of fewer than "
                               f"{check.LONG_WORDS} words, every target in longer texts), the lowest threshold whose cross-validated "
                               f"precision over the picked rows is >= {MIN_PRECISION:g}",
                          thresholds=thresholds, command=COMMAND)
    if COMMAND not in model["command"]:
        model["command"] += " && " + COMMAND
    path.write_text(model_text(model), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", default=",".join(str(s) for s in SAMPLES))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--md", default=str(MD))
    args = ap.parse_args(argv)
    labelled = labelled_rows([Path(s) for s in args.samples.split(",")])
    rows = featurise(labelled)
    thresholds = chooser.load_model()["thresholds"]
    idx, results = picked(rows, thresholds), {}
    for name, (names, kind) in VARIANTS.items():
        p = cross_validated(rows, names, kind)
        results[name] = (p, thresholds_per_source(rows, p, idx))
    chosen = SHIPPED
    text = report(rows, thresholds, results, chosen)
    text += (f"\n{len(labelled) - len(rows)} labelled rows left out: their pair was not recovered as a candidate of "
             f"the set's source (`swap_of` takes the first changed word, so a swap that also turns `a` into `an` is "
             f"read as the article).\n")
    print(text)
    if args.write:
        got = results[chosen][1]
        if any(all(t is None for t in per.values()) for per in got.values()):
            raise SystemExit("no threshold to write: every class of a source is closed")
        write_model(rows, {s: {c: check.CLOSED if t is None else t for c, t in per.items()} for s, per in got.items()})
        Path(args.md).write_text(text, encoding="utf-8")
        print(f"wrote {chooser.MODEL_FILE} and {args.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
