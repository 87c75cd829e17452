"""The synonym swaps' pick check (perturb.generators.swapsyn.check) and its fit
(benchmarks/lexsub/check_fit.py). docs/methods.md, SWAPSYN."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from perturb_helpers import generator

ROOT = Path(__file__).resolve().parents[2]
SETS = ("SWAPSYN-WNET", "SWAPSYN-GLOVE")
TEXTS = ["how do i install leds into my car", "what is the purpose of running a fever", "why do babies cry at night",
         "what causes feet swelling when riding in car", "how long does it take to start a business",
         "what is the yearly salary of a doctor", "how to buy a used phone", "when did the tv become popular"]


def _doc(words, pos, tags, deps, heads):
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

    return Doc(Vocab(), words=words, pos=pos, tags=tags, deps=deps, heads=heads)


def _flags(tok) -> set:
    from perturb.generators.swapsyn.check import FLAGS, flags

    return {name for name, on in zip(FLAGS, flags(tok)) if on}


def test_flags_read_the_dependency_labels():
    # "they show up late": a particle; "is said to win": passive and clausal
    doc = _doc(["they", "show", "up", "late"], ["PRON", "VERB", "ADP", "ADV"], ["PRP", "VBP", "RP", "RB"],
               ["nsubj", "ROOT", "prt", "advmod"], [1, 1, 1, 1])
    assert _flags(doc[1]) == {"particle", "verb_prep"}  # spaCy tags a particle ADP
    doc = _doc(["he", "is", "said", "to", "win"], ["PRON", "AUX", "VERB", "PART", "VERB"], ["PRP", "VBZ", "VBN", "TO", "VB"],
               ["nsubjpass", "auxpass", "ROOT", "aux", "xcomp"], [2, 2, 2, 4, 2])
    assert _flags(doc[2]) == {"passive", "clausal"}
    # "global warming": an adjective before a noun; "warming" a noun with an adjective
    doc = _doc(["global", "warming", "causes"], ["ADJ", "NOUN", "NOUN"], ["JJ", "NN", "NNS"],
               ["amod", "compound", "ROOT"], [1, 2, 2])
    assert _flags(doc[0]) == {"attr_adj"}
    assert _flags(doc[1]) == {"compound", "noun_amod"}
    # "rotating plate": a participle before and modifying a noun; "referred to": a verb before a preposition
    doc = _doc(["rotating", "plate", "referred", "to"], ["VERB", "NOUN", "VERB", "ADP"], ["VBG", "NN", "VBN", "IN"],
               ["amod", "ROOT", "acl", "prep"], [1, 1, 1, 2])
    assert _flags(doc[0]) == {"participle_noun", "attr_participle"}
    assert _flags(doc[2]) == {"verb_prep", "prep_child", "attr_participle"}


def test_score_logit_is_finite_at_the_ends():
    from perturb.generators.swapsyn.check import score_logit

    assert score_logit(0.5) == 0.0
    assert math.isfinite(score_logit(1.0)) and math.isfinite(score_logit(0.0))
    assert score_logit(1.0) == -score_logit(0.0) > score_logit(0.99)


def test_model_file_has_the_check_with_its_features_and_command():
    from perturb.generators.swapsyn import check, chooser

    part = chooser.load_model()["check"]
    assert part["features"] == list(check.NAMES) and len(part["trees"]) == part["settings"]["trees"]
    for tree in part["trees"]:
        splits = [node for node in tree if len(node) == 4]
        assert len(tree) == 2 * len(splits) + 1 and all(0 <= node[0] < len(check.NAMES) for node in splits)
        assert all(len(node) in (1, 4) for node in tree) and len(tree) < 2 ** (part["settings"]["depth"] + 1)
    assert set(part["thresholds"]) == {"glove", "wordnet"}
    for per in part["thresholds"].values():
        assert set(per) == set(check.CLASSES) and all(0.5 <= t < 1 or t == check.CLOSED for t in per.values())
        assert any(t < 1 for t in per.values())
    script = re.search(r"benchmarks/lexsub/\w+\.py", part["command"]).group(0)
    assert (ROOT / script).is_file()


def test_a_boosted_tree_sends_a_row_left_at_or_below_its_threshold():
    from perturb.generators.swapsyn.check import boosted, boosted_logit, leaf_value

    tree = [[1, 0.5, 1, 2], [0.25], [0, -1.0, 3, 4], [-0.5], [0.75]]
    assert leaf_value(tree, [0.0, 0.5]) == 0.25 and leaf_value(tree, [0.0, 0.51]) == 0.75
    assert leaf_value(tree, [-1.0, 0.9]) == -0.5 and leaf_value(tree, [-0.99, 0.9]) == 0.75
    part = {"base": 0.1, "trees": [tree, [[0.2]]]}
    assert boosted_logit(part, [0.0, 0.0]) == math.fsum([0.1, 0.25, 0.2])
    assert boosted(part, [0.0, 0.0]) == round(1 / (1 + math.exp(-0.55)), 4)
    assert boosted({"base": 80.0, "trees": []}, [0.0]) == 1.0 and boosted({"base": -80.0, "trees": []}, [0.0]) == 0.0


def _separable(n: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).round(4)
    y = ((X[:, 1] > 0.3) ^ (X[:, 2] > 0.0)).astype(float)  # an interaction no single feature carries
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y)


def test_the_boosted_fit_learns_an_interaction_a_logistic_model_cannot_and_is_deterministic():
    import json
    from collections import Counter

    from benchmarks.lexsub import boost
    from benchmarks.lexsub.check_fit import auc
    from benchmarks.lexsub.fit import apply, fit_logistic
    from perturb.generators.swapsyn.check import boosted, leaf_index

    X, y = _separable(600, 1)
    Xt, yt = _separable(600, 2)
    model = boost.fit(X, y, trees=60)
    assert model == boost.fit(X, y, trees=60)
    again = json.loads(json.dumps(model))
    p = [boosted(again, row) for row in Xt.tolist()]
    assert p == [boosted(model, row) for row in Xt.tolist()]
    flat = apply(fit_logistic(X, y), Xt)
    assert auc(p, yt.tolist()) > 0.85 > 0.65 > auc(flat.tolist(), yt.tolist())
    # every leaf holds at least min_leaf training rows; a depth-0 model is the base rate
    for tree in model["trees"][:5]:
        reached = Counter(leaf_index(tree, row) for row in X.tolist())
        assert min(reached.values()) >= boost.MIN_LEAF
    flat_model = boost.fit(X, y, trees=3, depth=0)
    assert all(len(t) == 1 for t in flat_model["trees"]) and abs(boosted(flat_model, [0.0] * 4) - y.mean()) < 1e-3


def _rises(prob, rows, j: int, grid) -> bool:
    """Whether ``prob`` never falls along ``grid`` in column ``j`` of each row, the other columns fixed."""
    for row in rows:
        ps = [prob(row[:j] + [v] + row[j + 1:]) for v in grid]
        if any(b < a for a, b in zip(ps, ps[1:])):
            return False
    return True


def test_a_monotone_feature_never_lowers_the_boosted_probability():
    import numpy as np
    from benchmarks.lexsub import boost
    from perturb.generators.swapsyn.check import boosted

    rng = np.random.default_rng(3)
    X = rng.uniform(size=(800, 3)).round(4)
    y = (((X[:, 0] > 0.2) & (X[:, 0] < 0.6)) | (X[:, 1] > 0.8)).astype(float)  # a bump in column 0
    rows, grid = X[:25].tolist(), [round(0.05 * i, 2) for i in range(21)]
    free = boost.fit(X, y, trees=40)
    assert not _rises(lambda r: boosted(free, r), rows, 0, grid)  # the data fall in column 0: unconstrained trees follow
    up = boost.fit(X, y, trees=40, monotone={0: 1})
    assert _rises(lambda r: boosted(up, r), rows, 0, grid) and up["settings"]["monotone"] == {"0": 1}
    down = boost.fit(X, y, trees=40, monotone={0: -1})
    assert _rises(lambda r: -boosted(down, r), rows, 0, grid)


def test_the_shipped_check_never_falls_as_the_score_or_a_cosine_rises():
    from benchmarks.lexsub.check_fit import MONOTONE
    from perturb.generators.swapsyn import check, chooser

    part = chooser.load_model()["check"]
    assert part["settings"]["monotone"] == {str(check.NAMES.index(n)): 1 for n in MONOTONE}
    used = {node[0] for tree in part["trees"] for node in tree if len(node) == 4}
    rows = [[0.0] * len(check.NAMES) for _ in range(3)]
    for k, row in enumerate(rows):  # three plausible picks: a noun, a verb, an adjective in a 7-word text
        row[check.NAMES.index("log_words")] = round(math.log(7), 6)
        row[check.NAMES.index(("pos_n", "pos_v", "pos_a")[k])] = 1.0
        for name, value in (("zipf_target", 4.5), ("zipf_cand", 4.5), ("sense_share", 0.5), ("sources", 2.0),
                            ("glove_cos", 0.7), ("score_logit", 2.0), ("cos_layer4", 0.85), ("cos_layer6", 0.85),
                            ("cos_sentence", 0.97)):
            row[check.NAMES.index(name)] = value
    for name, grid in (("score_logit", [round(-2 + 0.25 * i, 2) for i in range(33)]),
                       ("cos_layer4", [round(0.5 + 0.02 * i, 2) for i in range(26)]),
                       ("cos_layer6", [round(0.5 + 0.02 * i, 2) for i in range(26)]),
                       ("cos_sentence", [round(0.8 + 0.01 * i, 2) for i in range(21)])):
        j = check.NAMES.index(name)
        assert j in used and _rises(lambda r: check.boosted(part, r), rows, j, grid), name


def _check_of(detail: str) -> float:
    return float(re.search(r"; check (\d\.\d{4})\)$", detail).group(1))


@pytest.mark.parametrize("name", SETS)
def test_every_applied_swap_passed_the_check_and_the_check_only_moves_or_removes(name):
    from perturb import make

    items = [(str(i), t) for i, t in enumerate(TEXTS)]
    gen = generator(name)
    checked = gen.perturb_batch(items, 0)
    unchecked = make(name, check_threshold=0.0, verb_check_threshold=0.0, long_check_threshold=0.0).perturb_batch(items, 0)
    for (_, text), p in zip(items, checked):
        if p.applied:
            assert _check_of(p.detail) >= gen.checker_of(p.detail.split(":", 1)[0], text).threshold
    for (_, text), a, b in zip(items, checked, unchecked):
        assert b.applied or not a.applied  # the check never changes a query the chooser alone leaves
        if a.applied and a.text != b.text:  # a later candidate only where the check refuses the first
            assert _check_of(b.detail) < gen.checker_of(b.detail.split(":", 1)[0], text).threshold
    assert sum(p.applied for p in unchecked) >= sum(p.applied for p in checked) and any(p.applied for p in unchecked)
    closed = make(name, check_threshold=1.0, verb_check_threshold=1.0, long_check_threshold=1.0)
    assert not any(p.applied for p in closed.perturb_batch(items, 0))


@pytest.mark.parametrize("name", SETS)
def test_the_pick_is_the_first_ranked_candidate_that_passes_the_check(name):
    """The chooser's bounded search with the check gives what scoring every candidate and taking the first
    in rank order that passes its class's check threshold gives, including where it passes over the first."""
    from perturb import make
    from perturb.generators.swapsyn import check, chooser
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    texts = TEXTS + ["can eating cabbage help you lose weight", "where heat pumps are commonly used",
                     "what would happen if you start car without maf sensor plug connected",
                     "how long does nicotine stay in your blood stream"]
    passed_over = 0
    for verb, other in ((0.0, None), (0.9, None), (0.99, None), (0.5, 0.8), (0.5, 0.95), (check.CLOSED, 0.5)):
        gen = make(name, verb_check_threshold=verb, check_threshold=other)
        model = chooser.load_model()
        docs = parsing.parse([tagging_copy(t) for t in texts])
        picks = gen.choose(texts, docs)
        for text, doc, pick, cands in zip(texts, docs, picks, chooser.full_scores(texts, gen.allowed(texts, docs), model)):
            tokens = {t.idx: t for t in doc}
            ranks = [(c, check.probability(model, c, tokens[c.start], text, gen.source)) for c in chooser.ranked(cands, gen.threshold)]
            first = next(((c, p) for c, p in ranks if gen.check_passes(c.pos, text, p)), None)
            assert (pick is None) == (first is None), text
            if pick is not None:
                assert (pick.start, pick.new, pick.check) == (first[0].start, first[0].new, first[1]), text
                passed_over += ranks[0][0] != first[0]
    assert passed_over  # the case the search adds over the first pick is exercised


