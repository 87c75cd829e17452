"""`bench report`: self-contained HTML with embedded plots, Markdown, values from bench.evaluation.stats."""
import base64
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a report never leaks numpy warnings

from bench.core.errors import DataError
from bench.evaluation import stats as S
from bench.cli.main import main
from bench.reporting.report import markup as M
from bench.reporting.report.markup import pval
from bench.reporting.report import render_markdown, report
from bench.reporting.report.data import ReportOptions, build
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
    for needle in ("two-sided", "holm", "ddof=1", "B and seed are not used", "SWAPSYN-GLOVE", "small-n rule"):
        assert needle in text


def test_markdown_values_match_statistics(run_dir):
    run, vals = run_dir
    md = report(run, "md", ReportOptions(bootstrap=200))
    stats = S.variation_statistics(per_query_frame(vals), ["MISSPELL", "SWAPWORD"], ["MRR@10", "nDCG@10"],
                                   bootstrap=200)
    c = stats["comparisons"]["MISSPELL"]["MRR@10"]
    detail = md[md.index("### MRR@10"):]
    row = next(l for l in detail.splitlines() if l.startswith("| MISSPELL |"))  # the set's name, its label in Statistics
    cells = [x.strip() for x in row.strip("|").split("|")]
    assert cells[1] == f"{c['n_applied']}/{c['n']} ({100 * c['n_applied'] / c['n']:.1f}%)"
    assert cells[2].startswith(f"{c['mean_variation']:.4f} [")
    assert cells[3] == f"{c['delta']:+.4f} [{c['delta_ci'][0]:.4f}, {c['delta_ci'][1]:.4f}]"  # CI on one line
    assert cells[4] == f"{100 * c['drop_rate']:+.1f}% [{100 * c['drop_rate_ci'][0]:+.1f}%, {100 * c['drop_rate_ci'][1]:+.1f}%]"
    assert cells[7] == "yes \u25bc worse" and cells[9] == f"{c['win']}/{c['tie']}/{c['loss']}"
    same = next(l for l in detail.splitlines() if l.startswith("| SWAPWORD"))
    assert "| 1.0000 | 1.0000 | no |" in same
    assert "### MRR@10" in md and "### nDCG@10" in md and "VARIATIONS (AVG.)" in md
    assert "Holm step-down" in md and "ddof=1" in md and "two-sided" in md
    assert md.index("### Headline") < md.index("### MRR@10") < md.index("### Statistics")


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


def test_fewshot_report_of_an_older_layout(tmp_path):
    from runfactory import write_fewshot_run

    run = write_fewshot_run(tmp_path / "fs", summary={"k=8": {"metrics": {"MRR@10": 0.41}}})
    md = report(run, "md")
    assert "k=8 / metrics / MRR@10" in md and "0.4100" in md and "older layout" in md
    assert "data:image/png" not in report(run, "html")


def test_matplotlib_is_imported_lazily():
    code = "import sys, bench.reporting.report, bench.reporting.gate, bench.reporting.compare, bench.reporting.leaderboard; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- every suite, committed runs

REPO = Path(__file__).resolve().parents[2]
FEWSHOT = REPO / "results" / "runs" / "minilm-l6__chatterbot__fewshot__s0"
PEFT = REPO / "results" / "fewshot-peft" / "minilm-l6__chatterbot__fewshot-peft__s0"
SETS_RUNS = sorted((REPO / "results" / "runs").glob("*__variations__*")) + [
    REPO / "results" / "domain-study" / "domain-chatterbot-cranfield"]


def _table(md: str, start: str, stop: str):
    part = md[md.index(start):md.index(stop)]
    return [[c.strip() for c in l.strip().strip("|").split("|")] for l in part.splitlines()
            if l.startswith("| ") and not l.startswith("| set")]


