"""Fit the synonym swaps' chooser on SWORDS features (benchmarks/lexsub/features.py) and measure it.

* Models: a logistic regression (L2, standardised features, Newton steps; numpy) over the full
  features (:data:`perturb.generators.swapsyn.chooser.FEATURES`) and a cheap one over the context-free
  features only (the generator's pruning score), fitted on the judged candidates (acceptable = at
  least half of the annotators), each (target, lemma) once.
* Cross-validation: 5 folds grouped by context (a context's targets in one fold). Each held
  candidate is scored by the models fitted on the other folds; per target and source, the pick is
  what the generator does (the :data:`PRUNE` best by cheap score, then the best full score at or above
  the threshold). A threshold's precision is acceptable picks / judged picks; coverage picks / targets.
* Threshold per source: the lowest grid value whose CV precision is >= 0.90 over at least
  ``MIN_JUDGED`` judged picks.
* The "not in a term" veto of SWAPSYN-WNET's Spec (:data:`TERM_VETO`) removes the wordnet rows of
  the targets it refuses from the picks (the generator never scores them); the models are fitted on
  every candidate.
* Never-seen split: the contexts are halved (SHA-256 of the context id); the whole procedure (CV,
  threshold, final fit) runs on one half and is measured on the other, both ways.

Writes benchmarks/lexsub/chooser-swords-v1.json (weights, thresholds, pruning; in the shipped chooser's
format: ``--model-out perturb/generators/swapsyn/chooser.json`` ships it) and
benchmarks/results/swapsyn_swords.md (the curves and the chosen points).

    python benchmarks/lexsub/features.py ../shared/data/swords/swords-v1.1_dev.json.gz
    python benchmarks/lexsub/fit.py ../shared/data/swords/swords-v1.1_dev.json.gz benchmarks/lexsub/features-swords-v1.tsv
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from bench.evaluation.intervals import wilson_ci  # noqa: E402
from perturb.generators.swapsyn.chooser import CHEAP, FEATURES  # noqa: E402

#: candidates per SWORDS target kept by the cheap score, as this SWORDS-only chooser was fitted and written
#: (``chooser-swords-v1.json``); the shipped chooser keeps 4 per query or 1 per target (query_fit.PRUNE)
PRUNE = 8
L2 = 1.0
MIN_PRECISION = 0.90
MIN_JUDGED = 10
FOLDS = 5
GRID = [round(0.30 + 0.01 * i, 2) for i in range(66)]
COMMAND = ("python benchmarks/lexsub/features.py ../shared/data/swords/swords-v1.1_dev.json.gz && "
           "python benchmarks/lexsub/fit.py ../shared/data/swords/swords-v1.1_dev.json.gz "
           "benchmarks/lexsub/features-swords-v1.tsv")


def read_rows(path):
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        f = dict(zip(head, line.split("\t")))
        rows.append({"tid": f["target_id"], "ctx": f["context"], "pos": f["pos"], "source": f["source"],
                     "lemma": f["lemma"], "label": None if f["label"] == "" else float(f["label"]),
                     "x": [None if f[n] == "" else float(f[n]) for n in FEATURES]})
    return rows


def bucket(ctx: str, n: int) -> int:
    return int(hashlib.sha256(ctx.encode()).hexdigest(), 16) % n


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = L2, weight=None) -> dict:
    """``weight``: one weight per row of the log-likelihood (None: all 1)."""
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    w = np.zeros(Z.shape[1])
    reg = np.full(Z.shape[1], l2)
    reg[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -50, 50)))
        r, v = (p - y, p * (1 - p)) if weight is None else (weight * (p - y), weight * p * (1 - p))
        grad = Z.T @ r + reg * w
        H = (Z * v[:, None]).T @ Z + np.diag(reg)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return {"intercept": round(float(w[0]), 6), "weights": [round(float(v), 6) for v in w[1:]],
            "mu": [round(float(v), 6) for v in mu], "sd": [round(float(v), 6) for v in sd]}


def model_text(model: dict) -> str:
    """``chooser.json``'s text: indented, each of the check's trees on one line."""
    trees = model.get("check", {}).get("trees")
    if not trees:
        return json.dumps(model, indent=1) + "\n"
    marks = [f"@tree{i}@" for i in range(len(trees))]
    text = json.dumps(dict(model, check=dict(model["check"], trees=marks)), indent=1) + "\n"
    for mark, tree in zip(marks, trees):
        text = text.replace(json.dumps(mark), json.dumps(tree, separators=(",", ":")), 1)
    return text


def apply(part: dict, X: np.ndarray) -> np.ndarray:
    z = part["intercept"] + ((X - np.array(part["mu"])) / np.array(part["sd"])) @ np.array(part["weights"])
    return np.round(1.0 / (1.0 + np.exp(-np.clip(z, -50, 50))), 4)


CHEAP_IDX = [FEATURES.index(n) for n in CHEAP]


def judged(rows, full: bool, weights: bool = False):
    """(X, y) of the judged rows, each (target, lemma) once; ``full``: only rows with every feature;
    ``weights``: (X, y, w), w the rows' ``weight`` (default 1)."""
    seen, X, y, w = set(), [], [], []
    for r in rows:
        if r["label"] is None or (r["tid"], r["lemma"]) in seen or (full and None in r["x"]):
            continue
        seen.add((r["tid"], r["lemma"]))
        X.append(r["x"] if full else [r["x"][i] for i in CHEAP_IDX])
        y.append(float(r["label"] >= 0.5))
        w.append(float(r.get("weight", 1.0)))
    return (np.array(X), np.array(y), np.array(w)) if weights else (np.array(X), np.array(y))


