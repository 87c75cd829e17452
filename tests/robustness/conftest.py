"""Fixtures shared by the reliability tests."""
from __future__ import annotations

import pytest

from tests.conftest import evaluate_extrapunc


@pytest.fixture
def extrapunc_run(beir_dir, tmp_path):
    """A bm25 run folder of the tiny BEIR collection with the EXTRAPUNC set only."""
    out = tmp_path / "run"
    assert evaluate_extrapunc(beir_dir, "--out", str(out)) == 0
    return out
