"""SWAPWORDS: the finer evidence kinds the held-back errors asked for, spans
that carry no stray spaces or conjunctions, abbreviations kept whole, and the evidence table
recomputable from the committed development set."""
from __future__ import annotations

import pytest

from perturb import make
from perturb.resources import parsing
from perturb_helpers import swapwords_candidates

pytest.importorskip("spacy")
if parsing.model_name() is None:  # pragma: no cover - depends on the install
    pytest.skip("no spaCy English model", allow_module_level=True)



_variations = swapwords_candidates  # every candidate at any score: variation -> (score, kind)


@pytest.mark.parametrize("text,variation,kind", [
    # held-back errors of the second round, now their own (low-scoring) kinds
    ("who wrote frankenstein", "who frankenstein wrote", "verb and its bare subject/object"),
    ("what is the most popular food in switzerland", "what is the most food popular in switzerland",
     "adjective and its noun (modified adjective)"),
    ("why were black women abused sexually after the abolition of slavery in the us in 1865",
     "in 1865 why were black women abused sexually after the abolition of slavery in the us",
     "prepositional phrase fronted (another attachment)"),
    ("why were black women abused sexually after the abolition of slavery in the us in 1865",
     "why were black women abused sexually in 1865 after the abolition of slavery in the us",
     "sibling prepositional phrases (another attachment)"),
    ("can the procedure of matching inner and outer solutions for a viscous flow problem be applied when the main "
     "stream is a shear flow .",
     "the procedure of matching can inner and outer solutions for a viscous flow problem be applied when the main "
     "stream is a shear flow .", "subject and auxiliary (yes/no, subject cut short)"),
    ("how long is the train ride from italy to finland", "how long the train ride from italy is to finland",
     "subject and auxiliary (modal, subject cut short)"),
])
def test_error_kinds_are_separated_and_refused(text, variation, kind):
    found = _variations(text)
    assert variation in found and found[variation][1] == kind
    assert found[variation][0] < make("SWAPWORDS").min_score


@pytest.mark.parametrize("text,variation,kind", [
    ("what is the best theoretical method for calculating pressure on the surface of a wing alone .",
     "what is the best theoretical method for pressure calculating on the surface of a wing alone .",
     "gerund and its bare object"),
    ("what agreement is found between theoretically predicted instability times and experimentally measured "
     "collapse times for compressed columns in creep .",
     "what agreement is found between experimentally measured collapse times and theoretically predicted "
     "instability times for compressed columns in creep .", "coordinated phrases (nominal)"),
])
def test_finer_kinds_of_the_valid_candidates(text, variation, kind):
    assert _variations(text).get(variation, (None, None))[1] == kind


@pytest.mark.parametrize("text", ["why is my chihuahua  male  so hateful", "what is the most important number  and why",
                                  "how do i get rid of a bird s nest   my kichen window"])
def test_moved_spans_carry_no_spaces_or_trailing_conjunction(text):
    for var in _variations(text):
        assert sorted(var.split()) == sorted(text.split()), var  # no word glued to another ("isso")
        assert " and is " not in var, var


def test_abbreviations_are_one_token_in_every_verified_candidate():
    text = "what is the effect (i.e. the change) of e.g. wind tunnels on U.S. wings and the mass of its mother"
    found = _variations(text)
    assert found  # candidates exist, and none splits an abbreviation
    for var in found:
        for abbrev in ("i.e.", "e.g.", "U.S."):
            assert var.count(abbrev) == 1, var
        assert "its.e." not in var and "U.its" not in var


def test_evidence_table_is_the_tuning_half_of_the_devset():
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import read_devset
    from perturb.generators.swapwords.pairs import EVIDENCE
    from benchmarks.tuning.kinds import kind_scores

    expected = {k: score for k, (score, _, _) in kind_scores(read_devset(labelled_path("SWAPWORDS"))).items()}
    assert {reason: score for score, reason in EVIDENCE} == expected


def test_config_records_the_evidence_and_threshold():
    cfg = make("SWAPWORDS").config()
    assert cfg["min_score"] == 0.83 and cfg["evidence"]["gerund and its bare object"] < 0.83
    assert cfg["unlisted_kind_score"] == 0.5
    assert make("SWAPWORDS", min_score=0.6).config() != cfg


def test_kind_by_kind_threshold_refuses_a_weak_kind_that_pooling_lets_through():
    from perturb.checks.devset import Candidate, choose, choose_by_kind

    def row(q, score, kind, valid):
        return Candidate("SWAPWORDS", "s", q, "o", f"v{valid}{kind}", f"a <-> b: {kind}", score, "tune", valid, "")

    rows = [row("q1", 0.9, "strong", True), row("q1", 0.7, "weak", False), row("q2", 0.7, "weak", True),
            row("q3", 0.9, "strong", True), row("q3", 0.7, "weak", True), row("q4", 0.9, "strong", True)]
    assert choose(rows, 0.8).threshold == 0.7  # pooled per query: 7/8 of the picks valid
    assert choose_by_kind(rows, 0.8) == 0.9  # the weak kind alone is 2/3 valid
