"""SWAPWORDS phrase reorderings, NOSTOPWORD's kept words and TRANSTENSE's title evidence: real queries of the development collections."""
from __future__ import annotations

import pytest

from perturb import make
from perturb.resources import parsing
from perturb.resources.words import tagging_copy
from perturb.base import query_rng

pytest.importorskip("spacy")
if parsing.model_name() is None:  # pragma: no cover - depends on the install
    pytest.skip("no spaCy English model", allow_module_level=True)


def _variations(text):
    gen = make("SWAPWORDS")
    doc = parsing.parse([tagging_copy(text)])[0]
    return {gen.apply(doc, text, e): (e.score, e.kind) for e in gen.scored(doc, text)}


# ------------------------------------------------------------------ SWAPWORDS
WORD_KINDS = {"coordinated", "co-modifiers", "adjective and its noun", "verb and its bare subject/object",
              "coordinated, with modifiers", "different classes, near", "different classes, far",
              "different classes across a preposition", "same class, not coordinated", "compound modifier and head",
              "same class across a preposition", "gerund and its bare object",
              "adjective and its noun (modified adjective)"}

@pytest.mark.parametrize("text,variation,reason", [
    ("how to cook rice quickly", "how to quickly cook rice", "adverb moved"),
    ("flights from london to paris", "flights to paris from london", "sibling prepositional phrases"),
    ("where can i buy cheap shoes", "where i can buy cheap shoes", "subject and auxiliary (modal)"),
    ("what is the capital of france", "what the capital of france is", "subject and auxiliary (copula)"),
    ("Are you a robot?", "You are a robot?", "subject and auxiliary (yes/no)"),
    ("How do I cook rice in a microwave?", "In a microwave how do I cook rice?", "prepositional phrase fronted"),
    ("heat transfer and skin friction in supersonic flow", "skin friction and heat transfer in supersonic flow",
     "coordinated phrases (nominal)"),
])
def test_phrase_reorderings_are_generated(text, variation, reason):
    found = _variations(text)
    assert variation in found and found[variation][1] == reason


def test_phrase_spans_never_cut_words_or_abbreviations():
    for text in ["what is the effect (i.e. the change) of high-speed flow on the U.S. wing",
                 "how do I keep my cat from scratching the couch and the chair?"]:
        phrase_kinds = {r for _, r in __import__("perturb.generators.swapwords.pairs", fromlist=["EVIDENCE"]).EVIDENCE} - WORD_KINDS
        for var, (_, reason) in _variations(text).items():
            if reason not in phrase_kinds:
                continue
            words = sorted(w.strip("?.,").lower() for w in var.split())
            assert words == sorted(w.strip("?.,").lower() for w in text.split()), var  # whole words only
            assert ("i.e." in var) == ("i.e." in text) and ("U.S." in var) == ("U.S." in text)


def test_phrase_kind_scores_rank_below_the_word_evidence_they_were_not_measured_against():
    from perturb.generators.swapwords.pairs import SCORE_OF

    # each phrase kind's score is its smoothed tuning-half validity: all below the chosen point
    # except the ones that earned it
    assert SCORE_OF["coordinated phrases"] < SCORE_OF["coordinated phrases (nominal)"] < SCORE_OF["co-modifiers"] \
        < SCORE_OF["subject and auxiliary (modal)"]
    assert make("SWAPWORDS").config()["operations"].startswith("two words exchanged (the paper)")


def test_swapwords_kind_scores_are_the_smoothed_tuning_half_validity():
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import DEVELOPMENT, kind_counts, read_devset
    from perturb.generators.swapwords.pairs import SCORE_OF

    rows = read_devset(labelled_path("SWAPWORDS"), DEVELOPMENT)
    counts = kind_counts(r for r in rows if r.split == "tune")
    assert len(rows) >= 200 and len({r.style for r in rows}) >= 4
    for kind, (v, n) in counts.items():
        assert SCORE_OF[kind] == pytest.approx((v + 1) / (n + 2), abs=0.006), kind
    for kind in set(SCORE_OF) - set(counts):
        assert SCORE_OF[kind] == 0.5, kind  # no tuning label: the prior


def test_swapwords_batch_matches_single_and_is_deterministic():
    texts = ["where can i buy cheap shoes", "Are you a robot?", "THE EFFECT OF HEAT ON CRACKS IN STEEL ."]
    gen = make("SWAPWORDS", min_score=0.5)
    a = gen.perturb_batch([(t, t) for t in texts], 11)
    b = gen.perturb_batch([(t, t) for t in reversed(texts)], 11)[::-1]
    assert [p.text for p in a] == [p.text for p in b]
    assert [p.text for p in a] == [gen.perturb(t, query_rng(11, "SWAPWORDS", t)).text for t in texts]


# ------------------------------------------------------------------ TRANSTENSE
@pytest.mark.parametrize("title", [
    "SOME ASPECTS OF NONEQUILIBRIUM FLOWS .",  # the known miss of the first round
    "A NEW SERIES FOR CALCULATION OF STEADY LAMINAR BOUNDARY LAYER FLOWS .",
    "BOUNDARY LAYER INDUCED NOISE IN THE INTERIOR OF AIRCRAFT .",
    "CLAMPED SHORT OVAL CYLINDRICAL SHELLS UNDER HYDROSTATIC PRESSURE .",
    "right pelvic pain causes",
])
def test_transtense_leaves_nouns_and_participles_of_titles(title):
    for seed in range(5):
        assert not make("TRANSTENSE").perturb(title, query_rng(seed, "TRANSTENSE", title)).applied


def test_transtense_still_changes_verbs_of_questions():
    gen = make("TRANSTENSE")
    p = gen.perturb("what happens when water flows", query_rng(0, "TRANSTENSE", "x"))
    assert p.applied and p.text in ("what happened when water flows", "what happens when water flowed")
    assert gen.perturb("WHAT IS THE EFFECT OF HEAT ON CRACKS", query_rng(0, "TRANSTENSE", "x")).applied


# ------------------------------------------------------------------ NOSTOPWORD
@pytest.mark.parametrize("text,expected", [
    ("I do not feel scared.", "not feel scared."),
    ("why isn t there a tool to suck up phlegm in your throat", "isn t tool suck phlegm throat"),
    ("how can i get rid of a sinus infection without medication", "get rid sinus infection without medication"),
    ("Which country consumes the most chocolate per capita?", "country consumes most chocolate per capita?"),
    ("THE HODOGRAPHIC TRANSFORMATION IN TRANSONIC FLOW .", "HODOGRAPHIC TRANSFORMATION TRANSONIC FLOW ."),
])
def test_nostopword_keeps_negations_and_quantity_words(text, expected):
    assert make("NOSTOPWORD").perturb(text, None).text == expected
