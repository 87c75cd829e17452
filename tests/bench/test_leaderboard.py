"""`bench leaderboard` and `bench compare`: columns, rank intervals and ties from Holm-corrected
pairwise tests (rank inside its interval, ties = not separable from a neighbour), stable order,
few-shot columns, CSV formula-injection escaping, significance markers."""
import csv
import io
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.evaluation import stats as S
from bench.cli.main import main
from bench.reporting.compare import compare
from bench.core.errors import DataError
from bench.reporting.csvsafe import csv_cell
from bench.reporting.leaderboard import Leaderboard, build
from bench.reporting.ranking import pairwise_ranks
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


def test_leaderboard_columns_ranks_and_ties(runs):
    msgs = []
    board = build([runs["worse"], runs["twin"], runs["a"], runs["fs"], runs["fs_empty"], runs["other"]],
                  log=msgs.append)
    rows = _read_csv(board.csv())
    assert [c for c in board.columns[:8]] == ["rank", "rank_interval", "rank_low", "rank_high", "tied", "model",
                                              "dataset", "n_queries"]
    for col in ("ORIGINAL", "MISSPELL", "SWAPWORD", "VARIATIONS (AVG.)", "drop MISSPELL", "drop VARIATIONS (AVG.)",
                "fewshot k=8 / metrics / MRR@10", "fewshot k=32 / metrics / MRR@10", "rank_method"):
        assert col in board.columns
    assert "fewshot k=8 / metrics / nDCG@10" not in board.columns  # only the chosen metric
    assert any("fs_empty" in m and "skipped" in m for m in msgs)
    # stable order: dataset, rank, score desc, model; identical models tie and sort by name
    assert [(r["dataset"], r["model"], r["rank"], r["tied"]) for r in rows] == [
        ("other-data", "model-a", "1", "no"),
        ("toy-data", "model-a", "1", "yes"),
        ("toy-data", "model-twin", "1", "yes"),
        ("toy-data", "'=HYPERLINK(\"http://x\")", "3", "no"),
    ]
    # identical models cannot be separated: each could be 1st or 2nd; the worse model is 3rd for sure
    assert [r["rank_interval"] for r in rows] == ["1-1", "1-2", "1-2", "3-3"]
    assert [(r["rank_low"], r["rank_high"]) for r in rows] == [("1", "1"), ("1", "2"), ("1", "2"), ("3", "3")]
    for r in rows:  # the invariant, and numeric cells stay numeric (unquoted integers)
        assert int(r["rank_low"]) <= int(r["rank"]) <= int(r["rank_high"])
    assert "\n3,3-3,3,3,no," in board.csv()
    assert float(rows[1]["fewshot k=8 / metrics / MRR@10"]) == 0.42
    v = runs["vals"]
    assert float(rows[1]["ORIGINAL"]) == pytest.approx(v["ORIGINAL"]["MRR@10"].mean())
    method = rows[1]["rank_method"]
    for words in ("paired Student t-test", "two-sided", "Holm step-down", "all k(k-1)/2 model pairs",
                  "alpha = 0.05", "seed=0", "rank_low = 1 + #models separably better",
                  "tied = not separable from the model directly above or below"):
        assert words in method
    assert board.header[0] == method
    # same input, same output (byte-identical)
    again = build([runs["worse"], runs["twin"], runs["a"], runs["fs"], runs["fs_empty"], runs["other"]],
                  log=lambda m: None)
    assert again.csv() == board.csv()
    order2 = build([runs["a"], runs["twin"], runs["worse"]], log=lambda m: None)
    assert [r["model"] for r in _read_csv(order2.csv())] == [r["model"] for r in rows[1:]]


