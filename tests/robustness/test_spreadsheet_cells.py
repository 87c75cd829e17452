"""Issue 39 item 2: one CSV writer (bench.core.sheet.csv_text) for every CSV a spreadsheet may open;
per_query.csv's set and qid cells are escaped like the leaderboard's and read back exactly, and the
committed CSV files keep their bytes."""
from __future__ import annotations

import csv
import re
from pathlib import Path

from bench.cli.main import main
from bench.core.sheet import csv_text, formula_risk
from bench.results.rundir import load_per_query, load_run
from bench.results.writer import per_query_csv

ROOT = Path(__file__).resolve().parents[2]
RISKY = ["=SUM(1+1)", "+1-1", "-2+3", "@cmd", "'quoted"]


def test_per_query_cells_that_start_a_formula_are_escaped_and_read_back(tmp_path):
    text = per_query_csv([("ORIGINAL", q, 0, [0.5]) for q in RISKY] + [("=X", "7", 1, [0.25])], ["MRR@10"])
    rows = list(csv.reader(text.splitlines()))[1:]
    assert all(not formula_risk(cell) for row in rows for cell in row[:2])
    assert [r[1] for r in rows[:5]] == ["'" + q for q in RISKY] and rows[5][0] == "'=X"
    (tmp_path / "per_query.csv").write_text(text, encoding="utf-8")
    df = load_per_query(tmp_path / "per_query.csv", ["MRR@10"])
    assert list(df["qid"]) == RISKY + ["7"] and list(df["set"])[-1] == "=X"


def test_a_run_on_formula_query_ids_writes_escaped_cells_and_its_readers_pair_them(tmp_path):
    from tests.conftest import write_beir

    queries = {"=HYPERLINK(1)": ("what is the lift of a wing", "a"), "@x": ("heat conduction in slabs", "b"),
               "3": ("boundary layer separation", "a")}
    qrels = [("=HYPERLINK(1)", "d1", 1), ("@x", "d2", 1), ("3", "d3", 1)]
    ds = write_beir(tmp_path / "ds", queries=queries, qrels=qrels)
    out = tmp_path / "run"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(ds), "--generators", "MISSPELL", "--out", str(out),
                 "--no-progress"]) == 0
    cells = [row[1] for row in csv.reader((out / "per_query.csv").read_text(encoding="utf-8").splitlines()[1:])]
    assert "'=HYPERLINK(1)" in cells and "'@x" in cells and not any(formula_risk(c) for c in cells)
    run = load_run(out)
    assert set(run.per_query["qid"]) == set(queries)
    assert main(["gate", "--baseline", str(out), "--candidate", str(out)]) in (0, 1)


def test_every_csv_drbench_writes_goes_through_the_one_writer():
    """No module but bench/core/sheet.py makes its own csv.writer (benchmarks/ write TSV data files)."""
    own = []
    for folder in ("bench", "suites", "perturb"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.relative_to(ROOT).as_posix() == "bench/core/sheet.py":
                continue
            if re.search(r"csv\.(writer|DictWriter)\(", path.read_text(encoding="utf-8")):
                own.append(path.relative_to(ROOT).as_posix())
    assert own == []


def test_the_one_writer_leaves_every_committed_csv_byte_identical():
    """The proof that escaping changes no committed file: each committed CSV, read and written again
    with csv_text, gives its own bytes (no committed cell starts a formula or with an apostrophe)."""
    files = sorted((ROOT / "results").rglob("*.csv"))
    assert any(p.name == "per_query.csv" for p in files)
    for path in files:
        raw = path.read_text(encoding="utf-8")
        rows = list(csv.reader(raw.splitlines()))
        assert csv_text(rows[0], rows[1:]) == raw, path


def test_applicability_csv_escapes_a_set_name_that_starts_a_formula(beir_dir, tmp_path):
    sets = tmp_path / "in.tsv"
    sets.write_text("1\twhat is the lift of a wing in a slipstream?\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["perturb", "--dataset", str(beir_dir), "--import-rodr", str(sets), "--name", "+MINE",
                 "--out", str(out)]) in (0, 1)
    rows = list(csv.reader((out / "applicability.csv").read_text(encoding="utf-8").splitlines()))
    assert not any(formula_risk(c) for r in rows for c in r[:2])
    assert any(c == "'+MINE" for r in rows for c in r[:2])
