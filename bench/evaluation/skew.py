"""The skewness-widened t interval drbench prints for every drop rate and difference, and the rule
that flags an interval resting on too few changed queries (docs/statistics.md, "Intervals where
few queries change"; measured by ``python -m benchmarks.interval_coverage``).

Every such figure is ``theta = f(M)``, a smooth function of the means ``M`` over queries of a few
per-query columns ``X`` (n, k): the drop rate ``1 - M_b / M_a`` of (a, b), a mean difference,
the mean of several sets' applied-only drop rates, the difference of two models' drop rates. A
:class:`Statistic` gives ``f`` and its gradient, hence the influence values
``u_i = grad f(M) . (x_i - M)`` and the delta-method ``se = SD(u) / sqrt(n)`` (ddof 1).

* :func:`t_ci`: the delta-method t interval ``theta -+ t_{n-1} se`` (for the drop rate,
  :func:`t_drop_rate_ci`, built on the log ratio, as in earlier versions);
* :func:`hall_ci`: Hall's (1992) skewness-corrected t interval (the t interval when u is
  symmetric, reaching further on the side u's skewness points to);
* :func:`skew_t_ci` (shipped): the union of the two. When a variation hurts a few queries a lot
  and leaves the rest alone, the drop rate's sampling distribution is skewed and a sample with
  fewer hurt queries shows both a smaller drop rate and a smaller SE, so the symmetric t interval
  lies below the true drop rate too often (61-89 % coverage, docs/statistics.md); the union takes Hall's
  upper end there and keeps the t interval where the changes are symmetric. No resampling:
  deterministic, no seed.
* :func:`changed_note`: fewer than :data:`MIN_CHANGED` changed queries -> "interval unreliable:
  k of n queries changed", printed beside the interval (no interval measured holds its coverage
  there).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np

from bench.evaluation import exact
from bench.evaluation.paired import paired_arrays

Array = np.ndarray
#: an interval resting on fewer changed queries than this is flagged (coverage: docs/statistics.md)
MIN_CHANGED = 10
#: the interval's known limit, said beside its method wherever it is printed (docs/statistics.md,
#: "Where it still falls short": no statistic of such a sample can see the losses it lacks)
SHORTFALL = ("it may fall short of its level without a flag: by 1-3 points where a few rare queries carry most "
             "of a one-sided loss, by more where data like these are usually flagged (the unflagged samples run "
             "high); docs/statistics.md")
SKEW_T_DESCRIPTION = ("skewness-widened t interval: the union of the delta-method t interval (drop rate: on "
                      "log(M_other/M_baseline)) and Hall's (1992) skewness-corrected t interval of the same "
                      "influence values; t_{n-1} quantiles; no resampling")


def changed_note(n_changed: int, n: int) -> Optional[str]:
    """The flag printed beside an interval resting on fewer than MIN_CHANGED changed queries."""
    if n >= 2 and n_changed < MIN_CHANGED:
        return f"interval unreliable: {n_changed} of {n} queries changed"
    return None


@dataclass(frozen=True)
class Statistic:
    """``theta(M)`` and ``grad(M)`` on means of shape (..., k); NaN where undefined."""

    name: str
    theta: Callable[[Array], Array]
    grad: Callable[[Array], Array]


def _ratio_defined(den: Array) -> Array:
    return np.where(den != 0.0, den, np.nan)


def _drop_theta(m: Array) -> Array:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 - m[..., 1] / _ratio_defined(m[..., 0])


def _drop_grad(m: Array) -> Array:
    with np.errstate(divide="ignore", invalid="ignore"):
        a = _ratio_defined(m[..., 0])
        return np.stack([m[..., 1] / (a * a), -1.0 / a], axis=-1)


#: the drop rate 1 - M_b / M_a of the columns (a, b)
DROP_RATE = Statistic("drop rate", _drop_theta, _drop_grad)
#: the mean of one column (e.g. d = b - a)
MEAN = Statistic("mean", lambda m: m[..., 0], lambda m: np.ones_like(m))


def _diff_theta(m: Array) -> Array:
    return _drop_theta(m[..., 2:4]) - _drop_theta(m[..., 0:2])


def _diff_grad(m: Array) -> Array:
    return np.concatenate([-_drop_grad(m[..., 0:2]), _drop_grad(m[..., 2:4])], axis=-1)


#: DR_B - DR_A of the columns (ORIGINAL_A, variation_A, ORIGINAL_B, variation_B)
DROP_RATE_DIFFERENCE = Statistic("difference of drop rates", _diff_theta, _diff_grad)


def _avg_theta(m: Array) -> Array:
    s = m.shape[-1] // 2
    total = _drop_theta(m[..., 0:2])
    for j in range(1, s):  # fixed order: the same bits on every CPU
        total = total + _drop_theta(m[..., 2 * j:2 * j + 2])
    return total / s


def _avg_grad(m: Array) -> Array:
    s = m.shape[-1] // 2
    return np.concatenate([_drop_grad(m[..., 2 * j:2 * j + 2]) for j in range(s)], axis=-1) / s


#: the mean over S sets of each set's drop rate, columns (a*mask_1, b*mask_1, ..., a*mask_S, b*mask_S)
AVERAGE_DROP_RATE = Statistic("mean of drop rates", _avg_theta, _avg_grad)


def delta_se(x: Array, stat: Statistic) -> float:
    """Delta-method SE of ``stat`` on the rows of ``x`` (n, k): SD of the influence values / sqrt(n)."""
    n = x.shape[0]
    return exact.sd(influence(x, stat)[1]) / math.sqrt(n)


def influence(x: Array, stat: Statistic) -> Tuple[Array, Array]:
    """The column means ``M`` of ``x`` (n, k) and the influence values ``u_i = grad f(M) . (x_i - M)``,
    reduced without BLAS (:mod:`bench.evaluation.exact`)."""
    m = exact.column_means(x)
    return m, exact.weighted_columns(x - m, stat.grad(m))


def _columns(x) -> Array:
    a = np.asarray(x, dtype=np.float64)
    return a[:, None] if a.ndim == 1 else a


def _t_quantile(confidence: float, n: int) -> float:
    from scipy import stats as st

    return float(st.t.ppf(1.0 - (1.0 - confidence) / 2.0, n - 1))


def t_mean_ci(x: Any, confidence: float = 0.95) -> Tuple[float, float]:
    """Student t interval of the mean: mean(x) +- t_{n-1, 1-alpha/2} SD(x) / sqrt(n), SD ddof=1.
    n < 2 -> NaN; all values equal to v -> [v, v]."""
    x = np.array(x, dtype=np.float64, copy=True).ravel()
    n = x.size
    if n < 2 or not np.all(np.isfinite(x)):
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    m = exact.mean(x)
    half = _t_quantile(confidence, n) * exact.sd(x) / math.sqrt(n)
    return (m - half, m + half)


def t_drop_rate_ci(a: Any, b: Any, confidence: float = 0.95) -> Tuple[float, float]:
    """Delta-method t interval of the drop rate R = 1 - rho, rho = M_b / M_a (ratio of means of
    paired samples). When rho > 0 the interval is built on log(rho), whose delta-method SE is
    SD(b_i / M_b - a_i / M_a) / sqrt(n) (SD ddof=1), and mapped back:
    [1 - rho exp(q se), 1 - rho exp(-q se)] with q = t_{n-1, 1-alpha/2} (so the upper end never
    exceeds 1). When rho <= 0 (e.g. every b is 0): the linear delta method, R +- q SD(u)/sqrt(n)
    with u_i = (a_i - b_i - R a_i) / M_a. n < 2 or M_a = 0 -> NaN."""
    a, b = paired_arrays(a, b)
    n = a.size
    nan2 = (float("nan"), float("nan"))
    if n < 2:
        return nan2
    ma, mb = exact.mean(a), exact.mean(b)
    if ma == 0.0:
        return nan2
    q = _t_quantile(confidence, n)
    rho = mb / ma
    if rho > 0.0:
        se = exact.sd(b / mb - a / ma) / math.sqrt(n)
        if se == 0.0:
            return (1.0 - rho, 1.0 - rho)
        return (1.0 - rho * exact.exp(q * se), 1.0 - rho * exact.exp(-q * se))
    r = 1.0 - rho
    half = q * exact.sd((a - b - r * a) / ma) / math.sqrt(n)
    return (r - half, r + half)


def hall_ci(x, stat: Statistic, confidence: float = 0.95) -> Tuple[float, float]:
    """Hall's (1992) skewness-corrected t interval of ``stat``: with the influence values ``u``
    (mean 0), ``se = SD(u)/sqrt(n)`` (ddof 1) and their skewness ``g = mean(u^3) / mean(u^2)^1.5``,
    the studentized statistic T is mapped by the monotone cubic
    ``h(T) = T + a T^2 + a^2 T^3 / 3 + c`` (``a = g / (3 sqrt(n))``, ``c = g / (6 sqrt(n))``), which
    removes T's first-order skewness, and the interval is ``[theta - se h^-1(q), theta - se
    h^-1(-q)]`` with q = t_{n-1, 1-alpha/2} and ``h^-1(y) = ((1 + 3a (y - c))^(1/3) - 1) / a``.
    With g = 0 it is the t interval. n < 2 or theta undefined -> NaN; se = 0 -> [theta, theta]."""
    x = _columns(x)
    n = x.shape[0]
    nan = float("nan")
    if n < 2:
        return nan, nan
    m, u = influence(x, stat)
    theta = float(stat.theta(m))
    if not math.isfinite(theta):
        return nan, nan
    m2 = exact.mean(u * u)
    se = exact.sd(u) / math.sqrt(n)
    if not (se > 0.0 and m2 > 0.0):
        return theta, theta
    g = exact.mean(u * u * u) / m2 ** 1.5
    q = _t_quantile(confidence, n)
    a, c = g / (3.0 * math.sqrt(n)), g / (6.0 * math.sqrt(n))

    def inverse(y: float) -> float:
        if abs(a) < 1e-12:
            return y - c
        return (exact.cbrt(1.0 + 3.0 * a * (y - c)) - 1.0) / a

    return theta - se * inverse(q), theta - se * inverse(-q)


def t_ci(x, stat: Statistic, confidence: float = 0.95) -> Tuple[float, float]:
    """The delta-method t interval ``theta -+ t_{n-1, 1-alpha/2} se`` of ``stat`` (for the drop rate
    of (a, b), :func:`bench.evaluation.intervals.t_drop_rate_ci`, built on the log ratio)."""
    x = _columns(x)
    n = x.shape[0]
    nan = float("nan")
    if n < 2:
        return nan, nan
    if stat is DROP_RATE:
        return t_drop_rate_ci(x[:, 0], x[:, 1], confidence)
    theta = float(stat.theta(exact.column_means(x)))
    if not math.isfinite(theta):
        return nan, nan
    half = _t_quantile(confidence, n) * delta_se(x, stat)
    return theta - half, theta + half


def skew_t_ci(x, stat: Statistic, confidence: float = 0.95) -> Tuple[float, float]:
    """The skewness-widened t interval: the union of :func:`t_ci` and :func:`hall_ci`. Where the
    per-query influence values are skewed (few queries lose a lot, the rest nothing) Hall's interval
    reaches further on the side the skew points to and the union takes that end; where they are
    symmetric the two agree and the union is the t interval. A drop rate of non-negative values is
    at most 1 (the upper end is clipped there); a degenerate t interval (no query changed, or b
    proportional to a) is returned as it is. No resampling (deterministic)."""
    lo1, hi1 = t_ci(x, stat, confidence)
    if not (math.isfinite(lo1) and math.isfinite(hi1)) or lo1 == hi1:  # undefined, or no query changed
        return lo1, hi1
    lo2, hi2 = hall_ci(x, stat, confidence)
    if not (math.isfinite(lo2) and math.isfinite(hi2)):
        return lo1, hi1
    lo, hi = min(lo1, lo2), max(hi1, hi2)
    if stat is DROP_RATE and np.all(_columns(x) >= 0.0):
        hi = min(hi, 1.0)  # a measure >= 0 loses at most everything: the drop rate is at most 1
    return lo, hi
