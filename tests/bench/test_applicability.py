"""Applicability of the variation sets (issue 22): the share of changed queries and its flag in
every output, edit types, and the applied-only companion of VARIATIONS (AVG.) with its bootstrap
interval, checked against a brute-force recomputation."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bench.core.seeding import rng_for
from bench.evaluation.intervals import bootstrap_index_chunks
from bench.reporting.report import report
from bench.reporting.tables import subsets_table, variations_table
from bench.results import applicability as AP
from bench.results.rundir import load_run
from runfactory import synthetic_values, write_run

ROOT = Path(__file__).resolve().parents[2]


def test_edit_type_is_the_text_before_the_first_colon_else_the_first_word():
    assert AP.edit_type("ocr:s->8 'sapient'->'8apient'") == "ocr"
    assert AP.edit_type("keyboard: e->f") == "keyboard"
    assert AP.edit_type("n:'idea'->'thought' (cos 0.844)") == "n"
    assert AP.edit_type("appended '..'") == "appended"
    assert AP.edit_type("via spa (apertium): 'Los robots'") == "via spa (apertium)"
    assert AP.edit_type(": odd") == ":"  # nothing before the colon: the first word
    assert AP.edit_type("") is None
    assert AP.count_edit_types(["ocr:a", "typos:b", "ocr:c", "", "x y"], [1, 1, 1, 1, 0]) == \
        {"(none)": 1, "ocr": 2, "typos": 1}  # unchanged queries are not counted


def _brute_force(orig, sets, m, seed, B):
    """Every replicate by loops over the same draws: each set's applied-only drop rate on the resample
    (a set without a changed query is left out of the average; an undefined replicate is dropped)."""
    n = len(orig[m])
    reps = [r for r in _brute_force_reps(orig, [s for s in sets if any(s[1])], m, seed, B) if r == r]
    point = []
    for _, applied, vals in sets:
        idx = [i for i in range(n) if applied[i]]
        if idx:
            so = sum(orig[m][i] for i in idx)
            point.append((so - sum(vals[m][i] for i in idx)) / so)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return sum(point) / len(point), [float(lo), float(hi)], B - len(reps)


def _example(n=14):
    rng = np.random.default_rng(7)
    orig = {"M": list(rng.uniform(0.2, 1.0, n))}
    sets = [("ALL", [1] * n, {"M": [v * 0.7 for v in orig["M"]]}),
            ("HALF", [i % 2 for i in range(n)], {"M": list(rng.uniform(0.0, 1.0, n))}),
            ("NONE", [0] * n, {"M": list(orig["M"])}),
            ("ONE", [1 if i == 3 else 0 for i in range(n)], {"M": [0.1 if i == 3 else v for i, v in enumerate(orig["M"])]})]
    return orig, sets


def test_applied_only_average_matches_a_brute_force_recomputation():
    orig, sets = _example()
    block = AP.applied_only_average(orig, sets, ["M"], seed=3, B=300, interval="percentile")
    point, ci, undefined = _brute_force(orig, sets, "M", 3, 300)
    assert block["sets"] == ["ALL", "HALF", "ONE"]
    assert block["excluded"] == {"NONE": "no changed queries (n_applied = 0)"}  # excluded and named
    assert block["drop_rate"]["M"] == pytest.approx(point, abs=1e-12)
    assert block["drop_rate_ci"]["M"] == pytest.approx(ci, abs=1e-12)
    assert block["n_undefined"]["M"] == undefined > 0  # the set with one changed query is often not drawn
    assert block["n_sets"]["M"] == 3 and block["B"] == 300 and block["interval"] == "percentile"
    assert block == AP.applied_only_average(orig, sets, ["M"], seed=3, B=300, interval="percentile")  # deterministic
    assert block["drop_rate_ci"] != AP.applied_only_average(orig, sets, ["M"], seed=4, B=300,
                                                            interval="percentile")["drop_rate_ci"]


def _undefined_by_reason(orig, sets, m, seed, B):
    """Per replicate (the same draws), why it has no average: (no changed query of an averaged set,
    ORIGINAL summing to 0 on an averaged set's resampled changed queries)."""
    n = len(orig[m])
    none = zero = 0
    for idx in bootstrap_index_chunks(n, B, rng_for(seed, "bootstrap-applied-only-average", m)):
        for row in idx:
            chosen = [[int(i) for i in row if applied[int(i)]] for _, applied, _ in sets]
            if any(not c for c in chosen):
                none += 1
            elif any(sum(orig[m][i] for i in c) == 0 for c in chosen):
                zero += 1
    return none, zero


def test_n_undefined_counts_both_reasons_a_replicate_is_left_out():
    """n_undefined (result.json's method string, docs/result-schema.md) counts the replicates where an
    averaged set has no changed query in the resample AND those where ORIGINAL sums to 0 on a set's
    resampled changed queries (seen: cisi, seed 7, MRR@10, SWAPSYN-GLOVE). Each case alone, then both."""
    n, B = 12, 400
    orig = {"M": [0.5 + 0.03 * i for i in range(n)]}
    # one changed query, ORIGINAL > 0 on it: undefined only when it is not drawn
    one = ("ONE", [1 if i == 4 else 0 for i in range(n)], {"M": [0.1 if i == 4 else v for i, v in enumerate(orig["M"])]})
    # every query changed (so every resample has changed queries), ORIGINAL 0 on all but query 7:
    # undefined only when query 7 is not drawn (ORIGINAL sums to 0 on the resampled changed queries)
    orig_zero = {"M": [0.8 if i == 7 else 0.0 for i in range(n)]}
    zeros = ("ZEROS", [1] * n, {"M": [0.4 if i == 7 else 0.0 for i in range(n)]})
    for o, sets, case in ((orig, [one], "none"), (orig_zero, [zeros], "zero")):
        block = AP.applied_only_average(o, sets, ["M"], seed=7, B=B, interval="percentile")
        none, zero = _undefined_by_reason(o, sets, "M", 7, B)
        assert (none > 0, zero > 0) == ((True, False) if case == "none" else (False, True))
        assert block["n_undefined"]["M"] == none + zero == B - int(np.isfinite(np.array(
            _brute_force_reps(o, sets, "M", 7, B))).sum())
        assert block["n_sets"]["M"] == 1
    # both at once: ONE changed query 4 only; ZEROS every query but 4, ORIGINAL > 0 only on 7 of them
    both_orig = {"M": [0.8 if i in (4, 7) else 0.0 for i in range(n)]}
    single = ("ONE", [1 if i == 4 else 0 for i in range(n)], {"M": [0.2 if i == 4 else 0.0 for i in range(n)]})
    rest = ("ZEROS", [0 if i == 4 else 1 for i in range(n)], {"M": [0.4 if i == 7 else 0.0 for i in range(n)]})
    block = AP.applied_only_average(both_orig, [single, rest], ["M"], seed=7, B=B, interval="percentile")
    none, zero = _undefined_by_reason(both_orig, [single, rest], "M", 7, B)
    assert block["n_undefined"]["M"] == none + zero and none > 0 and zero > 0 and block["n_sets"]["M"] == 2
    assert "ORIGINAL sums to 0" in block["method"] and "no changed query" in block["method"]


def _brute_force_reps(orig, sets, m, seed, B):
    """Every replicate's average (NaN where undefined), by loops over the same draws."""
    n = len(orig[m])
    out = []
    for idx in bootstrap_index_chunks(n, B, rng_for(seed, "bootstrap-applied-only-average", m)):
        for row in idx:
            drops = []
            for _, applied, vals in sets:
                chosen = [int(i) for i in row if applied[int(i)]]
                so = sum(orig[m][i] for i in chosen)
                drops.append((so - sum(vals[m][i] for i in chosen)) / so if chosen and so != 0 else float("nan"))
            out.append(sum(drops) / len(drops))
    return out


def test_one_query_and_a_measure_where_original_scores_zero():
    args = {"M": [0.5]}, [("A", [1], {"M": [0.25]}), ("B", [0], {"M": [0.5]})], ["M"], 0
    boot = AP.applied_only_average(*args, B=50, interval="percentile")
    assert boot["drop_rate_ci"]["M"] == [0.5, 0.5]  # n = 1: every resample alike
    one = AP.applied_only_average(*args, B=50)
    assert one["drop_rate"]["M"] == 0.5 and one["drop_rate_ci"]["M"] == [None, None]  # n = 1: no t interval
    assert one["interval_note"]["M"] == "interval unreliable: 1 of 1 queries changed in A"
    assert one["excluded"] == {"B": "no changed queries (n_applied = 0)"} and one["n_undefined"]["M"] == 0
    zero = AP.applied_only_average({"M": [0.0, 0.0], "N": [1.0, 1.0]},
                                   [("A", [1, 1], {"M": [0.0, 0.0], "N": [0.5, 0.5]})], ["M", "N"], 0, B=20)
    assert zero["drop_rate"] == {"M": None, "N": 0.5} and zero["drop_rate_ci"]["M"] == [None, None]
    assert "A" in zero["excluded_by_measure"]["M"]


def _low_run(tmp_path):
    vals = synthetic_values(1, n=40, sets=("MISSPELL", "SWAPSYN-WNET"))
    applied = {"MISSPELL": [1] * 40, "SWAPSYN-WNET": [1 if i < 4 else 0 for i in range(40)]}
    for i in range(4, 40):  # an unchanged query keeps its score
        for m in vals["SWAPSYN-WNET"]:
            vals["SWAPSYN-WNET"][m][i] = vals["ORIGINAL"][m][i]
    return write_run(tmp_path / "run", vals, applied=applied, statistics=True)


def test_console_flags_a_low_applicability_set(tmp_path):
    result = json.loads((_low_run(tmp_path) / "result.json").read_text())
    text = variations_table(result)
    row = next(line for line in text.splitlines() if line.startswith("SWAPSYN-WNET"))
    assert "4/40" in row and "10.0%!" in row and row.count("!") == 1 + len(result["measures"])
    assert "SWAPSYN-WNET: drop rate rests on 4 changed queries (10.0% of queries)" in text
    assert "!" not in next(line for line in text.splitlines() if line.startswith("MISSPELL"))


def test_report_of_a_run_written_before_the_figures(tmp_path):
    run = _low_run(tmp_path)
    md = report(run, "md")
    assert "| SWAPSYN-WNET | 4/40 (10.0%) ! |" in md
    assert "SWAPSYN-WNET: the generator changed 4 of 40 queries (applicability 10.0%, below 30%: !" in md
    block = AP.applied_average_of(load_run(run, per_query=None))
    assert "from per_query.csv" in block["recomputed"] and block["sets"] == ["MISSPELL", "SWAPSYN-WNET"]
    assert f"| {AP.APPLIED_AVG} | 2 sets |" in md
    assert "no resampling" in md and "B = 1000" not in md  # the skew-t interval resamples nothing
    html = report(run, "html", plots=False)
    assert "few changes" in html and "4/40 (10.0%) !" in html
    # without the counts and the per-query table nothing can be computed: "n/a", no flag
    data = json.loads((run / "result.json").read_text())
    for e in data["sets"]:
        e.pop("n_applied", None)
    (run / "result.json").write_text(json.dumps(data), encoding="utf-8")
    (run / "per_query.csv").unlink()
    md = report(run, "md")
    assert "| SWAPSYN-WNET | n/a |" in md and "low applicability" not in md and AP.APPLIED_AVG not in md


def test_committed_runs_get_applicability_and_edit_types(tmp_path):
    src = ROOT / "results" / "runs" / "bm25__cranfield__variations__s0"
    if not src.is_dir():
        pytest.skip("committed runs not present")
    run = Path(shutil.copytree(src, tmp_path / "run"))
    result = json.loads((run / "result.json").read_text())
    low = [e for e in result["sets"] if e["name"] != "ORIGINAL" and e["n_applied"] < AP.LOW_APPLICABILITY * e["n_evaluated"]]
    high = [e for e in result["sets"] if e["name"] != "ORIGINAL" and e not in low]
    assert low and high  # the committed Cranfield run has both (the synonym sets change 6 of 225 queries)
    md = report(run, "md", plots=False)
    for e in low + high:
        share = 100 * e["n_applied"] / e["n_evaluated"]
        cell = f"{e['n_applied']}/{e['n_evaluated']} ({share:.1f}%)"
        assert (cell + " !" in md) == (e in low), e["name"]
    from perturb.io.sets import read_tsv

    vs = read_tsv(run / "variations" / "MISSPELL.tsv")
    counts = AP.count_edit_types(vs.details, vs.applied)
    assert sum(counts.values()) == sum(vs.applied) and len(counts) > 1
    table = md[md.index("### Edit types"):]
    for t, k in counts.items():
        assert f"| {t} | {k} |" in table
    assert f"{AP.LOW_MARK} = applicability below 30%: {low[0]['label']}: drop rate rests on" in subsets_table(result)


def _three_sets(changed_a, changed_b, n=40):
    """ORIGINAL and three sets applied to every query: A and B lower the listed queries' values, C
    (a set like bm25's EXTRAPUNC) changes no value."""
    rng = np.random.default_rng(5)
    o = rng.uniform(0.2, 1.0, n)

    def lowered(idx):
        v = o.copy()
        v[list(idx)] *= 0.5
        return v

    sets = [(name, [1] * n, {"M": vals}) for name, vals in
            (("A", lowered(changed_a)), ("B", lowered(changed_b)), ("C", o.copy()))]
    return {"M": o}, sets


def test_the_average_is_flagged_by_the_queries_changed_in_any_set():
    orig, sets = _three_sets(range(0, 6), range(6, 12))  # 6 + 6 changed queries, C none
    block = AP.applied_only_average(orig, sets, ["M"], 0)
    assert block["sets"] == ["A", "B", "C"] and block["interval_note"]["M"] is None  # 12 queries changed
    assert block["n_sets"]["M"] == 3  # C (no value changed) is averaged, and does not flag the average by itself
    orig, sets = _three_sets(range(0, 4), range(2, 6))  # 6 distinct queries changed
    note = AP.applied_only_average(orig, sets, ["M"], 0)["interval_note"]["M"]
    assert note == "interval unreliable: 6 of 40 queries changed in any of the 3 sets"
    assert "in any averaged set" in AP.AVG_METHOD
