"""bench.evaluation.stats: values against scipy and hand computations, degenerate inputs, properties."""
import itertools
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as sst

from bench.evaluation import stats as S
from bench.core.io import canonical_json
from runfactory import per_query_frame, rng_for, synthetic_values


def _pair(seed, n, shift=0.1, ties=False):
    rng = rng_for(seed, "pair", str(n))
    a = rng.random(n)
    b = a + rng.normal(shift, 0.3, n)
    if ties:
        a = np.round(a * 4) / 4
        b = np.round(b * 4) / 4
    return a, b


# ------------------------------------------------------------------ against scipy

@pytest.mark.parametrize("n", [2, 3, 7, 30, 500])
def test_ttest_matches_scipy(n):
    a, b = _pair(1, n)
    r = S.paired_ttest(a, b)
    ref = sst.ttest_rel(b, a)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert r.n == n and r.method == f"df={n - 1}"


@pytest.mark.parametrize("alternative", S.ALTERNATIVES)
@pytest.mark.parametrize("n,ties", [(2, False), (3, False), (8, False), (8, True), (13, True), (16, False), (18, True)])
def test_exact_randomization_matches_scipy_permutation_test(n, ties, alternative):
    a, b = _pair(2, n, ties=ties)
    r = S.paired_randomization_test(a, b, alternative=alternative)
    ref = sst.permutation_test((b - a,), np.mean, permutation_type="samples", n_resamples=np.inf,
                               vectorized=True, alternative=alternative)
    assert r.method.startswith("exact") and r.alternative == alternative
    assert r.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert r.statistic == pytest.approx(np.mean(b - a))


def test_randomization_hand_computed():
    # d = (1, 2, 3): the 8 sign sums are +-6, +-4, +-2, 0, 0 -> |sum| >= 6 twice: p = 2/8
    r = S.paired_randomization_test([0, 0, 0], [1, 2, 3])
    assert r.pvalue == 0.25 and r.statistic == 2.0
    # d = (1, -1, 2): observed sum 2; |sum| >= 2 for (1,-1,2),(-1,1,2),(1,1,2)->4,(-1,-1,-2)... count by hand
    sums = [abs(s1 * 1 + s2 * -1 + s3 * 2) for s1 in (1, -1) for s2 in (1, -1) for s3 in (1, -1)]
    expected = sum(s >= 2 for s in sums) / 8
    assert S.paired_randomization_test([0, 0, 0], [1, -1, 2]).pvalue == expected


def test_monte_carlo_randomization_form_and_accuracy():
    a, b = _pair(3, 26, shift=0.12)
    exact = S.paired_randomization_test(a, b, exact_max_n=30)  # meet-in-the-middle, 2^26 vectors
    mc = S.paired_randomization_test(a, b, n_resamples=20000, seed=5)
    assert exact.method.startswith("exact") and mc.method.startswith("monte-carlo")
    # p = (b+1)/(m+1): (m+1) p is an integer >= 1
    k = mc.pvalue * 20001
    assert abs(k - round(k)) < 1e-6 and round(k) >= 1
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 20000)
    assert abs(mc.pvalue - exact.pvalue) < 5 * se + 1e-4


def test_monte_carlo_randomization_is_seeded():
    a, b = _pair(4, 300, shift=0.03)
    p1 = S.paired_randomization_test(a, b, seed=1).pvalue
    assert p1 == S.paired_randomization_test(a, b, seed=1).pvalue
    assert p1 != S.paired_randomization_test(a, b, seed=2).pvalue
    # the key separates comparisons: a different key draws a different stream
    assert p1 != S.paired_randomization_test(a, b, seed=1, key=("x",)).pvalue


@pytest.mark.parametrize("n", [5, 12, 40])
def test_wilcoxon_matches_scipy_exact_without_ties(n):
    # Before: compared with scipy method="auto", which uses the normal approximation as soon as
    # there are zeros (here 2) and n > 13; now the p-value is the exact conditional one.
    a, b = _pair(5, n)
    b[:2] = a[:2]  # zero differences: discarded ("wilcox")
    r = S.wilcoxon_test(a, b)
    ref = sst.wilcoxon(b - a, zero_method="wilcox", method="exact")
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.method.startswith("exact conditional (n_nonzero=" + str(n - 2))
    assert "2 zero differences discarded" in r.note


