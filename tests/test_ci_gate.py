"""The project's own regression gate: today's code against the baselines committed in results/.

The fast check re-runs BM25 on the embedded default with all eight variation sets (no model
weights: about half a minute) and gates it against ``results/runs/bm25__chatterbot__variations__s0``.
It fails when a change to the data loader, a generator, retrieval or the measures moves the
numbers or the variation sets (exit 2: set fingerprints differ) or makes them worse (exit 1).
The slow check does the same for the default dense model, and shows that a deliberately
degraded model (queries truncated to 4 tokens) is caught with exit 1.
"""
from pathlib import Path

import pytest

from bench.cli.main import main

RESULTS = Path(__file__).resolve().parents[1] / "results" / "runs"


def _evaluate(model, out, *extra):
    rc = main(["evaluate", "--model", model, "--dataset", "chatterbot", "--seed", "0", "--out", str(out),
               "--no-progress", *extra])
    assert rc == 0


def test_bm25_holds_against_committed_baseline(tmp_path, capsys):
    baseline = RESULTS / "bm25__chatterbot__variations__s0"
    _evaluate("bm25", tmp_path / "cand")
    capsys.readouterr()
    rc = main(["gate", "--baseline", str(baseline), "--candidate", str(tmp_path / "cand")])
    out = capsys.readouterr().out
    assert rc == 0, out
    _assert_reproduces(baseline, tmp_path / "cand")


def _assert_reproduces(baseline, candidate):
    """The committed run reproduces byte for byte: per-query values, variation sets and result.json
    (all of it but the installed library versions, which a fresh machine may resolve differently)."""
    import json

    assert (candidate / "per_query.csv").read_bytes() == (baseline / "per_query.csv").read_bytes()
    sets = sorted(p.name for p in (baseline / "variations").glob("*.tsv"))
    assert sets and sets == sorted(p.name for p in (candidate / "variations").glob("*.tsv"))
    for name in sets:
        assert (candidate / "variations" / name).read_bytes() == (baseline / "variations" / name).read_bytes(), name
    a = json.loads((baseline / "result.json").read_text())
    b = json.loads((candidate / "result.json").read_text())
    a.pop("libraries"), b.pop("libraries")
    assert a == b


@pytest.mark.slow
def test_minilm_holds_and_a_truncated_model_is_caught(tmp_path, capsys):
    baseline = RESULTS / "minilm-l6__chatterbot__variations__s0"
    _evaluate("minilm-l6", tmp_path / "same")
    capsys.readouterr()
    assert main(["gate", "--baseline", str(baseline), "--candidate", str(tmp_path / "same")]) == 0
    _assert_reproduces(baseline, tmp_path / "same")
    _evaluate("minilm-l6", tmp_path / "trunc", "--max-query-length", "4")
    capsys.readouterr()
    rc = main(["gate", "--baseline", str(baseline), "--candidate", str(tmp_path / "trunc")])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "REGRESSED" in out.upper()
