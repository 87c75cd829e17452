"""--protocol rodr: the paper's unconstrained operations (perturb/rodr/paper.py, perturb/rodr/paper_swap.py).

Each operation is checked on real queries for what the paper's tools do (and the validated
generators refuse): stop words and numbers misspelt, a rare WordNet sense, a GloVe antonym, a verb
changed alone, stop words cut out of compounds, an unchecked round trip. Plus determinism, and
fingerprints that differ from the validated sets of the same name."""
from __future__ import annotations

import pytest

from bench.core.seeding import rng_for
from perturb import GENERATORS, PAPER_GENERATORS, PAPER_ORDER, PROTOCOLS, describe_protocol, make
from perturb.resources.words import stopwords, word_spans
from perturb.base import ResourceMissing
from perturb.io.sets import format_tsv, protocol_of
from perturb.io.generation import generate
from perturb_helpers import SECURITY

QUERIES = [SECURITY, "how do the romans build aqueducts ?", "WHAT SIMILARITY LAWS MUST BE OBEYED",
           "papers on shock-sound wave interaction .", "is there a 1994 report on high speed flow and/or heat",
           "Have you heard the news?"]
ITEMS = [(str(i), q) for i, q in enumerate(QUERIES)]


def rodr(name: str, **kwargs):
    gen = make(name, protocol="rodr", **kwargs)
    try:
        gen.check()
    except ResourceMissing as exc:  # the same strict policy as the validated generators' tests
        pytest.fail(f"{name} (rodr) cannot run here: {exc}")
    return gen


def words(text):
    return [text[s:e] for s, e in word_spans(text)]


def test_registry_has_the_eight_sets_under_the_same_names():
    assert PAPER_GENERATORS.names() == list(PAPER_ORDER)
    assert set(PROTOCOLS) == {"validated", "rodr"} and PROTOCOLS["validated"] is GENERATORS
    for name in PAPER_ORDER:
        gen = make(name, protocol="rodr")
        assert gen.name == name
        assert type(gen).__module__ in ("perturb.rodr.paper", "perturb.rodr.paper_swap", "perturb.rodr.edits")
        assert gen.config()["protocol"] == "rodr" and "protocol" not in make(name).config()
    assert make("BACKTRANS", protocol="rodr").label.startswith("BACKTRANS[")
    with pytest.raises(ValueError, match="unknown protocol"):
        make("MISSPELL", protocol="textflint")
    assert describe_protocol("rodr") == "protocol: rodr (the paper's unconstrained operations)"


@pytest.mark.parametrize("name", PAPER_ORDER)
def test_deterministic_and_independent_of_batch_order(name):
    gen = rodr(name)
    a = gen.perturb_batch(ITEMS, 3)
    b = gen.perturb_batch(ITEMS[::-1], 3)[::-1]
    assert a == b
    for (_, q), p in zip(ITEMS, a):
        assert p.applied == (p.text != q) and (bool(p.detail) == p.applied)
        if p.applied:
            assert ": " in p.detail  # "<type>: <edit>"
    one = generate(name, ITEMS, 3, cache=False, protocol="rodr")
    two = generate(name, ITEMS, 3, cache=False, protocol="rodr")
    assert format_tsv(one) == format_tsv(two)


@pytest.mark.parametrize("name", ["EXTRAPUNC", "SWAPWORDS", "NOSTOPWORD"])
def test_fingerprints_differ_from_the_validated_set_of_the_same_name(name):
    paper = generate(name, ITEMS, 0, cache=False, protocol="rodr")
    valid = generate(name, ITEMS, 0, cache=False)
    assert paper.name == valid.name == name and paper.status == valid.status == "ok"
    assert paper.fingerprint() != valid.fingerprint()
    assert protocol_of(paper) == "rodr" and protocol_of(valid) == "validated"