def test_wilcoxon_large_n_normal_approximation_matches_scipy():
    a, b = _pair(5, 300, ties=True)
    b[:2] = a[:2]
    r = S.wilcoxon_test(a, b)
    ref = sst.wilcoxon(b - a, zero_method="wilcox", method="asymptotic", correction=False)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.method.startswith("normal approximation") and "tie-corrected" in r.method
    assert f"{int(np.sum(b - a == 0))} zero differences discarded" in r.note


def test_wilcoxon_few_nonzero_among_many_zeros_is_exact():
    # 4 equal +0.1 differences among 30 queries: scipy's method="auto" says p = 0.0455 (normal
    # approximation); the exact conditional p is 2 * (1/2)^4 = 0.125
    a = np.zeros(30)
    b = np.r_[np.full(4, 0.1), np.zeros(26)]
    r = S.wilcoxon_test(a, b)
    assert r.pvalue == 0.125
    assert r.method == "exact conditional (n_nonzero=4, 2^4 sign vectors of the mid-ranks)"
    assert "26 zero differences discarded" in r.note
    assert S.wilcoxon_test(a, b, alternative="greater").pvalue == 0.0625
    assert S.wilcoxon_test(a, b, alternative="less").pvalue == 1.0
    assert S.wilcoxon_test(a[:4], b[:4]).pvalue == 0.125  # zeros change nothing


def _brute_wilcoxon(d, alternative):
    nz = d[d != 0]
    r = sst.rankdata(np.abs(nz))
    k = nz.size
    signs = 1 - 2 * ((np.arange(2 ** k)[:, None] >> np.arange(k)) & 1)  # all 2^k sign vectors
    wplus = ((signs > 0) * r).sum(axis=1)
    obs = r[nz > 0].sum()
    mid = r.sum() / 2
    if alternative == "greater":
        hit = wplus >= obs - 1e-9
    elif alternative == "less":
        hit = wplus <= obs + 1e-9
    else:
        hit = np.abs(wplus - mid) >= abs(obs - mid) - 1e-9
    return hit.mean()


@pytest.mark.parametrize("alternative", S.ALTERNATIVES)
def test_wilcoxon_exact_equals_brute_force_on_tied_data(alternative):
    for i in range(40):
        rng = rng_for(i, "wilcoxon-brute")
        k = int(rng.integers(1, 13))
        d = rng.integers(-3, 4, size=k).astype(float) / 4  # many ties and zeros
        d = np.r_[d, np.zeros(int(rng.integers(0, 5)))]
        if np.all(d == 0) or d.size < 2:
            continue
        r = S.wilcoxon_test(np.zeros_like(d), d, alternative=alternative)
        assert r.pvalue == pytest.approx(_brute_wilcoxon(d, alternative), abs=1e-15), (i, d)


wdiffs = hnp.arrays(np.float64, st.integers(2, 30), elements=st.integers(-4, 4).map(lambda x: x / 8))


@settings(max_examples=60, deadline=None)
@given(wdiffs, st.integers(1, 40))
def test_wilcoxon_invariant_to_zeros_and_symmetric_in_sign(d, zeros):
    z = np.zeros_like(d)
    dz = np.r_[d, np.zeros(zeros)]
    for alt in S.ALTERNATIVES:
        r = S.wilcoxon_test(z, d, alternative=alt)
        if np.all(d == 0):
            assert r.pvalue == 1.0
            continue
        assert S.wilcoxon_test(np.zeros_like(dz), dz, alternative=alt).pvalue == r.pvalue
    flip = {"two-sided": "two-sided", "less": "greater", "greater": "less"}
    for alt in S.ALTERNATIVES:
        assert S.wilcoxon_test(z, -d, alternative=flip[alt]).pvalue == S.wilcoxon_test(z, d, alternative=alt).pvalue


