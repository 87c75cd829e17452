"""`bench leaderboard` and `bench compare`: columns, bootstrap rank intervals and ties, stable
order, few-shot columns, CSV formula-injection escaping, significance markers."""
import csv
import io

import numpy as np
import pytest

from bench.cli import main
from bench.compare import compare
from bench.errors import DataError
from bench.leaderboard import build, csv_cell
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
                  bootstrap=300, log=msgs.append)
    rows = _read_csv(board.csv())
    assert [c for c in board.columns[:6]] == ["rank", "rank_interval", "tied", "model", "dataset", "n_queries"]
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
    assert rows[1]["rank_interval"] == "1-1" and rows[3]["rank_interval"] == "3-3"
    assert float(rows[1]["fewshot k=8 / metrics / MRR@10"]) == 0.42
    v = runs["vals"]
    assert float(rows[1]["ORIGINAL"]) == pytest.approx(v["ORIGINAL"]["MRR@10"].mean())
    assert "bootstrap B=300" in rows[1]["rank_method"]
    # same input, same output (byte-identical)
    again = build([runs["worse"], runs["twin"], runs["a"], runs["fs"], runs["fs_empty"], runs["other"]],
                  bootstrap=300, log=lambda m: None)
    assert again.csv() == board.csv()
    order2 = build([runs["a"], runs["twin"], runs["worse"]], bootstrap=300, log=lambda m: None)
    assert [r["model"] for r in _read_csv(order2.csv())] == [r["model"] for r in rows[1:]]


def test_rank_interval_widens_when_models_are_close(tmp_path):
    rng = rng_for(3, "close")
    base = rng.random(60)
    paths = []
    for i, noise in enumerate([0.0, 0.02, 0.3]):
        x = np.clip(base + rng_for(i, "noise").normal(0, noise, 60) - 0.2 * (i == 2), 0, 1)
        vals = {"ORIGINAL": {"MRR@10": x}, "MISSPELL": {"MRR@10": x * 0.9}}
        paths.append(write_run(tmp_path / f"m{i}", vals, model=f"m{i}"))
    rows = _read_csv(build(paths, bootstrap=400, log=lambda m: None).csv())
    by = {r["model"]: r for r in rows}
    assert by["m0"]["rank"] == by["m1"]["rank"] == "1" and by["m0"]["tied"] == "yes"
    assert by["m0"]["rank_interval"] == "1-2"
    assert by["m2"]["rank"] == "3"


def test_csv_cells_are_escaped_but_numbers_stay_numbers():
    assert csv_cell("=1+2") == "'=1+2"
    assert csv_cell("+x") == "'+x" and csv_cell("-x") == "'-x" and csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("\tx") == "'\tx" and csv_cell("\rx") == "'\rx"
    assert csv_cell(-0.125) == "-0.125" and csv_cell(-3) == -3 and csv_cell(float("nan")) == ""
    assert csv_cell("model-a") == "model-a" and csv_cell(None) == "" and csv_cell(True) == "true"


def test_leaderboard_cli_and_markdown(runs, tmp_path, capsys):
    out = tmp_path / "results" / "leaderboard.csv"
    md = tmp_path / "lb.md"
    assert main(["leaderboard", str(runs["a"]), str(runs["worse"]), "-o", str(out), "--md", str(md),
                 "--metric", "MRR@10", "--metric", "nDCG@10", "--bootstrap", "200"]) == 0
    header = out.read_text().splitlines()[0]
    assert "MRR@10 ORIGINAL" in header and "nDCG@10 drop VARIATIONS (AVG.)" in header
    text = md.read_text()
    assert "### drbench leaderboard" in text and "bootstrap B=200" in text and "%" in text
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
