"""Issue 39, item 9 (outputs and result files): the gate's --append on a folder and a result.json
nested past any file drbench writes are clear errors, not tracebacks."""
from __future__ import annotations

import pytest

from bench.cli.main import main
from tests.conftest import evaluate_extrapunc
from bench.core.errors import DataError
from bench.results.rundir import load_result


def test_gate_append_to_a_folder_is_refused(extrapunc_run, tmp_path, capsys):
    folder = tmp_path / "verdicts"
    folder.mkdir()
    capsys.readouterr()
    assert main(["gate", "--baseline", str(extrapunc_run), "--candidate", str(extrapunc_run), "-o", str(folder), "--append"]) == 2
    err = capsys.readouterr().err
    assert f"-o {folder} is not written: it is a folder; give a file name" in err and "Traceback" not in err


@pytest.mark.parametrize("depth", [100, 100000])
def test_a_deeply_nested_result_json_is_a_clear_error(tmp_path, depth):
    path = tmp_path / "result.json"
    path.write_text('{"schema_version": 3, "x": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(DataError, match="nested more than 64 levels deep"):
        load_result(path)


def test_disk_full_in_the_cache_names_the_cache_not_out(beir_dir, tmp_path, monkeypatch, capsys):
    import errno
    import os

    import sys

    from perturb.io import cache

    cli_main = sys.modules["bench.cli.main"]

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")  # no file name, as a failed write() gives

    home = tmp_path / "home"
    monkeypatch.setenv("DRBENCH_HOME", str(home))
    monkeypatch.setattr(cache, "_save", full)
    monkeypatch.setattr(cli_main, "is_full", lambda p: str(os.path.abspath(p)).startswith(str(home)))
    out = tmp_path / "run"
    rc = evaluate_extrapunc(beir_dir, "--out", str(out))
    assert rc == 2
    err = capsys.readouterr().err
    assert f"cannot write in the cache {home} (DRBENCH_HOME): No space left on device" in err
    assert "(--out)" not in err