def test_randomization_exact_on_nonzero_differences_only():
    # 30 queries, 5 non-zero differences: exact over 2^5 sign vectors (was Monte Carlo: n = 30 > 20)
    d = np.r_[[0.3, -0.1, 0.25, 0.5, 0.2], np.zeros(25)]
    z = np.zeros(30)
    r = S.paired_randomization_test(z, d)
    assert r.method == "exact (2^5 sign vectors of the 5 non-zero differences)"
    assert "25 zero differences" in r.note
    nz = d[:5]
    sums = np.array([np.dot(s, nz) for s in itertools.product((1, -1), repeat=5)])
    assert r.pvalue == np.mean(np.abs(sums) >= abs(nz.sum()) - 1e-12)
    assert S.paired_randomization_test(z, d, alternative="greater").pvalue == np.mean(sums >= nz.sum() - 1e-12)
    assert S.paired_randomization_test(z, d, alternative="less").pvalue == np.mean(sums <= nz.sum() + 1e-12)
    # zeros change nothing, also on the Monte Carlo path (the resamples flip the non-zero ones only)
    assert S.paired_randomization_test(z[:5], d[:5]).pvalue == r.pvalue
    big = np.r_[_pair(9, 40)[1], np.zeros(60)]
    p1 = S.paired_randomization_test(np.zeros(100), big, seed=3, n_resamples=2000)
    p2 = S.paired_randomization_test(np.zeros(40), big[:40], seed=3, n_resamples=2000)
    assert p1.method.startswith("monte-carlo") and p1.pvalue == p2.pvalue


@settings(max_examples=40, deadline=None)
@given(wdiffs, st.integers(1, 30))
def test_randomization_invariant_to_appended_zeros(d, zeros):
    dz = np.r_[d, np.zeros(zeros)]
    for alt in S.ALTERNATIVES:
        assert (S.paired_randomization_test(np.zeros_like(d), d, alternative=alt).pvalue
                == S.paired_randomization_test(np.zeros_like(dz), dz, alternative=alt).pvalue)


@pytest.mark.parametrize("alternative", S.ALTERNATIVES)
@pytest.mark.parametrize("n", [2, 3, 7, 30])
def test_ttest_alternatives_match_scipy(n, alternative):
    a, b = _pair(1, n)
    r = S.paired_ttest(a, b, alternative=alternative)
    assert r.pvalue == pytest.approx(sst.ttest_rel(b, a, alternative=alternative).pvalue, rel=1e-9)
    assert r.alternative == alternative
    assert S.paired_test(a, b, "t-test", alternative=alternative) == r


def test_one_sided_pvalues_split_the_two_sided_one():
    a, b = _pair(7, 15, shift=-0.15)  # b worse
    for test in S.TESTS:
        two = S.paired_test(a, b, test).pvalue
        less = S.paired_test(a, b, test, alternative="less").pvalue
        greater = S.paired_test(a, b, test, alternative="greater").pvalue
        assert less < 0.5 < greater, test
        assert two == pytest.approx(min(1.0, 2 * min(less, greater)), rel=1e-9), test
    with pytest.raises(ValueError):
        S.paired_test(a, b, "t-test", alternative="two_sided")


def test_bh_matches_scipy_false_discovery_control():
    p = np.array([0.001, 0.2, 0.03, 0.04, 0.5, 0.012])
    assert np.allclose(S.adjust_pvalues(p, "bh"), sst.false_discovery_control(p, method="bh"))


# ------------------------------------------------------------------ hand computations

def test_holm_hand_computed():
    adj = S.adjust_pvalues([0.01, 0.04, 0.03, np.nan, 0.5], "holm")
    # sorted 0.01, 0.03, 0.04, 0.5 (m=4): 4*0.01, max(.04, 3*.03), max(.09, 2*.04), max(.09, .5)
    assert np.allclose(adj[[0, 2, 1, 4]], [0.04, 0.09, 0.09, 0.5])
    assert np.isnan(adj[3])
    assert S.family_size([0.01, np.nan, 0.2]) == 2
    assert np.allclose(S.adjust_pvalues([0.3, 0.01], "none"), [0.3, 0.01])
    assert np.allclose(S.adjust_pvalues([0.6, 0.4], "holm"), [0.8, 0.8])  # clipped monotone