def test_misspell_skips_stop_words_as_written_and_targets_numbers():
    """TextFlint's WordSubstitute skips its own 55 stop words as written and punctuation: ``is``,
    ``Is``, ``a`` are never misspelt; ``there`` (an NLTK stop word, not TextFlint's) and ``IS``
    may be; numbers are targets (the validated MISSPELL refuses them)."""
    from perturb.rodr.protocol import TEXTFLINT_STOP_WORDS

    gen = rodr("MISSPELL")
    hit_number = hit_there = hit_upper = 0
    for s in range(300):
        for q in ("is there a 1994 report", "Is there a 1994 report", "IS THERE A 1994 REPORT"):
            p = gen.perturb(q, rng_for(s, "MISSPELL", q))
            assert p.applied
            changed = [a for a, b in zip(q.split(), p.text.split()) if a != b]  # a misspelling adds no space
            assert len(changed) == 1 and changed[0] not in TEXTFLINT_STOP_WORDS
            hit_number += "1994" not in p.text
            hit_there += "there" in changed
            hit_upper += "IS" in changed
    assert hit_number > 0 and hit_there > 0 and hit_upper > 0


# NPL / CISI-style keyword titles (upper case) and sentence-case titles
TITLES = ["MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES",
          "THE EFFECT OF IONOSPHERIC CONDITIONS ON RADIO WAVES THAT ARE REFLECTED",
          "Is information retrieval from large collections of documents possible",
          "How are the users of a library served and what has been done",
          "Have computers been used in the indexing of documents",
          "what is the theory that has been applied to the data which are collected",
          "The cataloguing rules which the libraries have adopted and are using"]


def test_misspell_never_edits_textflints_stop_words_in_titles():
    from perturb.rodr.protocol import TEXTFLINT_STOP_WORDS

    gen = rodr("MISSPELL")
    items = [(str(i), t) for i, t in enumerate(TITLES)]
    edited = 0
    for seed in range(40):
        for (_, q), p in zip(items, gen.perturb_batch(items, seed)):
            changed = [x for x, y in zip(q.split(), p.text.split()) if x != y]
            assert not any(w in TEXTFLINT_STOP_WORDS for w in changed), (q, p.text)
            edited += bool(changed)
    assert edited > 100


def test_tense_never_edits_is_are_am_has_have_in_titles():
    gen = rodr("TRANSTENSE")
    items = [(str(i), t) for i, t in enumerate(TITLES)]
    edited = set()
    for seed in range(40):
        for (_, q), p in zip(items, gen.perturb_batch(items, seed)):
            for x, y in zip(words(q), words(p.text)):
                if x != y:
                    assert x.lower() not in {"is", "are", "am", "has", "have"}, (q, p.text)
                    edited.add(x)
    assert {"been", "applied", "collected"} & edited  # other verbs are edited


def test_misspell_draws_one_error_type_per_set():
    """The authors' script draws the type once per set; a query that type cannot change tries
    ocr, keyboard, spelling, typos in that order."""
    gen = rodr("MISSPELL")
    kinds = {}
    for seed in range(12):
        done = gen.perturb_batch(ITEMS, seed)
        first = gen.set_type(seed)
        assert gen.order_for(seed) == [first] + [t for t in ("ocr", "keyboard", "spelling", "typos") if t != first]
        kinds[seed] = {p.detail.split(":")[0] for p in done if p.applied}
        assert first in kinds[seed]
    assert len({gen.set_type(s) for s in range(12)}) > 1  # the type depends on the seed


def test_misspell_keyboard_offers_digits_specials_and_the_other_case():
    gen = rodr("MISSPELL", types=("keyboard",))
    new_chars = set()
    for s in range(300):
        p = gen.perturb("clearance", rng_for(s, "MISSPELL", "k"))
        assert p.applied and len(p.text) == len("clearance")
        new_chars |= {b for a, b in zip("clearance", p.text) if a != b}
    assert any(c.isdigit() for c in new_chars) and any(c.isupper() for c in new_chars)
    assert any(not c.isalnum() for c in new_chars)


def test_misspell_typos_keep_first_and_last_character():
    gen = rodr("MISSPELL", types=("typos",))
    for s in range(200):
        p = gen.perturb("aqueducts", rng_for(s, "MISSPELL", "t"))
        assert p.applied and p.text[0] == "a" and p.text[-1] == "s"
        assert p.detail.split(":")[0] == "typos"


