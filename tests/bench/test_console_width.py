"""The console tables of a variations run fit 100 columns (notes wrapped, sets by name)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.reporting.tables import WIDTH, subsets_table, variations_table

RUNS = sorted(p for p in Path("results/runs").glob("*__variations__*"))


@pytest.mark.parametrize("run", RUNS, ids=[p.name for p in RUNS])
def test_console_tables_fit_100_columns(run):
    result = json.loads((run / "result.json").read_text())
    for text in (variations_table(result), subsets_table(result)):
        assert text and max(len(line) for line in text.splitlines()) <= WIDTH == 100
    table = variations_table(result)
    assert "BACKTRANS[" not in table.split("sets by full label")[0]  # the name in the table, the label below
    assert "sets by full label: BACKTRANS = BACKTRANS[" in table


def test_bench_perturb_notes_fit_100_columns(tmp_path, capsys):
    """The paper protocol's deviation notes (long lines) are wrapped by `bench perturb` too."""
    from bench.cli.main import main
    from tests.conftest import write_beir

    ds = write_beir(tmp_path / "ds")
    assert main(["perturb", "--dataset", str(ds), "--generators", "MISSPELL,SWAPWORDS", "--protocol", "rodr",
                 "--out", str(tmp_path / "sets")]) == 0
    out = capsys.readouterr().out
    assert "note: rodr MISSPELL:" in out
    # Paths are the user's and are printed whole (so they can be copied); the rest is ours and fits.
    assert str(tmp_path) in out
    ours = out.replace(str(tmp_path / "sets"), "OUT").replace(str(tmp_path / "ds"), "DATASET")
    assert max(len(line) for line in ours.splitlines()) <= WIDTH