def test_effect_sizes_and_wtl_by_hand():
    a = np.array([0.0, 0.0, 0.0, 0.5])
    b = np.array([1.0, 2.0, 3.0, 0.5])
    # d = 1, 2, 3, 0: mean 1.5, SD (ddof=1) = sqrt(5/3)
    assert S.mean_difference(a, b) == 1.5
    assert S.cohen_dz(a, b) == pytest.approx(1.5 / math.sqrt(5 / 3))
    assert S.win_tie_loss(a, b) == (3, 1, 0)
    assert S.win_tie_loss(b, a) == (0, 1, 3)
    assert S.win_tie_loss([0, 0], [0.01, -0.01], tie_tol=0.05) == (0, 2, 0)
    assert S.drop_rate(0.5, 0.4) == pytest.approx(0.2)
    assert math.isnan(S.drop_rate(0.0, 0.4))


def test_degenerate_inputs():
    z = np.full(10, 0.3)
    for test in S.TESTS:
        r = S.paired_test(z, z, test)
        assert r.pvalue == 1.0 and "zero" in r.note
        one = S.paired_test([0.1], [0.5], test)
        assert math.isnan(one.pvalue) and "< 2" in one.note
        empty = S.paired_test([], [], test)
        assert math.isnan(empty.pvalue)
    const = S.paired_ttest(np.zeros(5), np.full(5, 0.2))
    assert const.pvalue == 0.0 and const.statistic == math.inf
    assert math.isnan(S.cohen_dz(z, z)) and S.cohen_dz(np.zeros(3), np.ones(3)) == math.inf
    # randomization with mean difference exactly 0 but not all zero: p = 1
    assert S.paired_randomization_test([0, 0], [1, -1]).pvalue == 1.0
    with pytest.raises(ValueError):
        S.paired_ttest([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        S.paired_ttest([1, np.nan], [1, 2])


def test_confidence_intervals_basic():
    # The default is the (seed-free) skewness-widened t interval; "t" is the interval of earlier
    # versions, the bootstrap intervals are options.
    a, b = _pair(6, 400, shift=-0.05)
    assert S.paired_bootstrap_ci(a, b, B=2000, seed=3).interval == "skew-t"
    ci = S.paired_bootstrap_ci(a, b, B=2000, seed=3, interval="t")
    d = b - a
    se = d.std(ddof=1) / math.sqrt(d.size)
    lo, hi = ci.delta
    q = sst.t.ppf(0.975, d.size - 1)
    assert (lo, hi) == pytest.approx((d.mean() - q * se, d.mean() + q * se), rel=1e-12)
    dr = S.drop_rate(a.mean(), b.mean())
    assert ci.drop_rate[0] < dr < ci.drop_rate[1]
    assert ci == S.paired_bootstrap_ci(a, b, B=2000, seed=4, interval="t")  # no resampling
    assert S.paired_bootstrap_ci(a, b, seed=3) == S.paired_bootstrap_ci(a, b, seed=4)
    for interval in ("bca", "percentile"):
        boot = S.paired_bootstrap_ci(a, b, B=2000, seed=3, interval=interval)
        assert boot == S.paired_bootstrap_ci(a, b, B=2000, seed=3, interval=interval)
        assert boot != S.paired_bootstrap_ci(a, b, B=2000, seed=4, interval=interval)
        # any sensible interval of a mean of 400 values is close to the normal interval
        assert boot.delta[0] == pytest.approx(d.mean() - 1.96 * se, abs=0.3 * se)
        assert boot.delta[1] == pytest.approx(d.mean() + 1.96 * se, abs=0.3 * se)
        assert boot.drop_rate[0] < dr < boot.drop_rate[1]
    # a constant shift has a degenerate interval
    for interval in S.CI_METHODS:
        c = S.paired_bootstrap_ci(a, a + 0.25, B=200, interval=interval)
        assert c.delta == pytest.approx((0.25, 0.25))
        lo, hi = S.bootstrap_mean_ci(a, B=500, interval=interval)
        assert lo < a.mean() < hi
    with pytest.raises(ValueError):
        S.paired_bootstrap_ci(a, b, interval="bootstrap-t")


def test_drop_rate_t_interval_by_hand():
    a = np.array([0.5, 1.0, 0.0, 0.25, 1.0, 0.5])
    b = np.array([0.5, 0.5, 0.0, 0.0, 1.0, 0.25])
    rho = b.mean() / a.mean()
    se = np.std(b / b.mean() - a / a.mean(), ddof=1) / math.sqrt(6)
    q = sst.t.ppf(0.975, 5)
    assert S.t_drop_rate_ci(a, b) == pytest.approx((1 - rho * math.exp(q * se), 1 - rho * math.exp(-q * se)),
                                                   rel=1e-12)
    lo, hi = S.paired_bootstrap_ci(a, b).drop_rate
    assert lo < 1 - rho < hi <= 1
    # every variation value 0: drop rate 1 for every query -> [1, 1]; ORIGINAL mean 0 -> undefined
    assert S.t_drop_rate_ci(a, np.zeros(6)) == (1.0, 1.0)
    assert all(math.isnan(v) for v in S.t_drop_rate_ci(np.zeros(6), b))
    # b proportional to a: the drop rate is the same in every resample
    assert S.t_drop_rate_ci(a, 0.8 * a) == pytest.approx((0.2, 0.2))


@pytest.mark.parametrize("interval", S.CI_METHODS)
def test_confidence_interval_degenerate_cases_without_warnings(interval):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (or any other) may leak
        one = S.paired_bootstrap_ci([0.2], [0.5], B=100, interval=interval)
        if interval == "percentile":  # the bootstrap of one value
            assert one.delta == pytest.approx((0.3, 0.3))
        else:
            assert all(math.isnan(v) for v in one.delta + one.drop_rate)
        same = S.paired_bootstrap_ci(np.full(8, 0.4), np.full(8, 0.4), B=100, interval=interval)
        assert same.delta == (0.0, 0.0) and same.drop_rate == pytest.approx((0.0, 0.0))
        shift = S.paired_bootstrap_ci(np.zeros(8), np.full(8, 0.5), B=100, interval=interval)
        assert shift.delta == (0.5, 0.5) and all(math.isnan(v) for v in shift.drop_rate)  # M_a = 0
        assert S.bootstrap_mean_ci(np.full(5, 0.7), B=100, interval=interval) == (0.7, 0.7)
        assert all(math.isnan(v) for v in S.bootstrap_mean_ci([], interval=interval))
        # zero-heavy: a single non-zero ORIGINAL value (jackknife drop rate undefined once)
        a = np.r_[1.0, np.zeros(9)]
        b = np.r_[0.5, np.zeros(8), 0.25]
        c = S.paired_bootstrap_ci(a, b, B=300, interval=interval)
        assert c.delta[0] <= c.delta[1]
        if interval not in ("t", "skew-t"):
            assert c.n_undefined_drop > 0
        n2 = S.paired_bootstrap_ci([0.0, 1.0], [1.0, 1.0], B=100, interval=interval)
        assert n2.delta[0] <= 0.5 <= n2.delta[1]


def test_bootstrap_ranks_shared_queries():
    rng = rng_for(0, "ranks")
    base = rng.random(300)
    scores = np.column_stack([base + 0.3, base + 0.3 + rng.normal(0, 0.001, 300), base])
    ranks = S.bootstrap_ranks(scores, B=200)
    assert ranks.shape == (200, 3)
    assert np.all(ranks[:, 2] == 3)  # clearly worst in every replicate
    assert set(np.unique(ranks[:, :2])) <= {1, 2}
    assert list(S.mean_ranks([0.5, 0.7, 0.5])) == [2, 1, 2]


def test_drop_rate_difference_test():
    rng = rng_for(1, "drt")
    bo = rng.random(200)
    bv = bo * 0.9
    same = S.drop_rate_difference_test(bo, bv, bo, bv)
    assert same.pvalue == 1.0 and same.statistic == pytest.approx(0.0)
    worse = S.drop_rate_difference_test(bo, bv, bo, bo * 0.6, n_resamples=2000)
    assert worse.statistic == pytest.approx(0.3) and worse.pvalue < 0.01
    noise = S.drop_rate_difference_test(bo, bv, bo + rng.normal(0, 0.01, 200), bv + rng.normal(0, 0.01, 200),
                                        n_resamples=2000)
    assert noise.pvalue > 0.01


# ------------------------------------------------------------------ property tests

pvals = hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1))


