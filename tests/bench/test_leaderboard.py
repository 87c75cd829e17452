"""`bench leaderboard` and `bench compare`: columns, rank intervals and ties from Holm-corrected
pairwise tests (rank inside its interval, ties = not separable from a neighbour), stable order,
few-shot columns, CSV formula-injection escaping, significance markers."""
import csv
import io
from fractions import Fraction

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.evaluation import stats as S
from bench.cli.main import main
from bench.reporting.compare import compare
from bench.core.errors import DataError
from bench.reporting.csvsafe import csv_cell
from bench.reporting.leaderboard import build, table_csv
from bench.reporting.leaderboard.rows import LONG_COLUMNS
from bench.reporting.leaderboard.ranking import pairwise_ranks
from runfactory import degrade, rng_for, synthetic_values, write_fewshot_run, write_run


def _copy(vals):
    return {s: {m: v.copy() for m, v in mm.items()} for s, mm in vals.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("lb")
    v = synthetic_values(0, n=300)
    out = {"dir": d, "vals": v}
    out["a"] = write_run(d / "a", v, model="model-a")
    twin = _copy(v)  # same per-query values: cannot be separated from model-a
    out["twin"] = write_run(d / "twin", twin, model="model-twin")
    worse = _copy(v)
    worse["MISSPELL"] = {m: degrade(rng_for(1, "w", m), x, 0.4) for m, x in v["MISSPELL"].items()}
    worse["SWAPWORD"] = {m: degrade(rng_for(2, "w", m), x, 0.4) for m, x in v["SWAPWORD"].items()}
    out["worse"] = write_run(d / "worse", worse, model="=HYPERLINK(\"http://x\")")
    out["fs"] = write_fewshot_run(d / "fs", model="model-a", summary={"k=8": {"metrics": {"MRR@10": 0.42, "nDCG@10": 0.5}},
                                                                       "k=32": {"metrics": {"MRR@10": 0.55}}})
    out["fs_empty"] = write_fewshot_run(d / "fs_empty", model="model-twin")
    other = synthetic_values(5, n=80, sets=("MISSPELL",))
    out["other"] = write_run(d / "other", other, model="model-a", dataset="other-data")
    return out


def _read_csv(text):
    return list(csv.DictReader(io.StringIO(text)))


def _wide(board):
    return _read_csv(board.wide_csv())


def test_leaderboard_long_and_wide_csv_ranks_and_ties(runs):
    msgs = []
    paths = [runs["worse"], runs["twin"], runs["a"], runs["fs"], runs["fs_empty"], runs["other"]]
    board = build(paths, log=msgs.append)
    assert any("fs_empty" in m and "skipped" in m for m in msgs)
    wide = _wide(board)
    # stable order: group, rank, score desc, model; identical models tie and sort by name
    assert [(r["group"], r["model"], r["rank"], r["rank_low"], r["rank_high"], r["tied"]) for r in wide] == [
        ("other-data", "model-a", "1", "1", "1", "false"),
        ("toy-data", "model-a", "1", "1", "2", "true"),
        ("toy-data", "model-twin", "1", "1", "2", "true"),
        ("toy-data", "'=HYPERLINK(\"http://x\")", "3", "3", "3", "false"),
        ("toy-data:fewshot", "model-a", "", "", "", ""),  # no headline: listed unranked
    ]
    assert any("toy-data:fewshot: model-a has no score" in n for n in board.notes)
    for r in wide[:4]:  # the invariant, and numeric cells stay numeric (unquoted integers)
        assert int(r["rank_low"]) <= int(r["rank"]) <= int(r["rank_high"])
    v = runs["vals"]
    assert float(wide[1]["MRR@10/ORIGINAL"]) == pytest.approx(v["ORIGINAL"]["MRR@10"].mean())
    assert float(wide[4]["MRR@10/k=8 / metrics"]) == 0.42
    # long: one row per model x dataset x set x metric, numeric ranks, the same columns whatever the runs
    text = board.csv()
    assert text.splitlines()[0] == ",".join(LONG_COLUMNS)
    long = _read_csv(text)
    a_rows = [r for r in long if r["model"] == "model-a" and r["group"] == "toy-data" and r["metric"] == "MRR@10"]
    assert {r["metric"] for r in long if r["group"] == "toy-data"} == {"MRR@10", "nDCG@10"}  # every measure
    assert [(r["set"], r["metric"]) for r in a_rows] == [("ORIGINAL", "MRR@10"), ("MISSPELL", "MRR@10"),
                                                         ("SWAPWORD", "MRR@10"), ("VARIATIONS (AVG.)", "MRR@10"),
                                                         ("VARIATIONS (AVG.) applied-only", "MRR@10")]
    # applicability of every variation set (from the per-query table: the factory's runs predate the key)
    for r in a_rows[1:3]:
        assert float(r["applicability"]) == pytest.approx(int(r["n_applied"]) / int(r["n_evaluated"]))
        assert r["low_applicability"] == ("true" if float(r["applicability"]) < 0.3 else "false")
    ao = a_rows[4]
    assert ao["value"] == "" and float(ao["drop_rate_low"]) <= float(ao["drop_rate"]) <= float(ao["drop_rate_high"])
    assert {(r["rank"], r["rank_low"], r["rank_high"]) for r in a_rows} == {("1", "1", "2")}
    orig, mis = v["ORIGINAL"]["MRR@10"].mean(), v["MISSPELL"]["MRR@10"].mean()
    assert float(a_rows[1]["drop_rate"]) == pytest.approx((orig - mis) / orig)
    assert "\ntoy-data,toy-data,\"'=HYPERLINK" in text  # formula neutralised (then quoted for its quotes)
    method = board.method_text()
    for words in ("paired Student t-test", "two-sided", "Holm step-down", "all k(k-1)/2 model pairs",
                  "alpha = 0.05", "seed=0", "rank_low = 1 + #models separably better", "the gate's rule",
                  "tied = not separable from the model directly above or below"):
        assert words in method
    assert board.method[0] in board.markdown()
    # same input, same output (byte-identical); the input order does not matter
    again = build(paths, log=lambda m: None)
    assert again.csv() == board.csv() and again.wide_csv() == board.wide_csv()
    order2 = build([runs["a"], runs["twin"], runs["worse"]], log=lambda m: None)
    assert [r["model"] for r in _wide(order2)] == [r["model"] for r in wide[1:4]]


def test_wide_column_names_do_not_depend_on_the_number_of_metrics_or_labels(runs, tmp_path):
    one = build([runs["a"]], metrics=["MRR@10"], log=lambda m: None).wide_columns()
    two = build([runs["a"]], metrics=["MRR@10", "nDCG@10"], log=lambda m: None).wide_columns()
    assert "MRR@10/ORIGINAL" in one and "MRR@10/VARIATIONS (AVG.)/drop" in one
    assert set(one) < set(two) and "nDCG@10/MISSPELL" in two
    v = synthetic_values(0, n=50)
    labelled = write_run(tmp_path / "lab", v, model="m-lab", labels={"MISSPELL": "MISSPELL[x,y]"})
    board = build([runs["a"], labelled], log=lambda m: None)
    assert "MRR@10/MISSPELL" in board.wide_columns() and not any("[x,y]" in c for c in board.wide_columns())
    long = _read_csv(board.csv())
    assert {r["set_label"] for r in long if r["model"] == "m-lab" and r["set"] == "MISSPELL"} == {"MISSPELL[x,y]"}


def test_incomparable_runs_are_ranked_in_separate_groups_and_the_note_says_why(tmp_path):
    """An 8-set run and a 2-set run were ranked together on VARIATIONS (AVG.); the gate refuses the
    pair, and so does the leaderboard: separate groups, with the gate's reason."""
    big = write_run(tmp_path / "big", synthetic_values(1, n=60, sets=("MISSPELL", "SWAPWORD")), model="big")
    small = write_run(tmp_path / "small", synthetic_values(2, n=60, sets=("MISSPELL",)), model="small")
    other_seed = write_run(tmp_path / "seed", synthetic_values(3, n=60, sets=("MISSPELL", "SWAPWORD")),
                           model="seeded", seed=1)
    board = build([big, small, other_seed], log=lambda m: None)
    wide = _wide(board)
    assert sorted((r["group"], r["model"], r["rank"]) for r in wide) == [
        ("toy-data", "big", "1"), ("toy-data#2", "small", "1"), ("toy-data#3", "seeded", "1")]
    notes = " ".join(board.notes)
    assert "group toy-data#2 (small) is ranked apart" in notes and "absent" in notes
    assert "group toy-data#3 (seeded)" in notes and "different seed" in notes
    assert "toy-data#2" in board.markdown()


def _standard(rng, n):
    """n values with mean exactly ~0 and SD (ddof=1) ~1."""
    u = rng.normal(size=n)
    return (u - u.mean()) / u.std(ddof=1)


def _check_rank_invariants(res, scores, alpha=0.05):
    k = scores.shape[1]
    rank, lo, hi = res.rank, res.rank_low, res.rank_high
    assert np.all(1 <= lo) and np.all(lo <= rank) and np.all(rank <= hi) and np.all(hi <= k)
    # the clip is only a guard: the point rank (by mean) lies in the interval already
    # (means from exactly rounded sums: equal columns in another order tie exactly, as the ranking sees them)
    assert np.array_equal(rank, S.ranks_of(np.array([statistics.fmean(c) for c in scores.T.tolist()])))
    assert not np.any(np.diag(res.better)) and not np.any(res.better & res.better.T)
    for i in range(k):
        for j in range(k):
            if res.better[i, j]:  # j separably better than i: significant after correction, higher mean
                assert res.p_adj[i, j] < alpha and res.means[j] > res.means[i] and rank[j] < rank[i]
    assert np.array_equal(lo, 1 + res.better.sum(axis=1)) and np.array_equal(hi, k - res.better.sum(axis=0))
    # order: rank, mean descending; tied = not separable from the row directly above or below
    assert [int(rank[i]) for i in res.order] == sorted(int(r) for r in rank)
    for pos, i in enumerate(res.order):
        nbrs = [res.order[q] for q in (pos - 1, pos + 1) if 0 <= q < k]
        assert bool(res.tied[i]) == any(not res.separable(i, j) for j in nbrs)
    # identical models: same rank, same interval, never separable, both tied
    for i in range(k):
        for j in range(i + 1, k):
            if np.array_equal(scores[:, i], scores[:, j]):
                assert rank[i] == rank[j] and lo[i] == lo[j] and hi[i] == hi[j]
                assert not res.separable(i, j) and res.tied[i] and res.tied[j]
    finite = np.isfinite(res.p_raw)
    assert np.all(res.p_adj[finite] >= res.p_raw[finite] - 1e-12)  # Holm never lowers a p-value


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2 ** 32 - 1), k=st.integers(1, 7), n=st.integers(2, 80),
       kind=st.sampled_from(["continuous", "mrr", "binary", "constant-shift"]),
       n_copies=st.integers(0, 3), spread=st.sampled_from([0.0, 0.02, 0.1, 0.5]),
       test=st.sampled_from(["t-test", "t-test", "randomization", "wilcoxon"]))