def fit_models(rows) -> dict:
    Xf, yf = judged(rows, True)
    Xc, yc = judged(rows, False)
    return {"full": fit_logistic(Xf, yf), "cheap": fit_logistic(Xc, yc), "rows": int(len(yf)),
            "acceptable": int(yf.sum()), "cheap_rows": int(len(yc))}


def score_rows(models: dict, rows) -> None:
    cheap = apply(models["cheap"], np.array([[r["x"][i] for i in CHEAP_IDX] for r in rows]))
    has = [i for i, r in enumerate(rows) if None not in r["x"]]
    full = apply(models["full"], np.array([rows[i]["x"] for i in has])) if has else []
    for r, c in zip(rows, cheap):
        r["score"], r["cheap"] = None, float(c)
    for i, f in zip(has, full):
        rows[i]["score"] = float(f)


def cv_scores(rows, folds: int = FOLDS, seed_tag: str = "", fit_rows=None) -> None:
    """Each row scored by models fitted on the other folds (grouped by context) of ``fit_rows``
    (default: ``rows``)."""
    for k in range(folds):
        train = [r for r in (rows if fit_rows is None else fit_rows) if bucket(seed_tag + r["ctx"], folds) != k]
        test = [r for r in rows if bucket(seed_tag + r["ctx"], folds) == k]
        if test:
            score_rows(fit_models(train), test)


def picks(rows, targets, source: str, threshold: float, prune: int = PRUNE):
    """target id -> (label or None) of the generator's pick at ``threshold``; absent: abstains."""
    by_t = defaultdict(list)
    for i, r in enumerate(rows):
        if r["source"] == source:
            by_t[r["tid"]].append((i, r))
    out = {}
    for tid in targets:
        cands = by_t.get(tid, [])
        kept = sorted(cands, key=lambda ir: (-ir[1]["cheap"], ir[0]))[:prune]
        ok = [ir for ir in kept if ir[1]["score"] is not None and ir[1]["score"] >= threshold]
        if ok:
            best = sorted(ok, key=lambda ir: (-ir[1]["score"], ir[0]))[0][1]
            out[tid] = best["label"]
    return out


def curve_point(rows, targets, source, threshold, pos=None):
    tg = [t for t, p in targets.items() if pos is None or p == pos]
    got = picks(rows, tg, source, threshold)
    judged = [v for v in got.values() if v is not None]
    good = sum(v >= 0.5 for v in judged)
    return {"targets": len(tg), "picks": len(got), "judged": len(judged), "acceptable": good,
            "coverage": len(got) / len(tg) if tg else 0.0, "precision": good / len(judged) if judged else None}


def choose(rows, targets, source) -> float:
    """The lowest grid threshold whose picks are >= MIN_PRECISION acceptable over >= MIN_JUDGED judged picks."""
    for t in GRID:
        p = curve_point(rows, targets, source, t)
        if p["judged"] >= MIN_JUDGED and p["precision"] >= MIN_PRECISION:
            return t
    return GRID[-1]


TERM_VETO = ("wordnet",)  # the sources whose Spec declares the "not in a term" veto


def term_targets(path) -> set:
    """The targets of the file that :func:`perturb.generators.swapsyn.candidates.in_term` vetoes."""
    from perturb.checks.lexsub import read_lexsub
    from perturb.generators.swapsyn.candidates import in_term
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    lex = read_lexsub(path)
    out = set()
    for t, doc in zip(lex.targets, parsing.parse([tagging_copy(t.text) for t in lex.targets])):
        tok = next((x for x in doc if x.idx == t.start), None)
        if tok is not None and in_term(tok):
            out.add(t.tid)
    return out


def swords_targets(path):
    """target id -> (POS, context id) of every target of the SWORDS-format file."""
    from perturb.checks.lexsub import read_lexsub

    return {t.tid: (t.pos, t.context_id) for t in read_lexsub(path).targets}


def fmt(p) -> str:
    if p["precision"] is None:
        return f"{100 * p['coverage']:.1f}% / - (0 judged)"
    lo, hi = wilson_ci(p["acceptable"], p["judged"])
    return (f"{100 * p['coverage']:.1f}% / {p['precision']:.3f} ({p['acceptable']}/{p['judged']}, "
            f"{lo:.2f}-{hi:.2f})")