def test_misspell_keyboard_edits_short_words():
    """TextFlint's Keyboard has no minimum word length: 2- and 3-letter words are misspelt."""
    gen = rodr("MISSPELL", types=("keyboard",))
    for q in ("sc", "tv ads", "car"):
        outs = [gen.perturb(q, rng_for(s, "MISSPELL", q)) for s in range(30)]
        assert all(p.applied and len(p.text) == len(q) for p in outs)


def test_wordnet_swap_draws_any_sense_of_the_words_part_of_speech():
    gen = rodr("SWAPSYN-WNET")
    assert {"commission", "steering"} <= set(gen.candidates("direction", "NN"))  # rare senses: the protocol
    assert "king" in gen.candidates("power", "NN") and "gamey" in gen.candidates("high")
    assert "gamey" not in gen.candidates("high", "JJ")  # a satellite sense, not an adjective synset
    assert not gen.candidates("direction", "VB") and gen.candidates("direction", "IN")  # other tags: every synset
    assert "Daniel" in gen.candidates("daniel", "NN")  # as WordNet writes it: drawn, it changes nothing
    seen = set()
    q = "the direction of power"
    for s in range(200):
        p = gen.perturb(q, rng_for(s, "SWAPSYN-WNET", q))
        diff = [(a, b) for a, b in zip(words(q), words(p.text)) if a != b]
        assert len(diff) == 1 and diff[0][0] in ("direction", "power")  # never a stop word
        assert diff[0][1] in gen.candidates(diff[0][0], "NN")
        seen.add(diff[0][1])
    assert len(seen) > 10


def test_swap_draws_the_word_then_a_candidate():
    """TextFlint's WordSubstitute draws the word uniformly among the words with a candidate, then
    a candidate: a polysemous word (many lemmas) is swapped as often as a monosemous one."""
    gen = rodr("SWAPSYN-WNET")
    many, one = "direction", "lawyer"
    assert len(gen.candidates(many, "NN")) >= 10 and len(gen.candidates(one, "NN")) == 1
    q = f"{one} {many}"
    n = 2000
    hits = sum(gen.perturb(q, rng_for(s, "SWAPSYN-WNET", q)).text.startswith(one + " ") for s in range(n))
    assert abs(hits / n - 0.5) < 0.05  # by (word, candidate) pairs it would be 1 in 15


def test_glove_swap_takes_a_near_neighbour_antonyms_included():
    from perturb.engine import judge
    from perturb.resources.parsing import parse

    gen = rodr("SWAPSYN-GLOVE")
    nbrs = dict(gen._neighbours("high"))  # the 50 nearest, judged by the embedding distance in the engine
    assert "low" in gen.candidates("high")  # the nearest neighbour is the antonym: the validated set refuses it
    assert len(nbrs) <= 50 and any(c < 0.8 for c in nbrs.values())
    assert gen.candidates("high") == [w for w, c in nbrs.items() if c >= 0.8]
    q = "the high speed flow"
    judged = judge(gen.constraints, gen.proposals(q, {t.idx: t.tag_ for t in parse([q])[0]}))
    assert judged.passed and set(judged.why()) == {"embedding distance", "same part of speech"}
    assert all(c.context["candidate pos"] == c.context["pos"] for c in judged.passed)
    p = gen.perturb(q, rng_for(0, "SWAPSYN-GLOVE", "x"))
    assert p.applied and "cos" in p.detail
    # TextFlint looks the exact token up in a lower-case table: capitalised words are no targets
    assert not any(gen.perturb("HIGH SPEED FLOW", rng_for(s, "SWAPSYN-GLOVE", "x")).applied for s in range(5))


def test_glove_neighbours_do_not_depend_on_the_batch():
    from perturb.generators import substitute

    gen = rodr("SWAPSYN-GLOVE")
    substitute._NEIGHBOURS.clear()
    gen.prepare(["flow"])
    alone = gen._neighbours("flow")
    substitute._NEIGHBOURS.clear()
    gen.prepare(["speed", "heat", "wave", "flow", "report", "security", "people"])
    assert gen._neighbours("flow") == alone


