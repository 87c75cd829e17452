"""When runs are not comparable, the gate, compare and leaderboard name the fix, and the fix works
(issue 21 item 3): evaluating the candidate on the baseline's frozen sets gives a verdict."""
from __future__ import annotations

import re

import pytest

from bench.cli.main import main


def _evaluate(beir_dir, out, *extra):
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--suite", "variations", "--generators",
               "MISSPELL,EXTRAPUNC", "--out", str(out), "--no-progress", *extra])
    assert rc == 0


@pytest.fixture
def runs(tmp_path, beir_dir, monkeypatch, capsys):
    import perturb.generators.misspell as misspell

    _evaluate(beir_dir, tmp_path / "base")
    original = misspell.Misspell.config
    monkeypatch.setattr(misspell.Misspell, "config", lambda self: {**original(self), "tables": "another table"})
    _evaluate(beir_dir, tmp_path / "cand")  # another generator configuration: another MISSPELL fingerprint
    monkeypatch.undo()
    capsys.readouterr()
    return tmp_path / "base", tmp_path / "cand"


def test_gate_names_what_differs_and_the_command_that_fixes_it(runs, beir_dir, tmp_path, capsys):
    base, cand = runs
    assert main(["gate", "--baseline", str(base), "--candidate", str(cand)]) == 2
    err = capsys.readouterr()
    text = err.out + err.err
    assert "fingerprint of variation set 'MISSPELL'" in text
    assert "configuration differs in tables" in text  # which key, not only "different fingerprint"
    fix = re.search(r"Fix: evaluate the candidate on the baseline's frozen sets: (bench evaluate [^(]*)", text)
    assert fix, text
    command = fix.group(1).split()
    assert command[command.index("--variations") + 1] == str(base / "variations")
    assert command[command.index("--seed") + 1] == "0"
    # following the fix gives a verdict
    _evaluate(beir_dir, tmp_path / "fixed", "--variations", str(base / "variations"))
    capsys.readouterr()
    assert main(["gate", "--baseline", str(base), "--candidate", str(tmp_path / "fixed")]) in (0, 1)


def test_a_seed_difference_names_the_seed_to_use(tmp_path, beir_dir, capsys):
    _evaluate(beir_dir, tmp_path / "s0")
    _evaluate(beir_dir, tmp_path / "s1", "--seed", "1")
    capsys.readouterr()
    assert main(["gate", "--baseline", str(tmp_path / "s0"), "--candidate", str(tmp_path / "s1")]) == 2
    captured = capsys.readouterr()
    assert "Fix: re-run the candidate with --seed 0" in captured.out + captured.err


def test_leaderboard_prints_its_grouping_notes_to_the_console(runs, capsys):
    base, cand = runs
    assert main(["leaderboard", str(base), str(cand), "--md"]) == 0
    captured = capsys.readouterr()
    assert "is ranked apart from group" in captured.err
    # the leaderboard has no baseline or candidate: it names the runs as it sees them
    assert "Fix: evaluate the second run's model on the first run's frozen sets" in captured.err
    assert "candidate" not in captured.err


def test_compare_names_the_fix(runs, capsys):
    base, cand = runs
    assert main(["compare", str(base), str(cand)]) == 0
    captured = capsys.readouterr()
    assert "not comparable with group 1" in captured.out + captured.err
    assert "--variations " + str(base / "variations") in captured.out + captured.err
    assert "candidate" not in captured.out + captured.err and "first run" in captured.out + captured.err
