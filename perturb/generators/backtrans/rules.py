"""Structure rules for BACKTRANS (:mod:`perturb.generators.backtrans.generator`): a round trip must keep the query's
term structure, not only its content words.

The content-word rule of :func:`perturb.generators.backtrans.generator.unmatched_content` lets through round trips that
keep every content word but rebuild the terms around them: a compound turned into an "X of Y"
phrase ("boundary layer" -> "layer of boundary", "sandwich sphere" -> "sphere of available
sandwich"), the preposition inside a term changed ("angle of attack" -> "angle to attack"), a
superlative made a comparative ("the most coffee" -> "the more coffee"), a noun read as another
part of speech ("wakes" -> "awake"), an auxiliary dropped ("When will you walk" -> "When you
walk"). :func:`structure_changes` compares the two word sequences position by position after
removing what a round trip may change freely, and names every difference that is left.

Free changes (not compared): the articles ``a``/``an``/``the`` anywhere except between two words
that were adjacent in the query ("chemical kinetic the system" keeps no term); ``which`` for
``what``; a leading dummy ``it`` added before the query's first word (apertium's Spanish subject).
Every other word must stay in its place: function words (NLTK stop words: prepositions,
auxiliaries, pronouns, "more"/"most") exactly, content words exactly or as a synonym in the same
inflection - a different lemma sharing one of the two most frequent WordNet senses of one part
of speech in which both forms carry the same lemminflect tag ("large"/"big" JJ, "favorite"/
"favourite", "made"/"done" VBN). The same lemma in another form ("materials" -> "material",
"best" -> "better", "detect" -> "detects") is a change of number, degree or agreement, refused.
"""
from __future__ import annotations

import re
from typing import List, Tuple

from perturb.resources.words import ARTICLES, stopwords
from perturb.resources.senses import forms_of, synonymy

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
EQUIVALENT = {"which": "what"}  # interchangeable interrogatives


def same_lemma(a: str, b: str) -> bool:
    return bool({lem for _, lem, _ in forms_of(a)} & {lem for _, lem, _ in forms_of(b)})


def synonym_same_form(a: str, b: str) -> bool:
    """``a`` and ``b`` (lower-case, different lemmas) share a reading: a part of speech with the same
    inflection tag in which ``a``'s most frequent WordNet sense is one of ``b``'s two most frequent
    ("large"/"big", "start"/"begin"; not "respond"/"answer": react.v.01 first, nor "avoid"/"avert"):
    :func:`perturb.resources.senses.synonymy` with the cut-offs 1 / 2, reading by reading."""
    return bool(synonymy(a, b, top_a=1, top_b=2, same_form=True))


def _tokens(text: str) -> List[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _kept(words: List[str], drop_leading_it: bool) -> List[Tuple[str, int]]:
    """(normalised word, index in ``words``) of the words compared: articles out, "which" -> "what"."""
    start = 1 if drop_leading_it and words[:1] == ["it"] else 0
    return [(EQUIVALENT.get(w, w), i) for i, w in enumerate(words) if i >= start and w not in ARTICLES]


def structure_changes(original: str, back: str) -> List[str]:
    """What the round trip ``original`` -> ``back`` did to the query's structure beyond the free
    changes (module docstring); [] when it kept it."""
    sw = stopwords()
    a_words, b_words = _tokens(original), _tokens(back)
    a = _kept(a_words, False)
    b = _kept(b_words, a_words[:1] != ["it"])
    if len(a) != len(b):
        return [f"{len(a)} words compared, {len(b)} after the round trip"]
    in_term = {i for i in range(len(a_words) - 1) if a_words[i] not in sw and a_words[i + 1] not in sw}
    in_term |= {i + 1 for i in in_term}
    out = []
    for k, ((wa, ia), (wb, ib)) in enumerate(zip(a, b)):
        if wa == wb:
            pass
        elif ia in in_term and wa not in sw:
            out.append(f"term word {wa!r} -> {wb!r}")
        elif wa in sw or wb in sw:
            out.append(f"function word {wa!r} -> {wb!r}")
        elif same_lemma(wa, wb):
            out.append(f"form {wa!r} -> {wb!r}")
        elif not synonym_same_form(wa, wb):
            out.append(f"word {wa!r} -> {wb!r}")
        if k + 1 < len(a):
            ja, jb = a[k + 1][1], b[k + 1][1]
            if ja == ia + 1 and jb != ib + 1 and wa not in sw and a[k + 1][0] not in sw:
                out.append(f"term {a_words[ia]!r} {a_words[ja]!r} split")
    return out
