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


def test_reused_out_keeps_no_stale_set_or_trec_files(tmp_path, capsys):
    from bench.cli.main import main

    out = tmp_path / "run"
    base = ["evaluate", "--model", "bm25", "--dataset", "chatterbot", "--out", str(out), "--no-progress", "--trec-runs"]
    assert main(base + ["--generators", "EXTRAPUNC,SWAPWORDS"]) == 0
    assert sorted(p.name for p in (out / "variations").glob("*.tsv")) == ["EXTRAPUNC.tsv", "SWAPWORDS.tsv"]
    assert main(base + ["--generators", "EXTRAPUNC"]) == 0
    assert sorted(p.name for p in (out / "variations").glob("*.tsv")) == ["EXTRAPUNC.tsv"]
    assert sorted(p.name for p in (out / "runs").glob("*.trec")) == ["EXTRAPUNC.trec", "ORIGINAL.trec"]
    capsys.readouterr()


def test_frozen_set_with_missing_rows_says_so_and_duplicate_names_name_both_files(tmp_path, capsys):
    from bench.cli.main import main

    sets = tmp_path / "sets"
    assert main(["perturb", "--dataset", "chatterbot", "--generators", "EXTRAPUNC", "--out", str(sets)]) == 0
    tsv = sets / "EXTRAPUNC.tsv"
    lines = tsv.read_text(encoding="utf-8").splitlines(keepends=True)
    body = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    drop = body[-3:]  # the last three data rows
    kept = [line for i, line in enumerate(lines) if i not in drop and not line.startswith("# fingerprint")]
    tsv.write_text("".join(kept), encoding="utf-8")  # rows removed, and the fingerprint line with them
    capsys.readouterr()
    rc = main(["evaluate", "--model", "bm25", "--dataset", "chatterbot", "--variations", str(sets), "--out",
               str(tmp_path / "run"), "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0 and "3 of 884 judged queries are not in the set" in out
    (sets / "COPY.tsv").write_text(tsv.read_text(encoding="utf-8"), encoding="utf-8")
    rc = main(["evaluate", "--model", "bm25", "--dataset", "chatterbot", "--variations", str(sets), "--out",
               str(tmp_path / "run2"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "EXTRAPUNC.tsv" in err and "COPY.tsv" in err and "named 'EXTRAPUNC'" in err
