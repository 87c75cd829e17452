"""SWAPWORDS: a wh-word, the copula and a noun phrase the parse calls its
complement ("what is love" -> "what love is"), a wh-phrase before the auxiliary, a pronoun statement's
complement fronted ("you are a coward" -> "a coward you are"), each scored on its own tuning labels;
two fixes (a name split by the copula, a phrasal verb's phrase fronted); threshold 0.83."""
from __future__ import annotations

import pytest

from perturb import make
from perturb.resources import parsing, wordnet_index
from perturb_helpers import swapwords_candidates

pytest.importorskip("spacy")
if parsing.model_name() is None:  # pragma: no cover - depends on the install
    pytest.skip("no spaCy English model", allow_module_level=True)
if wordnet_index.index() is None:  # pragma: no cover - depends on the install
    pytest.skip("no WordNet files", allow_module_level=True)

WH_SUBJECT = "subject and auxiliary (copula, wh-subject)"


@pytest.mark.parametrize("text,variation,kind,passes", [
    ("what is love", "what love is", WH_SUBJECT, True),
    ("who is the governor", "who the governor is", WH_SUBJECT, True),
    ("WHO IS THE BEST SOCCER PLAYER", "WHO THE BEST SOCCER PLAYER IS", WH_SUBJECT, True),
    ("you are a coward", "a coward you are", "complement fronted", True),
    ("I am happy", "happy I am", "complement fronted", True),
    ("how honest are you", "how honest you are", "subject and auxiliary (wh-phrase)", False),  # 0.80 (7/8)
    ("What type of computer are you", "What type of computer you are", "subject and auxiliary (wh-phrase)", False),
    ("what is the capital of france", "what the capital of france is", "subject and auxiliary (copula)", True),
    ("what is taj mahal", "what taj is mahal", "subject and auxiliary (copula, subject cut short)", False),
    ("why do we put up with the heresies of science", "with the heresies of science why do we put up",
     "prepositional phrase fronted (argument)", False),
])
def test_round7_kinds(text, variation, kind, passes):
    found = swapwords_candidates(text)
    assert found[variation][1] == kind
    assert (found[variation][0] >= make("SWAPWORDS").min_score) == passes


@pytest.mark.parametrize("text", ["you are not sincere", "what is impeached", "you are avoiding", "they are not here"])
def test_no_new_kind_for_negations_or_verbs(text):
    kinds = {k for _, k in swapwords_candidates(text).values()}
    assert not kinds & {WH_SUBJECT, "complement fronted"}


def test_round7_labels_are_in_the_devset():
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import DEVELOPMENT, read_devset

    rows = read_devset(labelled_path("SWAPWORDS"), DEVELOPMENT)
    new = [r for r in rows if r.provenance == "dev-question-orders"]
    old = [r for r in rows if r.provenance in ("dev-sample", "dev-adjective-kinds")]  # the 770 rows before round 7
    assert len(rows) == 911 and len(new) == 141 and sum(r.valid for r in new) == 127 and len(old) == 770
    assert all("(round 7)" in r.detail for r in new)
    key = lambda r: (r.style, r.qid, r.variation)  # noqa: E731
    assert {key(r) for r in old} == {key(r) for r in rows if "(round 7)" not in r.detail}
    assert not {(r.style, r.qid) for r in new} & {(r.style, r.qid) for r in old}  # fresh queries only


def _confirmation(provenance):
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import read_devset

    return read_devset(labelled_path("SWAPWORDS"), provenance)


def test_second_confirmation_sample_is_the_generators_output():
    rows = _confirmation("confirmation-3")  # round 7's second sample
    assert len(rows) == 43 and sum(r.valid for r in rows) == 39
    done = make("SWAPWORDS").perturb_batch([(r.qid, r.original) for r in rows], 11)
    assert [p.text for p in done] == [r.variation for r in rows]
    assert [p.detail for p in done] == [r.detail for r in rows]


def test_first_confirmation_sample_differs_only_where_the_fixes_apply():
    """The first sample was drawn before the two fixes: today the generator leaves "what is taj mahal"
    unchanged and picks another candidate of the phrasal-verb question; every other row is its output."""
    rows = _confirmation("confirmation-2")  # round 7's first sample
    assert len(rows) == 50 and sum(r.valid for r in rows) == 44
    done = make("SWAPWORDS").perturb_batch([(r.qid, r.original) for r in rows], 11)
    differ = {r.original for r, p in zip(rows, done) if p.text != r.variation}
    assert differ == {"what is taj mahal", "why do we put up with the heresies of science"}