@pytest.mark.parametrize("run", [FEWSHOT, PEFT], ids=["fewshot", "fewshot-peft"])
def test_fewshot_headline_has_the_runs_numbers(run):
    r = json.loads((run / "result.json").read_text())
    md = report(run, "md")
    rows = {c[0]: c for c in _table(md, "### Headline", "### Per class")}
    zs = "zero-shot (basic-learned)" if (r.get("references") or {}).get("zero_shot") == "basic-learned" else "zero-shot"
    assert rows[zs][1] == f"{100 * r['zero_shot']['novel']:.1f}"
    n = 0
    for m, mo in r["methods"].items():
        for k, e in mo["k"].items():
            c = r["statistics"]["comparisons"][m][f"K={k}"]["novel"]
            cells = rows[f"{m} K={k}"]
            assert "n/a" not in " ".join(cells)  # was: a table of n/a
            assert cells[1] == f"{100 * e['novel']['mean']:.1f} ±{100 * e['novel']['sd']:.1f}"
            assert cells[2].startswith(f"{100 * c['delta']:+.2f} (p {pval(c['p_corrected'])})")
            n += 1
    assert n == sum(len(mo["k"]) for mo in r["methods"].values()) > 0
    classes = {c[0]: c for c in _table(md, "### Per class", "### Trials")}
    first = next(iter(r["methods"]))
    k0 = next(iter(r["methods"][first]["k"]))
    col = 5 + [f"{first} K={k0}" == h for h in _headers(md, "### Per class")[5:]].index(True)
    for cls, v in r["zero_shot"]["per_class"].items():
        assert classes[cls][4] == f"{100 * v:.1f}"
        assert classes[cls][col] == f"{100 * r['methods'][first]['k'][k0]['per_class_mean'][cls]:.1f}"
    assert "not found" not in md and f"per_query.csv, {len(open(run / 'per_query.csv').readlines()) - 1} rows" in md


def _headers(md: str, start: str):
    line = next(l for l in md[md.index(start):].splitlines() if l.startswith("| class"))
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_fewshot_html_embeds_the_runs_plots_and_is_self_contained():
    r = json.loads((FEWSHOT / "result.json").read_text())
    page = report(FEWSHOT, "html")
    assert r["plots"]
    for name in r["plots"]:
        assert base64.b64encode((FEWSHOT / name).read_bytes()).decode("ascii") in page
    assert "<pre>" not in page and not re.search(r'(src|href)="(https?:)?//', page)
    assert page.index("<h2>Headline</h2>") < page.index("<h2>Plots</h2>") < page.index("<h2>Per class</h2>")


def test_fewshot_per_query_note_follows_the_file(tmp_path):
    """An older run (no per_query_sha256 in result.json) without its table is reported from
    result.json with a note; a run of this version that names its table must have it."""
    run = tmp_path / "fs"
    shutil.copytree(FEWSHOT, run)
    assert "per_query.csv not found" not in report(run, "md")
    (run / "per_query.csv").unlink()
    res = json.loads((run / "result.json").read_text())
    if "per_query_sha256" in res:
        with pytest.raises(DataError, match="per_query.csv not found, although result.json records its checksum"):
            report(run, "md")
        res.pop("per_query_sha256")
        (run / "result.json").write_text(json.dumps(res))
    md = report(run, "md")
    assert "per_query.csv not found" in md and "| qry-tune K=5 |" in md


def test_smallest_p_of_the_exact_sign_flip_test():
    from bench.reporting.report.fewshot import smallest_p

    assert smallest_p(0) == 1.0 and smallest_p(1) == 1.0 and smallest_p(4) == 0.125
    assert smallest_p(4, two_sided=False) == 0.0625
    for k in (2, 4, 7):  # the exact test on k same-signed differences reaches exactly this bound
        d = np.arange(1, k + 1) / 10.0
        assert S.weighted_sign_flip_test(d, np.ones(k)).pvalue == pytest.approx(smallest_p(k), abs=0)
        assert S.weighted_sign_flip_test(d, np.ones(k), alternative="greater").pvalue == pytest.approx(
            smallest_p(k, False), abs=0)


