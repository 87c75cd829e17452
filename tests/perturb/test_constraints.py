"""Issue 13: every constraint that keeps the information need, tested on the audit's own cases.

Each test would fail on the generators as they were before the constraints (the cases are the
ones the blind audit found), and each exercises the code path that refuses the edit.
"""
from __future__ import annotations

import collections

import pytest

from perturb.resources.words import case_style, stopwords, word_spans
from bench.core.seeding import rng_for
from perturb.base import Perturbation, normalise, settle
from perturb_helpers import generator


def _outs(name, text, seeds=range(60), gen=None):
    gen = gen or generator(name)
    return [gen.perturb(text, rng_for(s, name, "q")) for s in seeds]


def _changed_words(a, b):
    wa = [a[s:e] for s, e in word_spans(a)]
    wb = [b[s:e] for s, e in word_spans(b)]
    return [(x, y) for x, y in zip(wa, wb) if x != y]


# --------------------------------------------------------------------------- all generators
def test_case_or_whitespace_only_change_is_not_applied():
    assert settle("do", Perturbation("DO", True, "x")) == Perturbation("do", False, "")
    assert settle("a  b", Perturbation("a b", True, "x")) == Perturbation("a  b", False, "")
    assert settle("do", Perturbation("do!", True, "x")).applied
    assert normalise(" Do  IT ") == "do it"


@pytest.mark.parametrize("name", ["MISSPELL", "SWAPSYN-GLOVE", "SWAPSYN-WNET", "TRANSTENSE", "NOSTOPWORD",
                                  "SWAPWORDS", "EXTRAPUNC"])
def test_applied_rows_record_their_edit_and_really_change(name, cranfield):
    gen = generator(name)
    for (qid, text), p in zip(cranfield[:80], gen.perturb_batch(cranfield[:80], 0)):
        if p.applied:
            assert p.detail and normalise(p.text) != normalise(text)
        else:
            assert p.text == text and p.detail == ""


# --------------------------------------------------------------------------- MISSPELL
@pytest.mark.parametrize("text", ["and", "is", "THE", "the and is of"])
def test_misspell_never_targets_stopwords(text):
    for p in _outs("MISSPELL", text):
        assert not p.applied, p  # "and"->"ad", "is"->"i8", "THE"->"TH" are refused


def test_misspell_stopwords_untouched_in_a_query(cranfield):
    gen = generator("MISSPELL")
    sw = stopwords()
    for (qid, text), p in zip(cranfield, gen.perturb_batch(cranfield, 0)):
        for old, new in _changed_words(text, p.text):
            assert old.lower() not in sw and not any(c.isdigit() for c in old)


@pytest.mark.parametrize("text", ["1994", "in 1994 and 2001", "2.5 b747 1994"])
def test_misspell_never_targets_numbers_or_tokens_with_digits(text):
    gen = generator("MISSPELL")
    for p in _outs("MISSPELL", text + " clearance"):
        assert p.applied
        assert p.text.startswith(text + " ")  # "1994" -> "@994" never happens


@pytest.mark.parametrize("word,real", [("following", "flowing"), ("that", "what"), ("cause", "because")])
def test_misspell_refuses_real_word_results(word, real):
    from perturb.generators.misspell import Misspell

    gen = Misspell(types=("spelling", "typos", "ocr", "keyboard"))
    assert gen.is_real_word(real)
    assert real not in gen._spelling_options(word)
    for p in _outs("MISSPELL", f"the {word} rain", range(200), gen=gen):
        assert real not in p.text.split()


def test_misspell_spelling_table_keeps_only_non_words():
    from perturb.generators.misspell import Misspell
    from perturb.generators.typos import tables

    gen = Misspell()
    sp = tables()["spelling"]
    words = [w for w in sp if w.isalpha() and not gen.is_real_word(w)][:300] + ["following", "cause", "security"]
    for w in words:
        for o in gen._spelling_options(w):
            assert not gen.is_real_word(o), (w, o)


