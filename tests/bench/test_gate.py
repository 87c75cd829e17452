"""`bench gate`: self-gate passes, degraded candidate fails with reasons, margins are tested
(PASS / FAIL / INCONCLUSIVE), one-sided, power warnings, GitHub rendering, incomparable or bad
inputs exit 2 naming the file, A/A false-alarm rate <= alpha (slow)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli.main import main
from bench.reporting.gate import GateOptions, gate_arrays, run_gate
from runfactory import degrade, mrr_like, rng_for, synthetic_values, write_run

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
    # the evidence: sidedness, correction, family, ddof, margins
    for needle in ("one-sided", "max-T", "ddof=1", "primary 0, secondary 0", "alpha = 0.05", "| metric | ORIGINAL |",
                   "| drop-rate | VARIATIONS (AVG.) |", "left the family", "margins: max regression 0"):
        assert needle in out, needle


def test_degraded_candidate_fails_and_says_why(runs, capsys, tmp_path):
    summary = tmp_path / "summary.md"
    verdict = tmp_path / "verdict.json"
    code, out, err = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["worse"], "--metric", "MRR@10",
                           "-o", summary, "--json", verdict)
    assert code == 1, out + err
    assert "drbench gate: **FAIL**" in out
    assert "MRR@10 on ORIGINAL fell by" in out and "MRR@10 on MISSPELL fell by" in out
    assert "p_maxt =" in out and "beyond the margin 0 is shown" in out
    assert summary.read_text() == out
    data = json.loads(verdict.read_text())
    assert data["exit_code"] == 1 and data["passed"] is False and data["verdict"] == "FAIL"
    regressed = {(c["kind"], c["set"]) for c in data["checks"] if c["regressed"]}
    assert ("metric", "ORIGINAL") in regressed and ("metric", "MISSPELL") in regressed
    assert ("metric", "SWAPWORD") not in regressed
    swap = next(c for c in data["checks"] if c["kind"] == "metric" and c["set"] == "SWAPWORD")
    assert swap["in_family"] is False  # identical values: left the family


def test_improvement_passes_and_margins_are_tested(runs):
    assert run_gate(runs["base"], runs["better"]).status == "PASS"
    worse = run_gate(runs["base"], runs["worse"], GateOptions(metric="MRR@10"))
    orig = next(c for c in worse.checks if c.kind == "metric" and c.set == "ORIGINAL")
    # a margin beyond the whole confidence bound: non-inferiority shown on every primary check
    v = run_gate(runs["base"], runs["worse"], GateOptions(metric="MRR@10", max_regression=0.5, max_drop_rate=0.5))
    assert v.status == "PASS" and v.exit_code == 0 and not v.regressions
    # a margin inside the confidence interval: neither shown
    m = round(-orig.change, 4)
    v = run_gate(runs["base"], runs["worse"], GateOptions(metric="MRR@10", max_regression=m, max_drop_rate=0.5))
    assert v.status == "INCONCLUSIVE" and v.exit_code == 0
    assert run_gate(runs["base"], runs["worse"], GateOptions(metric="MRR@10", max_regression=m, max_drop_rate=0.5,
                                                             strict=True)).exit_code == 1


def _shifted(n=60, drop=0.02, noise=0.002, seed=0):
    rng = rng_for(seed, "shift")
    b = {"ORIGINAL": rng.random(n) * 0.5 + 0.3, "A": rng.random(n) * 0.5 + 0.2}
    c = {s: v - drop + rng.normal(0, noise, n) for s, v in b.items()}
    return b, c


@pytest.mark.parametrize("margin,status", [(0.0, "FAIL"), (0.01, "FAIL"), (0.02, "INCONCLUSIVE"), (0.03, "PASS")])
def test_margin_enters_the_hypotheses(margin, status):
    """A drop of 0.02 (+- tiny noise): shown beyond a margin of 0.01, shown within 0.03, neither at 0.02."""
    b, c = _shifted()
    v = gate_arrays(b, c, GateOptions(max_regression=margin, max_drop_rate=1.0))
    assert v.status == status, [(x.set, x.change, x.bound, x.p_corrected) for x in v.checks]


def test_one_sided_improvement_never_fails_and_regression_needs_only_one_tail():
    b, c = _shifted(drop=-0.05, noise=0.05)  # the candidate is better
    v = gate_arrays(b, c, GateOptions(max_drop_rate=1.0))
    assert v.status == "PASS" and all(x.p_value > 0.5 for x in v.checks if x.kind == "metric")
    # a regression whose one-sided p is ~0.03 (two-sided ~0.06) fails a single-check gate
    rng = rng_for(3, "one")
    base = rng.random(80)
    d = rng.normal(0, 0.1, 80)
    d = d - d.mean() - 0.1 * 1.9 / np.sqrt(80) * np.std(d, ddof=1) / 0.1
    from bench.evaluation.stats import paired_ttest
    r1 = paired_ttest(base, base + d, alternative="less")
    r2 = paired_ttest(base, base + d)
    assert r1.pvalue < 0.05 < r2.pvalue
    v = gate_arrays({"ORIGINAL": base}, {"ORIGINAL": base + d}, GateOptions(correction="none"))
    assert v.status == "FAIL"
    v = gate_arrays({"ORIGINAL": base}, {"ORIGINAL": base + d}, GateOptions())
    assert v.status == "FAIL"


def test_small_change_is_inconclusive_then_strict_exits_1(tmp_path, capsys):
    rng = rng_for(0, "tiny")
    vals = {"ORIGINAL": {"MRR@10": rng.random(50)}, "A": {"MRR@10": rng.random(50)}}
    cvals = {s: {m: v.copy() for m, v in mm.items()} for s, mm in vals.items()}
    cvals["A"]["MRR@10"][0] -= 0.05  # one query slightly worse: no evidence either way at margin 0
    base = write_run(tmp_path / "b", vals)
    cand = write_run(tmp_path / "c", cvals)
    code, out, err = _gate(capsys, "--baseline", base, "--candidate", cand)
    assert code == 0 and "drbench gate: **INCONCLUSIVE**" in out and "WARNING: INCONCLUSIVE" in err
    code, out, err = _gate(capsys, "--baseline", base, "--candidate", cand, "--strict")
    assert code == 1 and "INCONCLUSIVE" in out
    code, out, err = _gate(capsys, "--baseline", base, "--candidate", cand, "--max-regression", "0.01",
                           "--max-drop-rate", "0.02")
    assert code == 0 and "drbench gate: **PASS**" in out


def test_summary_renders_and_annotates_on_github(runs, capsys, tmp_path, monkeypatch):
    summary = tmp_path / "s.md"
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    _, out, _ = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["worse"])
    assert "::error" not in out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = _gate(capsys, "--baseline", runs["base"], "--candidate", runs["worse"], "-o", summary)
    assert code == 1
    assert any(line.startswith("::error title=drbench gate FAIL::MRR@10 on ORIGINAL fell") for line in out.splitlines())
    md = summary.read_text()
    assert "::error" not in md  # workflow commands go to the log, not the step summary
    lines = md.splitlines()
    last_row = max(i for i, line in enumerate(lines) if line.startswith("| "))
    assert lines[last_row + 1] == "" and lines[last_row + 2] == "Notes:"  # the table ends before the notes
    assert all(not line.startswith("note") for line in lines[last_row + 1:])
    rng = rng_for(0, "tiny")
    vals = {"ORIGINAL": {"MRR@10": rng.random(50)}, "A": {"MRR@10": rng.random(50)}}
    cvals = {s: {m: v + rng_for(1, s).normal(0, 0.01, 50) for m, v in mm.items()} for s, mm in vals.items()}
    _, out, _ = _gate(capsys, "--baseline", write_run(tmp_path / "b", vals), "--candidate",
                      write_run(tmp_path / "c", cvals))
    assert "::warning title=drbench gate INCONCLUSIVE::" in out and "::warning title=drbench gate power::" in out


def test_power_is_in_the_verdict():
    b, c = _shifted(n=30, drop=0.0, noise=0.1)
    v = gate_arrays(b, c, GateOptions(max_regression=0.01, max_drop_rate=1.0))
    orig = next(x for x in v.checks if x.set == "ORIGINAL")
    assert orig.mde is not None and orig.mde > 0.01
    assert any(w.startswith("low power: with 30 queries this gate can only detect drops of metric on ORIGINAL "
                            "larger than") for w in v.warnings)
    b2, c2 = _shifted(n=300, drop=0.0, noise=0.1)
    big = next(x for x in gate_arrays(b2, c2, GateOptions(max_drop_rate=1.0)).checks if x.set == "ORIGINAL")
    assert big.mde < orig.mde / 2  # ~ 1/sqrt(n)
    quiet = gate_arrays(b, c, GateOptions(max_regression=0.5, max_drop_rate=1.0))
    assert not [w for w in quiet.warnings if "ORIGINAL" in w]
    assert all(x.mde is None for x in v.checks if x.tier == "secondary")


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
    for corr in ("maxt", "holm"):
        o = dict(test="randomization", n_resamples=500, seed=3, correction=corr)
        a = run_gate(runs["base"], runs["worse"], GateOptions(**o)).to_dict()
        b = run_gate(runs["base"], runs["worse"], GateOptions(**o)).to_dict()
        assert a == b


def test_family_all_lets_every_check_decide():
    rng = rng_for(5, "one-set")
    n = 200
    b = {"ORIGINAL": rng.random(n), **{f"S{i}": rng.random(n) for i in range(4)}}
    c = {s: v.copy() for s, v in b.items()}
    c["S0"] = c["S0"] * 0.8  # one variation set regressed, diluted in VARIATIONS (AVG.)
    h = gate_arrays(b, c, GateOptions())
    a = gate_arrays(b, c, GateOptions(family="all"))
    assert a.status == "FAIL" and ("metric", "S0") in {(x.kind, x.set) for x in a.regressions}
    # checks whose differences are all zero leave the family: ORIGINAL and S1..S3 (metric and drop rate)
    assert h.families["primary"]["size"] == 1 and a.families["all"]["size"] == 4
    for x in h.checks:  # secondary checks are only marked once a primary check fails
        if x.tier == "secondary" and h.status != "FAIL":
            assert not x.regressed


def _simulation():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import aa_simulation
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return aa_simulation


def test_aa_smoke():
    sim = _simulation()
    res = sim.simulate(pairs=10, queries=76, sets=2, seed=9, options=GateOptions(n_resamples=500))
    assert res["pairs"] == 10 and 0 <= res["rate"] <= 0.3 and res["wilson"][0] <= res["rate"] <= res["wilson"][1]


@pytest.mark.slow
def test_aa_false_alarm_rate_at_most_alpha():
    """400 A/A pairs from the same distribution: the gate (defaults) is calibrated at alpha — its
    false-alarm rate is not above alpha (the 95% Wilson interval reaches below alpha, and the rate
    is within sampling error); benchmarks/aa_simulation.py runs 1,000 pairs (0.048). Without the
    correction every check would fire on its own and the rate would be far above alpha."""
    sim = _simulation()
    res = sim.simulate(pairs=400, queries=76, sets=8, seed=0, options=GateOptions(alpha=0.05, n_resamples=2000))
    assert res["wilson"][0] < 0.05 and res["rate"] <= 0.075, res
    loose = sim.simulate(pairs=100, queries=76, sets=8, seed=0,
                         options=GateOptions(alpha=0.05, n_resamples=500, correction="none", family="all"))
    assert loose["wilson"][0] > 0.05, loose  # the assertion above can fail


def _hand_maxt(rows, seed, family, n_resamples):
    """Westfall-Young step-down max-T by hand (docs/gate.md): studentized means, the seeded sign
    vectors of the gate's stream (one chunk), p~_(j) = (1 + #{min_{i >= j} t*_(i) <= t_(j)}) / (B + 1),
    made monotone; loops, no shared code with bench.evaluation.multiplicity."""
    from bench.core.seeding import rng_for as bench_rng

    x = np.array(rows, dtype=float)
    k, n = x.shape

    def t_of(v):
        sd = np.std(v, ddof=1)
        return 0.0 if sd == 0 and np.mean(v) == 0 else np.mean(v) / (sd / np.sqrt(n))

    t = np.array([t_of(r) for r in x])
    signs = bench_rng(seed, "maxt-sign-flip", "gate", family).integers(
        0, 2, size=(n_resamples, n), dtype=np.int8).astype(float) * 2 - 1
    tstar = np.array([[t_of(s * r) for r in x] for s in signs])  # (B, k)
    order = sorted(range(k), key=lambda i: t[i])
    p, running = {}, 0.0
    for j, i in enumerate(order):
        rest = [order[q] for q in range(j, k)]
        b = sum(1 for r in range(n_resamples) if min(tstar[r, rest]) <= t[i] + 1e-9 * (1 + abs(t[i])))
        running = max(running, (b + 1) / (n_resamples + 1))
        p[i] = min(running, 1.0)
    return [p[i] for i in range(k)]


def _dr_pseudo(bo, bv, co, cv):
    rb, rc = bv.mean() / bo.mean(), cv.mean() / co.mean()
    phi = (cv - rc * co) / co.mean() - (bv - rb * bo) / bo.mean()
    return phi + (rc - rb)


def test_set_equal_to_original_in_both_runs_leaves_the_family(tmp_path):
    """docs/gate.md: checks whose per-query differences are all zero leave the family. A drop-rate
    check where both runs equal ORIGINAL on every query (a set that never changes a ranking, as
    SWAPSYN-GLOVE on Cranfield MRR@10) has DR 0 in both runs and all-zero pseudo-values: its
    null is a point mass at t = 0, and kept in the step-down family it raised to 1.0 the adjusted p
    of every check ordered after it. It leaves the family; sizes and corrected p-values are checked
    against a hand computation."""
    rng = rng_for(11, "unchanged-set")
    n = 40
    bo = mrr_like(rng, n)
    co = degrade(rng_for(11, "cand-orig"), bo, 0.25, 0.6)
    ba = degrade(rng_for(11, "base-A"), bo, 0.5, 0.5)  # the baseline drops a lot on A ...
    ca = degrade(rng_for(11, "cand-A"), co, 0.15, 0.5)  # ... the candidate less (goodness > 0: t > 0)
    bb = degrade(rng_for(11, "base-B"), bo, 0.3, 0.7)
    cb = degrade(rng_for(11, "cand-B"), co, 0.3, 0.7)
    base = write_run(tmp_path / "base", {"ORIGINAL": {"MRR@10": bo}, "A": {"MRR@10": ba}, "B": {"MRR@10": bb},
                                         "GLOVE": {"MRR@10": bo.copy()}})
    cand = write_run(tmp_path / "cand", {"ORIGINAL": {"MRR@10": co}, "A": {"MRR@10": ca}, "B": {"MRR@10": cb},
                                         "GLOVE": {"MRR@10": co.copy()}})
    B = 999
    hier = run_gate(base, cand, GateOptions(n_resamples=B))
    every = run_gate(base, cand, GateOptions(n_resamples=B, family="all"))
    for v in (hier, every):
        glove = next(c for c in v.checks if c.kind == "drop-rate" and c.set == "GLOVE")
        assert glove.in_family is False and glove.noninferior and glove.bound == 0.0 and glove.change == 0.0
        assert "both runs equal ORIGINAL" in glove.note and np.isnan(glove.p_corrected)
        assert glove.outcome == "holds" and not glove.regressed
        # its metric check is not all zero (it is ORIGINAL's): it stays
        assert next(c for c in v.checks if c.kind == "metric" and c.set == "GLOVE").in_family
    # 5 metric checks (ORIGINAL, A, B, GLOVE, AVG) + 4 drop-rate checks (A, B, GLOVE, AVG), less GLOVE's drop rate
    assert hier.families["primary"]["size"] == 2 and hier.families["secondary"]["size"] == 6  # was 7
    assert every.families["all"]["size"] == 8 and every.family_size == 8  # was 9
    # the corrected p-values of --family all by hand, over the 8 live checks
    avg_b, avg_c = np.mean([ba, bb, bo], axis=0), np.mean([ca, cb, co], axis=0)
    hand_x = {("metric", "ORIGINAL"): co - bo, ("metric", "A"): ca - ba, ("metric", "B"): cb - bb,
              ("metric", "GLOVE"): co - bo, ("metric", "VARIATIONS (AVG.)"): avg_c - avg_b,
              ("drop-rate", "A"): _dr_pseudo(bo, ba, co, ca), ("drop-rate", "B"): _dr_pseudo(bo, bb, co, cb),
              ("drop-rate", "VARIATIONS (AVG.)"): _dr_pseudo(bo, avg_b, co, avg_c)}
    keys = list(hand_x)
    expected = dict(zip(keys, _hand_maxt([hand_x[k] for k in keys], 0, "all", B)))
    got = {(c.kind, c.set): c.p_corrected for c in every.checks if c.in_family}
    assert set(got) == set(expected)
    for k in keys:
        assert got[k] == pytest.approx(expected[k], abs=1e-12), k
    # the three checks where the candidate is better (t > 0: metric A, drop rates A and AVG) sit after
    # t = 0 in the step-down; with GLOVE's all-zero row kept (the old family of 9) the hand
    # computation puts all three at 1.0, without it they are below 1 (0.959, 0.997, 0.984 here)
    better = [("metric", "A"), ("drop-rate", "A"), ("drop-rate", "VARIATIONS (AVG.)")]
    assert all(expected[k] < 1.0 for k in better)
    old = dict(zip(keys + [("drop-rate", "GLOVE")],
                   _hand_maxt([hand_x[k] for k in keys] + [np.zeros(n)], 0, "all", B)))
    assert all(old[k] == 1.0 for k in better + [("drop-rate", "GLOVE")])
