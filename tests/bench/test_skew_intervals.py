"""bench.evaluation.skew: the skewness-widened t interval every drop rate and difference is printed
with, against references (scipy's t intervals; Hall's transformation inverted numerically; the
interval's coverage on sparse one-sided changes), on generated data with edge cases, and the
"interval unreliable" rule."""
import functools
import math

import numpy as np
import pytest
from scipy import optimize, stats as sst

from bench.evaluation import stats as S
from bench.evaluation.draws import draw_summary
from bench.evaluation.droprate import compare_drop_rates, difference_interval
from bench.evaluation.skew import (AVERAGE_DROP_RATE, DROP_RATE, DROP_RATE_DIFFERENCE, MEAN, MIN_CHANGED,
                                   changed_note, hall_ci, skew_t_ci, t_ci, t_drop_rate_ci)


def _sparse(rng, n, share=0.2):
    """RR-like ORIGINAL values, a few queries losing a lot (one-sided, skewed)."""
    o = np.where(rng.random(n) < 0.5, 0.0, 1.0 / rng.integers(1, 11, n))
    hurt = rng.random(n) < share
    return o, np.where(hurt, o * rng.choice([0.0, 0.5], n), o)


def _hall_reference(x, stat, confidence=0.95):
    """Hall's interval by solving h(T) = -+q numerically on the forward cubic (not the closed form)."""
    x = np.asarray(x, float).reshape(len(x), -1)
    n = x.shape[0]
    m = x.mean(axis=0)
    u = (x - m) @ stat.grad(m)
    se = u.std(ddof=1) / math.sqrt(n)
    g = np.mean(u ** 3) / np.mean(u ** 2) ** 1.5
    a, c = g / (3 * math.sqrt(n)), g / (6 * math.sqrt(n))
    q = sst.t.ppf(1 - (1 - confidence) / 2, n - 1)

    def h(t):
        return t + a * t * t + a * a * t ** 3 / 3 + c

    t_hi, t_lo = (optimize.brentq(lambda t, y=y: h(t) - y, -1e3, 1e3, xtol=1e-14) for y in (q, -q))
    theta = float(stat.theta(m))
    return theta - se * t_hi, theta - se * t_lo


@pytest.mark.parametrize("seed,n", [(0, 5), (1, 30), (2, 100), (3, 400)])
def test_hall_interval_equals_the_numerical_inverse(seed, n):
    rng = np.random.default_rng(seed)
    o, v = _sparse(rng, n, 0.3)
    o[:3], v[:3] = [1.0, 0.5, 1.0], [0.0, 0.5, 0.5]  # losses of two sizes and an unchanged query
    assert hall_ci(np.c_[o, v], DROP_RATE) == pytest.approx(_hall_reference(np.c_[o, v], DROP_RATE), rel=1e-9)
    assert hall_ci(v - o, MEAN) == pytest.approx(_hall_reference(v - o, MEAN), rel=1e-9)
    x = np.c_[o, v, o, np.where(rng.random(n) < 0.5, v, o)]
    assert hall_ci(x, DROP_RATE_DIFFERENCE) == pytest.approx(_hall_reference(x, DROP_RATE_DIFFERENCE), rel=1e-9)


def test_t_part_is_scipys_and_the_union_is_taken():
    rng = np.random.default_rng(5)
    a, b = _sparse(rng, 60)
    d = b - a
    ref = sst.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert t_ci(d, MEAN) == pytest.approx((ref.low, ref.high), rel=1e-12)
    assert t_ci(np.c_[a, b], DROP_RATE) == t_drop_rate_ci(a, b)
    for x, st in ((d, MEAN), (np.c_[a, b], DROP_RATE)):
        lo1, hi1 = t_ci(x, st)
        lo2, hi2 = hall_ci(x, st)
        assert skew_t_ci(x, st) == (min(lo1, lo2), max(hi1, hi2))
    # losses only: the skew points up, so the upper end is Hall's and lies above the t interval's
    lo, hi = skew_t_ci(np.c_[a, b], DROP_RATE)
    assert hi > t_drop_rate_ci(a, b)[1] and lo == t_drop_rate_ci(a, b)[0]
    ci = S.paired_bootstrap_ci(a, b)
    assert ci.interval == "skew-t" and ci.drop_rate == (lo, hi) and ci.delta == skew_t_ci(d, MEAN)


