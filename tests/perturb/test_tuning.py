"""benchmarks.tuning: each threshold rule on small hand-made rows, a threshold re-derived from its
labelled set, and the `thresholds` command's exit status."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.tuning.rules import labelled_path
from perturb.checks.devset import Candidate, read_devset, write_devset
from perturb.spec import Spec, Tuning, threshold_constraint
from benchmarks.tuning import NoThreshold, rederive, rules
from benchmarks.tuning.commands import check_thresholds, main

ROOT = Path(__file__).resolve().parents[2]


def _c(qid, score, valid, provenance="dev-sample", split="tune", detail="d"):
    return Candidate("G", "web-query", qid, "orig " + qid, f"var {qid} {score}", detail, score, split, valid, "r",
                     provenance)


# a: {0.9 valid, 0.2 invalid}; b: {0.5 valid, 0.4 invalid}; c: {0.1 invalid}
ROWS = [_c("a", 0.9, True), _c("a", 0.2, False), _c("b", 0.5, True), _c("b", 0.4, False), _c("c", 0.1, False)]


def test_choose_is_the_most_applicable_point_of_the_tuning_half():
    assert rules.choose(ROWS, min_validity=0.9) == 0.5  # a and b apply with a valid pick each
    assert rules.choose(ROWS, min_validity=0.7) == 0.4  # b's pick is a coin toss: 0.75 over a and b
    assert rules.choose(ROWS, min_validity=0.5) == 0.2  # as applicable as 0.4, and lower
    held = [_c("d", 0.15, True, split="held")]
    assert rules.choose(ROWS + held, min_validity=0.9) == 0.5  # the held half is not read


def test_rules_read_the_development_samples_only():
    confirmation = [_c("e", 0.25, False, provenance="confirmation-1"), _c("f", 0.3, True, provenance="confirmation-1")]
    unscored = [_c("g", float("nan"), True)]
    unlabelled = [_c("h", 0.35, None)]
    rows = ROWS + confirmation + unscored + unlabelled
    assert rules.choose(rows, 0.9) == 0.5
    assert rules.choose(rows, 0.9, provenance="confirmation-1") == 0.3
    assert rules.choose(rows, 0.9, provenance=["confirmation-1", "dev-*"]) == 0.5


def test_a_rule_without_an_answer_says_so():
    with pytest.raises(NoThreshold, match="choose: no threshold reaches validity 0.9"):
        rules.choose([_c("x", 0.3, False)], 0.9)
    with pytest.raises(NoThreshold):
        rules.choose(ROWS, 0.9, provenance="nothing-*")


def test_choose_by_kind_asks_every_passing_kind_to_reach_the_target():
    def k(qid, score, valid, kind):
        return _c(qid, score, valid, detail=f"x <-> y: {kind}")

    rows = [k("a", 0.9, True, "strong"), k("b", 0.9, True, "strong"), k("c", 0.9, True, "strong"),
            k("a", 0.7, True, "weak"), k("d", 0.7, False, "weak"),  # 1/2 valid: refused kind by kind
            k("e", 0.8, True, "medium"), k("f", 0.8, True, "medium")]
    assert rules.choose_by_kind(rows, 0.9) == 0.8
    assert rules.choose_by_kind(rows, 0.5) == 0.7
    assert rules.choose(rows, 0.6) == 0.7  # pooled per query, the weak kind rides on a's valid pick


def test_pooled_validity_pools_the_first_choice_and_the_confirmation_sample():
    dev = [_c("a", 0.60, True), _c("b", 0.62, True), _c("c", 0.70, False, split="held"), _c("d", 0.75, True),
           _c("e", 0.80, True), _c("f", 0.30, False), _c("g", 0.65, True, split="held")]
    confirmation = [_c("h", 0.72, True, provenance="confirmation-1"), _c("i", 0.78, True, provenance="confirmation-1")]
    rows = dev + confirmation + [_c("j", 0.61, False, provenance="confirmation-2")]
    # first choice on the tuning half at 90%: 0.6; the pool: every development row >= 0.6 (both halves)
    # and the confirmation rows: 8 rows, 1 invalid (0.70)
    pool = rules.pooled_rows(rows)
    assert sorted(c.qid for c in pool) == ["a", "b", "c", "d", "e", "g", "h", "i"]
    assert rules.pooled_validity(rows, min_validity=0.85) == 0.6  # 7/8
    assert rules.pooled_validity(rows, min_validity=0.95) == 0.72  # the lowest with all passing valid
    assert rules.pooled_validity(rows, 0.95, confirmation="nothing") == 0.75


def _tiny_spec(path, threshold, rule="choose", args=None):
    c = threshold_constraint("tiny verifier", threshold, description="d", evidence="e",
                             tuning=Tuning(str(path), rule, args or {"min_validity": 0.9}))
    return Spec(name="TINY", version=1, protocol="validated", transformation="t", constraints=(c,))


def test_rederive_applies_the_named_rule_to_the_labelled_file(tmp_path):
    path = tmp_path / "TINY.tsv"
    write_devset(path, ROWS + [_c("e", 0.45, False, provenance="confirmation-1")])
    spec = _tiny_spec(path, 0.5)
    (c,) = spec.thresholds()
    assert rederive(c) == 0.5 and rederive(c.tuning) == 0.5
    assert rederive(_tiny_spec(path, 0.5, args={"min_validity": 0.7}).constraints[0]) == 0.4
    assert rederive(c, rows=ROWS[2:]) == 0.5
    with pytest.raises(KeyError, match="no tuning rule 'nope'"):
        rederive(_tiny_spec(path, 0.5, rule="nope").constraints[0])
    # a path below the repository root, as the specs write it
    assert rules.labelled_file("benchmarks/data/validity/TRANSTENSE.tsv") == labelled_path("TRANSTENSE")


def test_thresholds_command_exit_status(tmp_path, monkeypatch):
    from benchmarks.tuning import commands

    path = tmp_path / "TINY.tsv"
    write_devset(path, ROWS)
    lines = []
    assert check_thresholds([_tiny_spec(path, 0.5)], lines.append) == 0
    assert "yes" in lines[1] and lines[-1] == "1 thresholds, 0 disagree"
    monkeypatch.setattr(commands, "known_specs", lambda: ([_tiny_spec(path, 0.5)], []))
    assert main(["thresholds"], lines.append) == 0
    monkeypatch.setattr(commands, "known_specs", lambda: ([_tiny_spec(path, 0.4)], []))
    assert main(["thresholds"], lines.append) == 1 and "NO" in lines[-2]
    monkeypatch.setattr(commands, "known_specs", lambda: ([_tiny_spec(tmp_path / "missing.tsv", 0.5)], []))
    assert main(["thresholds"], lines.append) == 1 and "error" in lines[-2]
    assert main(["nope"], lines.append) == 2


def test_every_shipped_threshold_rederives():
    """`python -m benchmarks.tuning thresholds` on the built-in specs: every threshold is its rule's."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.tuning", "thresholds"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SWAPSYN-WNET" in proc.stdout and " 0 disagree" in proc.stdout


