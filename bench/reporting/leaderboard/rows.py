"""The leaderboard's data from run folders: long rows (one per model x dataset x set x metric) and
the per-query scores that rank the runs of a comparability group (definitions:
:mod:`bench.reporting.leaderboard.board`)."""
from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import exact
from bench.core.errors import DataError
from bench.results import applicability as AP
from bench.results.rundir import AVG, ORIGINAL, Run, numeric_leaves
from bench.reporting.comparability import fewshot_settings, fewshot_weights
from bench.reporting.draws import leaderboard_extras

#: columns of the long CSV, in order
LONG_COLUMNS = ("group", "dataset", "model", "suite", "set", "set_label", "metric", "value", "drop_rate",
                "drop_rate_low", "drop_rate_high", "n_queries", "n_applied", "n_evaluated", "applicability",
                "low_applicability", "rank", "rank_low", "rank_high", "tied", "ranked_on", "model_fingerprint")
_FEWSHOT_KEY = re.compile(r"^(?P<setting>.+) (?P<split>all|base|novel) (?P<metric>.+)$")


def _num(x: Any) -> Optional[float]:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def variation_rows(r: Run, metrics: Sequence[str]) -> List[Dict[str, Any]]:
    """ORIGINAL, every variation set with status ok (with its applicability and flag), VARIATIONS
    (AVG.) and its applied-only companion (drop rate and interval; absent when it cannot be
    computed), for every metric. A run written before applicability was recorded gets it from
    per_query.csv, else empty cells."""
    out = []
    avg = (r.result.get("summary") or {}).get(AVG) or {}
    figures = AP.set_figures(r)
    applied_avg = AP.applied_average_of(r) if r.variation_sets else None
    for m in metrics:
        for s in [ORIGINAL] + r.variation_sets:
            e = r.set_entry(s) or {}
            dr = (e.get("drop_rate") or {}).get(m) if s != ORIGINAL else None
            f = figures.get(s) or {}
            out.append({"set": s, "set_label": r.label(s), "metric": m, "value": r.metric(s, m), "drop_rate": _num(dr),
                        "n_applied": f.get("n_applied"), "n_evaluated": f.get("n_evaluated"),
                        "applicability": _num(f.get("applicability")),
                        "low_applicability": f.get("low") if s != ORIGINAL and f.get("applicability") is not None
                        else None, **leaderboard_extras(r, s, m)})
        if r.variation_sets:
            out.append({"set": AVG, "set_label": AVG, "metric": m, "value": _num((avg.get("metrics") or {}).get(m)),
                        "drop_rate": _num((avg.get("drop_rate") or {}).get(m)), "n_applied": None})
        if applied_avg is not None:
            lo, hi = ((applied_avg.get("drop_rate_ci") or {}).get(m) or [None, None])
            out.append({"set": AP.APPLIED_AVG, "set_label": AP.APPLIED_AVG, "metric": m, "value": None,
                        "drop_rate": _num((applied_avg.get("drop_rate") or {}).get(m)),
                        "drop_rate_low": _num(lo), "drop_rate_high": _num(hi), "n_applied": None})
    return out


def fewshot_rows(r: Run) -> Optional[List[Dict[str, Any]]]:
    """The summary's flat ``metrics`` ("<setting> <split> <metric>" -> value) as rows with set =
    "<setting> <split>"; a summary without that shape gives its numeric leaves (set = the path
    without its last part, metric = the last part). None without a numeric summary."""
    summ = r.result.get("summary")
    if not isinstance(summ, dict) or not summ:
        return None
    flat = summ.get("metrics")
    out = []
    if isinstance(flat, dict) and flat and all(_FEWSHOT_KEY.match(str(k)) for k in flat):
        for k, v in flat.items():
            g = _FEWSHOT_KEY.match(str(k))
            if _num(v) is not None:
                name = f"{g['setting']} {g['split']}"
                out.append({"set": name, "set_label": name, "metric": g["metric"], "value": _num(v)})
    else:
        for k, v in numeric_leaves(summ).items():
            if math.isfinite(v):
                head, _, last = k.rpartition(" / ")
                out.append({"set": head or last, "set_label": head or last, "metric": last, "value": v})
    return out or None


def headline(r: Run) -> Tuple[Optional[str], Optional[float], str]:
    """A few-shot run's headline: (per-query setting "<method>/K=<k>", macro K-shot mean over all
    classes, description), or (None, None, "") without one."""
    h = (r.result.get("summary") or {}).get("headline") or {}
    mean = _num(((h.get("k_shot") or {}).get("all") or {}).get("mean"))
    if not h.get("method") or h.get("k") is None or mean is None:
        return None, None, ""
    return f"{h['method']}/K={h['k']}", mean, f"{h.get('measure', '?')}/{h['method']} K={h['k']} all"


def rank_series(r: Run, rank_by: str, metric: str) -> Optional[Any]:
    """Variation runs: pandas Series qid -> per-query score used for ranking (rank_by of the
    metric; VARIATIONS (AVG.) = the mean over the variation sets), or None without per-query rows."""
    if r.per_query is None:
        return None
    if rank_by == AVG:
        var = r.variation_sets
        orig = r.values(ORIGINAL, metric)
        if not var:
            return orig
        import pandas as pd

        frame = np.column_stack([r.values(s, metric).loc[orig.index].to_numpy(float) for s in var])
        return pd.Series(exact.row_means(frame), index=orig.index)
    if rank_by not in r.ok_sets:
        return None
    return r.values(rank_by, metric)


def fewshot_series(r: Run) -> Optional[Any]:
    """Few-shot runs: Series qid -> ``n w_q x_q`` for the headline setting (per-query values averaged
    over trials, ``w`` the macro weights of the plan), whose mean is the macro headline; None
    without a per-query table, plan or headline."""
    setting, _, _ = headline(r)
    if r.per_query is None or setting is None:
        return None
    measure = ((r.result.get("summary") or {}).get("headline") or {}).get("measure") or (r.measures or ["?"])[0]
    try:
        settings = fewshot_settings(r, measure)
        if setting not in settings:
            return None
        qids, w = fewshot_weights(r, list(settings[setting].index))
    except DataError:
        return None
    import pandas as pd

    x = settings[setting].loc[qids].to_numpy(dtype=np.float64)
    return pd.Series(len(qids) * w * x, index=qids)
