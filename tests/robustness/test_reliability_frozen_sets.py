"""Issue 39, item 8: frozen sets keep the seed they were drawn with, are refused on other query
texts and are recorded as frozen; the gate names a candidate that is the baseline itself."""
from __future__ import annotations

import json
import os

import pytest

from bench.cli.main import main
from tests.conftest import QUERIES, write_beir


@pytest.fixture
def frozen(beir_dir, tmp_path):
    sets = tmp_path / "sets"
    assert main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC,SWAPWORDS", "--out",
                 str(sets)]) == 0
    return sets


def _evaluate(dataset, sets, out, *extra):
    return main(["evaluate", "--model", "bm25", "--dataset", str(dataset), "--variations", str(sets), "--no-progress",
                 "--out", str(out), *extra])


def test_generation_seeds_with_frozen_sets_is_refused(beir_dir, frozen, tmp_path, capsys):
    assert _evaluate(beir_dir, frozen, tmp_path / "run", "--generation-seeds", "5") == 2
    assert "frozen sets (--variations) were drawn with the seed their files record" in capsys.readouterr().err
    assert not (tmp_path / "run" / "result.json").exists()


def test_frozen_sets_are_recorded_as_frozen(beir_dir, frozen, tmp_path, capsys):
    assert _evaluate(beir_dir, frozen, tmp_path / "run") == 0
    sets = json.loads((tmp_path / "run" / "result.json").read_text())["sets"]
    assert [s["source"] for s in sets] == ["generated", "frozen", "frozen"]
    capsys.readouterr()


def test_frozen_sets_on_other_query_texts_are_refused(frozen, tmp_path, capsys):
    other = {q: (t + " today", c) for q, (t, c) in QUERIES.items()}  # the same ids, other texts
    ds = write_beir(tmp_path / "other", queries=other)
    assert _evaluate(ds, frozen, tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert "is marked not applied, but its text" in err and "the set was made from other query texts" in err
    assert "EXTRAPUNC.tsv" in err or "SWAPWORDS.tsv" in err


@pytest.mark.parametrize("how", ["same", "symlink"])
def test_the_gate_says_when_the_candidate_is_the_baseline(extrapunc_run, tmp_path, capsys, how):
    cand = extrapunc_run
    if how == "symlink":
        cand = tmp_path / "link"
        os.symlink(extrapunc_run, cand)
    capsys.readouterr()
    main(["gate", "--baseline", str(extrapunc_run), "--candidate", str(cand)])
    assert "baseline and candidate are the same run" in capsys.readouterr().out


def test_the_gate_names_a_byte_identical_per_query_table(extrapunc_run, beir_dir, tmp_path, capsys):
    other = tmp_path / "again"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--no-progress", "--out", str(other)]) == 0
    capsys.readouterr()
    main(["gate", "--baseline", str(extrapunc_run), "--candidate", str(other)])
    assert "is byte-identical to the baseline's" in capsys.readouterr().out