def test_rank_interval_widens_when_models_are_close(tmp_path):
    rng = rng_for(3, "close")
    base = rng.random(60)
    paths = []
    for i, noise in enumerate([0.0, 0.02, 0.3]):
        x = np.clip(base + rng_for(i, "noise").normal(0, noise, 60) - 0.2 * (i == 2), 0, 1)
        vals = {"ORIGINAL": {"MRR@10": x}, "MISSPELL": {"MRR@10": x * 0.9}}
        paths.append(write_run(tmp_path / f"m{i}", vals, model=f"m{i}"))
    rows = _read_csv(build(paths, log=lambda m: None).csv())
    by = {r["model"]: r for r in rows}
    # m0 and m1 are not separable: both could be 1st or 2nd; ranks follow the means inside that interval
    assert (by["m0"]["rank"], by["m0"]["rank_interval"], by["m0"]["tied"]) == ("1", "1-2", "yes")
    assert (by["m1"]["rank"], by["m1"]["rank_interval"], by["m1"]["tied"]) == ("2", "1-2", "yes")
    assert (by["m2"]["rank"], by["m2"]["rank_interval"], by["m2"]["tied"]) == ("3", "3-3", "no")


def _standard(rng, n):
    """n values with mean exactly ~0 and SD (ddof=1) ~1."""
    u = rng.normal(size=n)
    return (u - u.mean()) / u.std(ddof=1)


def _check_rank_invariants(res, scores, alpha=0.05):
    k = scores.shape[1]
    rank, lo, hi = res.rank, res.rank_low, res.rank_high
    assert np.all(1 <= lo) and np.all(lo <= rank) and np.all(rank <= hi) and np.all(hi <= k)
    # the clip is only a guard: the point rank (by mean) lies in the interval already
    assert np.array_equal(rank, S.ranks_of(scores.mean(axis=0)))
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
    method = board.rows[0]["rank_method"]
    assert "Wilcoxon signed-rank" in method and "Benjamini-Hochberg" in method and "alpha = 0.01" in method
    rows = _read_csv(board.csv())
    assert [(r["rank"], r["rank_interval"], r["tied"]) for r in rows] == [("1", "1-2", "yes"), ("1", "1-2", "yes"),
                                                                         ("3", "3-3", "no")]
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
    rows = _read_csv(board.csv())
    assert [r["rank"] for r in rows] == ["1", "2"]
    assert all(r["rank_interval"] == r["rank_low"] == r["rank_high"] == r["tied"] == "" for r in rows)
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


@pytest.mark.parametrize("text", ["model-a", "", "1-2", "a=b", "'quoted", "x@y", "fewshot k=8 / metrics / MRR@10",
                                  "-0.125", "+3", "1e-3", "-1E+5", ".5", "-7.", "0"])
def test_csv_safe_text_is_left_alone(text):
    assert csv_cell(text) == text


def test_csv_cells_are_escaped_but_numbers_stay_numbers():
    assert csv_cell("=1+2") == "'=1+2"
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
    text = Leaderboard(["rank", "model", "score", "note", "n"], rows, header=[]).csv()
    lines = text.splitlines()
    assert lines[0] == "rank,model,score,note,n"
    assert lines[1] == "1,'\uff1dcmd|' /C calc'!A0,-0.5,x\t@y,-2"  # numbers unquoted, negative ones too
    assert lines[2] == "2,'\t=1+2,,,3"
    back = list(csv.reader(io.StringIO(text)))
    assert back[1] == ["1", "'\uff1dcmd|' /C calc'!A0", "-0.5", "x\t@y", "-2"]
    assert back[2] == ["2", "'\t=1+2", "", "", "3"]


def test_leaderboard_cli_and_markdown(runs, tmp_path, capsys):
    out = tmp_path / "results" / "leaderboard.csv"
    md = tmp_path / "lb.md"
    assert main(["leaderboard", str(runs["a"]), str(runs["worse"]), "-o", str(out), "--md", str(md),
                 "--metric", "MRR@10", "--metric", "nDCG@10", "--correction", "holm"]) == 0
    header = out.read_text().splitlines()[0]
    assert "MRR@10 ORIGINAL" in header and "nDCG@10 drop VARIATIONS (AVG.)" in header
    text = md.read_text()
    assert "### drbench leaderboard" in text and "%" in text
    # the Markdown names the test, sidedness, correction and level; the interval is shown once
    assert "paired Student t-test" in text and "two-sided" in text and "Holm step-down" in text
    assert "alpha = 0.05" in text
    table_head = next(line for line in text.splitlines() if line.startswith("| rank |"))
    assert "rank_interval" in table_head and "rank_low" not in table_head and "rank_method" not in table_head
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
