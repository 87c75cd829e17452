"""SWAPWORDS: an adjective and its noun split by WordNet term evidence
(perturb.resources.wordnet_index) and by a verb object, each sub-kind scored on its own labels."""
from __future__ import annotations

import pytest

from perturb import make
from perturb.generators.swapwords.pairs import TERM_FORMING_MIN
from perturb.resources import parsing, wordnet_index
from perturb_helpers import swapwords_candidates

pytest.importorskip("spacy")
if parsing.model_name() is None:  # pragma: no cover - depends on the install
    pytest.skip("no spaCy English model", allow_module_level=True)
if wordnet_index.index() is None:  # pragma: no cover - depends on the install
    pytest.skip("no WordNet files", allow_module_level=True)



_kinds = swapwords_candidates  # every candidate at any score: variation -> (score, kind)


@pytest.mark.parametrize("adjective,noun,lemma,why", [
    ("buckling", "load", "load", "noun modifier"),  # an -ing form without an adjective entry
    ("boundary", "layers", "layer", "noun modifier"),  # a noun tagged as an adjective
    ("warm", "blooded", "blooded", "not a noun"),
    ("leading", "edge", "edge", "multi-word lemma"),
    ("polar", "bear", "bear", "multi-word lemma"),
    ("natural", "frequencies", "frequency", "term-forming adjective"),
    ("social", "determinants", "determinant", "term-forming adjective"),
    ("thermal", "stresses", "stress", ""),
    ("rectangular", "plates", "plate", ""),
    ("hypersonic", "flow", "flow", ""),  # a word WordNet does not know is no evidence
])
def test_term_evidence(adjective, noun, lemma, why):
    assert wordnet_index.term_evidence(adjective, noun, lemma, term_forming_min=TERM_FORMING_MIN.default) == why


@pytest.mark.parametrize("text,variation,kind", [
    ("NATURAL FREQUENCIES OF RECTANGULAR PLATES .", "FREQUENCIES NATURAL OF RECTANGULAR PLATES .",
     "adjective and its noun (term-forming adjective)"),
    ("NATURAL FREQUENCIES OF RECTANGULAR PLATES .", "NATURAL FREQUENCIES OF PLATES RECTANGULAR .",
     "adjective and its noun"),
    ("do polar bears live in the arctic", "do bears polar live in the arctic",
     "adjective and its noun (multi-word lemma)"),
    ("A TECHNIQUE FOR RENDERING APPROXIMATE SOLUTIONS TO PHYSICAL PROBLEMS .",
     "A TECHNIQUE FOR RENDERING SOLUTIONS APPROXIMATE TO PHYSICAL PROBLEMS .", "adjective and its noun (verb object)"),
])
def test_adjective_sub_kinds(text, variation, kind):
    found = _kinds(text)
    assert found[variation][1] == kind
    passes = found[variation][0] >= make("SWAPWORDS").min_score
    assert passes == (kind == "adjective and its noun")  # only the sub-kind without evidence passes at 0.8


def test_without_wordnet_no_adjective_swap_passes(monkeypatch):
    monkeypatch.setattr(wordnet_index, "_INDEX", None)
    monkeypatch.setattr(wordnet_index, "find_wordnet", lambda: None)
    found = _kinds("NATURAL FREQUENCIES OF RECTANGULAR PLATES .")
    score, kind = found["NATURAL FREQUENCIES OF PLATES RECTANGULAR ."]
    assert kind == "adjective and its noun (no lexicon)" and score < make("SWAPWORDS").min_score
    monkeypatch.undo()
    wordnet_index._INDEX = None  # reload for the other tests


def test_index_reads_crlf_and_lf(tmp_path, monkeypatch):
    (tmp_path / "index.adj").write_bytes(b"  1 header line\r\npolar a 1 0 1 0 00000001  \r\n")
    (tmp_path / "index.noun").write_bytes(b"polar_bear n 1 0 1 0 00000002  \npolar_front n 1 0 1 0 3  \nbear n 1 0 1 0 4\n")
    monkeypatch.setattr(wordnet_index, "_INDEX", None)
    monkeypatch.setattr(wordnet_index, "find_wordnet", lambda: ("test", tmp_path))
    adjectives, nouns, first = wordnet_index.index()
    assert adjectives == {"polar"} and "polar_bear" in nouns and first == {"polar": 2}
    assert wordnet_index.term_evidence("polar", "bears", "bear", term_forming_min=10) == "multi-word lemma"
    monkeypatch.undo()
    wordnet_index._INDEX = None


def test_config_records_the_term_evidence():
    cfg = make("SWAPWORDS").config()["term_evidence"]
    assert cfg["term_forming_min"] == TERM_FORMING_MIN.default == 10 and cfg["wordnet"] != "missing"
    assert make("SWAPWORDS").spec.param_values()["term_forming_min"] == 10  # the spec holds it


def test_confirmation_sample_is_the_generators_output():
    """Every labelled round-4 confirmation row is what the generator makes of its query at round 4's
    threshold 0.8 (seed 11); round 7's threshold 0.83 changes one pick (conjuncts, 0.80, no longer pass)."""
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import read_devset

    rows = read_devset(labelled_path("SWAPWORDS"), "confirmation-1")  # round 4's
    assert len(rows) == 67 and sum(r.valid for r in rows) == 62
    items = [(r.qid, r.original) for r in rows]
    done = make("SWAPWORDS", min_score=0.8).perturb_batch(items, 11)
    assert [p.text for p in done] == [r.variation for r in rows]
