"""Fit the synonym swaps' chooser on SWORDS and on the labelled queries, and measure it on the queries.

    python benchmarks/lexsub/query_fit.py benchmarks/lexsub/features-swords-v1.tsv \\
        benchmarks/lexsub/features-queries-v1.tsv.gz \\
        [--swords-json ../shared/data/swords/swords-v1.1_dev.json.gz] [--model NAME] [--write]

Inputs: the SWORDS feature table of features.py and the query table of query_features.py. The
queries any ``blind-chooser`` row labels (the blind sample of the ``swords-v1`` chooser) are held out of
every fit and threshold; they are only scored at the end (:func:`blind_check`).

* Models (fit.py's solver: logistic, L2 1.0, standardised features, each judged (target, lemma) once):
  ``swords-v1`` (:data:`SHIPPED`, fit.py's SWORDS-only chooser as written), ``swords`` (refitted on SWORDS alone), ``queries`` (the query
  rows alone), ``swords+queries xW`` (both, each query row weighted W), each optionally with the
  query-aware features of :data:`EXTRA`.
* Cross-validation: 5 folds grouped by query text (the SWORDS rows, in the models that use them, in every fitting part). Per
  query and source the pick is what the generator does: wordnet targets in a term dropped, the
  :data:`PRUNE` best by cheap score (or :data:`PRUNE_PER_TARGET` per target if more), candidates another
  query word refuses dropped, then nouns, main verbs and adjectives before adverbs, the highest full score
  at or above the threshold, the earliest.
  Precision: valid picks / labelled picks; answered: picks / queries.
* Threshold per source: the lowest grid value with CV precision >= 0.90 over >= 10 labelled picks.

``--write``: the chosen model (the first of :data:`CHOICE` whose thresholds answer the most queries)
goes to perturb/generators/swapsyn/chooser.json; the report to benchmarks/results/swapsyn_query_fit.md.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import fit  # noqa: E402 (benchmarks/lexsub/fit.py: the solver and the SWORDS reader)
from bench.evaluation.intervals import wilson_ci  # noqa: E402
from perturb.generators.swapsyn.chooser import CHEAP, FEATURES, PREFERRED, load_model, prune_limit  # noqa: E402

BLIND = "blind-chooser"
SOURCES = ("glove", "wordnet")
EXTRA = ("caps", "in_term")  # query-aware features tried in CV: the query is ALL-CAPS or Title Case; the target is in a term
FOLDS = 5
#: candidates per query the cheap model keeps for the MiniLM pass, as the shipped chooser does (``prune`` and
#: ``prune_per_target`` in chooser.json, :func:`perturb.generators.swapsyn.chooser.prune_limit`: the 4 best, or
#: 1 per target if more; benchmarks/lexsub/prune.py measured it against fit.py's 8 and others:
#: benchmarks/results/swapsyn_prune.md)
PRUNE, PRUNE_PER_TARGET = 4, 1
#: the chooser these fits are compared with: fit.py's SWORDS-only chooser (its default output)
SHIPPED = HERE / "chooser-swords-v1.json"
COMMAND = ("python benchmarks/lexsub/query_features.py && python benchmarks/lexsub/query_fit.py "
           "benchmarks/lexsub/features-swords-v1.tsv benchmarks/lexsub/features-queries-v1.tsv.gz "
           "--swords-json ../shared/data/swords/swords-v1.1_dev.json.gz --write")


def read_queries(path):
    """The query table's rows as fit.read_rows gives them, plus query, start, style, provenance, case,
    in_term, query_word."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    head = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        f = dict(zip(head, line.split("\t")))
        rows.append({"tid": f["target_id"], "ctx": f["context"], "pos": f["pos"], "source": f["source"],
                     "lemma": f["lemma"], "label": None if f["label"] == "" else float(f["label"]), "new_key": f["new"],
                     "x": [None if f[n] == "" else float(f[n]) for n in FEATURES], "query": f["query"],
                     "start": int(f["target_id"].split(":")[1]), "style": f["style"],
                     "provenance": set(f["provenance"].split(",")) - {""}, "case": f["case"],
                     "in_term": int(f["in_term"]), "query_word": int(f["query_word"]),
                     "caps": float(f["case"] in ("upper", "title"))})
    return rows