@given(pvals)
def test_holm_and_bh_never_below_raw_and_monotone(p):
    for method in ("holm", "bh"):
        adj = S.adjust_pvalues(p, method)
        assert np.all(adj >= p - 1e-15)
        assert np.all((adj >= 0) & (adj <= 1))
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adj[order]) >= -1e-15)  # same order as the raw p-values
    assert np.all(S.adjust_pvalues(p, "holm") >= S.adjust_pvalues(p, "bh") - 1e-15)


diffs = hnp.arrays(np.float64, st.integers(2, 40),
                   elements=st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 3)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diffs, st.integers(0, 2**32 - 1))
def test_tests_deterministic_and_do_not_mutate(d, seed):
    a = np.zeros_like(d)
    b = d.copy()
    before = (a.copy(), b.copy())
    for test in S.TESTS:
        for alt in S.ALTERNATIVES:
            r1 = S.paired_test(a, b, test, seed=seed, n_resamples=300, alternative=alt)
            r2 = S.paired_test(a, b, test, seed=seed, n_resamples=300, alternative=alt)
            assert repr(r1) == repr(r2)
            assert 0.0 <= r1.pvalue <= 1.0
    for interval in S.CI_METHODS:
        c1 = S.paired_bootstrap_ci(a, b, B=50, seed=seed, interval=interval)
        assert repr(c1) == repr(S.paired_bootstrap_ci(a, b, B=50, seed=seed, interval=interval))
    assert np.array_equal(a, before[0]) and np.array_equal(b, before[1])


