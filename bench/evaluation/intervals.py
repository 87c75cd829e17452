"""Confidence intervals of means, paired mean differences and drop rates (t, BCa, percentile
bootstrap) and bootstrap ranks. Coverage: docs/statistics.md."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence, Tuple

import numpy as np

from bench.core.seeding import rng_for
from bench.evaluation import exact
from bench.evaluation.paired import RESAMPLE_CHUNK, paired_arrays
from bench.evaluation.skew import DROP_RATE, MEAN, SHORTFALL, SKEW_T_DESCRIPTION, skew_t_ci, t_drop_rate_ci, t_mean_ci

CI_METHODS = ("skew-t", "t", "bca", "percentile")  # confidence intervals of means, mean differences and drop rates
DEFAULT_CI = "skew-t"
DEFAULT_BOOTSTRAP = 1000

CI_DESCRIPTIONS = {
    "skew-t": SKEW_T_DESCRIPTION + " (bench.evaluation.skew; chosen by coverage on sparse, skewed per-query changes; "
    f"{SHORTFALL}); means: Student t",
    "t": "Student t interval: delta = mean(d) +- t_{n-1} SD(d)/sqrt(n) (SD ddof=1); drop rate by the delta-method "
    "t interval on log(M_other/M_baseline), mapped back (linear delta method when the ratio is <= 0); no resampling",
    "bca": "paired BCa bootstrap (bias-corrected and accelerated, jackknife acceleration; numpy linear "
    "interpolation of the replicates)",
    "percentile": "paired percentile bootstrap (2.5/97.5 percentiles, numpy linear interpolation)",
}


# --------------------------------------------------------------------------- bootstrap

def bootstrap_index_chunks(n: int, B: int, rng: np.random.Generator) -> Iterable[np.ndarray]:
    """Yield (c, n) arrays of query indices drawn with replacement, B rows in total, fixed chunks."""
    done = 0
    while done < B:
        c = min(RESAMPLE_CHUNK, B - done)
        yield rng.integers(0, n, size=(c, n))
        done += c


def _percentile_ci(reps: np.ndarray, confidence: float) -> Tuple[float, float]:
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return (float("nan"), float("nan"))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(reps, [100 * alpha, 100 * (1 - alpha)])
    return (float(lo), float(hi))


def check_ci_args(confidence: float, interval: str) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if interval not in CI_METHODS:
        raise ValueError(f"unknown interval {interval!r}; choose one of {', '.join(CI_METHODS)}")


def _bca_ci(theta: float, reps: np.ndarray, jack: np.ndarray, confidence: float) -> Tuple[float, float]:
    """BCa interval (Efron 1987; as ``scipy.stats.bootstrap(method="BCa")``) of the statistic
    theta from its bootstrap replicates ``reps`` and its jackknife (leave-one-query-out) values
    ``jack``: z0 = Phi^-1(share of replicates below theta, ties counting one half; replicates
    within 1e-10 x max(|theta|, range) of theta are ties, so rounding cannot decide), acceleration
    a = sum(u^3) / (6 sum(u^2)^1.5) with u = mean(jack) - jack; the interval is the
    Phi(z0 + (z0 + z)/(1 - a (z0 + z))) percentiles (numpy linear interpolation) of the
    replicates for z = -+z_{1-alpha/2}.

    Guards (no warnings): non-finite replicates are left out; a non-finite jackknife value sets
    a = 0; the share is clipped to [0.5/B, 1 - 0.5/B] so z0 is finite; a (numerically) constant
    set of replicates gives [theta, theta]; undefined theta -> NaN."""
    from scipy import special

    nan2 = (float("nan"), float("nan"))
    if not math.isfinite(theta):
        return nan2
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return nan2
    lo_r, hi_r = float(np.min(reps)), float(np.max(reps))
    if hi_r - lo_r <= 64 * np.finfo(np.float64).eps * max(abs(lo_r), abs(hi_r), abs(theta)):
        return (float(theta), float(theta))
    B = reps.size
    tie = 1e-10 * max(abs(theta), hi_r - lo_r)  # mathematically equal replicates differ by rounding only
    share = (np.count_nonzero(reps < theta - tie) + 0.5 * np.count_nonzero(np.abs(reps - theta) <= tie)) / B
    share = min(max(share, 0.5 / B), 1.0 - 0.5 / B)
    z0 = float(special.ndtri(share))
    acc = 0.0
    if jack.size >= 2 and np.all(np.isfinite(jack)):
        u = exact.mean(jack) - jack
        ss = exact.fsum(u * u)
        if ss > 0.0:
            acc = exact.fsum(u * u * u) / (6.0 * ss ** 1.5)
    zq = float(-special.ndtri((1.0 - confidence) / 2.0))
    probs = []
    for z in (-zq, zq):
        w = z0 + z
        den = 1.0 - acc * w
        probs.append(float(special.ndtr(z0 + w / den)) if den > 0.0 else (1.0 if w > 0 else 0.0))
    lo, hi = np.percentile(reps, [100.0 * probs[0], 100.0 * probs[1]])
    return (float(lo), float(hi))


def _boot_ci(theta: float, reps: np.ndarray, jack: np.ndarray, confidence: float, interval: str) -> Tuple[float, float]:
    if interval == "percentile":
        return _percentile_ci(reps, confidence)
    return _bca_ci(theta, reps, jack, confidence)


@dataclass(frozen=True)
class BootstrapCI:
    delta: Tuple[float, float]  # CI of mean(b) - mean(a)
    drop_rate: Tuple[float, float]  # CI of (mean(a) - mean(b)) / mean(a)
    B: int
    confidence: float
    n_undefined_drop: int = 0  # bootstrap replicates with mean(a) = 0 (drop rate undefined, left out)
    interval: str = DEFAULT_CI  # one of CI_METHODS


def paired_bootstrap_ci(a: Any, b: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                        key: Sequence[str] = (), interval: str = DEFAULT_CI) -> BootstrapCI:
    """Confidence intervals of the delta mean(b) - mean(a) = mean(d) and of the drop rate
    (mean(a) - mean(b)) / mean(a) (a ratio of means) of paired samples.

    ``interval`` (one of CI_METHODS):

    * "skew-t" (default; chosen by coverage on sparse, skewed changes, docs/statistics.md): the
      union of the "t" interval and Hall's skewness-corrected t interval of the same influence
      values (:func:`bench.evaluation.skew.skew_t_ci`), for delta and for the drop rate. No
      resampling: B and seed are not used.
    * "t" (the default of earlier versions): delta by the Student t interval
      of mean(d) (:func:`t_mean_ci`), drop rate by the delta-method t interval on the log ratio of
      means (:func:`t_drop_rate_ci`). No resampling: B and seed are not used.
    * "bca": paired BCa bootstrap (queries resampled with replacement jointly for a and b; B
      replicates from a Generator derived from (seed, "bootstrap", *key) in fixed chunks, so
      byte-deterministic for a given seed; jackknife acceleration; :func:`_bca_ci`).
    * "percentile": the paired percentile bootstrap of earlier versions (same replicates).

    Degenerate: n = 0 or B < 1 -> NaN; n = 1 -> NaN ("percentile": the single value); all
    differences equal to v -> delta [v, v]; mean(a) = 0 -> drop rate NaN."""
    check_ci_args(confidence, interval)
    a, b = paired_arrays(a, b)
    n = a.size
    nan2 = (float("nan"), float("nan"))
    if n == 0 or B < 1:
        return BootstrapCI(nan2, nan2, B, confidence, 0, interval)
    d = b - a
    if interval == "t":
        return BootstrapCI(t_mean_ci(d, confidence), t_drop_rate_ci(a, b, confidence), B, confidence, 0, interval)
    if interval == "skew-t":
        delta_ci = t_mean_ci(d, confidence) if n < 2 or np.all(d == d[0]) else skew_t_ci(d, MEAN, confidence)
        return BootstrapCI(delta_ci, skew_t_ci(np.c_[a, b], DROP_RATE, confidence), B, confidence, 0, interval)
    rng = rng_for(seed, "bootstrap", *key)
    ma = np.empty(B)
    mb = np.empty(B)
    md = np.empty(B)
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        ma[i:i + c] = exact.row_means(a[idx])
        mb[i:i + c] = exact.row_means(b[idx])
        md[i:i + c] = exact.row_means(d[idx])
        i += c
    with np.errstate(divide="ignore", invalid="ignore"):
        drop = np.where(ma != 0.0, (ma - mb) / np.where(ma != 0.0, ma, 1.0), np.nan)
        mean_a, mean_b = exact.mean(a), exact.mean(b)
        theta_dr = (mean_a - mean_b) / mean_a if mean_a != 0.0 else float("nan")
        if n >= 2:
            jd = (exact.fsum(d) - d) / (n - 1)
            ja = (exact.fsum(a) - a) / (n - 1)
            jb = (exact.fsum(b) - b) / (n - 1)
            jdr = np.where(ja != 0.0, (ja - jb) / np.where(ja != 0.0, ja, 1.0), np.nan)
    n_undef = int(np.sum(ma == 0.0))
    if interval == "percentile":
        return BootstrapCI(_percentile_ci(md, confidence), _percentile_ci(drop, confidence), B, confidence,
                           n_undef, interval)
    if n < 2:
        return BootstrapCI(nan2, nan2, B, confidence, n_undef, interval)
    if np.all(d == d[0]):
        delta_ci = (float(d[0]), float(d[0]))
    else:
        delta_ci = _bca_ci(exact.mean(d), md, jd, confidence)
    return BootstrapCI(delta_ci, _bca_ci(theta_dr, drop, jdr, confidence), B, confidence, n_undef, interval)


def bootstrap_mean_ci(x: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                      key: Sequence[str] = (), interval: str = DEFAULT_CI) -> Tuple[float, float]:
    """Confidence interval of mean(x): "t" (default) the Student t interval (:func:`t_mean_ci`;
    B and seed unused), "bca" / "percentile" a bootstrap interval (Generator derived from
    (seed, "bootstrap-mean", *key)). n < 2 -> NaN ("percentile": [x, x]); all equal -> [x, x]."""
    check_ci_args(confidence, interval)
    x = np.array(x, dtype=np.float64, copy=True).ravel()
    n = x.size
    if n == 0 or B < 1:
        return (float("nan"), float("nan"))
    if interval in ("t", "skew-t"):  # a per-set mean: the Student t interval
        return t_mean_ci(x, confidence)
    rng = rng_for(seed, "bootstrap-mean", *key)
    reps = np.concatenate([exact.row_means(x[idx]) for idx in bootstrap_index_chunks(n, B, rng)])
    if interval == "percentile":
        return _percentile_ci(reps, confidence)
    if n < 2:
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    return _bca_ci(exact.mean(x), reps, (exact.fsum(x) - x) / (n - 1), confidence)


def drop_rate(mean_a: float, mean_b: float) -> float:
    """(M_a - M_b) / M_a; NaN when M_a is 0."""
    return (mean_a - mean_b) / mean_a if mean_a != 0 else float("nan")


def wilson_ci(k: int, n: int, confidence: float = 0.95) -> Tuple[float, float]:
    """Wilson score interval of a binomial proportion k / n (two-sided, central):
    (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z the normal 1 - alpha/2 quantile.
    Stays inside [0, 1] and is not degenerate at k = 0 or k = n. n = 0 -> NaN."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (float("nan"), float("nan"))
    from scipy import stats as st

    z = float(st.norm.ppf(1.0 - (1.0 - confidence) / 2.0))
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends: the bound is 0 at k = 0 and 1 at k = n
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def bootstrap_means(scores: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, key: Sequence[str] = ()) -> np.ndarray:
    """Means of k models in B bootstrap replicates; ``scores`` is (n_queries, k) on a SHARED
    query set and queries are resampled jointly across models. Returns a (B, k) array."""
    s = np.array(scores, dtype=np.float64, copy=True)
    if s.ndim != 2:
        raise ValueError("scores must be a (n_queries, n_models) array")
    n, k = s.shape
    rng = rng_for(seed, "bootstrap-rank", *key)
    out = np.empty((B, k))
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        acc = s[idx[:, 0]].copy()  # (c, k), summed over the resampled queries in a fixed order
        for j in range(1, n):
            acc += s[idx[:, j]]
        out[i:i + c] = acc / n
        i += c
    return out


def ranks_of(means: Any, higher_is_better: bool = True) -> np.ndarray:
    """Ranks along the last axis: 1 + number of models strictly better (ties share the best rank)."""
    m = np.array(means, dtype=np.float64, copy=True)
    if not higher_is_better:
        m = -m
    return 1 + np.sum(m[..., None, :] > m[..., :, None], axis=-1)


def bootstrap_ranks(scores: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, key: Sequence[str] = (),
                    higher_is_better: bool = True) -> np.ndarray:
    """Ranks (1 = best, ties share the best rank) of k models in B bootstrap replicates
    (queries resampled jointly across models). Returns a (B, k) int array."""
    return ranks_of(bootstrap_means(scores, B=B, seed=seed, key=key), higher_is_better)


def mean_ranks(scores_mean: Any, higher_is_better: bool = True) -> np.ndarray:
    """Point ranks (1 = best; ties share the best rank) of a vector of scores."""
    return ranks_of(scores_mean, higher_is_better)


