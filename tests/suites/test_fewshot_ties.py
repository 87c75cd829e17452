"""Winning ratio and per-class shading: a trial mean equal to zero-shot as a hit fraction is a tie,
even when the float means differ in the last bit."""
import numpy as np
import pytest

from bench.data.readers import load_beir
from suites.fewshot.metrics import summarise_trials
from suites.fewshot.sampler import build_plan
from tests.suites.test_fewshot_suite import write_labelled_beir


def _hits(plan, n_hit):
    """Per-query hits with ``n_hit[class]`` of each class's test queries hit (the first ones)."""
    out = {}
    for c, qs in plan.queries.test.items():
        for i, q in enumerate(sorted(qs)):
            out[q] = 1.0 if i < n_hit[c] else 0.0
    return out


@pytest.fixture
def plan(tmp_path):
    p = build_plan(load_beir(write_labelled_beir(tmp_path / "labelled")), seed=0, ks=[2], n_trials=2)
    assert {c: len(q) for c, q in p.queries.test.items()} == {"aero": 6, "food": 6, "heat": 6, "sea": 6}
    assert set(p.classes.novel) == {"aero", "food"}
    return p


def test_near_tie_of_float_means_is_not_a_win(plan):
    # aero: zero-shot 4/6; trials 3/6 and 5/6, mean 4/6 exactly, but the float mean of the two
    # float class scores is 0.6666666666666667 > 0.6666666666666666
    assert float(np.mean([3 / 6, 5 / 6])) > 4 / 6
    zero = _hits(plan, {"aero": 4, "food": 2, "heat": 3, "sea": 3})
    t1 = _hits(plan, {"aero": 3, "food": 4, "heat": 3, "sea": 2})
    t2 = _hits(plan, {"aero": 5, "food": 4, "heat": 4, "sea": 2})
    s = summarise_trials([t1, t2], zero, plan)
    assert s["winning_ratio"]["novel"] == 0.5  # food wins, aero ties
    assert s["winning_ratio"]["base"] == 0.5  # heat (3.5/6 > 3/6) wins, sea loses
    assert s["winning_ratio"]["all"] == 0.5
    assert s["winning_ratio_per_trial"]["novel"] == [0.5, 1.0]
    # the stored trial mean is the correctly rounded hit fraction, equal to zero-shot's float
    assert s["per_class_mean"]["aero"] == 4 / 6 == float(np.mean([1.0] * 4 + [0.0] * 2))


def test_report_does_not_shade_a_float_near_tie():
    from bench.reporting.report.fewshot import class_table

    result = {"plan": {"classes": {"novel": ["a", "b"], "base": []},
                       "class_sizes": {"a": {"test": 30, "train": 29}, "b": {"test": 30, "train": 29}}},
              "zero_shot": {"per_class": {"a": 0.43333333333333335, "b": 0.5}},
              "methods": {"m": {"k": {"5": {"per_class_mean": {"a": 0.4333333333333334, "b": 0.5333333333333333},
                                            "novel": {"mean": 0.5, "sd": 0.0}}}}}}
    _, rows = class_table(result)
    by = {r["class"]: r for r in rows}
    assert "_m K=5" not in by["a"]  # 43.3 vs 43.3: not shaded
    assert by["b"]["_m K=5"] == "better"
