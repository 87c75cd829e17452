"""`bench gate`: self-gate passes, degraded candidate fails with reasons, incomparable or bad
inputs exit 2 naming the file, A/A false-alarm rate <= alpha (slow)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli.main import main
from bench.reporting.gate import GateOptions, gate_arrays, run_gate
from runfactory import degrade, rng_for, synthetic_values, write_run

ROOT = Path(__file__).resolve().parents[2]


def _copy(vals):
    return {s: {m: v.copy() for m, v in mm.items()} for s, mm in vals.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("gate")
    vals = synthetic_values(0, n=300)
    base = write_run(d / "base", vals)
    worse = _copy(vals)
    for s in ("ORIGINAL", "MISSPELL"):
        worse[s] = {m: degrade(rng_for(1, "worse", s, m), v, 0.3) for m, v in worse[s].items()}
    cand = write_run(d / "worse", worse)
    better = _copy(vals)
    better["SWAPWORD"] = {m: np.minimum(1.0, v * 1.3) for m, v in vals["SWAPWORD"].items()}
    return {"dir": d, "vals": vals, "base": base, "worse": cand, "better": write_run(d / "better", better)}


def _gate(capsys, *argv):
    code = main(["gate", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gate_against_itself_passes(runs, capsys):
    code, out, err = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["base"] / "result.json")
    assert code == 0, out + err
    assert "drbench gate: **PASS**" in out and "REGRESSED" not in out
    # the evidence: every condition, test, sidedness, correction, ddof
    for needle in ("two-sided", "Holm", "ddof=1", "family of 6 checks", "alpha = 0.05", "| metric | ORIGINAL |",
                   "| drop-rate | VARIATIONS (AVG.) |"):
        assert needle in out


def test_degraded_candidate_fails_and_says_why(runs, capsys, tmp_path):
    summary = tmp_path / "summary.md"
    verdict = tmp_path / "verdict.json"
    code, out, err = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["worse"], "--metric", "MRR@10",
                           "-o", summary, "--json", verdict)
    assert code == 1, out + err
    assert "drbench gate: **FAIL**" in out
    assert "MRR@10 on ORIGINAL fell by" in out and "MRR@10 on MISSPELL fell by" in out
    assert "p_holm =" in out and "beyond tolerance 0" in out
    assert summary.read_text() == out
    data = json.loads(verdict.read_text())
    assert data["exit_code"] == 1 and data["passed"] is False
    regressed = {(c["kind"], c["set"]) for c in data["checks"] if c["regressed"]}
    assert ("metric", "ORIGINAL") in regressed and ("metric", "MISSPELL") in regressed
    assert ("metric", "SWAPWORD") not in regressed


def test_improvement_passes_and_tolerances_apply(runs):
    assert run_gate(runs["base"], runs["better"]).passed
    v = run_gate(runs["base"], runs["worse"], GateOptions(max_regression=0.5, max_drop_rate=0.5))
    assert v.passed  # drops are significant but within tolerance
    assert any(c.significant for c in v.checks) and not any(c.beyond_tolerance for c in v.checks)
    v = run_gate(runs["base"], runs["worse"], GateOptions(max_regression=0.5, max_drop_rate=0.5, require="significance"))
    assert not v.passed
    v = run_gate(runs["base"], runs["worse"], GateOptions(require="drop", max_regression=0.5, max_drop_rate=0.5))
    assert v.passed


def test_require_drop_ignores_significance():
    rng = rng_for(0, "tiny")
    base = {"ORIGINAL": rng.random(50), "A": rng.random(50)}
    cand = {"ORIGINAL": base["ORIGINAL"].copy(), "A": base["A"].copy()}
    cand["A"][0] -= 0.05  # one query slightly worse: not significant, but a drop
    assert gate_arrays(base, cand).passed
    v = gate_arrays(base, cand, GateOptions(require="drop"))
    assert not v.passed and {c.set for c in v.regressions} == {"A"}


@pytest.mark.parametrize("change,message", [
    ({"seed": 1}, "different seed"),
    ({"suite": "other"}, "different suite"),
    ({"dataset_fingerprint": "ffff"}, "different dataset fingerprint"),
    ({"set_fingerprints": {"MISSPELL": "abcd"}}, "fingerprint of variation set 'MISSPELL'"),
    ({"missing_sets": ["SWAPSYN-GLOVE"]}, "SWAPSYN-GLOVE"),
    ({"qids": [f"x{i}" for i in range(300)]}, "not on the same queries"),
])
def test_incomparable_runs_exit_2(runs, capsys, tmp_path, change, message):
    other = write_run(tmp_path / "other", runs["vals"], **change)
    code, out, err = _gate(capsys, "--baseline", runs["base"], "--candidate", other)
    assert code == 2
    assert message in err and "bench gate: error:" in err
    assert "Traceback" not in err


def test_bad_inputs_exit_2_naming_the_file(runs, capsys, tmp_path):
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", tmp_path / "nowhere")
    assert code == 2 and "nowhere" in err
    broken = write_run(tmp_path / "broken", runs["vals"])
    (broken / "result.json").write_text("{not json")
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", broken)
    assert code == 2 and str(broken / "result.json") in err and "invalid JSON" in err
    nopq = write_run(tmp_path / "nopq", runs["vals"])
    (nopq / "per_query.csv").unlink()
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", nopq)
    assert code == 2 and "per_query.csv not found" in err
    badval = write_run(tmp_path / "badval", runs["vals"])
    text = (badval / "per_query.csv").read_text().splitlines()
    text[3] = text[3].rsplit(",", 1)[0] + ",oops"
    (badval / "per_query.csv").write_text("\n".join(text) + "\n")
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", badval)
    assert code == 2 and f"{badval / 'per_query.csv'}:4:" in err and "oops" in err
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["base"], "--metric", "R@1000")
    assert code == 2 and "R@1000" in err
    old = write_run(tmp_path / "old", runs["vals"])
    data = json.loads((old / "result.json").read_text())
    data["schema_version"] = 7
    (old / "result.json").write_text(json.dumps(data))
    code, _, err = _gate(capsys, "--baseline", old, "--candidate", runs["base"])
    assert code == 2 and "schema_version 7" in err
    code, _, err = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["base"], "--alpha", "2")
    assert code == 2 and "alpha" in err


def test_gate_is_deterministic(runs):
    a = run_gate(runs["base"], runs["worse"], GateOptions(test="randomization", n_resamples=500, seed=3)).to_dict()
    b = run_gate(runs["base"], runs["worse"], GateOptions(test="randomization", n_resamples=500, seed=3)).to_dict()
    assert a == b


def _simulation():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import aa_simulation
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return aa_simulation


def test_aa_smoke():
    sim = _simulation()
    res = sim.simulate(pairs=10, queries=100, sets=2, seed=9, options=GateOptions(n_resamples=500))
    assert res["pairs"] == 10 and 0 <= res["rate"] <= 0.3


@pytest.mark.slow
def test_aa_false_alarm_rate_at_most_alpha():
    """200 A/A pairs from the same distribution: the gate (defaults: t-test, Holm, require both,
    tolerances 0) fails at most alpha of the time."""
    sim = _simulation()
    res = sim.simulate(pairs=200, queries=200, sets=3, seed=0, options=GateOptions(alpha=0.05))
    assert res["rate"] <= 0.05, res
