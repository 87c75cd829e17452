"""Several generation draws of one variation set: the drop rate's spread over draws, an interval
that covers query sampling and draw variation together, the worst case over draws, and the
variance components that say how much of the interval the draw contributes.

Design (docs/statistics.md, "Several generation seeds"). A generator draws each query's variation
from ``query_rng(seed, generator, text)``: for a fixed query the draws of different generation
seeds are independent, and draws of different queries are independent of each other. The values
``V[q, g]`` (query q, draw g) therefore follow a NESTED model, draws within queries::

    V[q, g] = mu + a_q + e_qg,   a_q ~ (0, s_a^2) between queries,  e_qg ~ (0, s_e^2) within a query

The per-query means over the ``G`` draws, ``Vbar_q``, are independent across queries with variance
``s_a^2 + s_e^2 / G``: the variance-components interval of the grand mean is the t interval of the
per-query means (``n - 1`` degrees of freedom), and the drop rate's is the delta-method t interval
of :func:`bench.evaluation.skew.skew_t_ci` (the skewness-widened delta-method t interval) on the
pairs ``(O_q, Vbar_q)``; fewer than 10 queries changed in any draw -> ``interval_note``. Resampling the
draws as well as the queries (a "two-level" bootstrap) would count ``s_e^2`` twice, because the
per-query means already carry it; the coverage simulation (benchmarks/draws_coverage.py) measures both.

All functions are pure numpy on arrays: ``orig`` of shape (n,), ``var`` of shape (n, G).
"""
from __future__ import annotations

import math
from typing import Dict, Optional, Sequence

import numpy as np

from bench.evaluation import exact
from bench.evaluation.skew import DROP_RATE, SHORTFALL, changed_note, skew_t_ci

INTERVAL = ("variance-components skewness-widened t interval: the nested model V[q,g] = mu + a_q + e_qg (draws "
            "within queries); the union of the delta-method t interval (n-1 df, on the log ratio) and Hall's "
            "skewness-corrected t interval of the drop rate on the pairs (ORIGINAL_q, mean over draws of V[q,g]), whose "
            "per-query variance is s_a^2 + s_e^2/G, so it covers query sampling and draw variation; flagged "
            "'interval unreliable' when fewer than 10 queries changed in any draw; " + SHORTFALL)
PAIRED_ON = "per-query mean over the draws"
WORST = ("worst of N: per query, the lowest value over the N draws; its mean, and its drop rate against ORIGINAL "
         "(grows with N: compare worst-of-N figures only at the same N)")


def _finite(x: float) -> Optional[float]:
    return float(x) if x is not None and math.isfinite(x) else None


def _drop(mo: float, mv: float) -> float:
    return float("nan") if mo == 0 else (mo - mv) / mo


def per_draw_drops(orig: np.ndarray, var: np.ndarray) -> np.ndarray:
    """The drop rate of each draw (column of ``var``) against ORIGINAL, shape (G,)."""
    mo = exact.mean(orig)
    if mo == 0:
        return np.full(var.shape[1], np.nan)
    return (mo - exact.column_means(var)) / mo


def components(orig: np.ndarray, var: np.ndarray) -> Dict[str, float]:
    """One-way (nested) ANOVA estimates of the drop rate's variance components, on its linearised
    values ``u[q, g] = O_q / M_O - V[q, g] / M_O`` (the drop rate is the mean of u; M_O fixed).

    ``within`` = mean over queries of the variance of u over draws (ddof 1): s_e^2.
    ``between`` = variance (ddof 1) of the per-query means minus within / G: s_a^2 (floored at 0).
    ``draw_share_1`` / ``draw_share_G``: the share of the drop rate's sampling variance due to the
    draw with one draw per query and with the run's G draws, s_e^2/G / (s_a^2 + s_e^2/G) (of the
    interval's squared half width; NaN when both components are 0)."""
    n, g = var.shape
    mo = exact.mean(orig)
    if mo == 0 or n < 2 or g < 2:
        nan = float("nan")
        return {"within": nan, "between": nan, "draw_share_1": nan, "draw_share_G": nan}
    u = (orig[:, None] - var) / mo
    row_mean = exact.row_means(u)
    dev = u - row_mean[:, None]
    within = exact.mean(exact.row_sums(dev * dev) / (g - 1))
    between = max(exact.var(row_mean) - within / g, 0.0)

    def share(k: int) -> float:
        tot = between + within / k
        return within / k / tot if tot > 0 else float("nan")

    return {"within": within, "between": between, "draw_share_1": share(1), "draw_share_G": share(g)}


def draw_summary(orig: Sequence[float], var, confidence: float = 0.95) -> dict:
    """The ``draws`` figures of one set and measure (JSON-ready; undefined values are None)."""
    o = np.asarray(orig, dtype=np.float64)
    v = np.asarray(var, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] != o.shape[0]:
        raise ValueError(f"var must have shape (n, G) with n = {o.shape[0]}, got {v.shape}")
    drops = per_draw_drops(o, v)
    means = exact.row_means(v)
    worst = v.min(axis=1)
    lo, hi = skew_t_ci(np.c_[o, means], DROP_RATE, confidence)
    wlo, whi = skew_t_ci(np.c_[o, worst], DROP_RATE, confidence)
    n_changed = int(np.sum(np.any(v != o[:, None], axis=1)))
    sd = exact.sd(drops) if drops.size > 1 and np.all(np.isfinite(drops)) else float("nan")
    comp = components(o, v)
    return {
        "drop_rates": [_finite(x) for x in drops],
        "drop_rate_mean": _finite(exact.mean(drops)) if np.all(np.isfinite(drops)) else None,
        "drop_rate_sd": _finite(sd),
        "drop_rate_ci": [_finite(lo), _finite(hi)],
        "metric_per_draw": [float(x) for x in exact.column_means(v)],
        "worst_metric": exact.mean(worst),
        "worst_drop_rate": _finite(_drop(exact.mean(o), exact.mean(worst))),
        "worst_drop_rate_ci": [_finite(wlo), _finite(whi)],
        "n_changed": n_changed,
        "interval_note": changed_note(n_changed, int(o.size)),
        "components": {k: _finite(x) for k, x in comp.items()},
    }
