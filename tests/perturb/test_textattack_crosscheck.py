"""Cross-check SWAPWORDS and the typo edits against TextAttack's own transformations.

Runs only where textattack is installed (it is ~1.7 GiB, so it is not a test requirement)."""
from __future__ import annotations

import pytest

from perturb.resources.words import word_spans
from bench.core.seeding import rng_for
from perturb_helpers import generator

textattack = pytest.importorskip("textattack", reason="textattack not installed")

QUERIES = ["what is the percentage of people with security clearance",
           "how do the romans build aqueducts ?", "papers on shock-sound wave interaction .",
           "don't stop the e-mail, ok"]


def test_words_match_textattack():
    from textattack.shared.utils import words_from_text

    for q in QUERIES:
        assert [q[s:e] for s, e in word_spans(q)] == words_from_text(q)


def test_swapwords_output_is_a_textattack_candidate():
    from textattack.shared import AttackedText
    from textattack.transformations import WordInnerSwapRandom

    for q in QUERIES:
        text = AttackedText(q)
        n = len(text.words)
        candidates = set()
        for i in range(n):  # every pair WordInnerSwapRandom can draw
            for j in range(n):
                if i != j:
                    candidates.add(text.replace_word_at_index(i, text.words[j]).replace_word_at_index(j, text.words[i]).text)
        WordInnerSwapRandom()  # the transformation exists under that name
        for s in range(20):
            assert type(generator("SWAPWORDS"))(mode="random").perturb(q, rng_for(s, "SWAPWORDS", "q")).text in candidates


def test_typo_swap_is_a_textattack_neighbouring_swap():
    from textattack.transformations import WordSwapNeighboringCharacterSwap
    from perturb.generators.misspell import Misspell

    ta = WordSwapNeighboringCharacterSwap(random_one=False, skip_first_char=True, skip_last_char=True)
    gen = Misspell(types=("typos",))
    for s in range(200):
        p = gen.perturb("clearance", rng_for(s, "MISSPELL", "q"))
        if p.detail.startswith("swap: "):
            assert p.text in set(ta._get_replacement_words("clearance"))
