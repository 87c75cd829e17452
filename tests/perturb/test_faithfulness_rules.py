"""Issue 13: the rules that raise the faithfulness of BACKTRANS, SWAPSYN-WNET and SWAPSYN-GLOVE, and
apertium's neighbour-independent translation. Each rule: real pairs the previous code accepted
(Cranfield / chatterbot, seeds 11-12, or the issue's error list) that it must now refuse, and
valid ones that must still pass."""
from __future__ import annotations

import random

import pytest

from perturb_helpers import generator


# --------------------------------------------------------------------------- BACKTRANS structure
@pytest.mark.parametrize("original,back", [
    # term structure garbled (accepted before: every content word kept)
    ("are experimental pressure distributions on bodies of revolution at angle of attack available .",
     "are experimental pressure distributions on bodies of revolution at angle to attack available ."),
    ("is the information on the buckling of sandwich sphere available .",
     "it is the information in the buckling of sphere of available sandwich ."),
    ("What is a ratchet jaw", "What is a jaw of ratchet"),
    ("write unit test for a function", "it writes test of unit for a function"),
    ("what chemical kinetic system is applicable to hypersonic aerodynamic problems .",
     "what chemical kinetic the system is applicable to hypersonic aerodynamic problems ."),
    # degree, number, part of speech, agreement
    ("who drinks the most coffee", "who drinks the more coffee"),
    ("what are the best experimental data", "what are the better experimental data"),
    ("how can one detect transition phenomena in hypersonic wakes .",
     "how can one detect transition phenomena in hypersonic awake ."),
    ("material properties of photoelastic materials .", "material properties of photoelastic material ."),
    ("how can one detect transition phenomena", "how can one detects transition phenomena"),
    # function words: auxiliaries, prepositions, word order
    ("When will you walk", "When you walk"),
    ("What are your interests", "What is your interests"),
    ("Where are you from", "Where you are of"),
    ("experimental results on hypersonic viscous interaction .",
     "experimental results in hypersonic viscous interaction ."),
    # a synonym inside a term, or not in the word's usual sense
    ("can you write heap sort?", "it can you write heap class?"),
    ("who is the owner of a publicly owned company", "who is the owner of a publicly possessed company"),
    ("you are avoiding", "you are averting"),
    ("My mouse is not responding.", "My mouse is not answering."),
])
def test_backtrans_structure_refused(original, back):
    from perturb.generators.backtrans.rules import structure_changes

    assert structure_changes(original, back), (original, back)


@pytest.mark.parametrize("original,back", [
    ("What operating systems", "Which operating systems"),
    ("Robots are stupid", "The robots are stupid"),
    ("Can you walk", "It can you walk"),
    ("Which planet is the largest?", "Which planet is the biggest?"),
    ("the wing is large", "the wing is big"),
    ("who started the war", "who began the war"),
    ("what investigations have been made of the flow", "which investigations have been done of the flow"),
])
def test_backtrans_structure_kept(original, back):
    from perturb.generators.backtrans.rules import structure_changes

    assert structure_changes(original, back) == []


def test_backtrans_old_rules_accepted_what_the_structure_rule_refuses():
    """The pairs above that the content-word and form rules let through: the new rule is what refuses them."""
    from perturb.generators.backtrans.generator import form_changes, unmatched_content
    from perturb.generators.backtrans.rules import structure_changes

    for original, back in [("What is a ratchet jaw", "What is a jaw of ratchet"),
                           ("how can one detect transition phenomena in hypersonic wakes .",
                            "how can one detect transition phenomena in hypersonic awake ."),
                           ("When will you walk", "When you walk"),
                           ("material properties of photoelastic materials .", "material properties of photoelastic material .")]:
        assert not unmatched_content(original, back) and not form_changes(original, back)
        assert structure_changes(original, back)


def test_backtrans_spacing_only_output_not_applied(monkeypatch):
    from perturb.generators.backtrans.generator import BackTranslate

    # the verified (several-pivot) path: every pivot's round trip differs from the query in spacing only
    gen = BackTranslate(backend="apertium")
    monkeypatch.setattr(gen, "check", lambda: None)
    monkeypatch.setattr(gen, "_round_trips", lambda sent, warm=None: {p: [("x", t.replace(".", " .")) for t in sent]
                                                            for p in gen.pivots})
    assert not gen.perturb_batch([("1", "The cake is a lie.")], 0)[0].applied
    # the single-pivot path (Marian, or one unverified pivot)
    assert not gen._result("The cake is a lie.", "x", "The cake is a lie .").applied


# --------------------------------------------------------------------------- apertium independence
def _apertium(pivot="spa"):
    from perturb.resources.translators import ApertiumTranslator

    tr = ApertiumTranslator(pivot)
    if not tr.available():
        pytest.skip(f"apertium pair for {pivot} not installed")
    return tr


