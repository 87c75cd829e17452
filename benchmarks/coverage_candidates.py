"""Bootstrap candidates measured by benchmarks/interval_coverage.py beside the shipped interval
(not shipped: docs/statistics.md says why): the studentized (bootstrap-t) interval, with the
delta-method SE recomputed in each resample, and the BCa / percentile intervals of the same
replicates, of any :class:`bench.evaluation.skew.Statistic`.

* studentized: queries resampled with replacement (B rows, in the fixed chunks of
  ``bench.evaluation.intervals.bootstrap_index_chunks``); ``t* = (theta* - theta) / se*``; the
  interval is ``[theta - q_hi se, theta - q_lo se]`` (numpy linear quantiles of t*). A resample
  whose theta* is undefined is left out and counted; one with ``se* = 0`` (no resampled query
  changed) has ``t* = 0`` when ``theta* = theta`` and -+inf otherwise (an unbounded end).
* BCa: ``bench.evaluation.intervals._bca_ci`` (as ``scipy.stats.bootstrap(method="BCa")``), the
  jackknife from the leave-one-query-out means.
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from bench.evaluation.intervals import _bca_ci, _percentile_ci, bootstrap_index_chunks
from bench.evaluation.skew import Statistic, _columns, delta_se

Array = np.ndarray


def _resample_stats(x: Array, stat: Statistic, B: int, rng: np.random.Generator) -> Tuple[Array, Array]:
    """(theta*, se*) of B resamples of the rows of ``x``."""
    n = x.shape[0]
    th, se = np.empty(B), np.empty(B)
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        xs = x[idx]  # (c, n, k)
        m = xs.mean(axis=1)
        th[i:i + c] = stat.theta(m)
        g = stat.grad(m)
        with np.errstate(invalid="ignore"):
            u = np.einsum("cnk,ck->cn", xs - m[:, None, :], g)
            se[i:i + c] = np.std(u, axis=1, ddof=1) / math.sqrt(n)
        i += c
    return th, se


def studentized_ci(x, stat: Statistic, *, B: int, rng: np.random.Generator,
                   confidence: float = 0.95) -> Tuple[float, float, int]:
    """(low, high, n_undefined) of the studentized bootstrap interval of ``stat`` (module docstring).
    n < 2 or theta undefined -> NaN; every query alike after centring (se = 0) -> [theta, theta]."""
    x = _columns(x)
    n = x.shape[0]
    nan = float("nan")
    if n < 2:
        return nan, nan, 0
    theta = float(stat.theta(x.mean(axis=0)))
    if not math.isfinite(theta):
        return nan, nan, 0
    se = delta_se(x, stat)
    if not se > 0.0:
        return theta, theta, 0
    th, ses = _resample_stats(x, stat, B, rng)
    ok = np.isfinite(th)
    tol = 1e-12 * max(1.0, abs(theta))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(ses[ok] > 0, (th[ok] - theta) / ses[ok],
                     np.where(np.abs(th[ok] - theta) <= tol, 0.0, np.sign(th[ok] - theta) * np.inf))
    n_undef = int(B - t.size)
    if t.size == 0:
        return nan, nan, n_undef
    alpha = (1.0 - confidence) / 2.0
    t = np.sort(t)
    q_lo, q_hi = _quantile(t, alpha), _quantile(t, 1.0 - alpha)
    return theta - q_hi * se, theta - q_lo * se, n_undef


def _quantile(sorted_t: Array, p: float) -> float:
    """numpy's linear-interpolation quantile of sorted values that may hold -inf / +inf: between a
    finite and an infinite neighbour it takes the infinite one (the interval stays unbounded)."""
    h = (sorted_t.size - 1) * p
    lo = int(math.floor(h))
    frac = h - lo
    a = float(sorted_t[lo])
    if frac == 0.0:
        return a
    b = float(sorted_t[lo + 1])
    if math.isfinite(a) and math.isfinite(b):
        return a + frac * (b - a)
    return a if not math.isfinite(a) else b


def bootstrap_ci(x, stat: Statistic, *, B: int, rng: np.random.Generator, confidence: float = 0.95,
                 interval: str = "bca") -> Tuple[float, float, int]:
    """(low, high, n_undefined) of the BCa (jackknife acceleration) or percentile interval of ``stat``
    on the same kind of resamples as :func:`studentized_ci`."""
    x = _columns(x)
    n = x.shape[0]
    nan = float("nan")
    if n < 2:
        return nan, nan, 0
    m = x.mean(axis=0)
    theta = float(stat.theta(m))
    th, _ = _resample_stats(x, stat, B, rng)
    n_undef = int(np.sum(~np.isfinite(th)))
    if interval == "percentile":
        lo, hi = _percentile_ci(th, confidence)
        return lo, hi, n_undef
    jack = stat.theta((n * m - x) / (n - 1))
    lo, hi = _bca_ci(theta, th, jack, confidence)
    return lo, hi, n_undef