def test_misspell_keeps_case_pattern():
    for text in ("WHAT IS THE SECURITY CLEARANCE", "What Is The Security Clearance", "security clearance"):
        style = case_style(text)
        for p in _outs("MISSPELL", text, range(120)):
            assert p.applied
            ((old, new),) = _changed_words(text, p.text)
            letters = [c for c in new if c.isalpha()]
            if style == "upper":
                assert all(c.isupper() for c in letters), (old, new)
            elif style == "lower":
                assert all(c.islower() for c in letters), (old, new)
            else:
                assert new[0] == old[0] or not new[0].isalpha() or new[0].isupper()
                assert all(c.islower() for c in new[1:] if c.isalpha()), (old, new)


def test_misspell_keyboard_neighbours_same_case():
    from perturb.generators.misspell import Misspell

    gen = Misspell(types=("keyboard",))
    for text in ("CLEARANCE", "clearance"):
        for p in _outs("MISSPELL", text, range(200), gen=gen):
            assert p.applied
            assert (p.text.isupper() if text.isupper() else p.text.islower()), p
            assert p.text.isalpha()


def test_misspell_do_to_DO_is_not_applied():
    from perturb.generators.misspell import Misspell

    assert Misspell._same_case("d", ("D", "s", "S", "e"), allow_digits=False) == ("s", "e")
    for p in _outs("MISSPELL", "do", range(50)):
        assert not p.applied


# --------------------------------------------------------------------------- SWAPSYN-GLOVE
def test_glove_refuses_antonyms_derivations_and_names():
    from perturb.resources.lexicon import antonyms, is_derivation

    assert "low" in antonyms("high", "a") and "external" in antonyms("internal", "a")
    assert "black" in antonyms("white", "a")
    assert is_derivation("calculated", "calculation") and not is_derivation("heat", "temperature")
    gen = generator("SWAPSYN-GLOVE")
    for text in ("HIGH SPEED FLOW", "what is the high speed flow", "internal flow of white gas"):
        for p in gen.perturb_batch([(str(s), text) for s in range(20)], 0):
            low = p.text.lower().split()
            assert "low" not in low and "external" not in low and "black" not in low
    # a name is never replaced (wang -> liu)
    for p in gen.perturb_batch([(str(s), "papers by Wang on flutter") for s in range(20)], 0):
        assert "Wang" in p.text


@pytest.mark.xfail(strict=True, reason="the chooser has no POS re-check: 'fluid' (ADJ) -> 'liquid' (NOUN) on a "
                                      "Cranfield query; a known error of the shipped SWAPSYN-GLOVE")
def test_glove_keeps_pos_in_context(cranfield):
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    gen = generator("SWAPSYN-GLOVE")
    out = gen.perturb_batch(cranfield, 0)
    nlp = parsing.nlp()
    n = 0
    for (qid, text), p in zip(cranfield, out):
        if not p.applied:
            continue
        n += 1
        before, after = nlp(tagging_copy(text)), nlp(tagging_copy(p.text))
        ((old, new),) = _changed_words(text, p.text)
        start = next(i for i, (a, b) in enumerate(zip(text, p.text)) if a != b)
        tb = next(t for t in before if t.idx <= start < t.idx + len(t.text))
        ta = next(t for t in after if t.idx == tb.idx)
        assert ta.pos_ == tb.pos_, (old, new)
        assert not any(c.isdigit() for c in new)
    assert n >= 3  # few: terms, collocations and unusual senses are not swapped


def test_glove_reinflects_to_the_original_form():
    gen = generator("SWAPSYN-GLOVE")
    text = "we watched movies with friends"
    out = gen.perturb_batch([(str(s), text) for s in range(30)], 0)
    changed = {_changed_words(text, p.text)[0] for p in out if p.applied}
    assert ("movies", "films") in changed
    for old, new in changed:
        assert new.endswith("s"), (old, new)


def test_glove_never_replaces_rare_domain_terms():
    gen = generator("SWAPSYN-GLOVE")
    for p in gen.perturb_batch([(str(s), "aeroelastic hypersonic magnetohydrodynamic") for s in range(10)], 0):
        assert not p.applied


