"""Every bench.evaluation.stats kernel against its reference implementation on generated data, edge cases
included (n = 1, n = 2, all differences zero, all equal and non-zero, ties, zero-heavy IR data):

* paired_ttest             <-> scipy.stats.ttest_rel
* wilcoxon_test            <-> scipy.stats.wilcoxon: method="exact" (no ties / zeros), a complete
                               permutation distribution (PermutationMethod(n_resamples=inf); ties,
                               zeros), method="asymptotic", correction=False (n' > 50)
* paired_randomization_test <-> scipy.stats.permutation_test(permutation_type="samples", n_resamples=inf)
* paired_bootstrap_ci / bootstrap_mean_ci: "t" <-> ttest_rel / ttest_1samp confidence_interval;
  "bca" / "percentile" <-> scipy.stats.bootstrap(method="BCa" / "percentile") fed the same
  Generator (hence the same resampled queries)
* adjust_pvalues           <-> statsmodels multipletests (holm, fdr_bh) and scipy false_discovery_control

Where bench.evaluation.stats has a documented convention for a degenerate case that differs from the
reference (all differences zero: p = 1, scipy: NaN), the test states the convention.
"""
import math
import warnings

import numpy as np
import pytest
from scipy import stats as sst

from bench.evaluation import stats as S
from runfactory import mrr_like, rng_for

ALTS = S.ALTERNATIVES


def _cases():
    """(name, a, b) pairs; values on a grid of 1/8 or reciprocal ranks so that sums of +-d are
    exact or far from ties (the references compare floating-point statistics exactly)."""
    out = []
    rng = rng_for(0, "reference")
    out.append(("n=2", np.array([0.25, 0.5]), np.array([0.5, 0.375])))
    out.append(("n=3", np.array([0.0, 0.5, 1.0]), np.array([0.25, 0.25, 1.0])))
    for n in (6, 9, 12, 15):
        a = rng.integers(0, 9, n) / 8
        out.append((f"ties-{n}", a, np.clip(a + rng.integers(-3, 4, n) / 8, 0, 1)))
    for n in (8, 14, 16):
        a = mrr_like(rng, n)
        b = np.where(rng.random(n) < 0.6, a, mrr_like(rng, n, p_hit=0.4))
        out.append((f"zero-heavy-{n}", a, b))
    for n in (5, 11, 16):
        a = rng.random(n)
        out.append((f"continuous-{n}", a, a + rng.normal(0.05, 0.2, n)))
    return out


CASES = _cases()
IDS = [c[0] for c in CASES]


# ------------------------------------------------------------------ t-test

@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("name,a,b", CASES, ids=IDS)
def test_ttest_vs_ttest_rel(name, a, b, alternative):
    r = S.paired_ttest(a, b, alternative=alternative)
    ref = sst.ttest_rel(b, a, alternative=alternative)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("alternative", ALTS)
