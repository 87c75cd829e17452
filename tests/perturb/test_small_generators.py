"""SWAPWORDS, TRANSTENSE, MISSPELL, NOSTOPWORD and EXTRAPUNC: the audit's real examples, the
verifiers' thresholds against the labelled development sets, determinism and applicability."""
import pytest

from perturb import make
from perturb.base import edit_type, query_rng

pytest.importorskip("spacy")


def _outs(gen, text, seeds=range(30)):
    return [gen.perturb(text, query_rng(s, gen.name, text)) for s in seeds]


# ------------------------------------------------------------------ SWAPWORDS
def test_random_swap_keeps_abbreviations_whole():
    gen = make("SWAPWORDS", mode="random")
    text = "the weight (i.e. the mass of its mother) in the U.S. etc."
    for p in _outs(gen, text, range(200)):
        for abbrev in ("i.e.", "U.S.", "etc."):
            assert abbrev in p.text  # never "(its.e. ... i mother"
        assert "its.e" not in p.text and "(i " not in p.text


def test_verified_swap_never_crosses_a_preposition():
    gen = make("SWAPWORDS")
    text = "EFFECTS OF HEAT AND PRESSURE ON BOUNDARY LAYERS"
    outs = {p.text for p in _outs(gen, text) if p.applied}
    assert "HEAT OF EFFECTS AND PRESSURE ON BOUNDARY LAYERS" not in outs
    outs = {p.text for p in _outs(make("SWAPWORDS"), "what is the effect of heat on cracks") if p.applied}
    assert outs == {"what the effect of heat on cracks is"}  # a phrase reordering, never "heat of effect"
    outs = {p.text for p in _outs(make("SWAPWORDS"), "how are dna and rna similar") if p.applied}
    # conjuncts score 0.80 (3/3 labelled), under the round-7 threshold 0.83 (docs/methods.md)
    assert outs == {"how dna and rna are similar"}


def test_swapwords_config_records_mode():
    assert make("SWAPWORDS").config()["mode"] == "verified"
    assert make("SWAPWORDS", mode="random").config()["mode"] == "random"
    with pytest.raises(ValueError):
        make("SWAPWORDS", mode="other")


# ------------------------------------------------------------------ TRANSTENSE
@pytest.mark.parametrize("text", ["Government supported agencies", "COSMIC RAY RESULTS", "parasites found in primates",
                                  ])
def test_transtense_leaves_participles_and_nouns(text):
    for p in _outs(make("TRANSTENSE"), text, range(5)):
        assert not p.applied, p


def test_transtense_changes_finite_verbs_and_restores_case():
    gen = make("TRANSTENSE")
    p = gen.perturb("WHAT IS THE EFFECT OF HEAT ON CRACKS", query_rng(0, "TRANSTENSE", "x"))
    assert p.text == "WHAT WAS THE EFFECT OF HEAT ON CRACKS"
    assert gen.perturb("So what's your favorite color?", query_rng(0, "TRANSTENSE", "x")).text == \
        "So what was your favorite color?"
    assert gen.perturb("why would a child cry", query_rng(0, "TRANSTENSE", "x")).text == "why will a child cry"


# ------------------------------------------------------------------ MISSPELL
def test_misspell_detail_names_its_type():
    from perturb.generators.misspell import EDIT_TYPES, describe

    assert describe("ocr", "s->8", "systems", "sy8tems") == "ocr: 'systems'->'sy8tems' (s->8)"
    assert edit_type(describe("typos", "swap", "world", "wrold")) == "swap"
    gen = make("MISSPELL")
    seen = set()
    for s in range(200):
        p = gen.perturb("aircraft systems design", query_rng(s, "MISSPELL", "q"))
        assert p.applied and edit_type(p.detail) in EDIT_TYPES and p.detail.split(": ", 1)[1]
        seen.add(edit_type(p.detail))
    assert {"ocr", "keyboard"} <= seen and seen & {"insert", "delete", "substitute", "swap"}


# ------------------------------------------------------------------ determinism, config, applicability
NAMES = ("SWAPWORDS", "TRANSTENSE", "MISSPELL", "NOSTOPWORD", "EXTRAPUNC")
STYLES = {
    "keyword-title": ["EXPERIMENTAL STUDY OF THE RANDOM VIBRATIONS OF AN AIRCRAFT STRUCTURE EXCITED BY JET NOISE .",
                      "A RAPID APPROXIMATE METHOD FOR THE DESIGN OF HUB SHROUD PROFILES OF CENTRIFUGAL IMPELLERS ."],
    "long-question": ["what is the best theoretical method for calculating pressure on the surface of a wing alone .",
                      "does transition in the hypersonic wake depend on body geometry and size"],
    "web-query": ["who is robert gray", "how are dna and rna similar", "what is wifi vs bluetooth"],
    "chat-question": ["Do you ever get mad", "Which country is known as the Land of White Elephant?"],
}


@pytest.mark.parametrize("name", NAMES)
def test_batches_deterministic_and_order_free(name):
    items = [(f"q{k}", t) for k, texts in enumerate(STYLES.values()) for t in texts]
    a = make(name).perturb_batch(items, 11)
    b = make(name).perturb_batch(list(reversed(items)), 11)
    assert a == list(reversed(b))
    assert make(name).config() == make(name).config()


@pytest.mark.parametrize("name", ("TRANSTENSE", "MISSPELL", "NOSTOPWORD", "EXTRAPUNC"))
def test_applicability_on_small_real_lists(name):
    texts = [t for ts in STYLES.values() for t in ts]
    if name == "TRANSTENSE":
        texts = [t for t in texts if t.split()[0].lower() in ("what", "does", "who", "how", "do", "which")]
    applied = sum(p.applied for p in make(name).perturb_batch([(t, t) for t in texts], 11))
    assert applied >= 0.8 * len(texts)


@pytest.mark.parametrize("name,attr", [("SWAPWORDS", "min_score"), ("TRANSTENSE", "min_score")])
def test_default_threshold_is_the_devset_choice(name, attr):
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import DEVELOPMENT, choose, read_devset

    rows = read_devset(labelled_path(name), DEVELOPMENT)
    tune = [r for r in rows if r.split == "tune"]
    if name == "SWAPWORDS":  # kind by kind (perturb.checks.devset.choose_by_kind), pooled for TRANSTENSE
        from perturb.checks.devset import choose_by_kind

        threshold = choose_by_kind(tune, 0.9)
    else:
        chosen = choose(tune, 0.9)
        threshold = chosen.threshold if chosen else None
    assert threshold is not None and getattr(make(name), attr) == pytest.approx(threshold)
    assert len(rows) >= 140 and len({r.style for r in rows}) >= 3
