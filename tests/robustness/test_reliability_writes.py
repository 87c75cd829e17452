"""Issue 17, case 12 (the rest): an OSError while writing a checkpoint, a run folder or a worker's
shard (disk full, read-only, permission) is a message naming the folder and the fix, never a
traceback, and leaves no half-written checkpoint."""
from __future__ import annotations

import errno

import pytest

from bench.cli.main import main, write_error_message


def test_disk_full_while_saving_a_checkpoint_names_the_folder(tiny_bert, beir_dir, tmp_path, monkeypatch, capsys):
    from bench.models import checkpoint

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(checkpoint, "atomic_write_json", full)
    out = tmp_path / "ck"
    rc = main(["train", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--epochs", "1", "--batch-size", "2",
               "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    assert "cannot write in" in err and "No space left on device" in err and "Fix: free space" in err
    assert not out.exists() or not any(out.iterdir())  # no half-written checkpoint


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EPERM])
def test_write_errors_get_a_message(code, tmp_path):
    msg = write_error_message(OSError(code, "boom", str(tmp_path / "x" / "f.json")))
    assert msg is not None and str(tmp_path / "x") in msg and "Fix:" in msg


def test_other_os_errors_keep_their_traceback():
    assert write_error_message(OSError(errno.EBADF, "bad file descriptor")) is None
    assert write_error_message(FileNotFoundError(errno.ENOENT, "missing", "f")) is None


def test_evaluate_writes_nothing_outside_out_and_the_cache(beir_dir, tmp_path):
    """Run the CLI in a clean environment and list every file that appeared outside ``--out`` and
    the cache home: the working directory, HOME (Hugging Face / NLTK caches) and the temp folder
    must hold no files afterwards (torch may leave an empty folder in the temp folder)."""
    import os
    import subprocess
    import sys

    dirs = {n: tmp_path / n for n in ("home", "cache", "tmp", "cwd")}
    for d in dirs.values():
        d.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(dirs["home"]), "DRBENCH_HOME": str(dirs["cache"]),
           "TMPDIR": str(dirs["tmp"]), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "bench.cli.main", "evaluate", "--model", "minilm-l6", "--dataset",
                           str(beir_dir), "--generators", "MISSPELL", "--out", str(out), "--no-progress"],
                          cwd=dirs["cwd"], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (out / "result.json").exists() and any(dirs["cache"].rglob("*.npy"))
    stray = [str(p) for n in ("home", "tmp", "cwd") for p in dirs[n].rglob("*") if p.is_file()]
    assert stray == []