@pytest.mark.parametrize("name", SETS)
def test_verb_targets_answer_to_their_own_check_threshold(name):
    from perturb import make

    items = [(str(i), t) for i, t in enumerate(TEXTS)]
    pos = {}
    for other, verb in ((0.0, 1.0), (1.0, 0.0)):
        done = make(name, check_threshold=other, verb_check_threshold=verb).perturb_batch(items, 0)
        pos[(other, verb)] = [p.detail.split(":", 1)[0] for p in done if p.applied]
    assert pos[(0.0, 1.0)] and "v" not in pos[(0.0, 1.0)]
    assert pos[(1.0, 0.0)] and set(pos[(1.0, 0.0)]) == {"v"}


LONG_TEXTS = ["what are the most common causes of swelling in the feet and ankles of older people",
              "how long does it usually take for a broken bone in the wrist to heal completely",
              "the results indicate a strong dependence of the stability on the thickness of the shell",
              "a simple method is described for computing the pressure distribution on a thin wing"]


def test_a_pick_in_a_long_text_answers_to_the_long_threshold_whatever_its_pos():
    from perturb.generators.swapsyn import check

    assert check.target_class("v", "how to buy a used phone") == "verb"
    assert check.target_class("n", "how to buy a used phone") == "other"
    assert check.target_class("v", " ".join(["word"] * check.LONG_WORDS)) == "long"
    assert check.target_class("n", " ".join(["word"] * (check.LONG_WORDS - 1))) == "other"
    assert all(check.words_of(t) >= check.LONG_WORDS for t in LONG_TEXTS)


