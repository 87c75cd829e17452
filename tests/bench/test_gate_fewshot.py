"""The gate on few-shot runs, using the committed default few-shot run as the baseline."""
import json
import shutil
from pathlib import Path

import pytest

from bench.cli.main import main
from tests.bench.runfactory import write_bound_per_query

FEWSHOT = Path(__file__).resolve().parents[2] / "results" / "runs" / "minilm-l6__chatterbot__fewshot__s0"
pytestmark = pytest.mark.skipif(not FEWSHOT.exists(), reason="committed few-shot run missing")


def _copy(tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(FEWSHOT, dst)
    return dst


def test_fewshot_run_holds_against_itself(tmp_path, capsys):
    cand = _copy(tmp_path, "same")
    assert main(["gate", "--baseline", str(FEWSHOT), "--candidate", str(cand)]) == 0
    out = capsys.readouterr().out
    assert "| metric | qry-tune/K=5 | primary | 441 |" in out and "| drop-rate |" not in out


def test_degraded_fewshot_setting_fails(tmp_path, capsys):
    cand = _copy(tmp_path, "worse")
    pq = cand / "per_query.csv"
    lines = pq.read_text().splitlines()
    out_lines, hit = [lines[0]], 0
    for line in lines[1:]:
        parts = line.split(",")
        if parts[0].startswith("qry-tune/K=20/") and parts[3] == "1.0":
            hit += 1
            if hit % 2 == 0:  # half of the K=20 hits lost in every trial
                parts[3] = "0.0"
        out_lines.append(",".join(parts))
    write_bound_per_query(cand, "\n".join(out_lines) + "\n")
    assert main(["gate", "--baseline", str(FEWSHOT), "--candidate", str(cand)]) == 1
    out = capsys.readouterr().out
    assert "R@10 on qry-tune/K=20 fell" in out
    assert "| metric | zero-shot | primary | 441 |" in out and "left the family" in out


def test_fewshot_runs_with_other_plans_are_not_compared(tmp_path, capsys):
    cand = _copy(tmp_path, "plan")
    res = json.loads((cand / "result.json").read_text())
    res["plan"]["trial_seeds"] = [s + 1 for s in res["plan"].get("trial_seeds", [0])] or [1]
    (cand / "result.json").write_text(json.dumps(res))
    assert main(["gate", "--baseline", str(FEWSHOT), "--candidate", str(cand)]) == 2
    assert "different few-shot plan" in capsys.readouterr().err


def _headline_zero_shot():
    res = json.loads((FEWSHOT / "result.json").read_text())
    return res, res["summary"]["headline"]["zero_shot"]["all"]


def test_fewshot_gate_tests_the_macro_headline(tmp_path):
    """The few-shot checks are on the macro average over classes (the headline), not the
    unweighted per-query mean."""
    from bench.reporting.gate import run_gate

    res, zero_all = _headline_zero_shot()
    v = run_gate(FEWSHOT, _copy(tmp_path, "same"))
    zero = next(c for c in v.checks if c.set == "zero-shot")
    assert zero.baseline == pytest.approx(zero_all, abs=1e-12)
    import pandas as pd

    pq = pd.read_csv(FEWSHOT / "per_query.csv")
    assert abs(pq[pq["set"] == "zero-shot"]["R@10"].mean() - zero_all) > 1e-3  # the two differ on this run
    assert v.status == "PASS" and v.weighting == "macro (weighted)"


def test_regression_on_small_classes_is_caught_by_the_macro_gate(tmp_path):
    """Losing every hit of the smallest classes barely moves the per-query mean but moves the
    macro headline: the gate (on the headline) fails, and its change is the headline's change."""
    from bench.reporting.gate import run_gate

    res, _ = _headline_zero_shot()
    by_class = res["plan"]["test_queries"]
    small = sorted(by_class, key=lambda c: len(by_class[c]))[:8]
    lost = {q for c in small for q in by_class[c]}
    cand = _copy(tmp_path, "small")
    pq = cand / "per_query.csv"
    lines = pq.read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        parts = line.split(",")
        if parts[0].startswith("qry-tune/K=20/") and parts[1] in lost:
            parts[3] = "0.0"
        out.append(",".join(parts))
    write_bound_per_query(cand, "\n".join(out) + "\n")
    v = run_gate(FEWSHOT, cand)
    k20 = next(c for c in v.checks if c.set == "qry-tune/K=20")
    assert v.status == "FAIL" and k20.regressed
    macro_before = res["summary"]["metrics"]["qry-tune K=20 all R@10"]
    assert k20.baseline == pytest.approx(macro_before, abs=1e-9)
    import pandas as pd

    new = pd.read_csv(pq)
    new = new[new["set"].str.startswith("qry-tune/K=20/")].groupby("qid")["R@10"].mean()
    old = pd.read_csv(FEWSHOT / "per_query.csv")
    old = old[old["set"].str.startswith("qry-tune/K=20/")].groupby("qid")["R@10"].mean()
    assert abs(k20.change) > 3 * abs(new.mean() - old.mean())  # the unweighted mean hardly moves
