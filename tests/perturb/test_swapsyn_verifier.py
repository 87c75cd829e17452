"""The verified synonym swap (perturb.generators.swapsyn.verifier; SWAPSYN-WNET's
default, and the GloVe-neighbour version measured for SWAPSYN-GLOVE). docs/methods.md, SWAPSYN."""
from __future__ import annotations

import random

import pytest

from benchmarks.tuning.rules import labelled_path
from perturb_helpers import generator

MARK = "round 6 pick sample"
TEXTS = ["you are disgusting", "What country has the most vending machines per capita?",
         "how do i install leds into my car", "I like seeing movies.", "why does it seem that no matter how hard you try",
         "what is the purpose of running a fever", "do viscous effects seriously modify pressure distributions .",
         "how can i get rid off my pimples white black heads and oiliness of my face", "12 34 the of"]


def _glove(threshold=0.0):
    from perturb.generators.swapsyn.glove import VerifiedSwapSynGlove

    gen = VerifiedSwapSynGlove(threshold)
    gen.check()
    return gen


def test_default_wnet_is_the_verified_swap():
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet
    from perturb.generators.swapsyn.weights import VERSION

    gen = generator("SWAPSYN-WNET")
    assert isinstance(gen, VerifiedSwapSynWordNet) and gen.source == "wordnet"
    cfg = gen.config()
    assert cfg["threshold"] == VerifiedSwapSynWordNet().threshold and VERSION in cfg["verifier"]
    # the config is part of the cache key: another threshold or model is another fingerprint
    assert VerifiedSwapSynWordNet(0.3).config() != cfg


def test_same_seed_same_text_whatever_the_batch():
    gen = generator("SWAPSYN-WNET")
    items = [(f"q{i}", t) for i, t in enumerate(TEXTS)]
    whole = gen.perturb_batch(items, 3)
    shuffled = items[:]
    random.Random(1).shuffle(shuffled)
    again = dict(zip([q for q, _ in shuffled], gen.perturb_batch(shuffled, 3)))
    alone = [gen.perturb_batch([it], 3)[0] for it in items]
    for (q, _), a, c in zip(items, whole, alone):
        assert (a.text, a.detail) == (again[q].text, again[q].detail) == (c.text, c.detail)
    assert sum(p.applied for p in whole) >= 4
    for p in whole:
        if p.applied:
            assert "score " in p.detail and "wordnet" in p.detail and ">= 0.7202" in p.detail


def test_neighbour_search_does_not_depend_on_the_batch():
    from perturb.generators.swapsyn import verifier as sv

    words = ["car", "effect", "disgusting", "purpose", "house", "flow", "pressure"]
    together = {w: sv.neighbours_many(words)[w] for w in words}
    sv._NB.clear()
    for w in reversed(words):
        sv._NB.pop(w, None)
        assert sv.neighbours_many([w])[w] == together[w], w
    assert len(together["car"]) == sv.K and "car" not in together["car"]


def test_glove_candidates_are_glove_neighbours():
    """SWAPSYN-GLOVE's verified candidates are GloVe neighbours, including ones WordNet does not
    list as synonyms of any sense (truck for car), unlike the WordNet source."""
    from perturb.generators.swapsyn import verifier as sv
    from perturb.resources.lexicon import base_forms

    nb = sv.neighbours_many(["car"])["car"]
    glove = [c for c, _, _ in sv.candidates("car", "n", "NN", "glove")]
    wnet = [c for c, _, _ in sv.candidates("car", "n", "NN", "wordnet")]
    assert glove and set(glove) <= {base_forms(n, "n")[-1] for n in nb}
    assert "truck" in glove and "truck" not in sv.wordnet_lemmas("car", "n") and "truck" not in wnet
    assert "automobile" in wnet and "automobile" not in glove
    out = {_glove(0.0).perturb_batch([("q", "how do i install leds into my car")], s)[0].text for s in range(30)}
    assert any(t.split()[-1] not in sv.wordnet_lemmas("car", "n") + ("car",) for t in out)


