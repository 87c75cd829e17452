"""Issue 25, cases 3 and 14: reserved and colliding set names; no hidden files in a run folder."""
from __future__ import annotations

import re

import pytest

from bench.cli.main import main
from bench.core.written import RECORD
from perturb.io.sets import set_file_name


@pytest.fixture
def sets(beir_dir, tmp_path):
    folder = tmp_path / "sets"
    assert main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC,MISSPELL", "--out", str(folder)]) == 0
    return folder


def _rename(path, name):
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^# name: .*$", f"# name: {name}", text, count=1), encoding="utf-8")


def _evaluate(beir_dir, sets, out):
    return main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--variations", str(sets), "--out", str(out),
                 "--no-progress"])


@pytest.mark.parametrize("name", ["VARIATIONS (AVG.)", "ORIGINAL", "original", "VARIATIONS (AVG.) applied-only"])
def test_a_reserved_set_name_is_refused_naming_the_file(beir_dir, sets, tmp_path, capsys, name):
    _rename(sets / "MISSPELL.tsv", name)
    capsys.readouterr()
    assert _evaluate(beir_dir, sets, tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert "is reserved" in err and "MISSPELL.tsv" in err
    assert "share a name" not in err
    assert not (tmp_path / "run" / "result.json").exists()


def test_names_that_become_one_file_name_are_refused_naming_both(beir_dir, sets, tmp_path, capsys):
    _rename(sets / "EXTRAPUNC.tsv", "X/Y")
    _rename(sets / "MISSPELL.tsv", "X_Y")
    capsys.readouterr()
    assert _evaluate(beir_dir, sets, tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert "'X/Y'" in err and "'X_Y'" in err and "EXTRAPUNC.tsv" in err and "MISSPELL.tsv" in err
    assert "variations/X_Y.tsv" in err


@pytest.mark.parametrize("name", [".hidden", "../../escape", "..."])
def test_a_run_folder_never_gets_hidden_files(beir_dir, sets, tmp_path, name):
    _rename(sets / "MISSPELL.tsv", name)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--variations", str(sets), "--out",
                 str(tmp_path / "run"), "--no-progress", "--trec-runs"]) == 0
    files = [p for p in (tmp_path / "run").rglob("*")]
    assert files and not [p for p in files if p.name.startswith(".") and p.name != RECORD]  # the marker: drbench's
    assert (tmp_path / "run" / "variations" / set_file_name(name)).is_file()
    assert (tmp_path / "run" / "runs" / (set_file_name(name)[:-4] + ".trec")).is_file()
    assert all(tmp_path / "run" in p.parents for p in files)


def test_perturb_refuses_to_write_a_set_with_a_reserved_name(tmp_path, capsys):
    src = tmp_path / "rodr.tsv"
    src.write_text("1\twhat is the lift of a wing\n", encoding="utf-8")
    rc = main(["perturb", "--import-rodr", str(src), "--name", "ORIGINAL", "--out", str(tmp_path / "out")])
    assert rc == 2 and "is reserved" in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*.tsv")) if (tmp_path / "out").exists() else True