@settings(max_examples=30, deadline=None)
@given(diffs)
def test_randomization_pvalue_symmetric_in_sign(d):
    # flipping every difference leaves the two-sided p-value unchanged
    z = np.zeros_like(d)
    assert S.paired_randomization_test(z, d).pvalue == pytest.approx(S.paired_randomization_test(z, -d).pvalue)


# ------------------------------------------------------------------ variation_statistics

def test_variation_statistics_structure_and_values():
    vals = synthetic_values(0, n=150, sets=("MISSPELL", "SWAPWORD", "SAME"), drops={"MISSPELL": 0.4, "SWAPWORD": 0.05})
    vals["SAME"] = {m: v.copy() for m, v in vals["ORIGINAL"].items()}
    df = per_query_frame(vals)
    df_copy = df.copy()
    out = S.variation_statistics(df, ["ORIGINAL", "MISSPELL", "SWAPWORD", "SAME"], ["MRR@10", "nDCG@10"], seed=1,
                                 bootstrap=300)
    assert df.equals(df_copy)
    json.loads(canonical_json(out))  # finite floats or None only
    h = out["header"]
    assert h["test"] == "t-test" and h["sidedness"] == "two-sided" and h["correction"] == "holm"
    assert "ddof=1" in h["effect_size"] and h["bootstrap"]["B"] == 300 and h["seed"] == 1
    assert h["bootstrap"]["interval"] == "skew-t" and h["bootstrap"]["method"].startswith("skewness-widened t")
    assert h["family_size"] == {"MRR@10": 3, "nDCG@10": 3}
    assert out["sets"] == ["MISSPELL", "SWAPWORD", "SAME"]
    c = out["comparisons"]["MISSPELL"]["MRR@10"]
    a, b = vals["ORIGINAL"]["MRR@10"], vals["MISSPELL"]["MRR@10"]
    assert c["n"] == 150 and c["n_applied"] == 150
    assert c["mean_original"] == pytest.approx(a.mean()) and c["mean_variation"] == pytest.approx(b.mean())
    assert c["delta"] == pytest.approx(b.mean() - a.mean())
    assert c["drop_rate"] == pytest.approx((a.mean() - b.mean()) / a.mean())
    assert c["p_value"] == pytest.approx(sst.ttest_rel(b, a).pvalue)
    raw = [out["comparisons"][s]["MRR@10"]["p_value"] for s in ("MISSPELL", "SWAPWORD")]
    holm = S.adjust_pvalues(raw + [1.0], "holm")
    assert c["p_corrected"] == pytest.approx(holm[0])
    assert c["significant"] is True and c["delta_ci"][1] < 0 < c["drop_rate_ci"][0]
    assert c["d_z"] == pytest.approx(S.cohen_dz(a, b))
    assert (c["win"], c["tie"], c["loss"]) == S.win_tie_loss(a, b)
    same = out["comparisons"]["SAME"]["nDCG@10"]
    assert same["p_value"] == 1.0 and same["d_z"] is None and same["significant"] is False
    assert same["drop_rate"] == 0.0 and same["tie"] == 150


