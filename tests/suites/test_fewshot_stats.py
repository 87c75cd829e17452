"""The few-shot significance test at the level of the headline: the statistic is the
macro-averaged R@10 difference (trials averaged per query), tested by a stratified sign-flip."""
import itertools
import math

import numpy as np
import pytest

from bench.evaluation.stats import paired_test
from bench.evaluation.stats import weighted_sign_flip_test
from bench.evaluation.strata import macro_weights
from suites.fewshot.metrics import class_scores, headline_comparison, macro

# unequal class sizes: the macro average (headline) and the micro (per-query) mean differ
TEST_BY_CLASS = {"a": ["a1", "a2", "a3", "a4", "a5"], "b": ["b1"], "c": ["c1", "c2", "c3"]}
ZERO = {"a1": 1, "a2": 1, "a3": 0, "a4": 0, "a5": 1, "b1": 0, "c1": 1, "c2": 0, "c3": 0}
TRIALS = [  # three K-shot trials
    {"a1": 1, "a2": 1, "a3": 1, "a4": 0, "a5": 1, "b1": 1, "c1": 1, "c2": 0, "c3": 0},
    {"a1": 1, "a2": 0, "a3": 1, "a4": 0, "a5": 1, "b1": 1, "c1": 1, "c2": 1, "c3": 0},
    {"a1": 1, "a2": 1, "a3": 0, "a4": 0, "a5": 1, "b1": 0, "c1": 0, "c2": 1, "c3": 0},
]


def brute_force_p(d, w):
    """Two-sided sign-flip p by enumerating every sign vector over ALL pairs."""
    x = np.asarray(w, float) * np.asarray(d, float)
    t = abs(x.sum())
    count = sum(abs(np.dot(s, x)) >= t - 1e-12 for s in itertools.product([-1.0, 1.0], repeat=x.size))
    return count / 2 ** x.size


def test_macro_weights_sum_to_one_and_reproduce_the_macro_average():
    qids, w = macro_weights(TEST_BY_CLASS, ["a", "b", "c", "empty"])
    assert qids == ["a1", "a2", "a3", "a4", "a5", "b1", "c1", "c2", "c3"]
    assert w.sum() == pytest.approx(1.0)
    assert w[0] == pytest.approx(1 / 15) and w[5] == pytest.approx(1 / 3) and w[6] == pytest.approx(1 / 9)
    vals = np.array([ZERO[q] for q in qids], float)
    assert float(w @ vals) == pytest.approx(macro(class_scores(ZERO, TEST_BY_CLASS), ["a", "b", "c"]))


def test_statistic_equals_the_headline_difference_with_unequal_classes():
    classes = ["a", "b", "c"]
    c = headline_comparison(ZERO, TRIALS, TEST_BY_CLASS, classes, test="randomization", seed=0)
    # the headline by hand: zero-shot per class a 3/5, b 0, c 1/3; trials' class means
    zero_macro = (3 / 5 + 0 + 1 / 3) / 3
    trial_macros = [(4 / 5 + 1 + 1 / 3) / 3, (3 / 5 + 1 + 2 / 3) / 3, (3 / 5 + 0 + 1 / 3) / 3]
    headline = float(np.mean(trial_macros))
    assert c["mean_zero_shot"] == pytest.approx(zero_macro)
    assert c["mean_k_shot"] == pytest.approx(headline)
    assert c["delta"] == pytest.approx(headline - zero_macro)
    assert c["statistic"] == pytest.approx(headline - zero_macro, abs=1e-12)
    assert c["delta_trials"] == pytest.approx([m - zero_macro for m in trial_macros])
    assert c["delta_sd_trials"] == pytest.approx(np.std([m - zero_macro for m in trial_macros], ddof=1))
    assert c["n"] == 9 and c["n_classes"] == 3 and c["unit"] == "query (weighted)"
    # the micro (per-query) mean difference is a different number: what the old test reported
    micro = np.mean([np.mean([t[q] for t in TRIALS]) - ZERO[q] for q in ZERO])
    assert abs(micro - c["statistic"]) > 0.05
    # the exact p-value is that of the weighted sign-flip over the trial-averaged differences
    qids, w = macro_weights(TEST_BY_CLASS, classes)
    d = [np.mean([t[q] for t in TRIALS]) - ZERO[q] for q in qids]
    assert c["p_value"] == pytest.approx(brute_force_p(d, w), abs=1e-12)
    assert c["method"].startswith("exact")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_equals_brute_force_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = 11
    d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 1 / 3], size=n)
    w = rng.choice([1 / 6, 1 / 9, 1 / 12, 1 / 3], size=n)
    res = weighted_sign_flip_test(d, w)
    assert res.method.startswith("exact")
    assert res.statistic == pytest.approx(float(np.sum(w * d)))
    assert res.pvalue == pytest.approx(brute_force_p(d, w), abs=1e-12)