def test_fewshot_small_n_warning_names_the_unreachable_comparisons():
    from bench.reporting.report.fewshot import resolution_warnings, smallest_p

    r = json.loads((FEWSHOT / "result.json").read_text())
    fam = r["statistics"]["header"]["family_size"]
    want = [f"{m} {s} on {sp}: {c['n_nonzero']} of" for m, ms in r["statistics"]["comparisons"].items()
            for s, sps in ms.items() for sp, c in sps.items() if smallest_p(c["n_nonzero"]) > 0.05 / fam[f"{m}/{sp}"]]
    got = " ".join(resolution_warnings(r))
    assert want and all(w in got for w in want)
    assert "small-n warning" in report(FEWSHOT, "md")


@pytest.mark.parametrize("run", SETS_RUNS, ids=[p.name for p in SETS_RUNS])
def test_committed_sets_runs_headline_sorted_with_real_numbers(run):
    r = json.loads((run / "result.json").read_text())
    m0 = r["measures"][0]
    comps = r["statistics"]["comparisons"]
    md = report(run, "md")
    head = _table(md, "### Headline", f"### {m0}")
    want = sorted(comps, key=lambda s: -comps[s][m0]["drop_rate"])
    got = [row[0] for row in head]  # the sets by name (the full labels are in the Statistics section)
    assert not any("[" in s for s in got)
    assert sorted(got) == sorted(want)
    drops = [comps[s][m0]["drop_rate"] for s in got]  # non-increasing; equal drops (ties) in any order
    assert all(a >= b - 1e-12 for a, b in zip(drops, drops[1:])), drops
    for row, s in zip(head, got):
        assert "n/a" not in " ".join(row)
        assert row[-len(r["measures"])].startswith(f"{M.drop(comps[s][m0]['drop_rate'])} [")


# --------------------------------------------------------------------------- order and the small-n rule

def test_sets_sorted_by_drop_per_measure(tmp_path):
    vals = synthetic_values(5, n=300, sets=("A", "B", "C"), drops={"A": 0.1, "B": 0.6, "C": 0.3})
    data = build(load_run(write_run(tmp_path / "run", vals), per_query=None), ReportOptions(bootstrap=100))
    for m in data.measures:
        drops = {s: data.statistics["comparisons"][s][m]["drop_rate"] for s in ("A", "B", "C")}
        assert data.order[m] == sorted(drops, key=lambda s: -drops[s])
    assert data.order["MRR@10"] == ["B", "C", "A"]
    md = render_markdown(data)
    assert [r[0] for r in _table(md, "### Headline", "### MRR@10")] == ["B", "C", "A"]
    assert [r[0] for r in _table(md, "### MRR@10", "### nDCG@10")][:4] == ["ORIGINAL", *data.order["MRR@10"]]


def test_mde_is_the_formula_and_has_80_percent_power(tmp_path):
    from scipy import stats as st
    from statsmodels.stats.power import TTestPower

    vals = synthetic_values(6, n=30, sets=("A", "B"), drops={"A": 0.3, "B": 0.0})
    data = build(load_run(write_run(tmp_path / "run", vals), per_query=None), ReportOptions(bootstrap=100))
    d = vals["A"]["MRR@10"] - vals["ORIGINAL"]["MRR@10"]
    sd = np.std(d, ddof=1)
    want = (st.t.ppf(1 - 0.05 / (2 * 2), 29) + st.norm.ppf(0.8)) * sd / np.sqrt(30)  # holm family of 2 sets
    assert data.mde["A"]["MRR@10"] == pytest.approx(want, rel=1e-12)
    power = TTestPower().power(effect_size=want / sd, nobs=30, alpha=0.05 / 2, alternative="two-sided")
    assert 0.77 < power < 0.81  # the normal-approximation rule against the noncentral t