def test_symmetric_differences_give_the_t_interval():
    d = np.array([-0.3, -0.1, 0.0, 0.1, 0.3, -0.2, 0.2, 0.05, -0.05, 0.0]) + 0.04
    ref = sst.ttest_1samp(d, 0.0).confidence_interval(0.9)
    assert hall_ci(d, MEAN, 0.9) == pytest.approx((ref.low, ref.high), rel=1e-12)
    assert skew_t_ci(d, MEAN, 0.9) == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_other_statistics_against_their_definition():
    rng = np.random.default_rng(9)
    o, v = _sparse(rng, 50, 0.4)
    o[:3] = 1.0
    mask = rng.random(50) < 0.6
    mask[:3] = True
    x = np.c_[o * mask, v * mask, o, v]
    m = x.mean(axis=0)
    assert float(AVERAGE_DROP_RATE.theta(m)) == pytest.approx(
        ((1 - v[mask].sum() / o[mask].sum()) + (1 - v.sum() / o.sum())) / 2)
    # the gradient is the derivative of theta (finite differences)
    for st, z in ((AVERAGE_DROP_RATE, x), (DROP_RATE_DIFFERENCE, np.c_[o, v, v + 0.1, o])):
        mm = z.mean(axis=0)
        num = [(st.theta(mm + e) - st.theta(mm - e)) / 2e-7 for e in np.eye(mm.size) * 1e-7]
        assert np.allclose(st.grad(mm), num, rtol=1e-5, atol=1e-7)


def test_edge_cases_give_no_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nan2 = (True, True)
        assert tuple(map(math.isnan, skew_t_ci(np.c_[[0.5], [0.2]], DROP_RATE))) == nan2  # n = 1
        assert tuple(map(math.isnan, skew_t_ci(np.zeros((5, 2)), DROP_RATE))) == nan2  # M_ORIGINAL = 0
        assert skew_t_ci(np.c_[np.full(6, 0.4), np.full(6, 0.4)], DROP_RATE) == pytest.approx((0.0, 0.0))
        a = np.array([0.2, 0.5, 1.0, 0.25])
        assert skew_t_ci(np.c_[a, 0.8 * a], DROP_RATE) == pytest.approx((0.2, 0.2))  # proportional
        assert skew_t_ci(np.c_[a, np.zeros(4)], DROP_RATE) == (1.0, 1.0)  # every value lost
        assert skew_t_ci(np.zeros(7), MEAN) == (0.0, 0.0)
        ci = S.paired_bootstrap_ci(np.full(8, 0.4), np.full(8, 0.9))  # every difference equal
        assert ci.delta == (0.5, 0.5)
        two = skew_t_ci(np.c_[[1.0, 0.5], [0.0, 0.5]], DROP_RATE)
        assert all(math.isfinite(v) for v in two) and two[0] <= 2 / 3 <= two[1]
        same = np.c_[[0.1, 0.3, 0.7, 0.9], [0.1, 0.3, 0.7, 0.9]]  # no query changed: exactly [0, 0]
        assert skew_t_ci(same, DROP_RATE) == (0.0, 0.0)
        big = skew_t_ci(np.c_[[1.0, 0.2, 0.3, 0.1, 0.5], [0.0, 0.2, 0.3, 0.1, 0.5]], DROP_RATE)
        assert big[1] == 1.0 and hall_ci(np.c_[[1.0, 0.2, 0.3, 0.1, 0.5], [0.0, 0.2, 0.3, 0.1, 0.5]], DROP_RATE)[1] > 1
        one_changed = np.r_[np.ones(29), 0.0]
        lo, hi = skew_t_ci(np.c_[np.ones(30), one_changed], DROP_RATE)
        assert lo <= 1 / 30 <= hi