def test_apertium_new_ambiguity_class_is_cut_so_later_tagging_does_not_change():
    """apertium-tagger replaces its open class when it meets a word of an unknown ambiguity class
    ("drunk": adj/past participle); the unknown "i" of a later query is then tagged differently.
    Such a word keeps its first reading before the tagger, so the state never changes."""
    tr = _apertium()
    alone = tr._translate_ordered("eng-spa", ["how can i get water out of my ear"])["how can i get water out of my ear"]
    after = tr._translate_ordered("eng-spa", ["can a robot get drunk?", "how can i get water out of my ear"])
    assert after["how can i get water out of my ear"] != alone  # plain apertium: the batch changes it
    out = tr._run("eng-spa", ["can a robot get drunk?", "how can i get water out of my ear"])
    assert out[1] == alone  # translates as it would alone
    assert out[0] is not None and out[0] == tr._run("eng-spa", ["can a robot get drunk?"])[0]  # translated, not dropped
    assert "robot" in out[0]


def test_apertium_unknown_class_oracle_asks_one_reading_set_at_a_time():
    from perturb.resources.translators import filled, mode_steps, tagger_at

    tr = _apertium()
    steps = mode_steps("eng-spa")
    tagger = filled(steps[tagger_at(steps)])
    sets = ["drunk<adj>/drink<vblex><pp>", "robot<n><sg>", "I<num><mf><sg>/prpers<prn><subj><p1><mf><sg>"]
    unknown = tr._unknown_classes("eng-spa", sets, tagger)
    assert unknown == {sets[0], sets[2]}
    assert tr._unknown_classes("eng-spa", sets[::-1], tagger) == unknown  # not the order