def test_variation_statistics_family_all_and_other_tests():
    vals = synthetic_values(1, n=60)
    df = per_query_frame(vals)
    for test in S.TESTS:
        out = S.variation_statistics(df, ["MISSPELL", "SWAPWORD"], ["MRR@10", "nDCG@10"], test=test, family="all",
                                     correction="bh", bootstrap=100)
        assert out["header"]["family_size"] == {"all": 4}
        assert out["header"]["test"] == test
        for s in out["sets"]:
            for m in out["measures"]:
                c = out["comparisons"][s][m]
                assert c["p_corrected"] >= c["p_value"]
    again = S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], test="randomization", seed=3, bootstrap=100)
    assert again == S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], test="randomization", seed=3, bootstrap=100)
    assert "randomization" in again["header"]


def test_variation_statistics_pairs_by_qid_and_rejects_bad_input():
    from bench.core.errors import DataError

    vals = synthetic_values(2, n=20, sets=("MISSPELL",))
    df = per_query_frame(vals)
    shuffled = df.sample(frac=1.0, random_state=0)
    a = S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], bootstrap=50)["comparisons"]["MISSPELL"]["MRR@10"]
    b = S.variation_statistics(shuffled, ["MISSPELL"], ["MRR@10"], bootstrap=50)["comparisons"]["MISSPELL"]["MRR@10"]
    assert a["p_value"] == pytest.approx(b["p_value"]) and a["delta"] == pytest.approx(b["delta"])
    with pytest.raises(DataError):
        S.variation_statistics(df, ["NOPE"], ["MRR@10"])
    with pytest.raises(DataError):
        S.variation_statistics(df, ["MISSPELL"], ["R@5"])
    with pytest.raises(ValueError):
        S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], test="z-test")


def test_variation_statistics_one_sided_and_interval_options():
    vals = synthetic_values(3, n=80, sets=("MISSPELL",), drops={"MISSPELL": 0.3})
    df = per_query_frame(vals)
    two = S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], bootstrap=200)
    less = S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], bootstrap=200, alternative="less", interval="bca")
    h = less["header"]
    assert h["alternative"] == "less" and h["sidedness"].startswith("one-sided (less")
    assert h["bootstrap"]["interval"] == "bca" and "BCa" in h["bootstrap"]["method"]
    c2, c1 = two["comparisons"]["MISSPELL"]["MRR@10"], less["comparisons"]["MISSPELL"]["MRR@10"]
    assert c1["p_value"] == pytest.approx(c2["p_value"] / 2)  # delta < 0: one-sided p is half
    assert c1["delta_ci"] != c2["delta_ci"]
    with pytest.raises(ValueError):
        S.variation_statistics(df, ["MISSPELL"], ["MRR@10"], alternative="worse")
    with pytest.raises(ValueError):
        S.statistics_header(test="t-test", correction="holm", seed=0, bootstrap=10, alpha=0.05, family="x",
                            interval="studentized")
