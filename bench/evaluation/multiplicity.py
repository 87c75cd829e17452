"""Correlation-aware multiple testing: the Westfall-Young max-T over a family of checks that share
their queries, with ONE query-level sign flip applied jointly to every check; and the per-query
pseudo-values that put every check of the gate on the same footing (a mean over queries).

Pseudo-values. Each check k is a statistic ``g_k`` ("goodness": negative = the candidate is
worse) that is a mean, or asymptotically a mean, over queries: ``x_k`` is a per-query vector with
``mean(x_k) = g_k`` exactly:

* a metric check: ``x = c - b`` (candidate minus baseline per query): :func:`mean_pseudovalues`;
* a macro-averaged metric (few-shot headline): ``x = n w (c - b)`` with weights summing to 1, so
  ``mean(x) = sum(w (c - b))``: :func:`weighted_pseudovalues`;
* a drop-rate check ``g = DR_b - DR_c`` (DR = 1 - mean(V)/mean(O)): ``x = phi + g`` with
  ``phi`` the delta-method influence of ``R_c - R_b`` (R = mean(V)/mean(O)),
  ``phi_q = (V_cq - R_c O_cq)/mean(O_c) - (V_bq - R_b O_bq)/mean(O_b)``, whose mean is 0:
  :func:`drop_rate_pseudovalues`.

A margin ``m`` (the tolerated loss) enters as ``x + m``: H0_k: ``g_k >= -m_k`` (no regression
beyond the margin) against H1_k: ``g_k < -m_k``.

Max-T (:func:`maxt_sign_flip`). Statistic of check k: the studentized mean
``t_k = mean(x_k) / (SD(x_k)/sqrt(n))`` (SD ddof=1; -inf / +inf when SD = 0). Null distribution:
``m`` seeded sign vectors ``s`` in {-1, +1}^n, one sign per QUERY, applied to every check at once
(``t*_k`` from ``s * x_k``), so the dependence between checks is kept as it is in the data. The
studentized sign-flip test is exact for symmetric ``x`` and asymptotically valid otherwise
(Janssen 1999). Lower tail (``alternative="less"``): marginal ``p_k = (1 + #{t*_k <= t_k}) /
(m + 1)``; Westfall-Young STEP-DOWN adjusted p: order the checks by ``t_k`` ascending, ``p~_(j) =
(1 + #{min_{i >= j} t*_(i) <= t_(j)}) / (m + 1)``, made monotone by a running maximum. The
single-step adjusted p (``step_down=False``) uses the minimum over the whole family. Both control
the family-wise error rate in the strong sense under subset pivotality (Westfall & Young 1993);
step-down is never less powerful. Deterministic for a given seed (fixed chunks, pure numpy).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from bench.evaluation import exact
from bench.core.seeding import rng_for
from bench.evaluation.paired import DEFAULT_RESAMPLES, RESAMPLE_CHUNK, check_alternative

MAXT_DESCRIPTION = ("Westfall-Young max-T: studentized mean of each check's per-query pseudo-values, one seeded "
                    "sign flip per query applied jointly to every check (correlation kept), p = (b+1)/(m+1)")


# --------------------------------------------------------------------------- pseudo-values

def mean_pseudovalues(b: Any, c: Any) -> np.ndarray:
    """Per-query ``c - b`` (its mean is the change of the mean)."""
    b = np.asarray(b, dtype=np.float64).ravel()
    c = np.asarray(c, dtype=np.float64).ravel()
    if b.shape != c.shape:
        raise ValueError("paired samples must have the same length")
    return c - b


def weighted_pseudovalues(b: Any, c: Any, w: Any) -> np.ndarray:
    """Per-query ``n w (c - b)`` for weights ``w`` summing to 1: the mean is ``sum(w (c - b))``
    (with macro weights: the change of the macro average)."""
    d = mean_pseudovalues(b, c)
    w = np.asarray(w, dtype=np.float64).ravel()
    if w.shape != d.shape:
        raise ValueError("weights must have one value per query")
    if not math.isclose(exact.fsum(w), 1.0, rel_tol=1e-9, abs_tol=1e-12):
        raise ValueError("weights must sum to 1")
    return d.size * w * d


def drop_rate_pseudovalues(base_orig: Any, base_var: Any, cand_orig: Any, cand_var: Any) -> np.ndarray:
    """Per-query pseudo-values of ``g = DR_baseline - DR_candidate`` (positive = the candidate
    drops less): ``phi + g``, phi the delta-method influence function (mean exactly 0). NaN
    vector when an ORIGINAL mean is 0 (drop rate undefined)."""
    bo, bv, co, cv = (np.asarray(v, dtype=np.float64).ravel() for v in (base_orig, base_var, cand_orig, cand_var))
    if not (bo.shape == bv.shape == co.shape == cv.shape):
        raise ValueError("all four vectors must be paired on the same queries")
    mbo, mco = exact.mean(bo), exact.mean(co)
    if mbo == 0.0 or mco == 0.0:
        return np.full(bo.shape, np.nan)
    rb, rc = exact.mean(bv) / mbo, exact.mean(cv) / mco
    phi = (cv - rc * co) / mco - (bv - rb * bo) / mbo
    phi = phi - exact.mean(phi)  # exactly centred (rounding)
    return phi + (rc - rb)


# --------------------------------------------------------------------------- max-T

def studentized_means(x: np.ndarray) -> np.ndarray:
    """Row-wise ``mean / (SD/sqrt(n))`` (SD ddof=1); +-inf when SD = 0 and mean != 0, 0 when both are 0."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    n = x.shape[1]
    m = np.array([exact.mean(row) for row in x])
    sd = np.array([exact.sd(row) for row in x]) if n > 1 else np.zeros(x.shape[0])
    tol = 1e-12 * (np.abs(x).max(axis=1) + 1e-300)
    return _t_from(m, sd, n, tol)


