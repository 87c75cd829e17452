"""SWAPWORDS: two randomly sampled words swap places (TextAttack's WordInnerSwapRandom)."""
from __future__ import annotations

import numpy as np

from perturb._text import word_spans
from perturb.base import Generator, Perturbation


class SwapWords(Generator):
    """Swap the words at two random positions.

    As in TextAttack's ``WordInnerSwapRandom``: words are the text's word tokens (punctuation
    and whitespace stay in place); a first position ``i`` is drawn uniformly, then a second
    ``j != i`` uniformly from the others, and the two words exchange places. When the two words
    are identical (nothing would change), the pair is redrawn uniformly among the pairs of
    differing words. Not applicable below two words or when all words are identical.
    """

    name = "SWAPWORDS"

    def config(self) -> dict:
        return {"words": "textattack-words", "pairs": "uniform i, uniform j != i"}

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        spans = word_spans(text)
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
        (sa, ea), (sb, eb) = spans[a], spans[b]
        out = text[:sa] + words[b] + text[ea:sb] + words[a] + text[eb:]
        return Perturbation(out, True, f"swapped #{a} {words[a]!r} <-> #{b} {words[b]!r}")