def test_rank_lies_in_its_interval_for_random_score_matrices(seed, k, n, kind, n_copies, spread, test):
    rng = np.random.default_rng(seed)
    shift = rng.normal(0, spread, k)
    if kind == "continuous":
        scores = rng.random((n, 1)) + rng.normal(0, 0.2, (n, k)) + shift
    elif kind == "mrr":  # few distinct values: many exact ties per query and between models
        scores = np.clip(rng.choice([0.0, 0.1, 0.25, 0.5, 1.0], size=(n, k)) + np.round(shift, 1), 0, 1)
    elif kind == "binary":
        scores = (rng.random((n, k)) < np.clip(0.5 + shift, 0, 1)).astype(float)
    else:  # every query differs by the same amount: SD(d) = 0
        scores = rng.random((n, 1)) + np.round(shift, 2)
    for _ in range(min(n_copies, k - 1)):  # identical models
        i, j = rng.choice(k, size=2, replace=False)
        scores[:, j] = scores[:, i]
    names = [f"m{i}" for i in range(k)]
    res = pairwise_ranks(scores, names, test=test, seed=seed % 1000, n_resamples=199)
    _check_rank_invariants(res, scores)
    again = pairwise_ranks(scores, names, test=test, seed=seed % 1000, n_resamples=199)  # deterministic
    assert np.array_equal(again.rank, res.rank) and np.array_equal(again.tied, res.tied)
    assert np.array_equal(again.p_raw, res.p_raw, equal_nan=True)