@pytest.mark.slow
@pytest.mark.parametrize("pivot", ["cat-spa"])
def test_a_chained_pivot_does_not_depend_on_the_batch(cranfield, pivot):
    """The chain's middle hop (cat-spa: Catalan -> Spanish, an HMM tagger) keeps every text as it
    is alone: the whole chain, both directions, in a full batch, a half batch and alone."""
    from bench.data.collections import load_dataset

    tr = _apertium(pivot)
    ds = load_dataset("chatterbot")
    texts = sorted({t for _, t in cranfield} | {ds.queries[q].text for q in ds.judged_query_ids()})
    full = dict(zip(texts, tr.to_pivot(texts)))
    assert all(v is not None for v in full.values())
    rng = random.Random(13)
    half = rng.sample(texts, len(texts) // 2)
    assert {t: full[t] for t in half} == dict(zip(half, tr.to_pivot(half)))
    for t in rng.sample(texts, 20):
        assert tr.to_pivot([t]) == [full[t]], t
    mids = sorted(set(full.values()))
    back = dict(zip(mids, tr.from_pivot(mids)))
    part = rng.sample(mids, len(mids) // 3)
    assert {m: back[m] for m in part} == dict(zip(part, tr.from_pivot(part)))


@pytest.mark.slow
@pytest.mark.parametrize("pivot", ["spa", "glg", "epo", "cat"])
def test_apertium_translation_does_not_depend_on_the_batch(cranfield, pivot):
    """Every kept text translates as it does alone and in any other batch (both directions)."""
    from bench.data.collections import load_dataset
    from perturb.resources.translators import APERTIUM_PAIRS

    tr = _apertium(pivot)
    fwd, bwd = APERTIUM_PAIRS[pivot]
    ds = load_dataset("chatterbot")
    texts = sorted({t for _, t in cranfield} | {ds.queries[q].text for q in ds.judged_query_ids()})
    full = dict(zip(texts, tr._run(fwd, texts)))
    assert all(v is not None for v in full.values())  # nothing dropped: unknown classes are cut, not refused
    rng = random.Random(11)
    half = rng.sample(texts, len(texts) // 2)
    assert {t: full[t] for t in half} == dict(zip(half, tr._run(fwd, half)))
    for t in rng.sample([t for t in texts if full[t] is not None], 25):
        assert tr._run(fwd, [t]) == [full[t]], t
    pivots = sorted({v for v in full.values() if v})
    back = dict(zip(pivots, tr._run(bwd, pivots)))
    assert all(v is not None for v in back.values())
    part = rng.sample(pivots, len(pivots) // 3)
    assert {p: back[p] for p in part} == dict(zip(part, tr._run(bwd, part)))
    for p in rng.sample([p for p in pivots if back[p] is not None], 15):
        assert tr._run(bwd, [p]) == [back[p]], p


# --------------------------------------------------------------------------- SWAPSYN-* rules
SWAPS = ["SWAPSYN-WNET", "SWAPSYN-GLOVE"]


def _all_outputs(name, text, seeds=range(3)):
    gen = generator(name)
    return {gen.perturb_batch([("q", text)], s)[0].text for s in seeds} - {text}


@pytest.mark.parametrize("name", SWAPS)
@pytest.mark.parametrize("text,bad", [
    # usual sense: the target's and the synonym's (SemCor share), the synonym not much rarer
    ("what parameters can seriously influence natural transition from laminar to turbulent flow on a model in a wind tunnel .",
     "framework"),
    ("can the load deformation characteristics of a beam be obtained with the material being inelastic .", "stuff"),
    ("can you write a class with inheritance?", "category"),
    ("what is a government", "regime"),
    ("In which city is Jim Morrison buried?", "metropolis"),
    ("I am working on a project", "undertaking"),
    ("How can I use your product?", "apply"),
    # light verbs as synonyms
    ("is it possible to predict the shape of a shroud which will allow simulation of the flow .", "let"),
    ("Can you move", "go"),
    # collocations: verb + preposition, adverb + participle / light verb, X of Y, noun + participle
    ("What U.S. President coined the phrase, referring to coffee?", "mentioning"),
    ("The brain of a computer, to put it simply.", "merely"),
    ("has anyone investigated the effect of shock generated vorticity on heat transfer to a blunt body .", "result"),
    ("can methane-air combustion product predict, within experimental accuracies, the results obtained in air .", "effects"),
    ("will an analysis of panel flutter based on arbitrarily assumed modes of deformation prove satisfactory .", "randomly"),
])
def test_swap_refuses_unusual_senses_and_collocations(name, text, bad):
    for out in _all_outputs(name, text):
        assert bad not in out.lower().split() and bad not in out.lower(), out


SIMPLY = "what are the equations which define the stability of simply supported corrugated core sandwich cylinders ."


def test_glove_keeps_simply_supported():
    for out in _all_outputs("SWAPSYN-GLOVE", SIMPLY):
        assert "merely" not in out.lower().split(), out


def test_wnet_keeps_simply_supported():
    for out in _all_outputs("SWAPSYN-WNET", SIMPLY):
        assert "merely" not in out.lower().split(), out


_VALID = [("I like seeing movies.", "movies", "films"),
          ("Which author wrote the 'Winnie-the-Pooh' books?", "author", "writer")]
#: valid picks the pick check refuses (a statistical filter held to 0.90 precision refuses some valid swaps): the
#: check gives author -> writer here 0.72, under SWAPSYN-GLOVE's threshold for short-text targets other than verbs
#: (0.76); strict, so a check that accepts it again makes this xfail fail and the mark is removed
_CHECK_REFUSES = {("SWAPSYN-GLOVE", "author")}


def _answer(gen, text: str, word: str):
    from perturb.generators.swapsyn.generator import Target

    start = text.index(word)
    (pick,) = gen.lexsub([Target("t", text, start, start + len(word), "NOUN")])
    return pick


@pytest.mark.parametrize("name", SWAPS)
@pytest.mark.parametrize("text,word,good", _VALID)
def test_swap_valid_synonyms_pass_the_rules(name, text, word, good):
    """With the pick check open, the valid synonym is the set's answer for its word: no rule refuses it."""
    from perturb import make

    gen = make(name, check_threshold=0.0, verb_check_threshold=0.0, long_check_threshold=0.0)
    pick = _answer(gen, text, word)
    assert pick is not None and pick.substitute == good, (name, pick)


@pytest.mark.parametrize("name,text,word,good", [
    pytest.param(name, text, word, good, marks=pytest.mark.xfail(strict=True, reason="the pick check refuses it"))
    if (name, word) in _CHECK_REFUSES else (name, text, word, good) for name in SWAPS for text, word, good in _VALID])
def test_swap_valid_synonyms_still_pass(name, text, word, good):
    """The valid synonym is the set's answer for its word (the query's pick may be another word's)."""
    pick = _answer(generator(name), text, word)
    assert pick is not None and pick.substitute == good, (name, pick)


def test_sense_share_hand_computed():
    """sense_share = the sense's SemCor count / the word's counts over its senses (cntlist.rev)."""
    from perturb.resources.senses import ranked_synsets, sense_counts, sense_share

    counts = sense_counts()
    syns = ranked_synsets("material", "n")
    per = [max((counts.get(l.key(), 0) for l in s.lemmas() if l.name() == "material"), default=0) for s in syns]
    assert sum(per) > 0
    assert sense_share("material", "n", syns[0].name()) == pytest.approx(per[0] / sum(per))
    assert sense_share("materials", "n", syns[0].name()) == pytest.approx(per[0] / sum(per))  # inflected: its lemma
