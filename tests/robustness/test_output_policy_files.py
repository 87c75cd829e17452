"""The output policy for files the user names (bench.core.written.check_output_files /
write_output_files), in every writer: regular files only (devices and FIFOs refused at once, without
reading them), never through a symbolic link, never a run folder's own file, never two outputs of one
command on one path, and ``run.report()`` refusing exactly as ``bench report`` does."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError
from bench.core.written import RECORD
from tests.conftest import evaluate_extrapunc, write_beir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from runfactory import synthetic_values, write_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """Two run folders written by ``bench evaluate`` (so their files are recorded as the run's own)."""
    base = tmp_path_factory.mktemp("policy")
    beir = write_beir(base / "tiny")
    runs = []
    for name in ("A", "B"):
        assert evaluate_extrapunc(beir, "--out", str(base / name), "--name", f"model-{name.lower()}") == 0
        runs.append(base / name)
    return runs


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    d = tmp_path_factory.mktemp("synthetic")
    v = synthetic_values(0, n=40)
    return [str(write_run(d / "a", v, model="model-a")), str(write_run(d / "b", v, model="model-b"))]


def _cli(argv, timeout=120):
    """Run ``bench argv`` in a child process limited to 2 GiB of memory and ``timeout`` seconds
    (a device read to its end, or a FIFO opened for writing, would otherwise take the test with it)."""
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
            "from bench.cli.main import main; sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=timeout,
                              env=env, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        pytest.fail(f"bench {' '.join(argv)} did not finish within {timeout} s (it hung)")


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# ----------------------------------------------------------------- devices, FIFOs, links


@pytest.mark.parametrize("device, option", [("/dev/full", "-o"), ("/dev/zero", "-o"), ("/dev/full", "--json")])
def test_a_device_as_output_is_refused_at_once(synthetic, device, option):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    argv = ["gate", "--baseline", synthetic[0], "--candidate", synthetic[1], "--resamples", "200", option, device]
    got = _cli(argv)
    assert got.returncode == 2, got.stderr[-2000:]
    assert f"{option} {device} is not written: it is a character device, not a regular file" in got.stderr
    assert "'-' for stdout" in got.stderr and "Traceback" not in got.stderr


@pytest.mark.parametrize("command", ["compare", "report", "leaderboard", "gate-append"])
def test_a_fifo_as_output_is_refused_without_waiting_for_a_reader(synthetic, tmp_path, command):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    argv = {"compare": ["compare", *synthetic, "-o", str(fifo)],
            "report": ["report", synthetic[0], "--format", "md", "--no-plots", "-o", str(fifo)],
            "leaderboard": ["leaderboard", *synthetic, "--md", str(fifo)],
            "gate-append": ["gate", "--baseline", synthetic[0], "--candidate", synthetic[1], "--resamples", "200",
                            "-o", str(fifo), "--append"]}[command]
    got = _cli(argv, timeout=60)
    assert got.returncode == 2, got.stderr[-2000:]
    assert f"{fifo} is not written: it is a FIFO, not a regular file" in got.stderr


def test_a_link_as_output_is_refused_and_its_target_kept(synthetic, tmp_path, capsys):
    target = tmp_path / "elsewhere.md"
    target.write_text("keep me\n")
    link = tmp_path / "out.md"
    link.symlink_to(target)
    for argv in (["compare", *synthetic, "-o", str(link)], ["compare", *synthetic, "-o", str(link), "--force"]):
        assert main(argv) == 2
        assert f"-o {link} is not written: it is a symbolic link; drbench never writes through a link" in \
            capsys.readouterr().err
    assert target.read_text() == "keep me\n" and link.is_symlink()


def test_a_process_substitution_is_refused_not_waited_on(synthetic, tmp_path):
    """``-o >(cat)`` gives the shell's /dev/fd/N: a link to a pipe."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    fd_link = tmp_path / "63"
    fd_link.symlink_to(fifo)
    got = _cli(["compare", *synthetic, "-o", str(fd_link)], timeout=60)
    assert got.returncode == 2 and "is a symbolic link" in got.stderr


# ----------------------------------------------------------------- run folders' own files


def test_compare_never_replaces_a_runs_result_json(evaluated, capsys):
    a, b = evaluated
    before = _snapshot(a)
    for extra in ([], ["--force"]):
        assert main(["compare", str(a), str(b), "--resamples", "200", "--drop-rate-output", str(a / "result.json"),
                     *extra]) == 2
        err = capsys.readouterr().err
        assert f"--drop-rate-output {a / 'result.json'} is not written: it is one of the files of the run folder {a}" \
               in err
    assert _snapshot(a) == before


@pytest.mark.parametrize("name", ["result.json", "per_query.csv", "variations/EXTRAPUNC.tsv"])
def test_report_never_replaces_another_runs_files(evaluated, capsys, name):
    a, b = evaluated
    before = _snapshot(a)
    assert main(["report", str(b), "--format", "md", "--no-plots", "-o", str(a / name), "--force"]) == 2
    assert "is one of the files of the run folder" in capsys.readouterr().err
    assert _snapshot(a) == before
    bench.load_run(a)  # still a complete, verified run


def test_the_default_report_in_a_run_folder_is_recorded_and_rewritten(evaluated, capsys):
    a = evaluated[0]
    assert main(["report", str(a), "--no-plots"]) == 0
    assert main(["report", str(a), "--no-plots"]) == 0  # drbench's own report: replaced
    files = json.loads((a / RECORD).read_text())["files"]
    assert files["report.html"]["command"] == "bench report"
    assert files["result.json"]["command"] == "evaluate"


# ----------------------------------------------------------------- one path per output


@pytest.mark.parametrize("argv", [
    ["leaderboard", "RUNS", "-o", "x.csv", "--md", "x.csv"],
    ["leaderboard", "RUNS", "-o", "x.csv", "--md", "./x.wide.csv"],
    ["compare", "RUNS", "-o", "x.md", "--drop-rate-output", "x.md"],
    ["gate", "--baseline", "RUN0", "--candidate", "RUN1", "-o", "v.md", "--json", "sub/../v.md"],
])
def test_two_outputs_of_one_command_never_share_a_path(synthetic, tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    argv = [a for x in argv for a in (synthetic if x == "RUNS" else [synthetic[0]] if x == "RUN0"
                                      else [synthetic[1]] if x == "RUN1" else [x])]
    assert main(argv) == 2
    assert "each output of one command needs its own file" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]


# ----------------------------------------------------------------- the Python API


def test_run_report_refuses_the_users_file_as_the_command_does(evaluated, tmp_path, capsys):
    thesis = tmp_path / "thesis.html"
    thesis.write_text("<p>my thesis</p>\n")
    run = bench.load_run(evaluated[0])
    with pytest.raises(BenchError, match="thesis.html exists and drbench did not write it.*force=True"):
        run.report(thesis, plots=False)
    assert thesis.read_text() == "<p>my thesis</p>\n"
    assert main(["report", str(evaluated[0]), "--no-plots", "-o", str(thesis)]) == 2  # the command: the same rule
    assert thesis.read_text() == "<p>my thesis</p>\n"
    assert run.report(thesis, plots=False, force=True) == thesis and thesis.read_text().startswith("<!DOCTYPE html>")
    assert run.report(thesis, plots=False) == thesis  # now drbench's own file
    assert capsys.readouterr().err.count("drbench did not write it") == 1


def test_run_report_into_a_folder_is_a_clear_error(evaluated, tmp_path):
    run = bench.load_run(evaluated[0])
    with pytest.raises(BenchError, match="is a folder; give a file name"):
        run.report(tmp_path)
    with pytest.raises(BenchError, match="give the file as a str or pathlib.Path"):
        run.report(5)