def test_rank_invariants_on_many_seeded_matrices_with_ties():
    """The same invariants without hypothesis: 200 seeded matrices mixing near-equal, equal and
    clearly different models."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        k, n = int(rng.integers(2, 9)), int(rng.integers(3, 120))
        base = rng.random((n, 1))
        scores = base + rng.normal(0, 0.05, (n, k)) + rng.choice([0.0, 0.0, 0.01, 0.05, 0.3], size=k)
        scores[:, rng.integers(k)] = scores[:, 0]
        if seed % 3 == 0:
            scores = np.round(scores, 1)  # coarse values: exact ties
        _check_rank_invariants(pairwise_ranks(scores, [f"m{i}" for i in range(k)]), scores)


def test_tied_means_not_separable_from_a_neighbour_not_sharing_a_rank():
    """C > B > A with B-A and C-B not separable but C-A separable: the old rule (rank = 1 + number
    separably better; tied = shares a rank) gave C 1, B 1, A 2 with A 'not tied'. Now A is tied
    with its neighbour B, and every rank lies in its interval."""
    n = 200
    u = _standard(np.random.default_rng(7), n)
    a = np.zeros(n)
    b = 0.1 + u  # B - A: t = 0.1 * sqrt(200) = 1.41, p = 0.16
    c = np.full(n, 0.2)  # C - A = 0.2 on every query: p = 0; C - B = 0.1 - u: p = 0.16
    res = pairwise_ranks(np.column_stack([a, b, c]), ["A", "B", "C"])
    assert [int(x) for x in res.rank] == [3, 2, 1]
    assert [(int(lo), int(hi)) for lo, hi in zip(res.rank_low, res.rank_high)] == [(2, 3), (1, 3), (1, 2)]
    assert res.order == [2, 1, 0] and res.tied.tolist() == [True, True, True]
    assert res.better[0, 2] and not res.better[0, 1] and not res.better[1, 2]
    # a fourth model far below everyone is separable from its only neighbour A: not tied
    d = np.full(n, -1.0)
    res4 = pairwise_ranks(np.column_stack([a, b, c, d]), ["A", "B", "C", "D"])
    assert res4.order[-1] == 3 and not res4.tied[3] and (int(res4.rank_low[3]), int(res4.rank_high[3])) == (4, 4)
    assert res4.tied[0]  # A: separable from D below but not from B above


def test_pairwise_separation_is_corrected_across_all_pairs():
    """Two comparisons with raw p ~ 0.03 separate without correction but not with Holm over the
    3 pairs (3 * 0.03 > 0.05)."""
    n = 100
    rng = np.random.default_rng(11)
    u, v = _standard(rng, n), _standard(rng, n)
    scores = np.column_stack([np.zeros(n), 0.219 + u, 0.219 + v])
    raw = [S.paired_test(scores[:, i], scores[:, j]).pvalue for i, j in ((0, 1), (0, 2), (1, 2))]
    assert 0.05 / 3 < raw[0] < 0.05 and 0.05 / 3 < raw[1] < 0.05 and raw[2] > 0.5
    none = pairwise_ranks(scores, ["A", "B", "C"], correction="none")
    holm = pairwise_ranks(scores, ["A", "B", "C"])
    assert none.better[0, 1] and none.better[0, 2] and (int(none.rank_low[0]), int(none.rank_high[0])) == (3, 3)
    assert not holm.better.any() and holm.rank_low.tolist() == [1, 1, 1] and holm.rank_high.tolist() == [3, 3, 3]
    expected = S.adjust_pvalues(raw, "holm")  # one family of k(k-1)/2 = 3 pairs
    assert holm.n_pairs == 3
    assert [holm.p_adj[0, 1], holm.p_adj[0, 2], holm.p_adj[1, 2]] == pytest.approx(expected.tolist(), rel=1e-12)
    assert holm.tied.all() and not none.tied[0]
    with pytest.raises(ValueError):
        pairwise_ranks(np.array([[0.0, np.nan], [1.0, 1.0]]))


def test_pairwise_ranks_single_model_and_build_options(runs):
    one = pairwise_ranks(np.array([[0.1], [0.3]]), ["solo"])
    assert one.rank.tolist() == [1] and one.rank_low.tolist() == [1] and one.rank_high.tolist() == [1]
    assert not one.tied[0] and one.n_pairs == 0
    board = build([runs["a"], runs["twin"], runs["worse"]], test="wilcoxon", correction="bh", alpha=0.01,
                  log=lambda m: None)
    method = board.method[0]
    assert "Wilcoxon signed-rank" in method and "Benjamini-Hochberg" in method and "alpha = 0.01" in method
    assert [(r["rank"], r["rank_low"], r["rank_high"], r["tied"]) for r in _wide(board)] == [
        ("1", "1", "2", "true"), ("1", "1", "2", "true"), ("3", "3", "3", "false")]
    with pytest.raises(ValueError):
        build([runs["a"]], test="z-test", log=lambda m: None)
    with pytest.raises(ValueError):
        build([runs["a"]], correction="sidak", log=lambda m: None)


def test_leaderboard_without_per_query_tables_has_no_intervals_or_ties(runs, tmp_path):
    import shutil

    paths = []
    for name in ("a", "worse"):
        dst = tmp_path / name
        shutil.copytree(runs[name], dst)
        (dst / "per_query.csv").unlink()
        paths.append(dst)
    board = build(paths, log=lambda m: None)
    rows = _wide(board)
    assert [r["rank"] for r in rows] == ["1", "2"]
    assert all(r["rank_low"] == r["rank_high"] == r["tied"] == "" for r in rows)
    assert any("no rank intervals, no ties" in n for n in board.notes)


_FORMULA_STARTS = [
    "=1+2", "+x", "-x", "@SUM(A1)", "|cmd", "%x",  # ASCII formula / DDE starts
    " =1+2", "\t=1+2", "\r=1+2", "\n=1+2", "\x00=1+2", "\x1f=1",  # whitespace / control characters
    "\u00a0=1", "\u3000=1", "\u2028=1", "\ufeff=1", "\u200b=1",  # NBSP, ideographic space, LS, BOM, ZWSP
    "\uff1d1+2", "\uff0bx", "\uff0dx", "\uff20x", "\uff5cx", "\uff05x",  # fullwidth = + - @ | %
    "\ufe661", "\ufe62x", "\ufe63x", "\ufe6bx", "\u2212x",  # small forms, MINUS SIGN
    "-1-1", "+1)", "-0.5\n=1+2", "-\u0661", "--1", "-inf", "-1,5",  # not plain decimal numbers
]


@pytest.mark.parametrize("text", _FORMULA_STARTS)
def test_csv_formula_starts_are_neutralised(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["model-a", "", "1-2", "a=b", "x@y", "fewshot k=8 / metrics / MRR@10",
                                  "-0.125", "+3", "1e-3", "-1E+5", ".5", "-7.", "0"])
def test_csv_safe_text_is_left_alone(text):
    assert csv_cell(text) == text


def test_csv_cells_are_escaped_but_numbers_stay_numbers():
    assert csv_cell("=1+2") == "'=1+2"
    assert csv_cell("'quoted") == "''quoted"  # reversible (a spreadsheet shows 'quoted; readers remove one ')
    assert csv_cell("+x") == "'+x" and csv_cell("-x") == "'-x" and csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("\tx") == "'\tx" and csv_cell("\rx") == "'\rx"
    assert csv_cell(-0.125) == "-0.125" and csv_cell(-3) == -3 and csv_cell(float("nan")) == ""
    assert csv_cell("model-a") == "model-a" and csv_cell(None) == "" and csv_cell(True) == "true"
    assert csv_cell(np.int64(-3)) == -3 and csv_cell(np.float32(-0.5)) == "-0.5"
    assert csv_cell(np.float64(-2.0)) == "-2.0" and csv_cell(Fraction(-1, 4)) == "-0.25"
    assert csv_cell(float("-inf")) == "" and csv_cell(np.bool_(False)) == "false"


def test_leaderboard_csv_escapes_text_and_keeps_numbers_unquoted():
    rows = [{"rank": 1, "model": "\uff1dcmd|' /C calc'!A0", "score": -0.5, "note": "x\t@y", "n": np.int64(-2)},
            {"rank": 2, "model": "\t=1+2", "score": float("nan"), "note": None, "n": 3}]
    text = table_csv(["rank", "model", "score", "note", "n"], rows)
    lines = text.splitlines()
    assert lines[0] == "rank,model,score,note,n"
    assert lines[1] == "1,'\uff1dcmd|' /C calc'!A0,-0.5,x\t@y,-2"  # numbers unquoted, negative ones too
    assert lines[2] == "2,'\t=1+2,,,3"
    back = list(csv.reader(io.StringIO(text)))
    assert back[1] == ["1", "'\uff1dcmd|' /C calc'!A0", "-0.5", "x\t@y", "-2"]
    assert back[2] == ["2", "'\t=1+2", "", "", "3"]


def test_leaderboard_cli_writes_long_wide_method_and_markdown(runs, tmp_path, capsys):
    out = tmp_path / "results" / "leaderboard.csv"
    md = tmp_path / "lb.md"
    assert main(["leaderboard", str(runs["a"]), str(runs["worse"]), "-o", str(out), "--md", str(md),
                 "--metric", "MRR@10", "--metric", "nDCG@10", "--correction", "holm"]) == 0
    assert out.read_text().splitlines()[0] == ",".join(LONG_COLUMNS)
    wide_header = (tmp_path / "results" / "leaderboard.wide.csv").read_text().splitlines()[0].split(",")
    assert "MRR@10/ORIGINAL" in wide_header and "nDCG@10/VARIATIONS (AVG.)/drop" in wide_header
    method = (tmp_path / "results" / "leaderboard.method.md").read_text()
    assert "Holm step-down" in method and "## Columns (long CSV)" in method
    text = md.read_text()
    assert "### drbench leaderboard" in text and "%" in text and "<details><summary>Method</summary>" in text
    assert "paired Student t-test" in text and "two-sided" in text and "alpha = 0.05" in text
    table_head = next(line for line in text.splitlines() if line.startswith("| rank |"))
    assert len(table_head.split("|")) - 2 <= 10  # headline columns only: fits a GitHub page
    assert "nDCG@10" not in table_head
    assert main(["leaderboard", str(runs["a"]), str(runs["a"])]) == 2
    assert "two runs of model 'model-a'" in capsys.readouterr().err
    assert main(["leaderboard", str(runs["a"]), "--metric", "R@5"]) == 2


def test_compare_markers_and_wtl(runs, capsys):
    table = compare([runs["a"], runs["worse"]], baseline=runs["a"])
    md = table.markdown()
    assert "two-sided" in md and "Holm" in md and "ddof=1" in md
    worse = table.cells[1]
    assert worse["MISSPELL"].marker() == "▼†" and worse["ORIGINAL"].marker() == ""
    assert worse["MISSPELL"].vs_baseline["loss"] > 0 and worse["MISSPELL"].vs_baseline["win"] == 0
    assert table.cells[0]["MISSPELL"].vs_baseline is None  # the baseline itself
    recs = table.records()
    assert {r["model"] for r in recs} == {"model-a", "=HYPERLINK(\"http://x\")"}
    csv_text = table.csv()
    assert "'=HYPERLINK" in csv_text
    assert main(["compare", str(runs["a"]), str(runs["worse"]), "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert "| model-a |" in out and "▼" in out
    assert main(["compare", str(runs["a"]), "--baseline", str(runs["other"])]) == 2
    assert "different dataset fingerprint" in capsys.readouterr().err


def test_compare_rejects_fewshot(runs):
    with pytest.raises(DataError):
        compare([runs["fs"]])


def test_the_long_csv_holds_every_measure_by_default_and_metric_narrows_it(tmp_path):
    """One row per model x dataset x set x metric, as the README and the table footer say."""
    import csv
    from pathlib import Path

    from bench.reporting.leaderboard import build

    runs = [Path("results/runs/minilm-l6__chatterbot__variations__s0"),
            Path("results/runs/bm25__chatterbot__variations__s0")]
    board = build(runs, log=lambda m: None)
    rows = list(csv.DictReader(board.csv().splitlines()))
    assert {r["metric"] for r in rows} == {"MRR@10", "nDCG@10", "R@100"}
    assert board.metrics[0] == "MRR@10" and all(r["ranked_on"].startswith("MRR@10/") for r in rows)
    wide = board.wide_csv().splitlines()[0]
    assert "nDCG@10/ORIGINAL" in wide and "R@100/ORIGINAL" in wide
    narrowed = list(csv.DictReader(build(runs, metrics=["nDCG@10"], log=lambda m: None).csv().splitlines()))
    assert {r["metric"] for r in narrowed} == {"nDCG@10"}