def never_seen(rows, swords, sources, all_rows):
    """The procedure fitted on one half of the contexts, measured on the other, both ways."""
    out = {}
    for half in (0, 1):
        fit_rows = [dict(r) for r in rows if bucket("half:" + r["ctx"], 2) != half]
        fit_all = [r for r in all_rows if bucket("half:" + r["ctx"], 2) != half]
        test_rows = [dict(r) for r in rows if bucket("half:" + r["ctx"], 2) == half]
        fit_targets = {t: p for t, (p, c) in swords.items() if bucket("half:" + c, 2) != half}
        test_targets = {t: p for t, (p, c) in swords.items() if bucket("half:" + c, 2) == half}
        cv_scores(fit_rows, fit_rows=fit_all)
        thresholds = {s: choose(fit_rows, fit_targets, s) for s in sources}
        score_rows(fit_models(fit_all), test_rows)
        for s in sources:
            out[(half, s)] = (thresholds[s], {pos: curve_point(test_rows, test_targets, s, thresholds[s], pos)
                                              for pos in (None, "NOUN", "VERB", "ADJ", "ADV")})
    return out


def report(rows, all_targets, sources, chosen, nested) -> str:
    lines = ["# The synonym swaps' chooser on SWORDS (development split)", "",
             f"`{COMMAND}`", "",
             "Cross-validated (5 folds grouped by context): coverage (picks / targets) / precision (acceptable",
             "picks / judged picks, Wilson 95%). A pick is acceptable when at least half of its annotators accept",
             "it; picks SWORDS does not judge count in coverage, not in precision (their share in the last column).", ""]
    for s in sources:
        lines += [f"## {s}", "", "| threshold | all | NOUN | VERB | ADJ | ADV | outside pool |", "|---|---|---|---|---|---|---|"]
        for t in GRID[::5] + [chosen[s]]:
            cells = [curve_point(rows, all_targets, s, t, pos) for pos in (None, "NOUN", "VERB", "ADJ", "ADV")]
            out = (cells[0]["picks"] - cells[0]["judged"]) / cells[0]["picks"] if cells[0]["picks"] else 0.0
            mark = f"**{t:.2f} (chosen)**" if t == chosen[s] else f"{t:.2f}"
            lines.append(f"| {mark} | " + " | ".join(fmt(c) for c in cells) + f" | {100 * out:.1f}% |")
        lines.append("")
    lines += ["## Never seen: fitted and thresholded on one half of the contexts, measured on the other", "",
              "| source | fitted on | threshold | all | NOUN | VERB | ADJ | ADV |", "|---|---|---|---|---|---|---|---|"]
    for (half, s), (t, cells) in sorted(nested.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        lines.append(f"| {s} | half {1 - half} | {t:.2f} | " + " | ".join(fmt(cells[p]) for p in
                                                                          (None, "NOUN", "VERB", "ADJ", "ADV")) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("swords", help="the SWORDS-format file the features were computed on")
    ap.add_argument("features")
    ap.add_argument("--model-out", default=str(HERE / "chooser-swords-v1.json"),
                    help="where the fitted chooser goes (the shipped one, perturb/generators/swapsyn/chooser.json, "
                         "is query_fit.py's)")
    ap.add_argument("--report-out", default=str(ROOT / "benchmarks/results/swapsyn_swords.md"))
    args = ap.parse_args(argv)
    terms = term_targets(args.swords)
    all_rows = read_rows(args.features)  # the model is fitted on every candidate
    rows = [r for r in all_rows if not (r["source"] in TERM_VETO and r["tid"] in terms)]
    sources = sorted({r["source"] for r in rows})
    swords = swords_targets(args.swords)
    all_targets = {t: p for t, (p, _) in swords.items()}
    nested = never_seen(rows, swords, sources, all_rows)
    cv_scores(rows, fit_rows=all_rows)
    chosen = {s: choose(rows, all_targets, s) for s in sources}
    text = report(rows, all_targets, sources, chosen, nested)
    models = fit_models(all_rows)
    model = {"command": COMMAND, "features": list(FEATURES), "cheap_features": list(CHEAP), "prune": PRUNE,
             "l2": L2, "rows": models["rows"], "acceptable": models["acceptable"],
             "fitted_on": f"{models['rows']} judged SWORDS candidates",
             "tuned_by": "benchmarks/lexsub/fit.py: cross-validated on the SWORDS development split",
             "thresholds": chosen, "rule": f"lowest threshold whose CV precision over >= {MIN_JUDGED} judged picks is >= {MIN_PRECISION}",
             "full": models["full"], "cheap": models["cheap"]}
    Path(args.model_out).write_text(model_text(model), encoding="utf-8")
    Path(args.report_out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
