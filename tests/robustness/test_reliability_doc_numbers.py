"""Issue 25: the numbers docs/statistics.md and docs/gate.md quote are those the committed runs give.

The runs under results/runs are re-run whenever the code changes what they hold; these tests read
them (no number is written here), so a quote that no longer matches fails until the docs are updated."""
from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.results.rundir import load_per_query

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "results" / "runs"
sys.path.insert(0, str(ROOT / "tests" / "bench"))
from runfactory import write_run  # noqa: E402


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _quote(doc: str, pattern: str) -> re.Match:
    text = " ".join((ROOT / "docs" / doc).read_text(encoding="utf-8").split())
    m = re.search(pattern, text)
    assert m, f"docs/{doc}: the quoted sentence ({pattern!r}) is gone; update this test with the docs"
    return m


def test_the_compare_example_in_statistics_md_matches_the_committed_runs(tmp_path):
    out = tmp_path / "dr.csv"
    assert main(["compare", str(RUNS / "minilm-l6__chatterbot__variations__s0"),
                 str(RUNS / "bm25__chatterbot__variations__s0"), "--drop-rate-output", str(out),
                 "-o", str(tmp_path / "c.md")]) == 0
    (row,) = list(csv.DictReader(out.open(encoding="utf-8")))
    m = _quote("statistics.md", r"MRR@10: DR\(minilm-l6\) = (\S+) %, DR\(bm25\) = (\S+) %, DR\(bm25\) - DR\(minilm-l6\) = "
                                r"(\S+) %, 95 % interval \[(\S+) %, (\S+) %\], p = (\S+) \(Monte Carlo, m = 10000, seed 0; "
                                r"(\d+) differing queries\)")
    got = (_pct(float(row["drop_a"])), _pct(float(row["drop_b"])), _pct(float(row["difference"])),
           _pct(float(row["ci_low"])), _pct(float(row["ci_high"])), f"{float(row['p_value']):.3f}", row["n_differing"])
    assert m.groups() == got, f"the docs quote {m.groups()}, the committed runs give {got}: update the docs"


def _gate(baseline: Path, candidate: Path, tmp_path: Path) -> dict:
    out = tmp_path / "verdict.json"
    main(["gate", "--baseline", str(baseline), "--candidate", str(candidate), "--metric", "nDCG@10", "--json", str(out),
          "-o", str(tmp_path / "verdict.md")])
    verdict = json.loads(out.read_text())
    return verdict, {c["set"]: c for c in verdict["checks"] if c["kind"] == "metric"}


def _p(x: float) -> str:
    return f"{x:.1e}" if x < 1e-3 else f"{x:.0e}" if x < 1e-2 else f"{x:.2g}"


def test_the_cranfield_gate_verdict_in_gate_md_matches_the_committed_runs(tmp_path):
    verdict, checks = _gate(RUNS / "minilm-l6__cranfield__variations__s0", RUNS / "bm25__cranfield__variations__s0",
                            tmp_path)
    m = _quote("gate.md", r"all 225 queries: \*\*(\w+)\*\* \(exit (\d)\): ORIGINAL (\S+) \((\S+) -> (\S+)\), one-sided "
                          r"p_maxt = (\S+); VARIATIONS \(AVG\.\) (\S+), p_maxt = (\S+) \(")
    o, a = checks["ORIGINAL"], checks["VARIATIONS (AVG.)"]
    got = (verdict["verdict"], str(verdict["exit_code"]), f"{o['change']:.4f}", f"{o['baseline']:.4f}",
           f"{o['candidate']:.4f}", _p(o["p_corrected"]), f"{a['change']:.4f}", _p(a["p_corrected"]))
    assert m.groups() == got, f"the docs quote {m.groups()}, the committed runs give {got}: update the docs"


def _subset(run: Path, folder: Path, n: int) -> Path:
    """The run on its first ``n`` queries (per_query.csv order), as `--queries` with those ids gives:
    a query's values do not depend on the other queries."""
    result = json.loads((run / "result.json").read_text())
    df = load_per_query(run / "per_query.csv")
    qids = list(df[df["set"] == "ORIGINAL"]["qid"])[:n]
    values, applied = {}, {}
    for entry in result["sets"]:
        rows = df[df["set"] == entry["name"]].set_index("qid").loc[qids]
        values[entry["name"]] = {m: list(rows[m]) for m in result["measures"]}
        applied[entry["name"]] = list(rows["applied"])
    return write_run(folder, values, model=result["model"]["name"], dataset=result["dataset"]["name"], qids=qids,
                     applied=applied, dataset_fingerprint="cranfield-first-30",
                     set_fingerprints={e["name"]: e["fingerprint"] for e in result["sets"]})


@pytest.mark.parametrize("n", [30])
def test_the_small_sample_verdict_in_gate_md_matches_the_committed_runs(tmp_path, n):
    base = _subset(RUNS / "minilm-l6__cranfield__variations__s0", tmp_path / "base", n)
    cand = _subset(RUNS / "bm25__cranfield__variations__s0", tmp_path / "cand", n)
    verdict, checks = _gate(base, cand, tmp_path)
    m = _quote("gate.md", r"the first 30 query ids: \*\*(\w+)\*\* \(exit (\d), 1 with `--strict`\): ORIGINAL (\S+), "
                          r"one-sided p = (\S+) \(p_maxt = (\S+)\), lower bound (\S+); MDE (\S+) \((\d+) % of the baseline\)")
    o = checks["ORIGINAL"]
    got = (verdict["verdict"], str(verdict["exit_code"]), f"{o['change']:.4f}", f"{o['p_value']:.2g}",
           f"{o['p_corrected']:.2f}", f"{o['bound']:.3f}", f"{o['mde']:.3f}", f"{100 * o['mde'] / o['baseline']:.0f}")
    assert m.groups() == got, f"the docs quote {m.groups()}, the committed runs give {got}: update the docs"