@pytest.mark.parametrize("text,target,pos,refused", [
    ("is the temperature high", "high", "a", "low"),  # a WordNet antonym, GloVe's nearest neighbour
    ("what problems of heat conduction in composite slabs have been solved", "conduction", "n", "conductivity"),  # a derivation
    ("will the pressure increase", "increase", "v", "decrease"),  # an antonym
])
@pytest.mark.parametrize("source", ["glove", "wordnet"])
def test_refused_classes_stay_refused_at_any_threshold(text, target, pos, refused, source):
    """The candidate is proposed by the source and passes the cheap filter, but an excluded class
    never comes out, even at threshold 0."""
    from perturb.generators.swapsyn import verifier as sv
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet
    from perturb.resources.lexicon import base_forms

    tag = {"a": "JJ", "n": "NN", "v": "VB"}[pos]
    if source == "glove" or refused in [c for c, _, _ in sv.candidates(target, pos, tag, "wordnet")]:
        assert refused in [c for c, _, _ in sv.candidates(target, pos, tag, source)]
    assert sv.excluded(target, base_forms(target, pos)[-1], pos, refused)
    gen = _glove(0.0) if source == "glove" else VerifiedSwapSynWordNet(0.0)
    cands = gen.scored([text], 0.0)[0]
    assert cands or source == "wordnet", text  # other candidates pass at threshold 0
    assert not any(refused in new.lower() for _, _, new, _, _ in cands)


def test_light_verb_and_score_floor():
    from perturb.generators.swapsyn import verifier as sv

    assert sv.free_features("allow", "allow", "v", "let", 5) is None  # light verb candidate
    gen = _glove(0.0)
    high = _glove(0.99)
    assert len(gen.scored(["you are disgusting"], 0.0)[0]) > len(high.scored(["you are disgusting"], 0.99)[0])


def _pick_rows(name):
    from perturb.checks import devset

    rows = devset.read_devset(labelled_path(name), "dev-pick-sample")
    assert all(MARK in c.detail for c in rows)
    return rows


def test_held_back_figures_recomputed_from_the_tsv():
    """The numbers docs/methods.md gives for round 6 (threshold on the tuning half, held-back
    validity with Wilson, held queries applied), recomputed from benchmarks/data/validity/SWAPSYN-*.tsv."""
    from perturb.checks import devset

    rows = _pick_rows("SWAPSYN-WNET")
    assert len(rows) == 164 and sum(c.valid for c in rows) == 76
    best = devset.choose([c for c in rows if c.split == "tune"], 0.9)
    assert best.threshold == pytest.approx(0.5929)  # the first default; now VerifiedSwapSynWordNet().threshold is pooled's
    k, n, (lo, hi) = devset.held_validity(rows, best.threshold)
    assert (k, n) == (12, 13) and round(100 * lo, 1) == 66.7 and round(100 * hi, 1) == 98.6
    held = devset.point([c for c in rows if c.split == "held"], best.threshold)
    assert held.n_applied == 11

    g = _pick_rows("SWAPSYN-GLOVE")
    assert len(g) == 178 and sum(c.valid for c in g) == 61
    gb = devset.choose([c for c in g if c.split == "tune"], 0.9)
    assert devset.held_validity(g, gb.threshold)[:2] == (3, 4)  # 75%: not adopted


def test_pick_rows_carry_the_generator_scores():
    """Each labelled pick row's score is what the shipped model gives it today."""
    gen = generator("SWAPSYN-WNET")
    rows = _pick_rows("SWAPSYN-WNET")
    by_text = {}
    for c in rows:
        by_text.setdefault(c.original, {})[c.variation] = c.score
    sample = sorted(by_text)[:12]
    for text, cands in zip(sample, gen.scored(sample, 0.2)):
        got = {text[:s] + new + text[e:]: score for s, e, new, score, _ in cands}
        assert got == by_text[text], text


def test_features_do_not_depend_on_the_hash_seed():
    """NLTK lists a synset's hyponyms in a set's order: the candidate's share of a linked sense
    (info -> news, linked through two hyponyms) must not change with PYTHONHASHSEED."""
    import os
    import subprocess
    import sys

    code = ("from perturb.generators.swapsyn import verifier as sv; "
            "print(sv.free_features('info', 'info', 'n', 'news', 5), sv.links('info', 'n')['news'])")
    outs = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1, outs
    assert "news.n.01" in outs.pop()