# --------------------------------------------------------------------------- SWAPSYN-WNET
@pytest.mark.parametrize("text,keep", [
    ("what is the POWER FREQUENCY of the HIGH direction", ("KING", "OFTENNESS", "GAMEY", "COMMISSION")),
    ("trade between Italy and the United States", ("Italia", "Land")),
])
def test_wordnet_whole_queries(text, keep):
    gen = generator("SWAPSYN-WNET")
    for p in gen.perturb_batch([(str(s), text) for s in range(30)], 0):
        for k in keep:
            assert k.lower() not in p.text.lower().split()
        if "Italy" in text:
            assert "Italy" in p.text and "United States" in p.text


# --------------------------------------------------------------------------- TRANSTENSE
@pytest.mark.parametrize("text,bad", [
    ("REFLECTIONS OF SOUND", "REFLECTIONED"), ("SAMPLED DATA ARE SMOOTHED", "SAMPLEDED"),
    ("what causes diabetes", "diabeted"), ("WHAT CAUSES DIABETES", "DIABETED"),
])
def test_transtense_real_word_forms_only(text, bad):
    from perturb.resources.words import zipf

    for p in _outs("TRANSTENSE", text, range(10)):
        assert bad not in p.text
        for old, new in _changed_words(text, p.text):
            assert zipf(new.lower()) > 0
            assert new.isupper() == old.isupper()


def test_transtense_noun_tagged_as_verb_is_refused():
    from perturb.generators.tense import verb_lemma

    assert verb_lemma("diabetes", "VBZ") is None and verb_lemma("reflections", "VBZ") is None
    assert verb_lemma("causes", "VBZ") == "cause" and verb_lemma("sampled", "VBD") == "sample"


@pytest.mark.parametrize("text,expected", [
    ("SAMPLED DATA ARE SMOOTHED", "SAMPLED DATA WERE SMOOTHED"),
    ("HOW IS THE FLOW MEASURED", "HOW WAS THE FLOW MEASURED"),
    ("What Causes Diabetes", "What Caused Diabetes"),
    ("what will happen to the wing", "what happens to the wing"),
    ("can a criterion be developed", "could a criterion be developed"),
    ("what problems have been solved so far", "what problems had been solved so far"),
])
def test_transtense_case_and_modals(text, expected):
    assert {p.text for p in _outs("TRANSTENSE", text, range(10))} == {expected}


# --------------------------------------------------------------------------- BACKTRANS
def test_backtrans_pivot_leaks_detected():
    from perturb.generators.backtrans.generator import pivot_leaks

    q = "what is the analytical solution of the problem"
    assert pivot_leaks(q, "what is the soluciónanalítica of the problem", "spa", False)
    assert pivot_leaks(q, "what is analytical solution to the cual problem", "spa", False) == ["cual"]
    assert pivot_leaks(q, "what is the *solución analytical", "spa", True)
    assert pivot_leaks("xyzzyfoo of the wing", "*xyzzyfoo Of the wing", "spa", True) == []
    assert pivot_leaks(q, "which is the analytical solution of the problem", "spa", True) == []


def test_backtrans_output_clean_case_and_spacing():
    from perturb.generators.backtrans.generator import BackTranslate

    gen = generator("BACKTRANS")
    if not isinstance(gen.translator, type(BackTranslate(backend="apertium").translator)):
        pytest.skip("apertium backend not the active one")
    items = [("1", "WHAT TYPE OF COMPUTER"), ("2", "You make no sense"), ("3", "what is the analytical solution of the problem ."),
             ("4", "Have  any brothers"), ("5", "It can  I help you with anything?")]
    out = gen.perturb_batch(items, 0)
    assert out[0].applied and out[0].text == out[0].text.upper()
    assert not out[2].applied  # only the capital letter would change: not a variation
    for (_, text), p in zip(items, out):
        assert "  " not in p.text or not p.applied
        assert "cual" not in p.text.lower()


