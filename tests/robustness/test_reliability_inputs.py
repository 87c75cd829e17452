"""Issue 25, cases 7 and 11: invisible queries, a non-path out= and --name values that are paths or too long."""
from __future__ import annotations

import json

import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError
from tests.conftest import QUERIES, evaluate_extrapunc, write_beir


@pytest.mark.parametrize("text", ["\u200b\u200b", "\ufeff", "\u200d \u2060"])
def test_a_query_of_only_zero_width_characters_is_refused(tmp_path, capsys, text):
    queries = dict(QUERIES)
    queries["3"] = (text, "aero")
    ds = write_beir(tmp_path / "ds", queries=queries)
    rc = evaluate_extrapunc(ds, "--out", str(tmp_path / "run"))
    assert rc == 2
    err = capsys.readouterr().err
    assert "query '3' has empty text (only invisible characters)" in err and "queries.jsonl:3" in err


def test_out_that_is_not_a_path_is_refused(beir_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BenchError, match=r"out=5: give the run folder as a str or pathlib.Path"):
        bench.evaluate(model="bm25", dataset=str(beir_dir), out=5, generators=["EXTRAPUNC"], no_progress=True)
    assert not (tmp_path / "5").exists()


@pytest.mark.parametrize("name", ["../../x", ".hidden", "a/../b", "x" * 300, "\u200b"])
def test_a_name_that_is_a_path_hidden_or_too_long_is_refused_before_work(beir_dir, tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    rc = evaluate_extrapunc(beir_dir, "--name", name)
    assert rc == 2
    err = capsys.readouterr().err
    assert "--name" in err and "Traceback" not in err and "Errno" not in err
    assert not list(tmp_path.rglob("result.json"))


def test_a_plain_name_still_labels_the_run(beir_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--no-progress", "--name", "my-bm25"]) == 0
    (result,) = tmp_path.rglob("result.json")
    assert json.loads(result.read_text())["model"]["name"] == "my-bm25"
    assert result.parent.name.startswith("my-bm25__")