def test_tense_changes_a_verb_alone_never_a_stop_word():
    gen = rodr("TRANSTENSE")
    q = "how do the romans build aqueducts ?"
    outs = {gen.perturb(q, rng_for(s, "TRANSTENSE", q)).text for s in range(40)}
    # VB changed without its auxiliary; "do" is not on TextFlint's stop list, so it is a target too
    assert outs == {"how do the romans built aqueducts ?", "how did the romans build aqueducts ?"}
    assert not any(gen.perturb("what is it", rng_for(s, "TRANSTENSE", "x")).applied for s in range(10))
    assert not any(gen.perturb("Does it Build", rng_for(s, "TRANSTENSE", "x")).applied for s in range(10))


def test_nostopword_removes_words_inside_compounds_too():
    gen = rodr("NOSTOPWORD")
    p = gen.perturb("heat and/or (it) flow", rng_for(0, "NOSTOPWORD", "x"))
    assert p.text == "heat / () flow"
    assert not gen.perturb("what is it", rng_for(0, "NOSTOPWORD", "y")).applied  # nothing would remain
    # case-sensitive, as the authors' `w not in stop_words`: a capitalised stop word stays
    assert gen.perturb("What is the speed of sound", rng_for(0, "NOSTOPWORD", "z")).text == "What speed sound"


def test_swapwords_exchanges_two_words():
    gen = rodr("SWAPWORDS")
    for s in range(50):
        p = gen.perturb(SECURITY, rng_for(s, "SWAPWORDS", "x"))
        a, b = words(SECURITY), words(p.text)
        assert sorted(a) == sorted(b) and sum(x != y for x, y in zip(a, b)) == 2


def test_backtranslation_is_the_unchecked_round_trip():
    gen = rodr("BACKTRANS")
    q = "Have you heard the news?"
    mid, back = gen.round_trip([q])[0]
    p = gen.perturb_batch([("1", q)], 0)[0]
    assert back is not None and p.text == back and p.applied
    valid = make("BACKTRANS")
    if valid.translator.backend == gen.translator.backend:
        assert not valid.perturb_batch([("1", q)], 0)[0].applied  # the validated set refuses this round trip


# --------------------------------------------------------------------------- one transformation, two constraint sets
@pytest.mark.parametrize("name", PAPER_ORDER)
def test_each_paper_generator_has_a_rodr_spec_its_config_is_built_from(name):
    from perturb.spec import Spec

    gen = make(name, protocol="rodr")
    spec = type(gen).spec
    assert isinstance(spec, Spec) and gen.spec is spec
    assert spec.name == name and spec.protocol == "rodr" and spec.version >= 1
    assert spec.transformation and spec.picker
    assert spec.facts["protocol"] == "rodr" and spec.facts["operation"]
    cfg = gen.config()
    assert {k: cfg[k] for k in spec.facts} == dict(spec.facts)  # every fact recorded as declared
    for c in spec.constraints:  # and every constraint's values (the instance's, same keys)
        assert set(c.config()) <= set(cfg)
    assert spec.identity() != make(name).spec.identity()  # never the validated set's cache key


def test_the_paper_constraints_are_textflints():
    from perturb.rodr import paper_swap, protocol

    assert [c.name for c in paper_swap.PaperSwapSynWordNet.spec.constraints] == ["stop word skip"]
    assert [c.name for c in paper_swap.PaperSwapSynGlove.spec.constraints] == ["stop word skip", "embedding distance",
                                                                             "same part of speech"]
    for name in ("MISSPELL", "TRANSTENSE"):
        assert [c.name for c in PAPER_GENERATORS.get(name).spec.constraints][0] == "stop word skip"
    for name in ("EXTRAPUNC", "BACKTRANS", "SWAPWORDS"):
        assert PAPER_GENERATORS.get(name).spec.constraints == ()  # the validated constraints left out
    # the protocol's one rule of its own: a query is never emptied (nothing could be searched)
    assert [c.name for c in PAPER_GENERATORS.get("NOSTOPWORD").spec.constraints] == ["a word left"]
    assert protocol.STOPWORD_SKIP.skips("The") and protocol.STOPWORD_SKIP.skips("?")
    assert not protocol.STOPWORD_SKIP.skips("aqueducts") and not protocol.STOPWORD_SKIP.skips("THE")
    glove = rodr("SWAPSYN-GLOVE")
    assert glove.min_cos == 0.8 and glove.config()["min_cos"] == 0.8
    assert make("SWAPSYN-GLOVE", protocol="rodr", min_cos=0.7).config()["min_cos"] == 0.7


