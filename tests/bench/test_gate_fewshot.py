"""The gate on few-shot runs, using the committed default few-shot run as the baseline."""
import json
import shutil
from pathlib import Path

import pytest

from bench.cli.main import main

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
    assert "| metric | qry-tune/K=5 | 441 |" in out and "drop-rate checks" not in out


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
    pq.write_text("\n".join(out_lines) + "\n")
    assert main(["gate", "--baseline", str(FEWSHOT), "--candidate", str(cand)]) == 1
    out = capsys.readouterr().out
    assert "R@10 on qry-tune/K=20 fell" in out
    assert "| metric | zero-shot | 441 |" in out and "| ok |" in out


def test_fewshot_runs_with_other_plans_are_not_compared(tmp_path, capsys):
    cand = _copy(tmp_path, "plan")
    res = json.loads((cand / "result.json").read_text())
    res["plan"]["trial_seeds"] = [s + 1 for s in res["plan"].get("trial_seeds", [0])] or [1]
    (cand / "result.json").write_text(json.dumps(res))
    assert main(["gate", "--baseline", str(FEWSHOT), "--candidate", str(cand)]) == 2
    assert "different few-shot plan" in capsys.readouterr().err
