"""The report headline reads on its own: the ORIGINAL score, signed drop rates, set names without
their configuration, one sentence per flagged set, a ± that says what it is."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from bench.reporting.report import render as R
from bench.reporting.report.data import build
from bench.reporting.report.fewshot import summary_lines as fewshot_lines
from bench.results.rundir import load_run

RUN = Path("results/runs/minilm-l6__chatterbot__variations__s0")
FEWSHOT = Path("results/runs/minilm-l6__chatterbot__fewshot__s0")


def _data():
    return build(load_run(RUN, per_query=None))


def test_the_headline_starts_with_the_original_score():
    data = _data()
    first = R.summary_lines(data)[0]
    assert first.startswith("ORIGINAL (the queries as written, 884 queries): MRR@10 0.4432")


def test_drop_rates_carry_their_sign_everywhere():
    data = _data()
    unsigned = re.compile(r"(?<![\w+\-.])(?!0\.0%)\d+\.\d%")
    cells = [r[m] for r in R.headline_rows(data) for m in data.measures]
    assert cells and not any(unsigned.search(c) for c in cells), cells
    drops = [x for x in R.summary_lines(data) if "drop" in x or "worse" in x]
    assert not any(unsigned.search(x.split("applicability")[0]) for x in drops), drops
    assert "MISSPELL +29.9%" in " ".join(drops)


def test_sets_are_named_without_their_configuration_which_the_method_gives():
    data = _data()
    rows = R.headline_rows(data)
    assert "BACKTRANS" in [r["label"] for r in rows] and not any("[" in r["label"] for r in rows)
    assert not any("BACKTRANS[" in x for x in R.summary_lines(data))
    assert any("BACKTRANS = BACKTRANS[cat+cat-spa+epo+glg+spa,apertium]" in x for x in R.method_lines(data))
    assert max(len(r[m]) for r in rows for m in data.measures) <= 36  # narrow cells: the table fits 1,400 px


def test_applicability_and_the_unreliable_flag_are_one_sentence():
    from bench.reporting.report import applicability as RA

    data = _data()
    result = json.loads((RUN / "result.json").read_text())
    low = [x for x in RA.low_lines(data)]
    assert low  # the run has low-applicability sets
    for s in [e for e in result["sets"] if any(x.startswith(e["name"] + ":") for x in low)]:
        text = next(x for x in low if x.startswith(s["name"] + ":"))
        assert f"the generator changed {s['n_applied']} of {result['dataset']['n_queries']} queries" in text, text
        few = {m: c["n_changed"] for m, c in result["statistics"]["comparisons"][s["name"]].items() if c["n_changed"] < 10}
        for m, k in few.items():  # the unreliable intervals are named in the same sentence
            assert f"{k} ({m})" in text and "unreliable" in text, text
    assert not any("interval unreliable" in r[m] for r in R.headline_rows(data) for m in data.measures)


def test_fewshot_headline_says_what_the_spread_is_or_leaves_it_out():
    result = json.loads((FEWSHOT / "result.json").read_text())
    line = fewshot_lines(result)[0]
    assert re.search(r"R@10 72\.7 \u00b1 1\.3 \(SD over 5 trials\)", line), line
    one = copy.deepcopy(result)
    one["summary"]["headline"]["k_shot"]["novel"]["sd"] = None
    line = fewshot_lines(one)[0]
    assert "\u00b1" not in line and "n/a" not in line and "R@10 72.7 vs zero-shot" in line