@pytest.mark.parametrize("name", SETS)
def test_long_texts_answer_to_their_own_check_threshold(name):
    from perturb import make

    items = [(str(i), t) for i, t in enumerate(LONG_TEXTS + TEXTS)]
    long_only = make(name, check_threshold=1.0, verb_check_threshold=1.0, long_check_threshold=0.0).perturb_batch(items, 0)
    short_only = make(name, check_threshold=0.0, verb_check_threshold=0.0, long_check_threshold=1.0).perturb_batch(items, 0)
    n = len(LONG_TEXTS)
    assert any(p.applied for p in long_only[:n]) and not any(p.applied for p in long_only[n:])
    assert any(p.applied for p in short_only[n:]) and not any(p.applied for p in short_only[:n])


@pytest.mark.parametrize("name", SETS)
def test_a_closed_class_makes_no_pick_of_its_class_and_none_of_its_candidates_is_scored(name, monkeypatch):
    from perturb import make
    from perturb.generators.swapsyn import check, chooser

    scored = []  # (class, text) of every candidate that goes through MiniLM
    full_scores = chooser.full_scores

    def recording(texts, per_text, model):
        scored.extend((check.target_class(c.pos, t), t) for t, row in zip(texts, per_text) for c in row)
        return full_scores(texts, per_text, model)

    monkeypatch.setattr(chooser, "full_scores", recording)
    items = [(str(i), t) for i, t in enumerate(LONG_TEXTS + TEXTS)]
    done = make(name, verb_check_threshold=check.CLOSED, check_threshold=0.0, long_check_threshold=0.0).perturb_batch(items, 0)
    assert not any(p.applied and p.detail.startswith("v:") for (_, t), p in zip(items, done) if check.words_of(t) < check.LONG_WORDS)
    assert any(p.applied for p in done)
    assert scored and {"other", "long"} <= {c for c, _ in scored} and "verb" not in {c for c, _ in scored}
    scored.clear()  # with the class open, its candidates are scored: the check above can fail
    make(name, verb_check_threshold=0.0, check_threshold=0.0, long_check_threshold=0.0).perturb_batch(items, 0)
    assert "verb" in {c for c, _ in scored}