def test_ttest_edge_cases_vs_ttest_rel(alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on degenerate input; bench.evaluation.stats must not
        ref_one = sst.ttest_rel([0.5], [0.1], alternative=alternative)
        ref_const = sst.ttest_rel(np.full(6, 0.25), np.zeros(6), alternative=alternative)
        ref_zero = sst.ttest_rel(np.full(6, 0.3), np.full(6, 0.3), alternative=alternative)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = S.paired_ttest([0.1], [0.5], alternative=alternative)
        const = S.paired_ttest(np.zeros(6), np.full(6, 0.25), alternative=alternative)  # all equal, non-zero
        zero = S.paired_ttest(np.full(6, 0.3), np.full(6, 0.3), alternative=alternative)
    assert math.isnan(one.pvalue) and math.isnan(ref_one.pvalue)
    assert const.statistic == ref_const.statistic == math.inf
    assert const.pvalue == ref_const.pvalue
    # all differences zero: scipy returns NaN, bench.evaluation.stats decides p = 1 (documented convention)
    assert math.isnan(ref_zero.pvalue) and zero.pvalue == 1.0 and "zero" in zero.note


# ------------------------------------------------------------------ Wilcoxon

@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("n", [2, 5, 10, 20, 35, 50])
def test_wilcoxon_vs_scipy_exact_without_ties(n, alternative):
    a = rng_for(n, "wx").random(n)
    b = a + rng_for(n, "wy").normal(0.1, 0.3, n)
    r = S.wilcoxon_test(a, b, alternative=alternative)
    ref = sst.wilcoxon(b - a, method="exact", alternative=alternative)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == ref.statistic
    assert r.method.startswith("exact conditional")


W_CASES = [c for c in CASES if c[1].size <= 12]  # scipy re-ranks each of the 2^n permutations: keep n small


@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("name,a,b", W_CASES, ids=[c[0] for c in W_CASES])
def test_wilcoxon_vs_complete_permutation_distribution(name, a, b, alternative):
    # ties and zeros: scipy's own exact option assumes untied integer ranks; a complete permutation
    # distribution of scipy's signed-rank statistic is the reference (zero signs change nothing)
    d = b - a
    if np.all(d == 0):
        pytest.skip("all differences zero (see test_wilcoxon_edge_cases)")
    r = S.wilcoxon_test(a, b, alternative=alternative)
    ref = sst.wilcoxon(d, zero_method="wilcox", alternative=alternative,
                       method=sst.PermutationMethod(n_resamples=np.inf))
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == pytest.approx(ref.statistic)


@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("n,zero_share", [(80, 0.0), (200, 0.5), (1000, 0.7)])
def test_wilcoxon_vs_scipy_asymptotic_beyond_threshold(n, zero_share, alternative):
    rng = rng_for(n, "wilcoxon-large")
    a = mrr_like(rng, n)
    b = np.where(rng.random(n) < zero_share, a, mrr_like(rng, n, p_hit=0.5))
    r = S.wilcoxon_test(a, b, alternative=alternative)
    ref = sst.wilcoxon(b - a, zero_method="wilcox", correction=False, method="asymptotic", alternative=alternative)
    assert int(np.sum(b != a)) > S.WILCOXON_EXACT_MAX_N and r.method.startswith("normal approximation")
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert r.statistic == pytest.approx(ref.statistic)


def test_wilcoxon_edge_cases():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(S.wilcoxon_test([0.1], [0.4]).pvalue)  # n = 1
        assert S.wilcoxon_test(np.full(5, 0.2), np.full(5, 0.2)).pvalue == 1.0  # all zero
        # one non-zero difference among n = 2: exact, 2 sign vectors
        assert S.wilcoxon_test([0.0, 0.5], [0.0, 0.75]).pvalue == 1.0
        assert S.wilcoxon_test([0.0, 0.5], [0.0, 0.75], alternative="greater").pvalue == 0.5
        # all equal and non-zero: n' tied mid-ranks; only the all-positive vector is as extreme
        r = S.wilcoxon_test(np.zeros(7), np.full(7, 0.25), alternative="greater")
        assert r.pvalue == 2.0 ** -7 and r.statistic == 28.0
    assert sst.wilcoxon(np.full(7, 0.25), method="exact", alternative="greater").pvalue == 2.0 ** -7


# ------------------------------------------------------------------ randomization

@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("name,a,b", CASES, ids=IDS)
def test_randomization_vs_permutation_test(name, a, b, alternative):
    r = S.paired_randomization_test(a, b, alternative=alternative)
    ref = sst.permutation_test((b - a,), np.mean, permutation_type="samples", n_resamples=np.inf, vectorized=True,
                               alternative=alternative)
    assert r.method.startswith("exact") or "observed mean difference is 0" in r.note
    assert r.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert r.statistic == pytest.approx(ref.statistic)


@pytest.mark.parametrize("alternative", ALTS)
def test_randomization_edge_cases_vs_permutation_test(alternative):
    const = S.paired_randomization_test(np.zeros(6), np.full(6, 0.25), alternative=alternative)
    ref = sst.permutation_test((np.full(6, 0.25),), np.mean, permutation_type="samples", n_resamples=np.inf,
                               alternative=alternative)
    assert const.pvalue == pytest.approx(ref.pvalue, abs=1e-15)
    # all zero: every sign vector is as extreme in every direction; p = 1 (scipy agrees)
    zero = S.paired_randomization_test(np.full(6, 0.3), np.full(6, 0.3), alternative=alternative)
    ref0 = sst.permutation_test((np.zeros(6),), np.mean, permutation_type="samples", n_resamples=np.inf,
                                alternative=alternative)
    assert zero.pvalue == ref0.pvalue == 1.0
    assert math.isnan(S.paired_randomization_test([0.1], [0.3], alternative=alternative).pvalue)


# ------------------------------------------------------------------ confidence intervals

def _delta(x, y, axis=-1):
    return np.mean(y - x, axis=axis)  # mean(d), computed as bench.evaluation.stats does (same rounding)


def _drop(x, y, axis=-1):
    mx = np.mean(x, axis=axis)
    return (mx - np.mean(y, axis=axis)) / mx


CI_CASES = [c for c in CASES if c[0] not in ("n=2",)]


def _rounding_ties(reps, theta):
    return bool(np.any((np.abs(reps - theta) < 1e-9) & (reps != theta)))


@pytest.mark.parametrize("name,a,b", CASES, ids=IDS)
def test_t_intervals_vs_scipy(name, a, b):
    ci = S.paired_bootstrap_ci(a, b, interval="t")
    d = b - a
    if np.all(d == d[0]):
        pytest.skip("constant differences (see the degenerate tests)")
    ref = sst.ttest_rel(b, a).confidence_interval(0.95)
    assert ci.delta == pytest.approx((ref.low, ref.high), rel=1e-10, abs=1e-14)
    ref_m = sst.ttest_1samp(a, 0.0).confidence_interval(0.90)
    assert S.bootstrap_mean_ci(a, confidence=0.90) == pytest.approx((ref_m.low, ref_m.high), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("name,a,b", CI_CASES, ids=[c[0] for c in CI_CASES])
def test_bootstrap_intervals_vs_scipy_bootstrap(name, a, b, method):
    if np.all(b - a == (b - a)[0]) or np.mean(a) == 0:
        pytest.skip("degenerate for scipy")
    B, seed, key = 999, 7, ("ref", name)  # B <= the chunk size: the same draws as scipy's single batch
    ci = S.paired_bootstrap_ci(a, b, B=B, seed=seed, key=key, interval=method)
    sm = "BCa" if method == "bca" else "percentile"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's DegenerateDataWarning on tiny samples
        ref_d = sst.bootstrap((a, b), _delta, paired=True, vectorized=True, method=sm, n_resamples=B,
                              rng=S.rng_for(seed, "bootstrap", *key)).confidence_interval
        ref_r = sst.bootstrap((a, b), _drop, paired=True, vectorized=True, method=sm, n_resamples=B,
                              rng=S.rng_for(seed, "bootstrap", *key)).confidence_interval
        ref_m = sst.bootstrap((b,), np.mean, method=sm, n_resamples=B,
                              rng=S.rng_for(seed, "bootstrap-mean", *key)).confidence_interval
    # scipy's BCa counts replicates equal to theta by exact float comparison; bench.evaluation.stats treats
    # replicates within rounding of theta as ties. Compare where that cannot matter.
    idx = S.rng_for(seed, "bootstrap", *key).integers(0, a.size, size=(B, a.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "percentile" or not _rounding_ties(_delta(a[idx], b[idx]), _delta(a, b)):
            assert ci.delta == pytest.approx((ref_d.low, ref_d.high), rel=1e-9, abs=1e-12)
        ties_r = _rounding_ties(_drop(a[idx], b[idx]), _drop(a, b))
    if ci.n_undefined_drop == 0 and (method == "percentile" or not ties_r):
        assert ci.drop_rate == pytest.approx((ref_r.low, ref_r.high), rel=1e-9, abs=1e-12)
    idx_m = S.rng_for(seed, "bootstrap-mean", *key).integers(0, b.size, size=(B, b.size))
    if not np.all(b == b[0]) and (method == "percentile" or not _rounding_ties(np.mean(b[idx_m], axis=1), np.mean(b))):
        got = S.bootstrap_mean_ci(b, B=B, seed=seed, key=key, interval=method)
        assert got == pytest.approx((ref_m.low, ref_m.high), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("interval", S.CI_METHODS)
def test_interval_edge_cases(interval):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for a, b in (([0.3], [0.3]), (np.zeros(4), np.zeros(4)), (np.full(5, 0.5), np.full(5, 0.75)),
                     ([0.25, 0.5], [0.5, 0.375]), (np.r_[1.0, np.zeros(11)], np.r_[0.5, np.zeros(10), 1.0])):
            ci = S.paired_bootstrap_ci(a, b, B=200, interval=interval)
            d = np.asarray(b) - np.asarray(a)
            if len(d) >= 2 and np.all(d == d[0]):
                assert ci.delta == (d[0], d[0])
            for lo, hi in (ci.delta, ci.drop_rate):
                assert (math.isnan(lo) and math.isnan(hi)) or lo <= hi


# ------------------------------------------------------------------ multiple comparisons

P_FAMILIES = [np.array([0.01, 0.04, 0.03, 0.5]), np.array([0.2]), np.array([0.001, 0.001, 0.9, 0.049, 0.05]),
              rng_for(0, "pfam").random(30), rng_for(1, "pfam").random(7) ** 3, np.array([0.0, 1.0, 0.5])]


@pytest.mark.parametrize("p", P_FAMILIES)
def test_corrections_vs_statsmodels(p):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    for ours, theirs in (("holm", "holm"), ("bh", "fdr_bh")):
        ref = multitest.multipletests(p, method=theirs)[1]
        assert np.allclose(S.adjust_pvalues(p, ours), ref, rtol=1e-12, atol=1e-15)
    assert np.allclose(S.adjust_pvalues(p, "bh"), sst.false_discovery_control(p, method="bh"))
    # NaN entries are left out of the family
    withnan = np.r_[p, np.nan]
    adj = S.adjust_pvalues(withnan, "holm")
    assert np.isnan(adj[-1]) and np.allclose(adj[:-1], multitest.multipletests(p, method="holm")[1])


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 10), (10, 10), (1, 2), (3, 7), (124, 200), (71, 198),
                                 (199, 200), (5, 1000)])
@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_wilson_ci_vs_statsmodels(k, n, confidence):
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    ref = proportion.proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    got = S.wilson_ci(k, n, confidence)
    assert got == pytest.approx(ref, abs=1e-12)
    assert 0.0 <= got[0] <= k / n <= got[1] <= 1.0
    if k == 0:
        assert got[0] == 0.0
    if k == n:
        assert got[1] == 1.0


def test_wilson_ci_edges():
    assert all(math.isnan(v) for v in S.wilson_ci(0, 0))
    for k, n in ((3, 2), (-1, 4)):
        with pytest.raises(ValueError):
            S.wilson_ci(k, n)
    # wider at higher confidence, narrower with more data
    assert S.wilson_ci(5, 10, 0.99)[1] > S.wilson_ci(5, 10, 0.95)[1]
    assert S.wilson_ci(50, 100)[1] < S.wilson_ci(5, 10)[1]