def test_small_n_warning_for_a_tiny_collection_not_for_a_large_one(tmp_path):
    tiny = synthetic_values(7, n=12, sets=("MISSPELL",), drops={"MISSPELL": 0.3})
    md = report(write_run(tmp_path / "tiny", tiny), "md", ReportOptions(bootstrap=100))
    assert "small-n warning" in md and "n = 12 queries" in md and "small-n rule: MDE" in md
    large = synthetic_values(7, n=3000, sets=("MISSPELL",), drops={"MISSPELL": 0.3})
    md = report(write_run(tmp_path / "large", large), "md", ReportOptions(bootstrap=100))
    assert "small-n warning" not in md and "MISSPELL" in md
    same = synthetic_values(7, n=12, sets=("SWAPWORD",), drops={"SWAPWORD": 0.0})  # nothing changed: nothing to miss
    assert "small-n warning" not in report(write_run(tmp_path / "same", same), "md", ReportOptions(bootstrap=100))


def test_same_run_same_bytes(run_dir):
    run, _ = run_dir
    assert report(run, "html", ReportOptions(bootstrap=100)) == report(run, "html", ReportOptions(bootstrap=100))
    assert report(FEWSHOT, "html") == report(FEWSHOT, "html")


def test_fewshot_refuses_recomputation_options(capsys):
    assert main(["report", str(FEWSHOT), "--format", "md", "--test", "wilcoxon"]) == 2
    err = capsys.readouterr().err
    assert "--test" in err and "few-shot" in err and "Traceback" not in err


def test_domain_pairs_are_rendered_with_their_corrected_p():
    """The domain suite's pairwise block (DDR's claims REM+DAM vs DR / vs REM) was in the console and
    result only; the report shows each pair's delta, interval and corrected p, and names the family."""
    import numpy as np
    import pandas as pd

    from bench.evaluation.significance import pair_statistics
    from bench.reporting.report import markup as M
    from bench.reporting.report.render import _pair_block, _pairs_html, _pairs_md

    rng = np.random.default_rng(3)
    base = rng.random(40)
    rows = [{"set": s, "qid": f"q{i}", "nDCG@10": float(v)}
            for s, vals in (("DR", base), ("REM", base - 0.05), ("REM+DAM", base + 0.1 * rng.random(40)))
            for i, v in enumerate(vals)]
    pw = pair_statistics(pd.DataFrame(rows), [("REM+DAM", "DR"), ("REM+DAM", "REM")], ["nDCG@10"])
    result = {"pairwise": pw, "measures": ["nDCG@10"], "reference": "zero-shot"}
    intro, cols, body, foot = _pair_block(result)
    assert [r["pair"] for r in body] == ["REM+DAM vs DR", "REM+DAM vs REM"]
    for r in body:
        c = pw["comparisons"][r["pair"]]["nDCG@10"]
        assert f"{c['delta']:.4f}" in r["nDCG@10"] and "p " in r["nDCG@10"]
        assert (M.SIG_BETTER in r["nDCG@10"]) == bool(c["significant"])
    assert "holm correction over the 2 pairs" in foot
    assert any("REM+DAM vs REM" in line for line in _pairs_md(result))
    assert "<h2>Pairs</h2>" in "".join(_pairs_html(result))
    assert _pair_block({"measures": ["nDCG@10"]}) is None


def test_fewshot_report_names_the_basic_learned_reference_and_shows_the_checkpoint():
    """FewDR's zero-shot reference is the basic-learned model; the raw checkpoint is shown beside it."""
    r = json.loads((FEWSHOT / "result.json").read_text())
    md = report(FEWSHOT, "md")
    assert "zero-shot (basic-learned)" in md
    ck = r["references"]["checkpoint"]
    row = next(line for line in md.splitlines() if line.startswith("| checkpoint (raw"))
    assert f"{100 * ck['novel']:.1f}" in row and f"{100 * ck['base']:.1f}" in row