def test_pooled_threshold_recomputed_from_the_tsv():
    """The default threshold is the lowest labelled score whose passing round-6 rows (pick sample
    >= 0.5929, both halves, and the confirmation sample) are >= 95% valid: 20/21."""
    from perturb.checks import devset
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet
    from benchmarks.tuning import rules

    labelled = devset.read_devset(labelled_path("SWAPSYN-WNET"))
    rows = rules.pooled_rows(labelled)
    assert len(rows) == 47 and sum(c.valid for c in rows) == 42
    assert min(c.score for c in rows if c.provenance == "dev-pick-sample") >= 0.5929
    th = rules.pooled_validity(labelled, 0.95)
    assert th == pytest.approx(VerifiedSwapSynWordNet().threshold, abs=5e-5)
    passing = [c for c in rows if c.score >= th]
    assert (sum(c.valid for c in passing), len(passing)) == (20, 21)
    # the rule is >= 95%: 90% would have given a lower point, the first default 42/47 = 89.4%
    assert rules.pooled_validity(labelled, 0.9) < th
    assert sum(c.valid for c in rows if c.score < th) == 22


def test_third_sample_figures_recomputed_from_the_tsv():
    """The third fresh sample (seed 2614), every applied output of the default labelled: 25/26."""
    from bench.evaluation.intervals import wilson_ci
    from perturb.checks import devset

    def frozen(sample):
        return [(c.style, c.qid, c.original) for c in devset.read_devset(queries, sample)]

    queries = labelled_path("SWAPSYN-WNET", "queries")
    qs = frozen("confirmation-2")  # the third sample
    assert len(qs) == 506 and len({(s, q) for s, q, _ in qs}) == 506
    earlier = {("keyword-title" if "title" in s else s, q) for s, q, _ in frozen("dev-pick-sample") + frozen("confirmation-1")}
    assert not earlier & {("keyword-title" if "title" in s else s, q) for s, q, _ in qs}
    rows = devset.read_devset(labelled_path("SWAPSYN-WNET"), "confirmation-2")
    assert all("round 6 third sample" in c.detail for c in rows)
    k = sum(c.valid for c in rows)
    lo, hi = wilson_ci(k, len(rows), 0.95)
    assert (k, len(rows)) == (25, 26) and round(100 * lo, 1) == 81.1 and round(100 * hi, 1) == 99.3
    assert all(c.score >= 0.7202 for c in rows)


@pytest.mark.parametrize("word,article", [("undertaking", "an"), ("apple", "an"), ("idea", "an"), ("house", "a"),
                                          ("unit", "a"), ("university", "a"), ("useful", "a"), ("europe", "a"),
                                          ("one", "a"), ("hour", "an"), ("honest", "an"), ("Honour", "an"),
                                          ("car", "a"), ("UMBRELLA", "an")])
def test_indefinite_article(word, article):
    from perturb.resources.words import indefinite_article

    assert indefinite_article(word) == article


@pytest.mark.parametrize("text,old,new,want", [
    ("a project plan", "project", "undertaking", "an undertaking plan"),
    ("A project", "project", "undertaking", "An undertaking"),
    ("THE A PROJECT", "PROJECT", "UNDERTAKING", "THE AN UNDERTAKING"),
    ("An apple", "apple", "pear", "A pear"),
    ("an old car", "old", "new", "a new car"),
    ("an hour", "hour", "time", "a time"),
    ("a car", "car", "auto", "an auto"),
    ("a car", "car", "unit", "a unit"),
    ("data car", "car", "auto", "data auto"),  # "a" inside a word is no article
    ("a-b car", "car", "auto", "a-b auto"),
])
def test_article_follows_the_new_word(text, old, new, want):
    from perturb.resources.words import with_article

    start = text.rindex(old)
    assert with_article(text, start, start + len(old), new) == want


def test_swap_output_fixes_the_article():
    """The generators' output goes through with_article: "a project" -> "an undertaking"."""
    from perturb.base import query_rng

    gen = generator("SWAPSYN-WNET")
    text = "how to plan a project"
    start = text.index("project")
    gen.proposals = lambda doc, t, rng: [(start, start + 7, "undertaking", "test")]
    gen._keeps_pos = lambda d1, d2, prop: True
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    docs = parsing.parse([tagging_copy(text)])
    out = gen._resolve([text], docs, [query_rng(0, gen.name, text)])[0]
    assert out.applied and out.text == "how to plan an undertaking"