def matrix(rows, names, extra, full: bool):
    """(X, y, w) of the judged rows, each (tid, lemma) once: ``names`` of FEATURES, then ``extra``."""
    idx = [FEATURES.index(n) for n in names]
    seen, X, y, w = set(), [], [], []
    for r in rows:
        if r["label"] is None or (r["tid"], r["lemma"]) in seen or (full and None in r["x"]):
            continue
        seen.add((r["tid"], r["lemma"]))
        X.append([r["x"][i] for i in idx] + [float(r.get(e, 0.0)) for e in extra])
        y.append(float(r["label"] >= 0.5))
        w.append(float(r.get("weight", 1.0)))
    return np.array(X), np.array(y), np.array(w)


def fit_models(rows, extra=()) -> dict:
    out = {"extra": list(extra)}
    for part, names, full in (("full", FEATURES, True), ("cheap", CHEAP, False)):
        X, y, w = matrix(rows, names, extra, full)
        out[part] = fit.fit_logistic(X, y, weight=None if (w == 1.0).all() else w)
        if part == "full":
            out["rows"], out["acceptable"] = int(len(y)), int(y.sum())
    return out


def score_rows(models: dict, rows) -> None:
    extra = models.get("extra", [])
    ci = [FEATURES.index(n) for n in CHEAP]
    cheap = fit.apply(models["cheap"], np.array([[r["x"][i] for i in ci] + [r.get(e, 0.0) for e in extra] for r in rows]))
    has = [i for i, r in enumerate(rows) if None not in r["x"]]
    full = fit.apply(models["full"], np.array([rows[i]["x"] + [rows[i].get(e, 0.0) for e in extra] for i in has]))
    for r, c in zip(rows, cheap):
        r["cheap"], r["score"] = float(c), None
    for i, f in zip(has, full):
        rows[i]["score"] = float(f)


def by_query(rows, source):
    out = defaultdict(list)
    for r in rows:
        if r["source"] == source and not (source == "wordnet" and r["in_term"]):
            out[r["query"]].append(r)
    return out


def pick(cands, threshold, prune):
    """The generator's pick among one query's candidate rows (scored), or None."""
    limit = prune_limit({"prune": prune, "prune_per_target": PRUNE_PER_TARGET}, len({r["start"] for r in cands}))
    kept = sorted(range(len(cands)), key=lambda j: (-cands[j]["cheap"], j))[:limit]
    ok = [cands[j] for j in kept if not cands[j]["query_word"] and cands[j]["score"] is not None
          and cands[j]["score"] >= threshold]
    return min(ok, key=lambda r: (r["pos"] not in PREFERRED, -r["score"], r["start"], r["new_key"]), default=None)


def curve_point(grouped, queries, threshold, prune=None) -> dict:
    picks = [pick(grouped.get(q, []), threshold, PRUNE if prune is None else prune) for q in queries]
    got = [p for p in picks if p is not None]
    judged = [p["label"] for p in got if p["label"] is not None]
    good = int(sum(judged))
    return {"queries": len(queries), "picks": len(got), "judged": len(judged), "valid": good,
            "answered": len(got) / len(queries) if queries else 0.0,
            "precision": good / len(judged) if judged else None}


def choose(grouped, queries) -> float:
    for t in fit.GRID:
        p = curve_point(grouped, queries, t)
        if p["judged"] >= fit.MIN_JUDGED and p["precision"] >= fit.MIN_PRECISION:
            return t
    return fit.GRID[-1]


def cv_queries(swords, qrows, extra, weight) -> None:
    """Each query row scored by models fitted on SWORDS (unless ``weight`` is None: queries only) and
    the query rows of the other folds (grouped by query text; none when ``weight`` is 0)."""
    for k in range(FOLDS):
        test = [r for r in qrows if fit.bucket("q:" + r["query"], FOLDS) == k]
        train = [] if weight == 0 else [dict(r, weight=weight or 1.0) for r in qrows
                                       if fit.bucket("q:" + r["query"], FOLDS) != k]
        score_rows(fit_models(([] if weight is None else swords) + train, extra), test)


