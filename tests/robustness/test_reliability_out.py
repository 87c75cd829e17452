"""Issue 17: --out and the cache folder are checked before any work; cache write errors name the folder."""
from __future__ import annotations

import errno
import os

import pytest

from bench.cli.main import main
from bench.core.errors import BenchError


def test_evaluate_out_that_is_a_file_is_refused(beir_dir, tmp_path, capsys):
    target = tmp_path / "taken.txt"
    target.write_text("x")
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--out", str(target)])
    assert rc == 2
    assert "is a file; give a folder" in capsys.readouterr().err
    assert target.read_text() == "x"


def test_evaluate_out_under_a_file_is_refused(beir_dir, tmp_path, capsys):
    target = tmp_path / "taken.txt"
    target.write_text("x")
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--out", str(target / "run")])
    assert rc == 2 and "is a file, not a folder" in capsys.readouterr().err


def test_unwritable_out_is_refused_before_work(beir_dir, tmp_path, capsys, monkeypatch):
    import bench.core.paths as paths

    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(paths.os, "access", lambda p, m: False if str(p) == str(locked) else real(p, m))
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--out", str(locked / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "permission denied" in err and str(locked) in err
    assert not (locked / "run").exists()


@pytest.mark.parametrize("command", [["perturb", "--dataset", "DS"], ["adapt", "--model", "bm25", "--source", "DS",
                                                                      "--target", "DS"],
                                     ["train", "--model", "bm25", "--dataset", "DS"]])
def test_other_commands_refuse_a_file_as_out(command, beir_dir, tmp_path, capsys):
    target = tmp_path / "taken.txt"
    target.write_text("x")
    argv = [str(beir_dir) if a == "DS" else a for a in command] + ["--out", str(target)]
    assert main(argv) == 2
    assert "is a file; give a folder" in capsys.readouterr().err


def test_unwritable_cache_home_names_drbench_home(tiny_bert, beir_dir, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home-file"
    home.write_text("not a folder")
    monkeypatch.setenv("DRBENCH_HOME", str(home))
    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert str(home) in err and "DRBENCH_HOME" in err
    assert not (tmp_path / "run").exists()


def test_oserror_during_cache_write_names_the_folder(tiny_bert, tmp_path, monkeypatch):
    from bench.encoding import cache as cache_mod
    from bench.encoding.cache import EmbeddingCache
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    enc = Encoder(resolve_model(str(tiny_bert)), "query", progress=False)
    cache = EmbeddingCache(enc, tmp_path / "c")
    monkeypatch.setattr(cache_mod, "reserve_space", full)  # query vectors are written through a reserved map
    with pytest.raises(BenchError, match=r"cannot write the embedding cache in .*c.*No space left.*DRBENCH_HOME"):
        cache.texts(["a query"])