def test_backtrans_case_only_output_not_applied(monkeypatch):
    from perturb.generators.backtrans.generator import BackTranslate

    gen = BackTranslate(backend="apertium")
    monkeypatch.setattr(gen, "translate_round_trip", lambda texts: [("x", t.title()) for t in texts])
    assert not gen.perturb_batch([("1", "SOME QUERY TEXT")], 0)[0].applied


def test_backtrans_docstring_names_textflint_default():
    import perturb.generators.backtrans.generator as bt

    assert "facebook/wmt19-en-de" in bt.__doc__


# --------------------------------------------------------------------------- NOSTOPWORD
@pytest.mark.parametrize("text,expected", [
    ("flows (i.e., jets) of the wing", "flows (i.e., jets) wing"),
    ("drag and/or lift of the U.S. jets", "drag and/or lift U.S. jets"),
    ("Don't stop it!", "Don't stop!"),  # negations stay (perturb.generators.stopwords.KEPT)
    ("cats (the big ones)", "cats (big ones)"),
])
def test_nostopword_removes_whole_tokens_only(text, expected):
    p = generator("NOSTOPWORD").perturb(text, None)
    assert p.text == expected


def test_nostopword_never_cuts_inside_a_token(cranfield):
    gen = generator("NOSTOPWORD")
    for qid, text in cranfield:
        p = gen.perturb(text, None)
        kept = p.text.split()
        for tok in kept:
            assert tok in text.split() or tok.strip("(),.;:!?") in [t.strip("(),.;:!?") for t in text.split()]


# --------------------------------------------------------------------------- round 2 (from the blind sample)
@pytest.mark.parametrize("orig,back", [
    ("panels subjected to aerodynamic heating .", "the signpost subjected to aerodynamic heating ."),
    ("have you read plato", "you have you read dish"),
    ("how can one detect transition phenomena in boundary layers .", "how can one detects phenomena of transition in layers of border ."),
])
def test_backtrans_refuses_lost_or_mistranslated_content_words(orig, back):
    from perturb.generators.backtrans.generator import unmatched_content

    assert unmatched_content(orig, back)


def test_backtrans_content_words_kept_are_accepted():
    from perturb.generators.backtrans.generator import form_changes, unmatched_content

    orig, back = "what is your favorite number", "what is your favourite number"
    assert unmatched_content(orig, back) == [] and form_changes(orig, back) == []
    assert unmatched_content("materials of the wing", "material of the wing") == []


@pytest.mark.parametrize("orig,back", [
    ("Have you heard the news?", "Has heard the news?"),
    ("Are you ashamed", "You are ashamed"),
    ("How much money have you lost?", "How much money has lost?"),
])
def test_backtrans_refuses_lost_persons_and_question_form(orig, back):
    from perturb.generators.backtrans.generator import form_changes

    assert form_changes(orig, back)
    assert form_changes("can you write a parser?", "it can you write a parser?") == []


@pytest.mark.parametrize("text,word", [
    ("can the transverse potential flow about a body be calculated", "potential"),
    ("what theoretical guides do we have as to turbulent couette flow behaviour", "turbulent"),
    ("can you write a unit test for a function", "test"),
    ("can you write a context manager in Python?", "manager"),
])
def test_wnet_never_splits_terms(text, word):
    # SWAPSYN-WNET's "not in a term" veto (SWAPSYN-GLOVE has none: on SWORDS it lowered GLOVE's coverage)
    for name in ("SWAPSYN-WNET",):
        for p in generator(name).perturb_batch([(str(s), text) for s in range(15)], 0):
            assert word in p.text.split() or word + "?" in p.text.split(), (name, p)


def test_misspell_table_entry_of_another_word_is_refused():
    from perturb.generators.misspell import Misspell
    from perturb.generators.typos import edit_distance

    assert edit_distance("sharp", "shrply") == 3 and edit_distance("form", "from") == 1
    gen = Misspell(types=("spelling",))
    assert "shrply" not in gen._spelling_options("sharp")
    assert all(edit_distance(o, "sharp") <= 2 for o in gen._spelling_options("sharp"))
