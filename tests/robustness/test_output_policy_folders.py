"""The output policy for folders (bench.core.written.check_folder_replaceable / replace_folder): the
cache-home exemption only for drbench's own cache folders, record entries that leave the folder
ignored, links inside a folder never followed, written through or removed, the temporary folders
of a killed run removed by the next run into that folder, and errors that name the final folder."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.written import RECORD, folder_problem, recorded_files
from tests.conftest import evaluate_extrapunc

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_users_folder_in_the_cache_home_is_not_drbenchs(beir_dir, tmp_path, monkeypatch, capsys):
    home = tmp_path / "scratch" / "me"
    thesis = home / "experiments" / "thesis"
    thesis.mkdir(parents=True)
    (thesis / "chapter1.tex").write_text("\\chapter{One}\n")
    (thesis / "results.csv").write_text("a,b\n1,2\n")
    monkeypatch.setenv("DRBENCH_HOME", str(home))
    assert evaluate_extrapunc(beir_dir, "--out", str(thesis)) == 2
    err = capsys.readouterr().err
    assert f"--out {thesis} is not replaced: drbench did not write it" in err and "chapter1.tex" in err
    assert sorted(p.name for p in thesis.iterdir()) == ["chapter1.tex", "results.csv"]
    assert (thesis / "chapter1.tex").read_text() == "\\chapter{One}\n"


def test_drbenchs_own_cache_folders_stay_replaceable(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("DRBENCH_HOME", str(home))
    ckpt = home / "checkpoints" / "some-model"
    ckpt.mkdir(parents=True)
    (ckpt / "half-written.bin").write_text("x")
    assert folder_problem(ckpt) == ""  # a checkpoint drbench rebuilds
    mine = home / "experiments" / "thesis"
    mine.mkdir(parents=True)
    (mine / "chapter1.tex").write_text("x")
    assert "drbench did not write it" in folder_problem(mine)


def _run_with_foreign_file(beir_dir, out: Path) -> None:
    assert evaluate_extrapunc(beir_dir, "--out", str(out)) == 0
    (out / "notes.txt").write_text("mine\n")  # the folder is no longer drbench's alone: --force merges into it


@pytest.mark.parametrize("spelling", ["absolute", "dotdot"])
def test_record_entries_outside_the_folder_are_ignored(beir_dir, tmp_path, spelling):
    out = tmp_path / "run"
    victim = tmp_path / "victim"
    victim.mkdir()
    known = victim / "known.txt"
    known.write_text("precious\n")
    _run_with_foreign_file(beir_dir, out)
    record = json.loads((out / RECORD).read_text())
    name = str(known) if spelling == "absolute" else "../victim/known.txt"
    record["files"][name] = {"sha256": hashlib.sha256(known.read_bytes()).hexdigest(), "command": "evaluate"}
    (out / RECORD).write_text(json.dumps(record))
    assert name not in recorded_files(out)
    assert evaluate_extrapunc(beir_dir, "--out", str(out), "--force") == 0
    assert known.read_text() == "precious\n" and (out / "notes.txt").read_text() == "mine\n"


def test_force_never_writes_through_a_linked_subfolder(beir_dir, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "variations").symlink_to(elsewhere, target_is_directory=True)
    assert evaluate_extrapunc(beir_dir, "--out", str(out), "--force") == 2
    err = capsys.readouterr().err
    assert "symbolic link(s) drbench did not make (variations)" in err and "remove the links" in err
    assert list(elsewhere.iterdir()) == [] and (out / "variations").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "mine", "tiny"]  # no temporary folder left


def test_a_users_linked_folder_in_a_run_folder_is_never_removed(beir_dir, tmp_path, capsys):
    out = tmp_path / "run"
    assert evaluate_extrapunc(beir_dir, "--out", str(out)) == 0
    data = tmp_path / "data"
    data.mkdir()
    (data / "big.bin").write_text("data\n")
    (out / "mydata").symlink_to(data, target_is_directory=True)
    before = _snapshot(out)
    for extra in ([], ["--force"]):
        assert evaluate_extrapunc(beir_dir, "--out", str(out), *extra) == 2
        assert "mydata" in capsys.readouterr().err
    assert (out / "mydata").is_symlink() and (data / "big.bin").read_text() == "data\n"
    assert _snapshot(out) == before


def test_a_linked_file_in_a_perturb_folder_blocks_the_rerun(beir_dir, tmp_path, capsys):
    out = tmp_path / "sets"
    argv = ["perturb", "--dataset", str(beir_dir), "--generators", "MISSPELL", "--out", str(out)]
    assert main(argv) == 0
    outside = tmp_path / "outside.tsv"
    outside.write_text("mine\n")
    (out / "EXTRA.tsv").symlink_to(outside)
    assert main(argv) == 2 and "EXTRA.tsv" in capsys.readouterr().err
    assert outside.read_text() == "mine\n" and (out / "EXTRA.tsv").is_symlink()


def _killed_run(beir_dir, out: Path) -> subprocess.CompletedProcess:
    """``bench evaluate`` killed (os._exit, as SIGKILL leaves it) once its files are in the temporary folder."""
    code = ("import os, sys; import suites.variations.suite as s; w = s.write_run\n"
            "def write_and_die(*a, **k):\n    w(*a, **k); os._exit(9)\n"
            "s.write_run = write_and_die\nfrom bench.cli.main import main; sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    argv = ["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC", "--no-progress",
            "--out", str(out)]
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300, env=env)


def test_the_temporary_folder_of_a_killed_run_is_removed_by_the_next_run(beir_dir, tmp_path):
    out = tmp_path / "run"
    assert _killed_run(beir_dir, out).returncode == 9
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith(".run.")]
    assert len(left) == 1 and left[0].endswith(".new") and not out.exists()
    mine = tmp_path / ".run.keep"  # a user's folder of a similar name is not drbench's
    mine.mkdir()
    assert evaluate_extrapunc(beir_dir, "--out", str(out)) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".run.keep", "run", "tiny"]


def test_a_live_writers_temporary_folder_is_kept(tmp_path):
    from bench.core.io import writer_mark
    from bench.core.written import clean_staging

    live = tmp_path / f".run.{writer_mark()}.abcdefgh.new"  # this process: running
    live.mkdir()
    assert clean_staging(tmp_path / "run") == [] and live.is_dir()


def test_a_failed_write_names_the_final_folder_not_the_temporary_one(beir_dir, tmp_path, monkeypatch, capsys):
    import suites.variations.suite as suite

    def disk_full(out_dir, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(out_dir) / "per_query.csv"))

    monkeypatch.setattr(suite, "write_run", disk_full)
    out = tmp_path / "run"
    assert evaluate_extrapunc(beir_dir, "--out", str(out)) != 0
    err = capsys.readouterr().err
    assert f"cannot write in {out}: No space left on device" in err and ".new" not in err, err
