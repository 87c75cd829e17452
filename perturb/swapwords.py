"""SWAPWORDS: two words of the query swap places.

Two modes (``config()["mode"]`` records which):

* ``verified`` (the default): every pair of swappable content words is a candidate, scored on
  parse evidence (:mod:`perturb.wordorder`: coordinated conjuncts and co-modifiers keep the need,
  "X of Y" -> "Y of X" and subject/object swaps do not); a candidate passes at ``min_score``
  (chosen on the tuning half of ``docs/validity/dev-SWAPWORDS.tsv``), one passing pair is picked
  uniformly with the query's rng. Stop words, abbreviations and punctuation stay in place. Not
  applicable when no pair passes.
* ``random``: the paper's operation (TextAttack's ``WordInnerSwapRandom``): a first position
  ``i`` uniform, then ``j != i`` uniform, the two words exchange places; identical words ->
  redrawn uniformly among the pairs of differing words. Dotted abbreviations ("i.e.", "U.S.",
  "etc.") are one word: never split at their dots.
"""
from __future__ import annotations

from typing import List

import numpy as np

from perturb import _spacy
from perturb._text import case_style, stopwords_resource, word_spans_keeping_abbreviations
from perturb.base import Generator, Perturbation, Resource
from perturb.wordorder import EVIDENCE, candidates

MODES = ("verified", "random")
DEFAULT_MIN_SCORE = 0.8  # chosen on the tuning half of docs/validity/dev-SWAPWORDS.tsv (perturb.devset.choose, validity >= 0.9)


def _swap(text: str, sa: int, ea: int, sb: int, eb: int) -> str:
    return text[:sa] + text[sb:eb] + text[ea:sb] + text[sa:ea] + text[eb:]


class SwapWords(_spacy.SpacyGenerator, Generator):
    name = "SWAPWORDS"

    def __init__(self, mode: str = "verified", min_score: float = DEFAULT_MIN_SCORE):
        if mode not in MODES:
            raise ValueError(f"SWAPWORDS mode {mode!r}: choose from {MODES}")
        self.mode = mode
        self.min_score = float(min_score)

    def config(self) -> dict:
        if self.mode == "random":
            return {"mode": "random", "words": "textattack-words, dotted abbreviations whole",
                    "pairs": "uniform i, uniform j != i"}
        return {"mode": "verified", "pos_model": _spacy.model_name() or "missing",
                "words": "content words (NOUN PROPN VERB ADJ ADV), no NLTK stop word, no abbreviation",
                "evidence": {reason: score for score, reason in EVIDENCE}, "min_score": self.min_score,
                "pick": "uniform among passing pairs", "case": "ALL-CAPS/Title Case tagged lower-cased"}

    def resources(self) -> List[Resource]:
        if self.mode == "random":
            return []
        return [*_spacy.resources(), stopwords_resource()]

    # ------------------------------------------------------------------ the paper's operation
    def _random(self, text: str, rng: np.random.Generator) -> Perturbation:
        spans = word_spans_keeping_abbreviations(text)
        n = len(spans)
        if n < 2:
            return Perturbation(text, False, "")
        words = [text[s:e] for s, e in spans]
        i = int(rng.integers(n))
        j = int(rng.integers(n - 1))
        j = j + 1 if j >= i else j
        if words[i] == words[j]:
            pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if words[a] != words[b]]
            if not pairs:
                return Perturbation(text, False, "")
            i, j = pairs[int(rng.integers(len(pairs)))]
        a, b = sorted((i, j))
        out = _swap(text, *spans[a], *spans[b])
        return Perturbation(out, True, f"swapped #{a} {words[a]!r} <-> #{b} {words[b]!r}")

    # ------------------------------------------------------------------ generate, then verify
    def scored(self, doc, text: str):
        """Every candidate pair: (i, j, score, reason) over ``doc``'s tokens."""
        return candidates(doc, text)

    def apply_pair(self, doc, text: str, i: int, j: int) -> str:
        a, b = doc[i], doc[j]
        out = _swap(text, a.idx, a.idx + len(a.text), b.idx, b.idx + len(b.text))
        wa, wb = text[a.idx: a.idx + len(a.text)], text[b.idx: b.idx + len(b.text)]
        if a.idx == 0 and case_style(text) in ("lower", "mixed") and wa[:1].isupper() and wa[1:].islower() \
                and wb.islower():  # a sentence-initial capital stays at the start
            out = wb[:1].upper() + wb[1:] + out[len(wb): b.idx + len(wb) - len(wa)] + wa.lower() + \
                out[b.idx + len(wb) - len(wa) + len(wa):]
        return out

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        passing = [c for c in self.scored(doc, text) if c[2] >= self.min_score]
        if not passing:
            return Perturbation(text, False, "")
        i, j, score, reason = passing[int(rng.integers(len(passing)))]
        wa, wb = _spacy.original(doc[i], text), _spacy.original(doc[j], text)
        return Perturbation(self.apply_pair(doc, text, i, j), True,
                            f"swapped {wa!r} <-> {wb!r} ({reason}, score {score:g})")

    def _perturb(self, text, rng):
        if self.mode == "random":
            return self._random(text, rng)
        return super()._perturb(text, rng)

    def perturb_batch(self, items, seed):
        if self.mode == "random":
            return Generator.perturb_batch(self, items, seed)
        return super().perturb_batch(items, seed)
