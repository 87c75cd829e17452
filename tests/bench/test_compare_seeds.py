"""`bench compare`: a pair's Monte Carlo stream is keyed by the two runs' content, so its p-value
and interval do not depend on which other runs are on the command line, nor on the order."""
import pytest

from bench.reporting.compare import compare
from runfactory import synthetic_values, write_run


def _runs(tmp_path):
    a = write_run(tmp_path / "a", synthetic_values(1, n=200), model="model-a")
    b = write_run(tmp_path / "b", synthetic_values(2, n=200, drops={"MISSPELL": 0.35}), model="model-b")
    # a second run of model-a: with it on the command line model-a's rows get the folder as suffix
    c = write_run(tmp_path / "c", synthetic_values(3, n=200, drops={"SWAPWORD": 0.5}), model="model-a")
    return a, b, c


def _pair(table, run_a, run_b):
    (d,) = [d for d in table.drop_rates if {d["model_a"], d["model_b"]} == {run_a, run_b}]
    return d


def test_pair_p_value_does_not_depend_on_the_other_runs_or_the_order(tmp_path):
    a, b, c = _runs(tmp_path)
    ab = compare([a, b], resamples=500, seed=0)
    d_ab = _pair(ab, "model-a", "model-b")
    assert "monte-carlo" in d_ab["test_method"]  # the stream matters: n' is above the exact limit
    abc = compare([a, b, c], resamples=500, seed=0)
    assert abc.rows == ["model-a [a]", "model-b", "model-a [c]"]  # the labels change with C present
    d_abc = _pair(abc, "model-a [a]", "model-b")
    assert d_abc["p_value"] == d_ab["p_value"]
    assert (d_abc["ci_low"], d_abc["ci_high"]) == (d_ab["ci_low"], d_ab["ci_high"])
    ba = compare([b, a], resamples=500, seed=0)
    d_ba = _pair(ba, "model-a", "model-b")
    assert (d_ba["model_a"], d_ba["model_b"]) == ("model-b", "model-a")
    assert d_ba["p_value"] == d_ab["p_value"]
    assert d_ba["difference"] == pytest.approx(-d_ab["difference"])
    assert (d_ba["ci_low"], d_ba["ci_high"]) == pytest.approx((-d_ab["ci_high"], -d_ab["ci_low"]))
    # another seed is another stream
    assert compare([a, b], resamples=500, seed=1).drop_rates[0]["p_value"] != d_ab["p_value"]


def test_vs_original_p_values_do_not_depend_on_the_other_runs(tmp_path):
    a, b, c = _runs(tmp_path)
    alone = compare([a], test="randomization", seed=0)
    among = compare([c, b, a], test="randomization", seed=0)
    assert alone.cells[0]["MISSPELL"].vs_original["p_value"] == among.cells[2]["MISSPELL"].vs_original["p_value"]
