"""Verdicts on real per-query data (results/runs, nDCG@10: MRR@10 there carries a known bug):
bm25 as the candidate against minilm-l6 on Cranfield, on all 225 queries and on a 30-query
subset (the first 30 query ids), where the old gate said a plain PASS."""
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.results.rundir import load_run
from runfactory import write_run

RUNS = Path(__file__).resolve().parents[2] / "results" / "runs"
BASE = RUNS / "minilm-l6__cranfield__variations__s0"
CAND = RUNS / "bm25__cranfield__variations__s0"
pytestmark = pytest.mark.skipif(not (BASE.exists() and CAND.exists()), reason="committed Cranfield runs missing")


def _subset(run_dir, out, n):
    run = load_run(run_dir)
    qids = list(run.values("ORIGINAL", "nDCG@10").index)[:n]
    vals = {s: {"nDCG@10": run.values(s, "nDCG@10").loc[qids].to_numpy()} for s in run.ok_sets}
    return write_run(out, vals, qids=qids, dataset="cranfield-30", labels={s: run.label(s) for s in run.ok_sets})


def test_bm25_vs_minilm_on_cranfield_fails(capsys):
    rc = main(["gate", "--baseline", str(BASE), "--candidate", str(CAND), "--metric", "nDCG@10"])
    out = capsys.readouterr().out
    assert rc == 1 and "drbench gate: **FAIL**" in out
    assert "nDCG@10 on ORIGINAL fell by 0.0306" in out and "nDCG@10 on VARIATIONS (AVG.) fell by" in out


def test_bm25_vs_minilm_on_30_cranfield_queries_is_inconclusive_not_pass(tmp_path, capsys):
    base = _subset(BASE, tmp_path / "base", 30)
    cand = _subset(CAND, tmp_path / "cand", 30)
    rc = main(["gate", "--baseline", str(base), "--candidate", str(cand)])
    cap = capsys.readouterr()
    assert rc == 0 and "drbench gate: **INCONCLUSIVE**" in cap.out and "WARNING: INCONCLUSIVE" in cap.err
    assert "with 30 queries this gate can only detect drops of nDCG@10 on ORIGINAL larger than" in cap.out
    assert main(["gate", "--baseline", str(base), "--candidate", str(cand), "--strict"]) == 1