def test_shared_operations_are_the_validated_generators_functions():
    """One implementation per operation: the paper's MISSPELL, EXTRAPUNC, NOSTOPWORD and SWAPWORDS
    are the validated generators with the paper's specs (no transformation, draw or constraint
    call of their own); BACKTRANS calls the validated round trip. A parallel copy in perturb/rodr
    fails here."""
    import inspect

    from perturb.generators import misspell, punctuation, stopwords as nostop, typos
    from perturb.generators.backtrans import generator as backtrans
    from perturb.generators.swapwords import generator as swapwords
    from perturb.resources import words as wordlib
    from perturb.rodr import edits, paper, paper_swap, protocol

    declared = {edits.PaperMisspell: misspell.Misspell, edits.PaperExtraPunc: punctuation.ExtraPunc,
                edits.PaperNoStopword: nostop.NoStopword, edits.PaperSwapWords: swapwords.RandomSwapWords}
    for cls, validated in declared.items():
        assert issubclass(cls, validated) and cls.spec.protocol == "rodr" and validated.spec.protocol == "validated"
        own = set(vars(cls)) & {"propose", "realise", "whole", "_perturb", "perturb_batch", "_draw", "_reach",
                                "_spelling_options", "_char_options", "engine"}
        assert not own, (cls.__name__, own)  # the transformation, the picker and the loop are the validated ones
        src = inspect.getsource(cls)
        assert "rng." not in src and ".check(" not in src and "judge(" not in src, cls.__name__
    # the validated generators call the shared operations
    assert misspell.Misspell._typos is typos.typo
    assert punctuation.draw_marks is wordlib.draw_marks and swapwords.draw_word_pair is wordlib.draw_word_pair
    assert typos.random_like.__module__ == typos.__name__
    src = inspect.getsource(paper.PaperBackTranslate)
    assert "rng.integers" not in src and "rng.permutation" not in src
    for module in (paper, edits):
        for fname in ("_random_char", "_MARKED", "draw_marks", "draw_word_pair", "NLPAUG_FILES", "typo", "char_edit"):
            assert not hasattr(module, fname), fname  # the parallel copies this protocol once had
    assert paper_swap.rodr_spec is paper.rodr_spec is edits.rodr_spec is protocol.rodr_spec
    assert paper_swap.STOPWORD_SKIP is edits.STOPWORD_SKIP is protocol.STOPWORD_SKIP


def test_paper_generators_are_declarations_on_the_generators_transformations():
    """TRANSTENSE, BACKTRANS and the two synonym swaps of the paper protocol are a spec and a name on
    a transformation of perturb.generators: no method of their own in perturb/rodr."""
    from perturb.generators import substitute, tense
    from perturb.generators.backtrans import generator as backtrans
    from perturb.rodr import paper, paper_swap

    for cls, base in ((paper.PaperTransTense, tense.WordTenseSwap), (paper.PaperBackTranslate, backtrans.RoundTrip),
                      (paper_swap.PaperSwapSynWordNet, substitute.WordNetLemmaSwap),
                      (paper_swap.PaperSwapSynGlove, substitute.GloveNeighbourSwap)):
        assert cls.__bases__ == (base,) and {k for k in vars(cls) if not k.startswith("__")} == {"name", "spec"}
        assert base.__module__.startswith("perturb.generators.")


def test_shared_misspell_operations_are_the_paper_ones_on_any_word():
    """The shared draws give the paper's edits: a typo keeps the word's ends, the unfiltered
    keyboard table offers another case, the validated narrowing does not."""
    from perturb.generators import misspell, typos

    table = typos.tables()["keyboard"]
    every = dict(typos.char_positions("clearance", table))
    narrowed = dict(misspell.Misspell()._char_options("keyboard", "clearance"))
    assert set(every) >= set(narrowed) and any(o.isupper() for opts in every.values() for o in opts)
    assert not any(o.isupper() or not o.isalpha() for opts in narrowed.values() for o in opts)
    for s in range(50):
        done = typos.typo("aqueducts", rng_for(s, "typo", "x"))
        assert done is None or (done[0][0] == "a" and done[0][-1] == "s" and done[1] in misspell.EDIT_TYPES)
