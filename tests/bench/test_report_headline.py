"""The report's headline: short sentences with VARIATIONS (AVG.) first, the significant sets per
measure, and a footnote saying that the intervals are per-comparison while the markers are
corrected (naming an interval that excludes 0 without a marker when there is one)."""
import json
from types import SimpleNamespace

import pytest

from bench.reporting.report import headline as RH
from bench.reporting.report import report
from bench.reporting.report.data import ReportOptions
from runfactory import synthetic_values, write_run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    vals = synthetic_values(3, n=150, sets=("MISSPELL", "SWAPWORD"), drops={"MISSPELL": 0.5, "SWAPWORD": 0.0})
    return write_run(tmp_path_factory.mktemp("headline") / "run", vals, statistics=True)


def _headline(md):
    block = md[md.index("### Headline"):].split("\n\n")[1]
    return [line[2:] for line in block.splitlines()]


def test_headline_is_short_sentences_with_the_average_first(run):
    md = report(run, "md", ReportOptions(bootstrap=200))
    lines = _headline(md)
    r = json.loads((run / "result.json").read_text())
    avg = r["summary"]["VARIATIONS (AVG.)"]["drop_rate"]
    from bench.reporting.report.data import build
    from bench.results.rundir import load_run

    base = build(load_run(run, per_query=None), ReportOptions(bootstrap=200)).means["ORIGINAL"]
    assert lines[0] == (f"ORIGINAL (the queries as written, {r['dataset']['n_queries']} queries): "
                        f"MRR@10 {base['MRR@10']:.4f}, nDCG@10 {base['nDCG@10']:.4f}.")
    assert lines[1] == ("VARIATIONS (AVG.) (the paper's headline number: the mean drop rate of the 2 sets over every "
                        f"query; + = worse than ORIGINAL): MRR@10 {100 * avg['MRR@10']:+.1f}%, "
                        f"nDCG@10 {100 * avg['nDCG@10']:+.1f}%.")
    assert any(l.startswith("MRR@10: significantly worse than ORIGINAL: MISSPELL ") for l in lines)
    assert lines[-1].startswith("Tests: t-test (two-sided)") and "Holm correction" in lines[-1]
    assert all(len(l) < 260 for l in lines)  # one idea per line, no paragraph
    assert "per-comparison 95% skewness-widened t intervals" in md and "markers are Holm-corrected" in md
    html = report(run, "html", ReportOptions(bootstrap=200), plots=False)
    assert '<ul class="headline"><li>ORIGINAL (the queries' in html and "markers are Holm-corrected" in html


def test_without_correction_the_footnote_says_both_are_uncorrected(run):
    md = report(run, "md", ReportOptions(bootstrap=200, correction="none"))
    assert "markers are uncorrected too (--correction none)" in md


def _data(ci, significant, p_corr):
    comp = {"drop_rate_ci": ci, "significant": significant, "p_corrected": p_corr, "delta": -0.01}
    run = SimpleNamespace(label=lambda s: s, result={})
    return SimpleNamespace(measures=["R@100"], baseline="ORIGINAL", run=run, sets=["ORIGINAL", "EXTRAPUNC"],
                           statistics={"header": {"correction": "holm", "bootstrap": {"confidence": 0.95}}},
                           applicability={}, applied_average=None, ordered=lambda m=None: ["ORIGINAL", "EXTRAPUNC"],
                           comparison=lambda s, m: comp, drop=lambda s, m: 0.014)


def test_an_interval_excluding_zero_without_a_marker_is_named():
    text = RH.interval_footnote(_data([0.001, 0.027], False, 0.2236))[0]
    assert "(here EXTRAPUNC on R@100: +1.4% [+0.1%, +2.7%], p corrected 0.2236)" in text
    assert "(here" not in RH.interval_footnote(_data([-0.001, 0.027], False, 0.5))[0]
    assert "(here" not in RH.interval_footnote(_data([0.001, 0.027], True, 0.01))[0]


@pytest.mark.parametrize("interval", ["skew-t", "t", "percentile"])
def test_every_interval_word_of_the_report_is_the_method_result_json_records(run, tmp_path, interval):
    """The headline note, the statistics section and the plot titles name the interval that
    result.json records (statistics.header.bootstrap), never another one."""
    import shutil

    from bench.evaluation.intervals import CI_DESCRIPTIONS
    from bench.reporting import interval_words as IW
    from bench.reporting.report.data import build
    from bench.reporting.report.plots import ci_name
    from bench.results.rundir import load_run

    folder = tmp_path / "run"
    shutil.copytree(run, folder)
    path = folder / "result.json"
    r = json.loads(path.read_text())
    boot = r["statistics"]["header"]["bootstrap"]
    boot["interval"], boot["method"] = interval, CI_DESCRIPTIONS[interval]
    path.write_text(json.dumps(r))
    recorded = json.loads(path.read_text())["statistics"]["header"]
    md = report(folder, "md", ReportOptions(bootstrap=200))
    note = next(l for l in md.splitlines() if l.startswith("Intervals [..] are per-comparison"))
    name = {"skew-t": "skewness-widened t intervals", "t": "Student t intervals",
            "percentile": "percentile bootstrap intervals"}[interval]
    assert f"95% {name}" in note and IW.interval_name(recorded, plural=True) == name
    others = [v for k, v in IW.NAMES.items() if k != interval]
    assert not any(o in note or o + "s" in note for o in others)
    assert "bootstrap" not in note if interval == "t" else "Student t" not in note
    stats_line = next(l for l in md.splitlines() if l.startswith("- intervals: "))
    assert stats_line.startswith(f"- intervals: {CI_DESCRIPTIONS[interval]}, 95% ({IW.SHORT[interval]}, ")
    data = build(load_run(folder), ReportOptions(bootstrap=200))
    assert data.statistics["header"]["bootstrap"]["interval"] == interval  # the intervals shown are the run's
    assert ci_name(data) == IW.SHORT[interval]
