"""Issue 17: --split cannot leave the dataset folder; chatterbot has only test; a file is not a dataset folder."""
from __future__ import annotations

import pytest

from bench.cli.main import main
from bench.core.errors import DataError
from bench.data.collections import load_dataset


def test_split_with_a_path_cannot_read_qrels_outside_the_folder(beir_dir, tmp_path, capsys):
    ds = beir_dir
    elsewhere = ds.parent / "elsewhere" / "qrels"
    elsewhere.mkdir(parents=True)
    (elsewhere / "x.tsv").write_text((ds / "qrels" / "test.tsv").read_text())  # qrels outside the dataset folder
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(ds), "--split", "../../elsewhere/qrels/x",
               "--out", str(tmp_path / "run")])
    assert rc == 2
    assert "is not a split name" in capsys.readouterr().err
    with pytest.raises(DataError, match="not a split name"):
        load_dataset("msmarco:" + str(ds), "../x")


def test_chatterbot_refuses_a_split_other_than_test():
    with pytest.raises(DataError, match=r"one split, test; --split 'train' does not exist"):
        load_dataset("chatterbot", "train")


def test_dataset_pointing_at_a_file_says_give_the_folder(beir_dir, capsys):
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir / "corpus.jsonl"),
               "--out", str(beir_dir.parent / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "corpus.jsonl: is a file; give the folder" in err and f"--dataset {beir_dir}" in err