def test_exact_p_with_ties_and_zeros():
    # equal weighted differences produce many sign vectors exactly as extreme as the observed one
    d = [1.0, 1.0, -1.0, 0.0, 0.5, 0.0]
    w = [0.25, 0.25, 0.25, 0.1, 0.5, 0.2]
    res = weighted_sign_flip_test(d, w)
    assert res.pvalue == pytest.approx(brute_force_p(d, w), abs=1e-12)
    assert "2^4" in res.method  # only the non-zero weighted differences are enumerated


def test_monte_carlo_is_seeded_and_close_to_exact():
    rng = np.random.default_rng(7)
    d = rng.choice([-1.0, 0.0, 1.0, 0.6], size=14)
    w = rng.choice([0.05, 0.1, 0.02], size=14)
    exact = weighted_sign_flip_test(d, w).pvalue
    mc = weighted_sign_flip_test(d, w, exact_max_n=0, n_resamples=4000, seed=3, key=("m", "K=5", "novel"))
    again = weighted_sign_flip_test(d, w, exact_max_n=0, n_resamples=4000, seed=3, key=("m", "K=5", "novel"))
    other = weighted_sign_flip_test(d, w, exact_max_n=0, n_resamples=4000, seed=4, key=("m", "K=5", "novel"))
    assert mc == again and mc.method.startswith("monte-carlo")
    assert mc.pvalue != other.pvalue
    b = mc.pvalue * 4001 - 1  # p = (b + 1) / (m + 1)
    assert b == pytest.approx(round(b), abs=1e-6)
    assert mc.pvalue == pytest.approx(exact, abs=0.03)


def test_degenerate_cases():
    one = weighted_sign_flip_test([1.0], [1.0])
    assert math.isnan(one.pvalue) and "< 2" in one.note
    zero = weighted_sign_flip_test([0.0, 0.0, 0.0], [0.2, 0.3, 0.5])
    assert zero.pvalue == 1.0
    cancel = weighted_sign_flip_test([1.0, -1.0], [0.5, 0.5])
    assert cancel.pvalue == 1.0
    with pytest.raises(ValueError):
        weighted_sign_flip_test([1.0, 2.0], [1.0])


def test_class_level_tests_have_the_headline_mean():
    classes = ["a", "b", "c"]
    c = headline_comparison(ZERO, TRIALS, TEST_BY_CLASS, classes, test="t-test")
    zc = [np.mean([ZERO[q] for q in TEST_BY_CLASS[k]]) for k in classes]
    kc = [np.mean([np.mean([t[q] for q in TEST_BY_CLASS[k]]) for t in TRIALS]) for k in classes]
    assert np.mean(np.subtract(kc, zc)) == pytest.approx(c["delta"])
    ref = paired_test(zc, kc, "t-test")
    assert c["unit"] == "class" and c["statistic"] == pytest.approx(ref.statistic)
    assert c["p_value"] == pytest.approx(ref.pvalue)


def test_single_run_setting_and_empty_split():
    c = headline_comparison(ZERO, [TRIALS[0]], TEST_BY_CLASS, ["a", "b", "c"])
    assert c["mean_k_shot"] == macro(class_scores(TRIALS[0], TEST_BY_CLASS), ["a", "b", "c"])
    assert c["delta_sd_trials"] is None and len(c["delta_trials"]) == 1
    empty = headline_comparison(ZERO, TRIALS, TEST_BY_CLASS, ["nothing"])
    assert empty["n"] == 0 and empty["mean_k_shot"] is None and math.isnan(empty["p_value"])