def auc(scores, labels):
    """Area under the ROC curve (ties count one half), exact rational arithmetic over ranks."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def pair_auc(qrows):
    seen, s, y = set(), [], []
    for r in qrows:
        if r["label"] is not None and r["score"] is not None and (r["tid"], r["lemma"]) not in seen:
            seen.add((r["tid"], r["lemma"]))
            s.append(r["score"])
            y.append(r["label"])
    return auc(s, y), len(y)


def fmt(p) -> str:
    if not p["judged"]:
        return f"{100 * p['answered']:.1f}% / - (0 labelled)"
    lo, hi = wilson_ci(p["valid"], p["judged"])
    return f"{100 * p['answered']:.1f}% / {p['precision']:.2f} ({p['valid']}/{p['judged']}, {lo:.2f}-{hi:.2f})"


#: (name, query-aware features, weight of a query row: None = queries only, 0 = SWORDS only)
VARIANTS = (("swords", (), 0), ("queries", (), None), ("swords+queries x1", (), 1.0),
            ("swords+queries x3", (), 3.0), ("swords+queries x10", (), 10.0),
            ("queries +caps,in_term", EXTRA, None), ("swords+queries x3 +caps,in_term", EXTRA, 3.0))
CHOICE = ("queries", "swords+queries x1", "swords+queries x3", "swords+queries x10")


def styles_of() -> dict:
    """query -> the style of its first labelled row (GLOVE's file, then WNET's)."""
    out = {}
    for name in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        with open(ROOT / "benchmarks" / "data" / "validity" / f"{name}.tsv", encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                if r["valid"] in ("0", "1"):
                    out.setdefault(r["original"], r["style"])
    return out


def evaluate(name, qrows, queries, styles) -> dict:
    """CV-scored ``qrows`` -> pair AUC, per source: threshold, curve, chosen point per style."""
    a, n = pair_auc(qrows)
    res = {"name": name, "auc": a, "pairs": n}
    for s in SOURCES:
        g = by_query(qrows, s)
        t = choose(g, queries)
        per_style = defaultdict(list)
        for q in queries:
            per_style[styles.get(q, "?")].append(q)
        res[s] = {"threshold": t, "curve": {u: curve_point(g, queries, u) for u in fit.GRID},
                  "styles": {st: curve_point(g, qs, t) for st, qs in sorted(per_style.items())}}
    return res


def run_variants(swords, qrows, queries, styles, only=None) -> list:
    out = []
    shipped = [dict(r) for r in qrows]
    score_rows(load_model(SHIPPED), shipped)
    out.append(evaluate("swords-v1 (fit.py)", shipped, queries, styles))
    for name, extra, weight in VARIANTS:
        if only is not None and name != only:
            continue
        rows = [dict(r) for r in qrows]
        cv_queries(swords, rows, extra, weight)
        out.append(evaluate(name, rows, queries, styles))
        print(f"{name}: AUC {out[-1]['auc']:.3f}; " + "; ".join(
            f"{s} {out[-1][s]['threshold']:.2f} {fmt(out[-1][s]['curve'][out[-1][s]['threshold']])}" for s in SOURCES),
            flush=True)
    return out


def blind_pairs() -> dict:
    """source -> {(query, offset, new lower)} of the ``blind-chooser`` rows of its set's file."""
    from query_features import one_word_swap

    out = {}
    for source, name in (("glove", "SWAPSYN-GLOVE"), ("wordnet", "SWAPSYN-WNET")):
        got = set()
        with open(ROOT / "benchmarks" / "data" / "validity" / f"{name}.tsv", encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                swap = one_word_swap(r["original"], r["variation"]) if r["provenance"] == BLIND else None
                if swap is not None and r["valid"] in ("0", "1"):
                    got.add((r["original"], swap[0], swap[2].lower()))
        out[source] = got
    return out


def blind_check(models, thresholds, brows) -> dict:
    """Per source, on the pairs its blind-chooser rows label: AUC of the swords-v1 and the new full
    score; the labelled pairs at or above the new threshold; the new pick on those queries."""
    old = [dict(r) for r in brows]
    score_rows(load_model(SHIPPED), old)
    new = [dict(r) for r in brows]
    score_rows(models, new)
    out = {}
    for s, pairs in blind_pairs().items():
        o = {(r["query"], r["start"], r["new_key"].lower()): r for r in old if r["source"] == s}
        n = {(r["query"], r["start"], r["new_key"].lower()): r for r in new if r["source"] == s}
        keys = sorted(k for k in pairs if k in n and n[k]["label"] is not None and n[k]["score"] is not None)
        y = [n[k]["label"] for k in keys]
        above = [n[k]["label"] for k in keys if n[k]["score"] >= thresholds[s]]
        top_old = sorted(keys, key=lambda k: (-o[k]["score"], k))[:len(above)]
        g = by_query(new, s)
        chosen = [pick(g.get(q, []), thresholds[s], PRUNE) for q in sorted({k[0] for k in keys})]
        same = sum(p is not None and (p["query"], p["start"], p["new_key"].lower()) in pairs for p in chosen)
        out[s] = {"pairs": len(pairs), "found": len(keys), "valid": int(sum(y)),
                  "auc_old": auc([o[k]["score"] for k in keys], y), "auc_new": auc([n[k]["score"] for k in keys], y),
                  "above": len(above), "above_valid": int(sum(above)),
                  "top_old_valid": int(sum(o[k]["label"] for k in top_old)), "queries": len(chosen),
                  "new_picks": sum(p is not None for p in chosen), "same_pick": same}
    return out


def swords_check(models, thresholds, swords, path) -> dict:
    """Per source, the SWORDS development split answered by ``models`` at ``thresholds`` (fit.py's
    picks and precision: acceptable = at least half of the annotators)."""
    terms = fit.term_targets(path)
    rows = [dict(r) for r in swords if not (r["source"] in fit.TERM_VETO and r["tid"] in terms)]
    score_rows(models, rows)
    targets = {t: p for t, (p, _) in fit.swords_targets(path).items()}
    return {s: fit.curve_point(rows, targets, s, thresholds[s]) for s in SOURCES}


def _ci(k: int, n: int) -> str:
    if not n:
        return "- (0)"
    lo, hi = wilson_ci(k, n)
    return f"{k / n:.2f} ({k}/{n}, {lo:.2f}-{hi:.2f})"


def report(results, best, blind, n_queries, n_blind, on_swords) -> str:
    old = results[0]
    lines = ["# The synonym swaps' chooser fitted on labelled queries", "", f"`{COMMAND}`", "",
             f"{n_queries} labelled queries of benchmarks/data/validity/SWAPSYN-*.tsv ({n_blind} more, the "
             "`blind-chooser` sample, held out). Cross-validated: 5 folds grouped by query text (the SWORDS rows, in the models that",
             "use them, in every fitting part). Cell: queries answered / precision of the labelled picks "
             "(valid/labelled, Wilson 95%).",
             "A pick no row labels counts as answered, not in precision.", "",
             "## Models (CV on the queries)", "",
             "| model | pair AUC | glove threshold | glove at it | wordnet threshold | wordnet at it |", "|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['name']} | {r['auc']:.3f} ({r['pairs']} pairs) | " + " | ".join(
            f"{r[s]['threshold']:.2f} | {fmt(r[s]['curve'][r[s]['threshold']])}" for s in SOURCES) + " |")
    for s in SOURCES:
        lines += ["", f"## {s}: swords-v1 vs {best['name']} (CV curve)", "",
                  "| threshold | swords-v1 | " + best["name"] + " |", "|---|---|---|"]
        shipped_t = float(load_model(SHIPPED)["thresholds"][s])
        for t in sorted(set(fit.GRID[::5]) | {old[s]["threshold"], best[s]["threshold"], shipped_t}):
            mark = " (chosen)" if t == best[s]["threshold"] else " (swords-v1's threshold)" if t == shipped_t else ""
            lines.append(f"| {t:.2f}{mark} | {fmt(old[s]['curve'][t])} | {fmt(best[s]['curve'][t])} |")
        lines += ["", f"Per style at each model's threshold (swords-v1 {old[s]['threshold']:.2f} on the query CV rule; "
                  f"new {best[s]['threshold']:.2f}):", "", "| style | swords-v1 | new |", "|---|---|---|"]
        for st in best[s]["styles"]:
            lines.append(f"| {st} | {fmt(old[s]['styles'][st])} | {fmt(best[s]['styles'][st])} |")
    lines += ["", "How far precision on these labels carries to fresh queries: at its own thresholds the swords-v1 chooser's "
              "CV precision here is " + "; ".join(
                  f"{s} {fmt(old[s]['curve'][float(load_model(SHIPPED)['thresholds'][s])])}" for s in SOURCES)
              + ", and its blind validity on fresh queries (its picks the blind-chooser rows label) is " + "; ".join(
                  f"{s} {_ci(blind[s]['valid'], blind[s]['found'])}" for s in SOURCES) + "."]
    lines += ["", "## Held out: the blind-chooser rows", "",
              f"The pairs the blind sample of the swords-v1 chooser labels, scored by the `{best['name']}` model fitted on every "
              "other labelled query (and on SWORDS where its name says so):", "",
              "| source | labelled pairs | valid | AUC swords-v1 | AUC new | at or above the new threshold: precision | "
              "as many by the swords-v1 score | new pick on those queries | new pick = labelled pair |",
              "|---|---|---|---|---|---|---|---|---|"]
    for s in SOURCES:
        b = blind[s]
        lines.append(f"| {s} | {b['found']} of {b['pairs']} | {_ci(b['valid'], b['found'])} | {b['auc_old']:.3f} | "
                     f"{b['auc_new']:.3f} | {_ci(b['above_valid'], b['above'])} | {_ci(b['top_old_valid'], b['above'])} | "
                     f"{b['new_picks']}/{b['queries']} | "
                     f"{b['same_pick']} |")
    lines += ["", "Applicability and substance of the shipped sets on fresh queries: `python benchmarks/lexsub/blind.py sample "
              "--seed 90210 --out benchmarks/data/validity/blind2` (its `sample.md`) and `python "
              "benchmarks/variation_substance.py --sets SWAPSYN-GLOVE,SWAPSYN-WNET --n 200`."]
    if on_swords:
        lines += ["", "## SWORDS development split (fit.py's picks; acceptable = at least half of the annotators)", "",
                  "| source | swords-v1 at its threshold | new at its threshold |", "|---|---|---|"]
        for s in SOURCES:
            lines.append(f"| {s} | {fit.fmt(on_swords['shipped'][s])} | {fit.fmt(on_swords['new'][s])} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("swords_features")
    ap.add_argument("query_features")
    ap.add_argument("--swords-json", default=None, help="the SWORDS file of the features (for in_term; else 0)")
    ap.add_argument("--model", default=None, choices=[v[0] for v in VARIANTS],
                    help="cross-validate and choose this model only (default: all, the best of CHOICE chosen)")
    ap.add_argument("--write", action="store_true", help="write chooser.json and the report")
    ap.add_argument("--model-out", default=str(ROOT / "perturb/generators/swapsyn/chooser.json"))
    ap.add_argument("--report-out", default=str(ROOT / "benchmarks/results/swapsyn_query_fit.md"))
    args = ap.parse_args(argv)
    swords = fit.read_rows(args.swords_features)
    terms = fit.term_targets(args.swords_json) if args.swords_json else set()
    for r in swords:
        r["caps"], r["in_term"] = 0.0, float(r["tid"] in terms)
    qall = read_queries(args.query_features)
    held = {r["query"] for r in qall if BLIND in r["provenance"]}
    qrows = [r for r in qall if r["query"] not in held]
    brows = [r for r in qall if r["query"] in held]
    queries = sorted({r["query"] for r in qrows})
    results = run_variants(swords, qrows, queries, styles_of(), args.model)
    cands = [r for r in results if r["name"] in (CHOICE if args.model is None else (args.model,))]
    best = max(cands, key=lambda r: (sum(r[s]["curve"][r[s]["threshold"]]["picks"] for s in SOURCES),
                                     -CHOICE.index(r["name"])))
    _, extra, weight = next(v for v in VARIANTS if v[0] == best["name"])
    models = fit_models(([] if weight is None else swords) + [dict(r, weight=weight or 1.0) for r in qrows], extra)
    thresholds = {s: best[s]["threshold"] for s in SOURCES}
    blind = blind_check(models, thresholds, brows)
    on_swords = None
    if args.swords_json:
        shipped = load_model(SHIPPED)
        on_swords = {"shipped": swords_check(shipped, shipped["thresholds"], swords, args.swords_json),
                     "new": swords_check(models, thresholds, swords, args.swords_json)}
    text = report(results, best, blind, len(queries), len(held), on_swords)
    print(text)
    if args.write:
        model = {"command": COMMAND, "features": list(FEATURES), "cheap_features": list(CHEAP), "prune": PRUNE,
                 "prune_per_target": PRUNE_PER_TARGET,
                 "l2": fit.L2, "rows": models["rows"], "acceptable": models["acceptable"],
                 "fitted_on": f"{models['rows']} labelled (query, swap) pairs of benchmarks/data/validity/SWAPSYN-*.tsv"
                              + (" and the SWORDS development split" if weight is not None else ""),
                 "tuned_by": "benchmarks/lexsub/query_fit.py: cross-validated on labelled queries (5 folds grouped "
                             "by query text)", "thresholds": thresholds,
                 "rule": f"{best['name']}; lowest threshold whose CV precision on the labelled queries over >= "
                         f"{fit.MIN_JUDGED} labelled picks is >= {fit.MIN_PRECISION}",
                 "full": models["full"], "cheap": models["cheap"]}
        Path(args.model_out).write_text(fit.model_text(model), encoding="utf-8")
        Path(args.report_out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
