"""NOSTOPWORD: every stop word (NLTK's 179-word English list) removed from the query."""
from __future__ import annotations

from typing import List

import numpy as np

from perturb._text import stopwords, stopwords_resource, word_spans
from perturb.base import Generator, Perturbation, Resource


class NoStopword(Generator):
    """Drop each word whose lower-cased form is an NLTK stop word.

    Words are TextAttack-style word spans ("don't" is one word, so NLTK's "don't" entry
    matches). Punctuation is kept. Not applicable when the query has no stop word, or when no
    word would remain (e.g. "what is it"). Each removed word takes the whitespace before it
    along (so "stop it!" becomes "stop!"); whitespace runs then collapse to one space.
    """

    name = "NOSTOPWORD"

    def config(self) -> dict:
        return {"stopwords": "nltk-english-179", "match": "lowercased word"}

    def resources(self) -> List[Resource]:
        return [stopwords_resource()]

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        stops = stopwords()
        spans = word_spans(text)
        removed = [(s, e) for s, e in spans if text[s:e].lower() in stops]
        if not removed or len(removed) == len(spans):
            return Perturbation(text, False, "")
        pieces, last = [], 0
        for s, e in removed:
            while s > last and text[s - 1].isspace():
                s -= 1
            pieces.append(text[last:s])
            last = e
        pieces.append(text[last:])
        out = " ".join("".join(pieces).split())
        words = [text[s:e] for s, e in removed]
        return Perturbation(out, True, f"removed {len(words)}: " + " ".join(words))
