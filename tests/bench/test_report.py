"""`bench report`: self-contained HTML with embedded plots, Markdown, values from bench.evaluation.stats."""
import base64
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from bench.evaluation import stats as S
from bench.cli.main import main
from bench.reporting.report import render_markdown, report
from bench.reporting.reportdata import ReportOptions, build
from bench.results.rundir import load_run
from runfactory import per_query_frame, synthetic_values, write_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    vals = synthetic_values(0, n=120, sets=("MISSPELL", "SWAPWORD"), drops={"MISSPELL": 0.5, "SWAPWORD": 0.0})
    return write_run(d / "run", vals, labels={"MISSPELL": "MISSPELL<script>alert(1)</script>"},
                     missing_sets=["SWAPSYN-GLOVE"], statistics=True), vals


def test_html_is_self_contained_with_three_plots(run_dir):
    run, _ = run_dir
    text = report(run, "html", ReportOptions(bootstrap=200))
    assert text.startswith("<!DOCTYPE html>")
    imgs = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(imgs) == 3
    for b64 in imgs:
        assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
    assert not re.search(r'(src|href)="(https?:)?//', text)  # nothing fetched from outside
    assert "<script>" not in text and "&lt;script&gt;" in text  # labels escaped
    for needle in ("two-sided", "holm", "ddof=1", "B = 200", "SWAPSYN-GLOVE"):
        assert needle in text


def test_markdown_values_match_statistics(run_dir):
    run, vals = run_dir
    md = report(run, "md", ReportOptions(bootstrap=200))
    stats = S.variation_statistics(per_query_frame(vals), ["MISSPELL", "SWAPWORD"], ["MRR@10", "nDCG@10"],
                                   bootstrap=200)
    c = stats["comparisons"]["MISSPELL"]["MRR@10"]
    row = next(l for l in md.splitlines() if l.startswith("| MISSPELL<script>"))
    cells = [x.strip() for x in row.strip("|").split("|")]
    assert cells[3] == f"{c['mean_variation']:.4f}"
    assert cells[5] == f"{c['delta']:+.4f}"
    assert cells[7] == f"{100 * c['drop_rate']:.1f}%"
    assert cells[11] == "yes" and cells[13] == f"{c['win']}/{c['tie']}/{c['loss']}"
    same = next(l for l in md.splitlines() if l.startswith("| SWAPWORD"))
    assert "| 1.0000 | 1.0000 | no |" in same
    assert "### MRR@10" in md and "### nDCG@10" in md and "VARIATIONS (AVG.)" in md
    assert "Holm step-down" in md and "ddof=1" in md and "two-sided" in md


def test_report_follows_recorded_settings(tmp_path):
    vals = synthetic_values(1, n=40, sets=("MISSPELL",))
    run = write_run(tmp_path / "run", vals)
    data = json.loads((run / "result.json").read_text())
    data["statistics"] = S.variation_statistics(per_query_frame(vals), ["MISSPELL"], ["MRR@10", "nDCG@10"],
                                                test="randomization", correction="bh", seed=4, bootstrap=150)
    (run / "result.json").write_text(json.dumps(data))
    d = build(load_run(run, per_query=None))
    h = d.statistics["header"]
    assert (h["test"], h["correction"], h["seed"], h["bootstrap"]["B"]) == ("randomization", "bh", 4, 150)
    assert d.statistics == data["statistics"]  # recomputation reproduces the recorded block
    d2 = build(load_run(run, per_query=None), ReportOptions(test="wilcoxon"))
    assert d2.statistics["header"]["test"] == "wilcoxon"


def test_report_without_per_query_table(tmp_path):
    run = write_run(tmp_path / "run", synthetic_values(2, n=30, sets=("MISSPELL",)))
    (run / "per_query.csv").unlink()
    md = report(run, "md")
    assert "no per-query table" in md and "| MISSPELL |" in md
    html = report(run, "html")
    assert html.count("data:image/png;base64,") == 1  # metric per set only


def test_cli_report(run_dir, tmp_path, capsys):
    run, _ = run_dir
    out = tmp_path / "r.html"
    assert main(["report", str(run), "-o", str(out), "--bootstrap", "100"]) == 0
    assert out.read_text().count("data:image/png") == 3
    assert main(["report", str(run / "result.json"), "--format", "md", "--no-plots", "--bootstrap", "100"]) == 0
    assert "## drbench report: toy-model on toy-data" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "missing" in capsys.readouterr().err


def test_fewshot_report(tmp_path):
    from runfactory import write_fewshot_run

    run = write_fewshot_run(tmp_path / "fs", summary={"k=8": {"metrics": {"MRR@10": 0.41}}})
    md = report(run, "md")
    assert "k=8 / metrics / MRR@10" in md and "0.4100" in md


def test_matplotlib_is_imported_lazily():
    code = "import sys, bench.reporting.report, bench.reporting.gate, bench.reporting.compare, bench.reporting.leaderboard; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
