"""`bench compare`: the drop rate of VARIATIONS (AVG.) compared between every pair of comparable runs
(the gate's rule, :mod:`bench.reporting.comparability`), with the kernels of
:mod:`bench.evaluation.droprate` (skewness-widened t interval, two-sided swap
randomization test). The p-values of the pairs form one family, corrected with the compare
table's correction."""
from __future__ import annotations

import hashlib
import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from bench.evaluation import exact
from bench.core.errors import IncompatibleRuns
from bench.core.progress import count
from bench.evaluation import stats as S
from bench.evaluation.droprate import compare_drop_rates
from bench.results.rundir import AVG, ORIGINAL, Run
from bench.reporting.comparability import RUN_ROLES, Group, check_compatible, paired_arrays
from bench.reporting.csvsafe import csv_text
from bench.core.sheet import md_cell as _md

COLUMNS = ("model_a", "model_b", "metric", "n", "n_differing", "drop_a", "drop_b", "difference", "ci_low",
           "ci_high", "confidence", "n_undefined", "p_value", "p_corrected", "significant", "interval_method",
           "test_method", "correction", "note")


def content_key(run: Run) -> str:
    """SHA-256 of the run's per_query.csv: the per-query values its statistics are computed from."""
    return hashlib.sha256(run.per_query_path.read_bytes()).hexdigest()


def pair_key(metric: str, a: Run, b: Run) -> Tuple[str, ...]:
    """The Monte Carlo key of the pair (a, b): the metric and the two runs' content keys, sorted, so
    that the pair's resampling stream depends neither on display labels (which grow suffixes when more
    runs are compared) nor on the order the runs were given in."""
    return ("compare-drop-rate", metric, *sorted((content_key(a), content_key(b))))


KEY_NOTE = ("resampling stream of a pair: seeded by (seed, metric, the two runs' per_query.csv SHA-256, sorted), so a "
            "pair gets the same interval and p whatever other runs are compared, in either order")


def drop_rate_pairs(runs: Sequence[Run], labels: Sequence[str], groups: Sequence[Group], metric: str, *,
                    B: int, n_resamples: int, seed: int, confidence: float, correction: str,
                    alpha: float) -> Tuple[List[Dict[str, Any]], List[str]]:
    """One record per pair (i < j) of runs of the same comparability group: DR_j - DR_i of
    VARIATIONS (AVG.) (the per-query mean over the variation sets) on the shared queries."""
    out: List[Dict[str, Any]] = []
    notes: List[str] = []
    for g in groups:
        for x, i in enumerate(g.members):
            for j in g.members[x + 1:]:
                a, b = runs[i], runs[j]
                sets = check_compatible(a, b, metric, RUN_ROLES)
                var = [s for s in sets if s != ORIGINAL]
                if not var:
                    continue
                try:
                    ad, bd, n2 = paired_arrays(a, b, sets, metric, RUN_ROLES)
                except IncompatibleRuns as exc:
                    notes.append(f"drop rate of {labels[i]} vs {labels[j]} not compared: {exc}")
                    continue
                notes.extend(n2)
                res = compare_drop_rates(ad[ORIGINAL], exact.mean_of_arrays([ad[s] for s in var]), bd[ORIGINAL],
                                         exact.mean_of_arrays([bd[s] for s in var]), B=B, n_resamples=n_resamples,
                                         seed=seed, key=pair_key(metric, a, b),
                                         confidence=confidence)
                out.append({"model_a": labels[i], "model_b": labels[j], "metric": metric, **res.to_dict(),
                            "correction": correction})
    adj = S.adjust_pvalues([math.nan if r["p_value"] is None else r["p_value"] for r in out], correction)
    for r, p in zip(out, adj):
        r["p_corrected"] = float(p) if math.isfinite(p) else None
        r["significant"] = bool(math.isfinite(p) and p < alpha)
    return out, notes


def markdown(rows: Sequence[Dict[str, Any]], metric: str, correction: str, alpha: float) -> List[str]:
    """The Markdown section (empty without pairs)."""
    if not rows:
        return []

    def f(v: Any, pct: bool = False) -> str:
        if v is None:
            return ""
        return f"{100 * v:.1f}%" if pct else f"{v:.4g}"

    conf = rows[0]["confidence"]
    out = ["", f"### Drop rate of {AVG} ({metric}): pairs of comparable runs", "",
           f"- drop rate DR = (M_ORIGINAL - M_{AVG}) / M_ORIGINAL over the same queries for both runs; "
           "difference = DR(B) - DR(A) (positive: B loses more to the variations)",
           f"- {100 * conf:g}% interval: {rows[0]['interval_method']}",
           f"- p: swap randomization test (per query, A's and B's values exchanged), two-sided; corrected over the "
           f"{count(len(rows), 'pair')}: {S.CORRECTION_DESCRIPTIONS[correction]}; alpha = {alpha}",
           f"- {KEY_NOTE}", "",
           "| A | B | n | DR A | DR B | DR B - DR A | interval | p | p corrected | test |",
           "|---|---|---:|---:|---:|---:|---|---:|---:|---|"]
    for r in rows:
        ci = "" if r["ci_low"] is None else f"[{100 * r['ci_low']:.1f}%, {100 * r['ci_high']:.1f}%]"
        flag = next((x for x in str(r.get("note") or "").split("; ") if x.startswith("interval unreliable")), "")
        ci += f" ({flag})" if flag and ci else ""
        test = r["test_method"].replace("swap randomization, two-sided, ", "")
        out.append("| " + " | ".join([_md(r["model_a"]), _md(r["model_b"]), str(r["n"]), f(r["drop_a"], True),
                                      f(r["drop_b"], True), f(r["difference"], True), ci, f(r["p_value"]),
                                      f(r["p_corrected"]) + (" *" if r["significant"] else ""), _md(test)]) + " |")
    return out


def to_csv(rows: Sequence[Dict[str, Any]]) -> str:
    return csv_text(COLUMNS, ([r.get(c) for c in COLUMNS] for r in rows))
