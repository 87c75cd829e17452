"""Fixtures shared by the reliability tests."""
from __future__ import annotations

import pytest

from bench.cli.main import main


@pytest.fixture
def extrapunc_run(beir_dir, tmp_path):
    """A bm25 run folder of the tiny BEIR collection with the EXTRAPUNC set only."""
    out = tmp_path / "run"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--no-progress", "--out", str(out)]) == 0
    return out
