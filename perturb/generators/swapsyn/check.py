"""The pick check of the synonym swaps: a second model, gradient-boosted trees, that accepts or refuses the
pick the chooser (:mod:`perturb.generators.swapsyn.chooser`) made for a text. Its probability never falls
as the pick's score or one of its MiniLM cosines rises, the other features fixed (the fit's constraint).

The chooser's full model is fitted on labelled (query, swap) pairs that earlier generators proposed;
on fresh queries its own picks keep the information need less often than its cross-validated
precision says. The check is fitted on blind labels of such picks on fresh queries
(``benchmarks/lexsub/check_fit.py``; trees in ``chooser.json`` under ``check``: :func:`boosted` sums their
leaves exactly, so a probability is the same on any CPU). Its features
(:data:`NAMES`): the pick's full score as a log-odds, how the target sits in the parse
(:data:`FLAGS`, from spaCy's dependency labels), whether the text is written in capitals, whether
the candidates came from GloVe, the log of the text's word count (clipped to the longest text of the fit,
``max_words`` in ``chooser.json``), and the chooser's own features of the pick. Each set has three check
thresholds (:data:`CLASSES`, :func:`target_class`): one for any target of a long text (:data:`LONG_WORDS`
words or more: sentences and long questions, where picks keep the meaning less often), and in shorter texts
one for verb targets and one for the others (verb picks keep the meaning less often at the same
probability). A candidate whose check probability is below its threshold is passed over
(:meth:`perturb.generators.swapsyn.generator.ChosenSwap.choose` takes the next one in the chooser's order).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

from perturb.generators.swapsyn import chooser

#: how the target token sits in the parse, each 1.0 or 0.0 (:func:`flags`)
FLAGS = ("clausal", "passive", "compound", "attr_adj", "participle_noun", "verb_prep", "particle",
         "noun_amod", "attr_participle", "prep_child", "dobj")
NAMES = ("score_logit",) + FLAGS + ("upper", "glove", "log_words") + chooser.FEATURES
#: the classes of a pick with a threshold of their own (:func:`target_class`)
CLASSES = ("verb", "other", "long")
#: a text of at least this many words is long: its picks form the class ``long`` whatever their POS
LONG_WORDS = 10
#: the threshold of a closed class, above every probability: no threshold of the fit's grid reached the
#: cross-validated precision its rule asks for, so no pick of that class is made
CLOSED = 1.01
_CLAUSAL = ("xcomp", "ccomp", "oprd")
_NOMINAL = ("NOUN", "PROPN")


def flags(tok) -> Tuple[float, ...]:
    """:data:`FLAGS` of a spaCy token: a clausal or predicative complement; a passive auxiliary; in a
    compound; an adjective before a noun; a participle before a noun; a verb followed by a
    preposition; a verb particle ("show up"); a noun with an adjective; a participle modifying a
    noun; a prepositional dependent; a direct object."""
    deps = {c.dep_ for c in tok.children}
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    nxt_pos = nxt.pos_ if nxt is not None else ""
    verb, participle = tok.pos_ == "VERB", tok.pos_ == "VERB" and tok.tag_ in ("VBG", "VBN")
    attributive = tok.dep_ in ("amod", "compound", "acl") or (tok.head.pos_ in _NOMINAL and tok.head.i > tok.i)
    on = (bool(deps & set(_CLAUSAL)), "auxpass" in deps, tok.dep_ == "compound" or "compound" in deps,
          tok.pos_ == "ADJ" and (tok.dep_ == "amod" or nxt_pos in _NOMINAL), participle and nxt_pos in _NOMINAL,
          verb and nxt_pos == "ADP", "prt" in deps, tok.pos_ == "NOUN" and "amod" in deps,
          participle and attributive, "prep" in deps, "dobj" in deps)
    return tuple(float(b) for b in on)


def words_of(text: str) -> int:
    """The word count of a text (white-space separated)."""
    return len(text.split())


def target_class(pos: str, text: str) -> str:
    """The :data:`CLASSES` entry of a pick of POS ``pos`` (the chooser's one-letter tag) in ``text``: ``long``
    in a text of :data:`LONG_WORDS` words or more, else ``verb`` or ``other``."""
    if words_of(text) >= LONG_WORDS:
        return "long"
    return "verb" if pos == "v" else "other"


def thresholds_of(model: dict, source: str) -> dict:
    """``{class: threshold}`` of the check for ``source`` (``chooser.json`` under ``check``)."""
    got = model["check"]["thresholds"][source]
    return {c: float(got[c]) for c in CLASSES}


def score_logit(score: float) -> float:
    """The log-odds of a rounded score, kept finite (a score of 1.0 or 0.0 is one rounding step in)."""
    s = min(max(score, chooser.GRID), 1.0 - chooser.GRID)
    return round(math.log(s / (1.0 - s)), 6)


def features(pick: chooser.Scored, tok, text: str, source: str, max_words: Optional[int] = None) -> Tuple[float, ...]:
    """The check's features (:data:`NAMES`) of a fully scored pick whose target is ``tok``; the word count
    clipped to ``max_words`` (the longest text the check was fitted on: a longer one is read as that long,
    not extrapolated)."""
    words = max(1, words_of(text) if max_words is None else min(words_of(text), max_words))
    return ((score_logit(pick.score),) + flags(tok) + (float(text.isupper()), float(source == "glove"),
            round(math.log(words), 6)) + tuple(pick.x))


def leaf_index(tree: list, x: Sequence[float]) -> int:
    """The index of the leaf of one boosted tree (a list of nodes: ``[feature, threshold, left, right]``,
    ``x[feature] <= threshold`` going left, or a leaf ``[value]``; the root first) that ``x`` reaches."""
    k = 0
    while len(tree[k]) == 4:
        j, t, left, right = tree[k]
        k = left if x[j] <= t else right
    return k


def leaf_value(tree: list, x: Sequence[float]) -> float:
    """The value of the leaf of one boosted tree that ``x`` reaches (:func:`leaf_index`)."""
    return tree[leaf_index(tree, x)][0]


def boosted_logit(part: dict, x: Sequence[float]) -> float:
    """The log-odds of the boosted trees (``base`` plus every tree's leaf), an exactly rounded sum."""
    return math.fsum([part["base"]] + [leaf_value(tree, x) for tree in part["trees"]])


def boosted(part: dict, x: Sequence[float]) -> float:
    """The boosted trees' probability of ``x`` (rounded to 4 places, as the chooser's)."""
    return chooser.rounded_probability(boosted_logit(part, x))


def probability(model: dict, pick: chooser.Scored, tok, text: str, source: str) -> float:
    """The check's probability that the pick keeps the text's information need (rounded to 4 places)."""
    part = model["check"]
    return boosted(part, features(pick, tok, text, source, int(part["max_words"])))
