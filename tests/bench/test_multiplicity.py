"""Max-T over jointly sign-flipped checks, pseudo-values, and the one-sided drop-rate swap test."""
import numpy as np
import pytest

from bench.evaluation import stats as S
from runfactory import rng_for


def _x(seed=0, k=4, n=80, shift=-0.25):
    rng = rng_for(seed, "maxt")
    return rng.normal(shift, 1.0, (k, n))


def test_single_row_matches_the_one_sided_t_test():
    x = _x(k=1)
    r = S.maxt_sign_flip(x, n_resamples=20000, seed=1)
    t = S.paired_ttest(np.zeros(x.shape[1]), x[0], alternative="less")
    assert abs(r.t[0] - t.statistic) < 1e-9
    assert abs(r.p_raw[0] - t.pvalue) < 0.01 and r.p_adjusted[0] == pytest.approx(r.p_raw[0])


def test_correlated_checks_cost_nothing_independent_ones_cost_like_sidak():
    x = _x(k=1)
    dup = np.vstack([x, x, x])  # three identical checks: one test
    r = S.maxt_sign_flip(dup, n_resamples=5000, seed=2)
    assert np.allclose(r.p_adjusted, r.p_raw[0])
    holm = S.adjust_pvalues(r.p_raw, "holm")
    assert holm[0] > 2.5 * r.p_adjusted[0]  # Holm pays for three
    rng = rng_for(3, "indep")
    ind = rng.normal(0, 1, (5, 400))
    ind[0] -= 0.15
    r = S.maxt_sign_flip(ind, n_resamples=5000, seed=2, step_down=False)
    sidak = 1 - (1 - r.p_raw[0]) ** 5
    assert abs(r.p_adjusted[0] - sidak) < 0.03


def test_step_down_is_never_less_powerful_and_is_deterministic():
    x = _x(seed=4, k=6)
    a = S.maxt_sign_flip(x, n_resamples=3000, seed=7)
    b = S.maxt_sign_flip(x, n_resamples=3000, seed=7)
    ss = S.maxt_sign_flip(x, n_resamples=3000, seed=7, step_down=False)
    assert np.array_equal(a.p_adjusted, b.p_adjusted) and np.array_equal(a.null_extreme, b.null_extreme)
    assert np.all(a.p_adjusted <= ss.p_adjusted + 1e-12)
    assert np.all(a.p_adjusted >= a.p_raw - 1e-12)
    assert a.critical_value(0.05) < -1.645  # stricter than one test


def test_direction_and_arguments():
    x = _x(k=2)
    less = S.maxt_sign_flip(x, n_resamples=2000, seed=0, alternative="less")
    greater = S.maxt_sign_flip(-x, n_resamples=2000, seed=0, alternative="greater")
    assert np.allclose(less.p_adjusted, greater.p_adjusted)
    better = S.maxt_sign_flip(-x, n_resamples=2000, seed=0)  # improvements are not regressions
    assert np.all(better.p_raw > 0.5) and np.all(better.t > 0)
    with pytest.raises(ValueError):
        S.maxt_sign_flip(x, alternative="two-sided")
    with pytest.raises(ValueError):
        S.maxt_sign_flip(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError):
        S.maxt_sign_flip(x[:, :1])


def test_constant_negative_row_is_maximally_significant():
    r = S.maxt_sign_flip(np.full((1, 30), -0.1), n_resamples=999, seed=0)
    assert r.t[0] == -np.inf and r.p_raw[0] == pytest.approx(1 / 1000)


def test_pseudovalues_have_the_check_as_their_mean():
    rng = rng_for(0, "pv")
    bo, bv, co, cv = (rng.random(50) for _ in range(4))
    x = S.drop_rate_pseudovalues(bo, bv, co, cv)
    dr = lambda o, v: (o.mean() - v.mean()) / o.mean()  # noqa: E731
    assert np.mean(x) == pytest.approx(dr(bo, bv) - dr(co, cv), abs=1e-12)
    assert np.all(np.isnan(S.drop_rate_pseudovalues(np.zeros(5), bv[:5], co[:5], cv[:5])))
    w = rng.random(50)
    w /= w.sum()
    b, c = rng.random(50), rng.random(50)
    assert np.mean(S.weighted_pseudovalues(b, c, w)) == pytest.approx(np.sum(w * (c - b)))
    with pytest.raises(ValueError):
        S.weighted_pseudovalues(b, c, w * 2)


def test_drop_rate_difference_test_is_one_sided_on_request():
    rng = rng_for(1, "drt")
    bo = rng.random(120) * 0.5 + 0.4
    bv = bo * 0.9
    co = bo.copy()
    cv = bo * 0.75 + rng.normal(0, 0.02, 120)  # the candidate drops more
    kw = dict(n_resamples=2000, seed=0)
    g = S.drop_rate_difference_test(bo, bv, co, cv, alternative="greater", **kw)
    lt = S.drop_rate_difference_test(bo, bv, co, cv, alternative="less", **kw)
    two = S.drop_rate_difference_test(bo, bv, co, cv, **kw)
    assert g.pvalue < 0.01 < 0.99 < lt.pvalue and g.alternative == "greater"
    assert two.pvalue >= g.pvalue
    with pytest.raises(ValueError):
        S.drop_rate_difference_test(bo, bv, co, cv, alternative="sideways")
