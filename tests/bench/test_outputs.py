"""Output files (issue 40 items 3 and 5): `bench leaderboard` prints its Markdown table and writes
files only when they are named; a named file that drbench did not write (no record of it in the
folder's .drbench-written.json, or edited since) is not replaced without --force, in leaderboard,
compare, report and gate alike; a file drbench wrote is replaced; the written files are exactly
what the command produces (the marker is a sidecar)."""
import json

import pytest

from bench.cli.main import main
from bench.cli.outputs import RECORD
from runfactory import degrade, rng_for, synthetic_values, write_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("out")
    v = synthetic_values(0, n=60)
    worse = {s: {m: x.copy() for m, x in mm.items()} for s, mm in v.items()}
    worse["MISSPELL"] = {m: degrade(rng_for(1, "w", m), x, 0.4) for m, x in v["MISSPELL"].items()}
    return [str(write_run(d / "a", v, model="model-a")), str(write_run(d / "b", worse, model="model-b"))]


def test_leaderboard_prints_the_markdown_table_and_writes_no_file(runs, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", *runs]) == 0
    got = capsys.readouterr()
    assert got.out.startswith("### drbench leaderboard\n") and "| rank | interval |" in got.out
    assert "group,dataset,model" not in got.out  # no CSV mixed in
    assert "-o FOLDER/leaderboard.csv" in got.err
    assert list(tmp_path.iterdir()) == []
    assert main(["leaderboard", *runs, "--md"]) == 0  # --md without a file: the same table, nothing else
    assert capsys.readouterr().out == got.out
    assert main(["leaderboard", *runs, "-o", "-"]) == 0  # the long CSV on stdout, alone
    out = capsys.readouterr().out
    assert out.startswith("group,dataset,model,") and "###" not in out
    assert main(["leaderboard", *runs, "-o", "-", "--md"]) == 2
    assert "CSV and Markdown mixed" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_leaderboard_writes_the_named_files_and_records_them(runs, tmp_path, capsys):
    csv_path, md = tmp_path / "board" / "leaderboard.csv", tmp_path / "board" / "leaderboard.md"
    assert main(["leaderboard", *runs, "-o", str(csv_path), "--md", str(md)]) == 0
    got = capsys.readouterr()
    assert got.out == ""  # everything went to the named files
    written = ["leaderboard.csv", "leaderboard.wide.csv", "leaderboard.method.md", "leaderboard.md"]
    assert sorted(p.name for p in csv_path.parent.iterdir()) == sorted(written + [RECORD])
    assert f"wrote {csv_path}" in got.err
    record = json.loads((csv_path.parent / RECORD).read_text())["files"]
    assert sorted(record) == sorted(written) and {e["command"] for e in record.values()} == {"bench leaderboard"}
    assert csv_path.read_text().startswith("group,dataset,model,")  # no marker line in the CSV itself
    assert md.read_text().startswith("### drbench leaderboard")
    # drbench wrote them: a second run replaces them without --force
    assert main(["leaderboard", *runs, "-o", str(csv_path), "--md", str(md)]) == 0


def test_leaderboard_refuses_a_file_it_did_not_write_and_writes_nothing(runs, tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    mine = folder / "leaderboard.md"
    mine.write_text("my notes\n")
    csv_path = folder / "leaderboard.csv"
    assert main(["leaderboard", *runs, "-o", str(csv_path), "--md", str(mine)]) == 2
    err = capsys.readouterr().err
    assert f"not overwritten: {mine} exists and drbench did not write it" in err
    assert "Fix: write to a new file (-o my-board/leaderboard.csv --md my-board/leaderboard.md), or add --force" in err
    assert mine.read_text() == "my notes\n" and sorted(p.name for p in folder.iterdir()) == ["leaderboard.md"]
    assert main(["leaderboard", *runs, "-o", str(csv_path), "--md", str(mine), "--force"]) == 0
    assert mine.read_text().startswith("### drbench leaderboard")
    # edited after drbench wrote it: refused again, and named as changed
    mine.write_text(mine.read_text() + "a hand-made line\n")
    capsys.readouterr()
    assert main(["leaderboard", *runs, "-o", str(csv_path), "--md", str(mine)]) == 2
    assert f"{mine} was changed since drbench wrote it" in capsys.readouterr().err
    # an empty file holds nothing to lose
    mine.write_text("")
    assert main(["leaderboard", *runs, "--md", str(mine)]) == 0


@pytest.mark.parametrize("command", ["compare", "compare-drop-rate", "report", "gate-output", "gate-json"])
def test_every_command_that_writes_a_named_file_refuses_one_it_did_not_write(runs, tmp_path, capsys, command):
    target = tmp_path / "mine.txt"
    target.write_text("keep me\n")
    argv = {"compare": ["compare", *runs, "-o", str(target)],
            "compare-drop-rate": ["compare", *runs, "--drop-rate-output", str(target), "--resamples", "200"],
            "report": ["report", runs[0], "--format", "md", "--no-plots", "-o", str(target)],
            "gate-output": ["gate", "--baseline", runs[0], "--candidate", runs[1], "-o", str(target),
                            "--resamples", "200"],
            "gate-json": ["gate", "--baseline", runs[0], "--candidate", runs[1], "--json", str(target),
                          "--resamples", "200"]}[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{target} exists and drbench did not write it" in err and "--force" in err
    assert target.read_text() == "keep me\n"
    assert main(argv + ["--force"]) in (0, 1)  # gate: its verdict's exit code
    assert target.read_text() != "keep me\n"
    assert main(argv) in (0, 1)  # now drbench's own file: replaced without --force


def test_gate_append_adds_to_any_file(runs, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("# CI summary\n")
    assert main(["gate", "--baseline", runs[0], "--candidate", runs[1], "-o", str(summary), "--append",
                 "--resamples", "200"]) in (0, 1)
    assert summary.read_text().startswith("# CI summary\n### drbench gate")
