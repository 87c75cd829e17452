"""Issue 39 item 1: only a folder drbench wrote is ever replaced (the one marker, .drbench-written.json);
a folder of the user's is refused with the fix, nothing beside --out is deleted, a failed rerun keeps
the previous complete run, and --out '' / nonexist/../x are refused."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.errors import BenchError
from bench.core.written import RECORD, folder_problem, read_record

ROOT = Path(__file__).resolve().parents[2]
EVAL = ["evaluate", "--model", "bm25", "--generators", "MISSPELL", "--no-progress"]


def _evaluate(beir_dir, out, *extra) -> int:
    return main(EVAL + ["--dataset", str(beir_dir), "--out", str(out), *extra])


def _user_folder(folder: Path) -> dict:
    (folder / "variations").mkdir(parents=True)
    (folder / "runs").mkdir()
    files = {"variations/mine.tsv": "q1\tmy own set\n", "runs/mine.trec": "1 Q0 d1 1 1.0 me\n",
             "result.json": "{\"mine\": true}\n", "notes.txt": "keep me\n"}
    for rel, text in files.items():
        (folder / rel).write_text(text, encoding="utf-8")
    return files


def _unchanged(folder: Path, files: dict) -> bool:
    return all((folder / rel).read_text(encoding="utf-8") == text for rel, text in files.items())


def test_evaluate_refuses_a_folder_it_did_not_write_and_touches_nothing(beir_dir, tmp_path, capsys):
    mine = tmp_path / "mine"
    files = _user_folder(mine)
    assert _evaluate(beir_dir, mine) == 2
    err = capsys.readouterr().err
    assert "drbench did not write it" in err and "--force" in err and "new folder" in err
    assert _unchanged(mine, files) and not (mine / RECORD).exists() and not (mine / "per_query.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "tiny"]  # no temporary folder left beside it


def test_force_writes_into_the_folder_and_keeps_the_users_other_files(beir_dir, tmp_path):
    mine = tmp_path / "mine"
    files = _user_folder(mine)
    assert _evaluate(beir_dir, mine, "--force") == 0
    del files["result.json"]  # same name as the run's file: replaced, as --force says
    assert _unchanged(mine, files) and (mine / "per_query.csv").is_file() and (mine / "variations/MISSPELL.tsv").is_file()
    assert "notes.txt" in folder_problem(mine)  # still holds the user's files: the next run needs --force again


def test_a_user_file_added_to_a_run_folder_blocks_the_rerun(beir_dir, tmp_path, capsys):
    out = tmp_path / "run"
    assert _evaluate(beir_dir, out) == 0
    assert read_record(out).get("folder") == "evaluate" and folder_problem(out) == ""
    assert _evaluate(beir_dir, out) == 0  # its own folder: replaced without a word
    (out / "variations" / "my-notes.tsv").write_text("mine\n")
    assert _evaluate(beir_dir, out) == 2
    assert "variations/my-notes.tsv" in capsys.readouterr().err
    assert (out / "variations" / "my-notes.tsv").read_text() == "mine\n"


def test_a_failed_rerun_keeps_the_previous_complete_run(beir_dir, tmp_path, monkeypatch, capsys):
    import suites.variations.suite as suite

    out = tmp_path / "run"
    assert _evaluate(beir_dir, out) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def disk_full(out_dir, *a, **k):
        (Path(out_dir) / "per_query.csv").write_text("half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(suite, "write_run", disk_full)
    assert _evaluate(beir_dir, out) != 0
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "tiny"]


@pytest.mark.parametrize("command", [EVAL, ["perturb", "--generators", "MISSPELL"]])
def test_an_empty_out_is_a_usage_error_and_writes_nothing(command, beir_dir, tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.txt").write_text("x")
    monkeypatch.chdir(work)
    with pytest.raises(SystemExit) as exc:  # a usage error (argparse), exit 2
        main(command + ["--dataset", str(beir_dir), "--out", ""])
    assert exc.value.code == 2 and "empty folder name" in capsys.readouterr().err
    assert sorted(p.name for p in work.iterdir()) == ["mine.txt"]


@pytest.mark.parametrize("command", [EVAL, ["perturb", "--generators", "MISSPELL"]])
def test_out_through_a_missing_folder_creates_nothing(command, beir_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(command + ["--dataset", str(beir_dir), "--out", "nonexist/../x"]) == 2
    err = capsys.readouterr().err
    assert "nonexist does not exist" in err and "--out x" in err
    assert not (tmp_path / "nonexist").exists() and not (tmp_path / "x").exists()


def test_perturb_refuses_a_foreign_folder_and_replaces_its_own(beir_dir, tmp_path, capsys):
    mine = tmp_path / "mine"
    files = _user_folder(mine)
    argv = ["perturb", "--dataset", str(beir_dir), "--generators", "MISSPELL"]
    assert main(argv + ["--out", str(mine)]) == 2
    assert "--force" in capsys.readouterr().err and _unchanged(mine, files)
    out = tmp_path / "sets"
    assert main(argv + ["--out", str(out)]) == 0
    assert main(argv + ["--out", str(out)]) == 0  # its own folder
    assert (out / "MISSPELL.tsv").is_file() and folder_problem(out) == ""


# ----------------------------------------------------------------- checkpoints (bench train)


def test_a_checkpoint_folder_replaces_only_what_drbench_wrote_and_never_a_sibling(tmp_path):
    from bench.models.checkpoint import atomic_folder

    out = tmp_path / "ckpt"
    sibling = tmp_path / ".ckpt.old"  # the user's: the old implementation deleted it
    sibling.mkdir()
    (sibling / "precious.bin").write_text("x")
    with atomic_folder(out) as tmp:
        (tmp / "model.safetensors").write_text("v1")
    with atomic_folder(out) as tmp:  # drbench's own folder: replaced
        (tmp / "model.safetensors").write_text("v2")
    assert (out / "model.safetensors").read_text() == "v2" and (sibling / "precious.bin").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ckpt.old", "ckpt"]

    user = tmp_path / "user"
    user.mkdir()
    (user / "weights.bin").write_text("mine")
    with pytest.raises(BenchError, match="drbench did not write it"):
        with atomic_folder(user) as tmp:
            (tmp / "model.safetensors").write_text("new")
    assert sorted(p.name for p in user.iterdir()) == ["weights.bin"]
    with atomic_folder(user, force=True) as tmp:
        (tmp / "model.safetensors").write_text("new")
    assert (user / "weights.bin").read_text() == "mine" and (user / "model.safetensors").read_text() == "new"


def test_bench_train_refuses_a_users_folder_before_training(tiny_bert, beir_dir, tmp_path, capsys):
    user = tmp_path / "user"
    user.mkdir()
    (user / "thesis.tex").write_text("mine")
    rc = main(["train", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--recipe", "dr", "--out", str(user),
               "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "thesis.tex" in err and "--force" in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "tiny") == ["user"]


def test_the_training_state_folder_beside_out_is_removed_only_when_it_holds_nothing_else(tmp_path):
    from bench.training.loop import STATE_FILE, clear_state

    state = tmp_path / ".ckpt.state"
    state.mkdir()
    (state / STATE_FILE).write_bytes(b"state")
    (state / "mine.txt").write_text("x")
    clear_state(state)
    assert sorted(p.name for p in state.iterdir()) == ["mine.txt"]
    (state / "mine.txt").unlink()
    (state / STATE_FILE).write_bytes(b"state")
    clear_state(state)
    assert not state.exists()


# ----------------------------------------------------------------- committed runs


def _committed_run_folders():
    return sorted(p.parent for p in (ROOT / "results").rglob("result.json"))


def test_committed_runs_carry_the_marker_and_can_be_rerun_over_themselves():
    folders = _committed_run_folders()
    assert folders, "no committed runs found"
    problems = {str(f.relative_to(ROOT)): folder_problem(f) for f in folders}
    assert {k: v for k, v in problems.items() if v} == {}


def test_the_marker_of_a_committed_run_is_tracked_by_git():
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0 or not tracked.stdout:
        pytest.skip("not a git checkout")
    names = set(tracked.stdout.split())
    missing = [str(f.relative_to(ROOT)) for f in _committed_run_folders()
               if os.path.relpath(f / RECORD, ROOT) not in names]
    assert missing == []