def test_curve_marks_the_shipped_threshold():
    lines = []
    assert main(["curve", "TRANSTENSE"], lines.append) == 0
    assert "| 0.3 **chosen** |" in lines[0]
    tune = [c for c in read_devset(labelled_path("TRANSTENSE")) if c.split == "tune"]
    assert lines[0].count("\n") == 1 + len({c.score for c in tune})


def test_kinds_command_is_the_swapwords_evidence_table():
    """Its labelled rows are the evidence table; every other kind of the kind table follows, at the prior."""
    from perturb.generators.swapwords.pairs import EVIDENCE, KIND_SCORES, UNLABELLED

    lines = []
    assert main(["kinds", "SWAPWORDS"], lines.append) == 0
    labelled = {line.split("\t")[2]: float(line.split("\t")[0]) for line in lines if line.split("\t")[1] != "0/0"}
    assert labelled == {reason: score for score, reason in EVIDENCE}
    rest = {line.split("\t")[2]: float(line.split("\t")[0]) for line in lines if line.split("\t")[1] == "0/0"}
    assert rest == {k: UNLABELLED for k in KIND_SCORES if k not in labelled}
    assert all("no label" in line for line in lines if line.split("\t")[1] == "0/0")


def test_docs_command_rewrites_only_the_operating_points_block(tmp_path):
    from perturb.spec import operating_points_markdown

    doc = tmp_path / "methods.md"
    doc.write_text("intro\n<!-- operating-points:start -->\n| old |\n<!-- operating-points:end -->\nrest\n", encoding="utf-8")
    lines = []
    assert main(["docs", "--check", "--path", str(doc)], lines.append) == 1 and "stale" in lines[-1]
    assert main(["docs", "--path", str(doc)], lines.append) == 0
    assert doc.read_text(encoding="utf-8") == ("intro\n<!-- operating-points:start -->\n" + operating_points_markdown()
                                               + "<!-- operating-points:end -->\nrest\n")
    assert main(["docs", "--check", "--path", str(doc)], lines.append) == 0 and "current" in lines[-1]
