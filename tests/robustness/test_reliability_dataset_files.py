"""Issue 39, items 8, 9 and 11 (dataset inputs): a folder where a file is expected, lone surrogates,
trec: keys and splits, qrels without a relevant judgment and a beir: folder that does not exist are
clear errors naming the file (and line) before any work, never tracebacks or silent readings."""
from __future__ import annotations

import json

import pytest

from bench.cli.main import main
from bench.core.errors import DataError
from bench.data.collections import load_dataset
from tests.conftest import QRELS, write_beir


def _evaluate(dataset, tmp_path, *extra):
    return main(["evaluate", "--model", "bm25", "--dataset", str(dataset), "--generators", "EXTRAPUNC",
                 "--no-progress", "--out", str(tmp_path / "run"), *extra])


@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_a_folder_where_a_file_is_expected_is_named(beir_dir, tmp_path, capsys, name):
    path = beir_dir / name
    path.unlink()
    path.mkdir()
    assert _evaluate(beir_dir, tmp_path) == 2
    err = capsys.readouterr().err
    assert "a folder, not a file" in err and name.split("/")[-1] in err and "Traceback" not in err


def _trec_files(tmp_path):
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("".join(f"{d}\t{t} {x}\n" for d, (t, x) in
                              {"d1": ("a", "wing lift"), "d2": ("b", "heat slab")}.items()), encoding="utf-8")
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\twing lift\n2\theat\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n", encoding="utf-8")
    return f"trec:corpus={corpus},topics={topics},qrels={qrels}"


def test_a_trec_file_that_is_a_folder_is_named(tmp_path):
    spec = _trec_files(tmp_path)
    (tmp_path / "qrels.txt").unlink()
    (tmp_path / "qrels.txt").mkdir()
    with pytest.raises(DataError, match="qrels.txt: a folder, not a file"):
        load_dataset(spec)


def test_trec_spec_with_an_unknown_key_or_a_split_is_refused(tmp_path):
    spec = _trec_files(tmp_path)
    assert load_dataset(spec).judged_query_ids() == ["1", "2"]
    with pytest.raises(DataError, match="unknown key 'feild'; did you mean 'field'"):
        load_dataset(spec + ",feild=desc")
    with pytest.raises(DataError, match="--split 'dev' does not exist"):
        load_dataset(spec, "dev")


@pytest.mark.parametrize("where", ["query", "document"])
def test_a_lone_surrogate_is_refused_naming_the_line(tmp_path, capsys, where):
    folder = write_beir(tmp_path / "ds")
    name = "corpus.jsonl" if where == "document" else "queries.jsonl"
    lines = (folder / name).read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps(json.loads(lines[1]))[:-2] + ' \\ud800"}'  # the last field's text ends with the escape
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _evaluate(folder, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"{name}:2" in err and "lone surrogate" in err and "Traceback" not in err


@pytest.mark.parametrize("grades", [("0", "0"), ("-1", "0")])
def test_qrels_without_a_relevant_judgment_say_so(tmp_path, capsys, grades):
    folder = write_beir(tmp_path / "ds", qrels=[("1", "d1", grades[0]), ("2", "d2", grades[1])])
    assert _evaluate(folder, tmp_path) == 2
    err = capsys.readouterr().err
    assert "no judgment has a grade of 1 or more" in err and "test.tsv" in err
    assert "has no rows" not in err


def test_a_beir_folder_that_does_not_exist_is_named(tmp_path, capsys):
    assert _evaluate(f"beir:{tmp_path / 'nonexist'}", tmp_path) == 2
    err = capsys.readouterr().err
    assert "no such dataset folder" in err and "no qrels for split" not in err


def test_irds_offline_with_several_sources_is_a_clear_error(monkeypatch):
    import sys
    import types

    class _Offline:
        def docs_iter(self):
            raise RuntimeError("all download sources failed")  # ir_datasets' mirror list, not an OSError

    fake = types.ModuleType("ir_datasets")
    fake.load = lambda _id: _Offline()
    monkeypatch.setitem(sys.modules, "ir_datasets", fake)
    from bench.core.errors import ResourceError

    with pytest.raises(ResourceError, match="could not provide 'x/test'"):
        load_dataset("irds:x/test")


def test_a_lone_surrogate_in_a_frozen_set_is_named(beir_dir, tmp_path, capsys):
    sets = tmp_path / "sets"
    assert main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC", "--out", str(sets)]) == 0
    tsv = sets / "EXTRAPUNC.tsv"
    lines = tsv.read_text(encoding="utf-8").splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("1\t"))
    q, text, _applied, detail = lines[row].rstrip("\n").split("\t")
    lines[row] = "\t".join((q, text + " \\ud800", "1", detail or "edit")) + "\n"
    tsv.write_text("".join(line for line in lines if not line.startswith("# fingerprint")), encoding="utf-8")
    capsys.readouterr()
    assert _evaluate(beir_dir, tmp_path, "--variations", str(sets)) == 2
    err = capsys.readouterr().err
    assert "EXTRAPUNC.tsv" in err and "lone surrogate" in err and "Traceback" not in err
