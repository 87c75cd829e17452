"""Issue 25, cases 15-17: a result.json claiming another suite, a full disk under --out, messages
that repeated themselves."""
from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from bench.cli.main import main
from tests.conftest import evaluate_extrapunc
from bench.core.io import atomic_path

RUN = Path(__file__).resolve().parents[2] / "results" / "runs" / "bm25__chatterbot__variations__s0"


@pytest.mark.parametrize("claimed", ["fewshot", "domain"])
def test_a_result_claiming_another_suite_says_which_run_it_is(tmp_path, capsys, claimed):
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    data = json.loads((run / "result.json").read_text())
    data["suite"] = claimed
    (run / "result.json").write_text(json.dumps(data))
    assert main(["report", str(run), "--format", "md", "--no-plots", "-o", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert f"says suite '{claimed}', but its content is a variations run" in err
    assert "expected an object" not in err and "d_z" not in err


def test_a_write_error_without_a_file_name_is_given_the_file(tmp_path):
    target = tmp_path / "out" / "per_query.csv"
    with pytest.raises(OSError) as exc:
        with atomic_path(target):
            raise OSError(errno.ENOSPC, "No space left on device")  # what write() / fsync() raise
    assert exc.value.errno == errno.ENOSPC and exc.value.filename == str(target)
    assert not list((tmp_path / "out").iterdir())


def test_disk_full_under_out_names_the_folder(beir_dir, tmp_path, monkeypatch, capsys):
    from bench.results import writer

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")  # no file name, as a failed write() gives

    monkeypatch.setattr(writer, "write_per_query", full)
    out = tmp_path / "run"
    rc = evaluate_extrapunc(beir_dir, "--out", str(out))
    assert rc == 2
    err = capsys.readouterr().err
    assert f"cannot write in {out} (--out): No space left on device" in err


def test_gate_on_a_folder_without_result_json_says_it_once(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["gate", "--baseline", str(tmp_path / "empty"), "--candidate", str(RUN)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'empty' / 'result.json'}: not found" in err
    assert err.count("result.json") == 2  # the path, and the fix's "(it holds result.json)"


def test_a_folder_named_like_a_set_says_it_is_a_folder_once(beir_dir, tmp_path, capsys):
    sets = tmp_path / "sets"
    assert main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC", "--out", str(sets)]) == 0
    (sets / "extra.tsv").mkdir()
    capsys.readouterr()
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--variations", str(sets), "--out",
               str(tmp_path / "run"), "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "extra.tsv: cannot read variation set: a folder, not a file" in err
    assert err.count("extra.tsv") == 1 and "Errno" not in err  # the path once, no errno text repeating it