def test_the_unreliable_rule():
    assert MIN_CHANGED == 10
    assert changed_note(6, 30) == "interval unreliable: 6 of 30 queries changed"
    assert changed_note(9, 884) == "interval unreliable: 9 of 884 queries changed"
    assert changed_note(10, 30) is None and changed_note(0, 1) is None  # n < 2: no interval to flag
    rng = np.random.default_rng(2)
    o = rng.random(30)
    v = o.copy()
    v[:6] *= 0.2
    s = draw_summary(o, np.c_[v, o, v])
    assert s["n_changed"] == 6 and s["interval_note"] == "interval unreliable: 6 of 30 queries changed"
    lo, hi, note = difference_interval(o, v, o, o)
    assert note == "interval unreliable: 6 of 30 queries changed"
    r = compare_drop_rates(o, v, o, o, n_resamples=200)
    assert "interval unreliable: 6 of 30 queries changed" in r.note and (r.ci_low, r.ci_high) == (lo, hi)
    v[:12] *= 0.5
    assert difference_interval(o, v, o, o)[2] is None


def test_variation_statistics_records_the_flag():
    import pandas as pd

    o = np.linspace(0.1, 1.0, 30)
    sparse = o.copy()
    sparse[:4] = 0.0
    rows = [("ORIGINAL", f"q{i}", 0, o[i]) for i in range(30)]
    rows += [("FEW", f"q{i}", int(i < 4), sparse[i]) for i in range(30)]
    rows += [("MANY", f"q{i}", 1, 0.5 * o[i]) for i in range(30)]
    df = pd.DataFrame(rows, columns=["set", "qid", "applied", "M"])
    out = S.variation_statistics(df, ["ORIGINAL", "FEW", "MANY"], ["M"])
    few, many = out["comparisons"]["FEW"]["M"], out["comparisons"]["MANY"]["M"]
    assert few["n_changed"] == 4 and few["interval_note"] == "interval unreliable: 4 of 30 queries changed"
    assert many["n_changed"] == 30 and many["interval_note"] is None
    assert out["header"]["bootstrap"]["interval"] == "skew-t"


@functools.lru_cache(maxsize=1)
def _population(big=1_000_000):
    rng = np.random.default_rng(123)
    rank = rng.geometric(0.25, big).astype(float)
    lam = np.where(rng.random(big) < 0.6, rng.gamma(0.5, 1.0, big), 0.0)

    def rr(r):
        return np.where(r <= 10, 1.0 / r, 0.0)

    return rr(rank), rr(rank + rng.poisson(lam))


def _coverage(interval, reps=1500, n=100):
    """Share of samples whose interval holds the population drop rate, on a population where 60 % of
    the queries can be hurt and a hurt query's rank drops by Poisson(Gamma(0.5, 1)) places (few
    queries lose a lot): the case issue 37 found the t interval at 89-93 %."""
    o_all, v_all = _population()
    truth = 1 - v_all.mean() / o_all.mean()
    rng = np.random.default_rng(7)
    hits = 0
    for r in range(reps):
        i = rng.integers(0, o_all.size, n)
        lo, hi = interval(o_all[i], v_all[i])
        hits += lo <= truth <= hi
    return hits / reps


def test_coverage_on_sparse_one_sided_losses():
    """The previous interval (t on the log ratio) under-covers here (91 %); the shipped one covers at
    least 93.5 % (it over-covers, 98.5 %: where losses are one-sided the union keeps the t interval's
    lower end; docs/statistics.md). Monte Carlo SE at 1,500 reps: 0.3-0.7 points; the data are fixed
    by the seed, so the figures are exact."""
    old = _coverage(lambda o, v: t_drop_rate_ci(o, v))
    new = _coverage(lambda o, v: S.paired_bootstrap_ci(o, v).drop_rate)
    hall = _coverage(lambda o, v: hall_ci(np.c_[o, v], DROP_RATE))
    assert old < 0.935 <= hall <= new