def _t_from(m: np.ndarray, sd: np.ndarray, n: int, tol: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        t = m / (sd / math.sqrt(n))
    degenerate = sd <= tol
    return np.where(degenerate, np.where(np.abs(m) <= tol, 0.0, np.copysign(np.inf, m)), t)


@dataclass(frozen=True)
class MaxTResult:
    t: np.ndarray  # observed studentized statistics, one per check
    p_raw: np.ndarray  # marginal one-sided p of each check from the same resamples
    p_adjusted: np.ndarray  # Westfall-Young adjusted p (step-down unless step_down=False)
    null_extreme: np.ndarray  # per resample, the family's most extreme t* (min for "less")
    n_resamples: int
    seed: int
    step_down: bool
    alternative: str

    def critical_value(self, alpha: float) -> float:
        """Single-step critical value: reject check k when t_k is beyond it (alpha-quantile of the
        null min for "less", 1-alpha quantile of the null max for "greater")."""
        q = alpha if self.alternative == "less" else 1.0 - alpha
        return float(np.quantile(self.null_extreme, q, method="lower" if self.alternative == "less" else "higher"))


def maxt_sign_flip(x: Any, *, alternative: str = "less", n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                   key: Sequence[str] = (), step_down: bool = True) -> MaxTResult:
    """Westfall-Young max-T over the rows of ``x`` (checks x queries; module docstring).
    ``alternative``: "less" (H1: the row's mean is below 0) or "greater". Rows must be finite."""
    check_alternative(alternative)
    if alternative == "two-sided":
        raise ValueError("maxt_sign_flip is one-sided: alternative must be 'less' or 'greater'")
    x = np.atleast_2d(np.array(x, dtype=np.float64, copy=True))
    if not np.all(np.isfinite(x)):
        raise ValueError("pseudo-values contain NaN or infinite values")
    k, n = x.shape
    if n < 2:
        raise ValueError("max-T needs at least 2 queries")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    sign = 1.0 if alternative == "less" else -1.0
    xs = sign * x  # work in the lower tail
    t_obs = studentized_means(xs)
    order = np.argsort(t_obs, kind="stable")  # most extreme (smallest) first
    t_sorted = t_obs[order]
    tie_obs = 1e-9 * (1.0 + np.where(np.isfinite(t_obs), np.abs(t_obs), 0.0))  # rounding of equal statistics
    tie = tie_obs[order]
    s2 = np.array([exact.fsum(row * row) for row in xs])
    tol = 1e-12 * (np.abs(xs).max(axis=1) + 1e-300)
    rng = rng_for(seed, "maxt-sign-flip", *key)
    hits_marg = np.zeros(k, dtype=np.int64)
    hits_sd = np.zeros(k, dtype=np.int64)
    hits_ss = np.zeros(k, dtype=np.int64)
    extremes = np.empty(n_resamples)
    done = 0
    while done < n_resamples:
        c = min(RESAMPLE_CHUNK, n_resamples - done)
        signs = rng.integers(0, 2, size=(c, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        m = np.stack([exact.weighted_columns(signs, row) for row in xs], axis=1) / n  # (c, k), no BLAS
        var = np.maximum(s2[None, :] - n * m * m, 0.0) / (n - 1)
        t = _t_from(m, np.sqrt(var), n, tol[None, :])
        hits_marg += np.sum(t <= (t_obs + tie_obs)[None, :], axis=0)
        ts = t[:, order]
        suffix_min = np.minimum.accumulate(ts[:, ::-1], axis=1)[:, ::-1]
        hits_sd += np.sum(suffix_min <= (t_sorted + tie)[None, :], axis=0)
        hits_ss += np.sum(suffix_min[:, :1] <= (t_sorted + tie)[None, :], axis=0)
        extremes[done:done + c] = suffix_min[:, 0]
        done += c
    p_marg = (hits_marg + 1.0) / (n_resamples + 1.0)
    hits = hits_sd if step_down else hits_ss
    p_sorted = np.maximum.accumulate((hits + 1.0) / (n_resamples + 1.0))
    p_adj = np.empty(k)
    p_adj[order] = np.minimum(p_sorted, 1.0)
    return MaxTResult(sign * t_obs, p_marg, p_adj, sign * extremes, n_resamples, seed, step_down, alternative)