def test_the_word_count_is_a_feature_of_the_check_clipped_to_the_longest_fitted_text():
    from perturb.generators.swapsyn import check, chooser

    i = check.NAMES.index("log_words")
    assert i == len(check.FLAGS) + 3
    assert check.words_of("a b  c\td") == 4
    pick = chooser.Scored(0, 4, "word", "n", "term", "term", 0.5, 0.9, tuple(0.0 for _ in chooser.FEATURES))
    doc = _doc(["word"] + ["x"] * 59, ["NOUN"] * 60, ["NN"] * 60, ["ROOT"] + ["dep"] * 59, [0] * 60)
    longest = chooser.load_model()["check"]["max_words"]
    assert 20 <= longest < 60
    text = " ".join(t.text for t in doc)
    full = check.features(pick, doc[0], text, "glove")
    assert full[i] == round(math.log(60), 6)
    clipped = check.features(pick, doc[0], text, "glove", longest)
    assert clipped[i] == round(math.log(longest), 6) and clipped[:i] + clipped[i + 1:] == full[:i] + full[i + 1:]
    at_longest = " ".join(text.split()[:longest])
    assert check.features(pick, doc[0], at_longest, "glove", longest)[i] == clipped[i]


def test_check_threshold_is_recorded_in_the_config():
    from perturb import make

    cfg = generator("SWAPSYN-WNET").config()
    assert all(k in str(cfg) for k in ("check_threshold", "verb_check_threshold", "long_check_threshold"))
    assert make("SWAPSYN-WNET", check_threshold=0.97).config() != cfg
    assert make("SWAPSYN-WNET", verb_check_threshold=0.97).config() != cfg
    assert make("SWAPSYN-WNET", long_check_threshold=0.97).config() != cfg


def test_swap_offsets_are_recovered_from_a_pair():
    import sys

    sys.path.insert(0, str(ROOT))
    from benchmarks.lexsub.check_fit import swap_of

    assert swap_of("how to buy a car", "how to purchase a car") == (7, "purchase")
    assert swap_of("CAR CRASH", "AUTOMOBILE CRASH") == (0, "AUTOMOBILE")
    assert swap_of("the cars", "the carts") == (4, "carts")
