"""The statistics block of a result file: every variation set x measure against ORIGINAL on the
same queries (paired test, interval, effect size, win/tie/loss, corrected p-values)."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from bench.evaluation import exact
from bench.evaluation.correction import CORRECTION_DESCRIPTIONS, CORRECTIONS, adjust_pvalues, family_size
from bench.evaluation.intervals import (CI_DESCRIPTIONS, DEFAULT_BOOTSTRAP, DEFAULT_CI, check_ci_args, drop_rate, paired_bootstrap_ci)
from bench.evaluation.skew import changed_note
from bench.evaluation.paired import DEFAULT_RESAMPLES, EXACT_MAX_N, TEST_DESCRIPTIONS, TESTS, WILCOXON_EXACT_MAX_N, check_alternative, cohen_dz, finite_or_none, paired_test, win_tie_loss

# --------------------------------------------------------------------------- variation statistics

def _per_set_values(per_query: Any, set_name: str, measure: str) -> Any:
    """Series qid -> value of one set and measure (pandas)."""
    sub = per_query[per_query["set"] == set_name]
    if sub.empty:
        return None
    if sub["qid"].duplicated().any():
        dup = sub.loc[sub["qid"].duplicated(), "qid"].iloc[0]
        from bench.core.errors import DataError

        raise DataError(f"query id {dup!r} appears twice in set {set_name!r} of the per-query table")
    return sub.set_index("qid")[measure].astype(np.float64)


def paired_values(per_query: Any, set_a: str, set_b: str, measure: str) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Values of measure for the queries present (and finite) in both sets, in set_a's row order."""
    sa = _per_set_values(per_query, set_a, measure)
    sb = _per_set_values(per_query, set_b, measure)
    if sa is None or sb is None:
        from bench.core.errors import DataError

        missing = set_a if sa is None else set_b
        raise DataError(f"set {missing!r} has no rows in the per-query table")
    common = [q for q in sa.index if q in sb.index]
    a = sa.loc[common].to_numpy(dtype=np.float64)
    b = sb.loc[common].to_numpy(dtype=np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    qids = [q for q, k in zip(common, ok) if k]
    return a[ok], b[ok], qids


def sidedness(alternative: str = "two-sided", baseline: str = "ORIGINAL", other: str = "variation") -> str:
    """Human-readable sidedness of ``alternative`` ("two-sided" stays exactly that string)."""
    check_alternative(alternative)
    if alternative == "two-sided":
        return "two-sided"
    if alternative == "less":
        return f"one-sided (less: H1 mean(d) < 0, {other} worse than {baseline})"
    return f"one-sided (greater: H1 mean(d) > 0, {other} better than {baseline})"


def statistics_header(*, test: str, correction: str, seed: int, bootstrap: int, alpha: float,
                      family: str, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                      baseline: str = "ORIGINAL", other: str = "variation", alternative: str = "two-sided",
                      interval: str = DEFAULT_CI) -> Dict[str, Any]:
    """The description block every output prints: test, sidedness, correction, SD variant, the
    confidence interval (and B when it is a bootstrap), seed. ``baseline`` / ``other`` name the
    two members of a pair (ORIGINAL vs a variation set; in the domain suite zero-shot vs a
    trained system). ``alternative`` sets the sidedness of the tests; ``interval`` names the
    confidence interval of delta / drop rate (always two-sided central, at ``confidence``)."""
    check_ci_args(confidence, interval)
    head: Dict[str, Any] = {
        "test": test,
        "test_description": TEST_DESCRIPTIONS[test],
        "sidedness": sidedness(alternative, baseline, other),
        "alternative": alternative,
        "correction": correction,
        "correction_description": CORRECTION_DESCRIPTIONS[correction],
        "family": family,
        "alpha": alpha,
        "seed": int(seed),
        "difference": f"d = {other} - {baseline} per query (delta = mean(d); negative = worse)",
        "drop_rate": f"(M_{baseline} - M_{other}) / M_{baseline} (null when M_{baseline} = 0)",
        "effect_size": "d_z = mean(d) / SD(d), SD with ddof=1",
        "bootstrap": {"B": int(bootstrap), "interval": interval, "method": CI_DESCRIPTIONS[interval],
                      "confidence": confidence, "sidedness": "two-sided (central) interval",
                      "resampling": ("none: B and seed are not used by this interval" if interval in ("t", "skew-t")
                                     else "queries with replacement, jointly for both sets")},
        "win_tie_loss": f"per query: win = {other} > {baseline}, tie = equal, loss = {other} < {baseline}",
        "degenerate": "n < 2 -> p and intervals null; all differences zero -> p = 1",
    }
    if test == "randomization":
        head["randomization"] = {"exact_max_n": EXACT_MAX_N, "n_resamples": int(n_resamples),
                                 "p_value": "over the n' non-zero differences: exact (n' <= exact_max_n): b/2^n'; "
                                            "monte carlo: (b+1)/(m+1)"}
    if test == "wilcoxon":
        head["wilcoxon"] = {"exact_max_n": WILCOXON_EXACT_MAX_N, "zero_method": "wilcox (zero differences discarded)",
                            "p_value": "exact conditional over the 2^n' sign vectors of the mid-ranks for n' <= "
                                       "exact_max_n; normal approximation (tie-corrected, no continuity correction) "
                                       "beyond"}
    return head


def _comparison(per_query: Any, original: str, s: str, m: str, *, test: str, seed: int, n_resamples: int,
                alternative: str, bootstrap: int, confidence: float, interval: str) -> Dict[str, Any]:
    """One set x measure against ``original``: means, delta, drop rate, their intervals, the paired test."""
    a, b, qids = paired_values(per_query, original, s, m)
    key = (s, m)
    res = paired_test(a, b, test, seed=seed, n_resamples=n_resamples, key=key, alternative=alternative)
    ci = paired_bootstrap_ci(a, b, B=bootstrap, seed=seed, confidence=confidence, key=key, interval=interval)
    w, t, l = win_tie_loss(a, b) if a.size else (0, 0, 0)
    mo, mv = exact.mean(a), exact.mean(b)
    applied = None
    if "applied" in per_query.columns:
        sub = per_query[(per_query["set"] == s) & per_query["qid"].isin(qids)]
        applied = int(np.sum(np.asarray(sub["applied"], dtype=np.float64) == 1))
    return {
        "n": int(a.size),
        "n_applied": applied,
        "mean_original": mo,
        "mean_variation": mv,
        "delta": mv - mo,
        "delta_ci": list(ci.delta),
        "drop_rate": drop_rate(mo, mv) if a.size else float("nan"),
        "drop_rate_ci": list(ci.drop_rate),
        "n_changed": int(np.sum(a != b)),
        "interval_note": changed_note(int(np.sum(a != b)), int(a.size)),
        "statistic": res.statistic,
        "p_value": res.pvalue,
        "d_z": cohen_dz(a, b),
        "win": w, "tie": t, "loss": l,
        "method": res.method,
        "note": res.note,
    }


def _correct_families(comps: Dict[str, Dict[str, Dict[str, Any]]], raw: Dict[Tuple[str, str], float],
                      var_sets: List[str], measures: List[str], family: str, correction: str,
                      alpha: float) -> Dict[str, int]:
    """Adds ``p_corrected`` and ``significant`` to every comparison, corrected within its family; returns
    each family's size."""
    families: Dict[str, List[Tuple[str, str]]]
    if family == "all":
        families = {"all": [(s, m) for s in var_sets for m in measures]}
    else:
        families = {m: [(s, m) for s in var_sets] for m in measures}
    sizes: Dict[str, int] = {}
    for fam, keys in families.items():
        adj = adjust_pvalues([raw[k] for k in keys], correction)
        sizes[fam] = family_size([raw[k] for k in keys])
        for k, p in zip(keys, adj):
            c = comps[k[0]][k[1]]
            c["p_corrected"] = float(p)
            c["significant"] = bool(np.isfinite(p) and p < alpha)
    return sizes


def variation_statistics(per_query: Any, sets: List[str], measures: List[str], *, test: str = "t-test",
                         correction: str = "holm", seed: int = 0, bootstrap: int = DEFAULT_BOOTSTRAP,
                         alpha: float = 0.05, family: str = "per-measure", original: str = "ORIGINAL",
                         n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                         alternative: str = "two-sided", interval: str = DEFAULT_CI) -> Dict[str, Any]:
    """Paired statistics of every variation set x measure against ORIGINAL on the same queries.

    ``per_query`` is the long table of ``per_query.csv`` (columns ``set, qid, applied,
    <measures>``; qids as strings). ``sets`` are the variation sets (ORIGINAL, if listed, is
    skipped). ``family``: ``"per-measure"`` (default: the variation sets compared on one
    measure form one correction family) or ``"all"`` (every set x measure comparison is one
    family). ``alternative`` ("two-sided", "less", "greater") is passed to the test;
    ``interval`` (CI_METHODS) chooses the confidence intervals of delta and drop rate.
    Returns a JSON-serialisable dict (floats finite or None)::

        {"header": {...test, sidedness, correction, family, family_size, alpha, seed, B...},
         "sets": [...], "measures": [...],
         "comparisons": {SET: {MEASURE: {"n", "n_applied", "mean_original", "mean_variation",
             "delta", "delta_ci", "drop_rate", "drop_rate_ci", "n_changed", "interval_note", "statistic", "p_value",
             "p_corrected", "significant", "d_z", "win", "tie", "loss", "method", "note"}}}}
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}")
    if family not in ("per-measure", "all"):
        raise ValueError("family must be 'per-measure' or 'all'")
    check_alternative(alternative)
    check_ci_args(confidence, interval)
    var_sets = [s for s in sets if s != original]
    missing_cols = [m for m in measures if m not in per_query.columns]
    if missing_cols:
        from bench.core.errors import DataError

        raise DataError(f"per-query table has no column(s) {', '.join(missing_cols)}")

    comps: Dict[str, Dict[str, Dict[str, Any]]] = {}
    raw: Dict[Tuple[str, str], float] = {}
    for s in var_sets:
        comps[s] = {}
        for m in measures:
            comps[s][m] = _comparison(per_query, original, s, m, test=test, seed=seed, n_resamples=n_resamples,
                                      alternative=alternative, bootstrap=bootstrap, confidence=confidence,
                                      interval=interval)
            raw[(s, m)] = comps[s][m]["p_value"]

    sizes = _correct_families(comps, raw, var_sets, measures, family, correction, alpha)

    other = "variation" if original == "ORIGINAL" else "system"
    header = statistics_header(test=test, correction=correction, seed=seed, bootstrap=bootstrap, alpha=alpha,
                               family=(f"per measure: the {other} sets vs {original} on one measure"
                                       if family == "per-measure" else f"all {other} set x measure comparisons"),
                               n_resamples=n_resamples, confidence=confidence, baseline=original, other=other,
                               alternative=alternative, interval=interval)
    header["family_size"] = sizes
    out = {"header": header, "sets": var_sets, "measures": list(measures), "comparisons": comps}
    return to_jsonable(out)


def pair_statistics(per_query: Any, pairs: List[Tuple[str, str]], measures: List[str], *, test: str = "t-test",
                    correction: str = "holm", seed: int = 0, bootstrap: int = DEFAULT_BOOTSTRAP, alpha: float = 0.05,
                    n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, alternative: str = "two-sided",
                    interval: str = DEFAULT_CI) -> Dict[str, Any]:
    """Paired statistics of named pairs ``(system, reference)`` of sets (domain suite: DDR's claims
    REM+DAM vs DR and REM+DAM vs REM), each computed exactly as :func:`variation_statistics`
    computes a set against its reference (d = system - reference per query), then corrected over
    the pairs of one measure (one family per measure, separate from the families against the
    suite's baseline). Returns ``{"header", "pairs": [{"name", "system", "reference"}],
    "measures", "comparisons": {"SYSTEM vs REFERENCE": {measure: comparison}}}``."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}")
    comps: Dict[str, Dict[str, Any]] = {}
    entries = []
    for system, reference in pairs:
        name = f"{system} vs {reference}"
        one = variation_statistics(per_query, [system], measures, test=test, correction="none", seed=seed,
                                   bootstrap=bootstrap, alpha=alpha, original=reference, n_resamples=n_resamples,
                                   confidence=confidence, alternative=alternative, interval=interval)
        comps[name] = one["comparisons"][system]
        entries.append({"name": name, "system": system, "reference": reference})
    sizes: Dict[str, int] = {}
    for m in measures:
        raw = [comps[e["name"]][m]["p_value"] for e in entries]
        raw = [np.nan if p is None else p for p in raw]
        adj = adjust_pvalues(raw, correction)
        sizes[m] = family_size(raw)
        for e, p in zip(entries, adj):
            c = comps[e["name"]][m]
            c["p_corrected"] = float(p)
            c["significant"] = bool(np.isfinite(p) and p < alpha)
    header = statistics_header(test=test, correction=correction, seed=seed, bootstrap=bootstrap, alpha=alpha,
                               family="per measure: the pairs listed, on one measure (separate from the "
                                      "comparisons with the baseline)",
                               n_resamples=n_resamples, confidence=confidence, baseline="reference", other="system",
                               alternative=alternative, interval=interval)
    header["family_size"] = sizes
    return to_jsonable({"header": header, "pairs": entries, "measures": list(measures), "comparisons": comps})


def to_jsonable(obj: Any) -> Any:
    """Recursively convert numpy scalars/arrays and tuples; non-finite floats become None."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return finite_or_none(obj)
    return obj

