"""Evidence that swapping two words of a query keeps its information need (SWAPWORDS, verified).

A *swappable* word is a content word (NOUN, PROPN, VERB, ADJ, ADV: letters only, not an NLTK stop
word, not a dotted abbreviation, not half of a hyphenated word); stop words and punctuation stay
in place. Every pair of swappable words is a candidate, scored on what the parse says about the
two words (spaCy, on the case-normalised copy):

====== ====================================================================================
score  evidence
====== ====================================================================================
1.0    conjuncts of one coordination, same word class, neither with its own modifiers
       ("heat and mass transfer" -> "mass and heat transfer")
0.8    co-modifiers: two adjectives of the same head, side by side or only "," / "and" between
       ("large cylindrical tanks" -> "cylindrical large tanks")
0.5    an adjective and the neighbouring noun it modifies, the noun heading its term
       ("round tubes" -> "tubes round"; not "low aspect ratio", "durable medical equipment")
0.4    a verb and its neighbouring subject/object noun without modifiers ("did bagels originate"
       -> "did originate bagels"): the roles cannot be read the other way round
0.2    conjuncts of one coordination, same class, at least one with its own modifiers
0.3    different classes, no preposition between, at most three tokens apart
0.2    different classes, no preposition between, further apart
0.1    different classes across a preposition
0.05   same class, not coordinated (subject and object), or a compound modifier and its head
       ("boundary layer" -> "layer boundary"): the swap can be read as another need
0.0    same class across a preposition ("X of Y" -> "Y of X", "A to B" -> "B to A")
====== ====================================================================================

The generator keeps candidates scoring at least its threshold (chosen on the labelled tuning half
of ``docs/validity/dev-SWAPWORDS.tsv``) and picks one, seeded.
"""
from __future__ import annotations

from typing import List, Tuple

from perturb._text import is_abbreviation, stopwords

CLASSES = {"NOUN": "N", "PROPN": "N", "VERB": "V", "ADJ": "A", "ADV": "R"}
LEFT_MODIFIERS = ("compound", "amod", "nmod", "poss", "nummod", "advmod", "npadvmod")
EVIDENCE = (
    (1.0, "coordinated"),
    (0.8, "co-modifiers"),
    (0.5, "adjective and its noun"),
    (0.4, "verb and its bare subject/object"),
    (0.2, "coordinated, with modifiers"),
    (0.3, "different classes, near"),
    (0.2, "different classes, far"),
    (0.1, "different classes across a preposition"),
    (0.05, "same class, not coordinated"),
    (0.05, "compound modifier and head"),
    (0.0, "same class across a preposition"),
)
SCORE_OF = {reason: score for score, reason in EVIDENCE}


def swappable(tok, text: str) -> bool:
    word = text[tok.idx: tok.idx + len(tok.text)]
    if not word.isalpha() or tok.pos_ not in CLASSES or word.lower() in stopwords() or is_abbreviation(word):
        return False
    before = text[tok.idx - 1] if tok.idx > 0 else " "
    after = text[tok.idx + len(word)] if tok.idx + len(word) < len(text) else " "
    return before not in "-/'" and after not in "-/'"  # not half of "high-speed", "and/or", "don't"


def _coordination_root(tok):
    while tok.dep_ == "conj" and tok.head is not tok:
        tok = tok.head
    return tok


def _coordinated(a, b) -> bool:
    return (a.dep_ == "conj" or b.dep_ == "conj") and _coordination_root(a) == _coordination_root(b)


def _bare(tok, until: int) -> bool:
    """No modifier of its own that stays behind when the word moves: left modifiers, and any
    dependent before position ``until`` (the other conjunct) on its right."""
    return not any((c.i < tok.i and c.dep_ in LEFT_MODIFIERS) or (tok.i < c.i < until and c.dep_ not in (
        "cc", "punct", "conj")) for c in tok.children)


def _adjective_after_noun(a, b) -> bool:
    """``a`` a true adjective (JJ, amod) of the neighbouring noun ``b``, which is the head of its
    term: not itself a compound modifier, and no other modifier on its left ("round tubes" ->
    "tubes round"; not "durable medical equipment", "low aspect ratio")."""
    if b.pos_ == "ADJ":
        a, b = b, a
    if not (a.tag_ == "JJ" and a.dep_ == "amod" and a.head == b and b.pos_ == "NOUN" and b.dep_ != "compound"):
        return False
    return not any(c.i < b.i and c != a and c.dep_ in ("amod", "compound", "nmod") for c in b.children)


def _verb_and_bare_argument(a, b) -> bool:
    """A verb and its neighbouring subject/object noun with no modifier of its own ("did bagels
    originate" -> "did originate bagels", "play cricket" -> "cricket play")."""
    verb, noun = (a, b) if a.pos_ == "VERB" else (b, a)
    return (verb.pos_ == "VERB" and verb.dep_ not in ("amod", "compound") and noun.pos_ in ("NOUN", "PROPN")
            and noun.head == verb and noun.dep_ in ("nsubj", "nsubjpass", "dobj")
            and not any(c.dep_ in LEFT_MODIFIERS for c in noun.children))


def evidence(doc, i: int, j: int) -> Tuple[float, str]:
    """(score, reason) for swapping tokens ``i < j`` of ``doc`` (see the module table)."""
    a, b = doc[i], doc[j]
    same = CLASSES[a.pos_] == CLASSES[b.pos_]
    between = [doc[k] for k in range(i + 1, j)]
    across_prep = any(t.pos_ == "ADP" or t.dep_ in ("prep", "agent") for t in between)
    if same and _coordinated(a, b):
        reason = "coordinated" if _bare(a, j) and _bare(b, j) else "coordinated, with modifiers"
    elif (same and CLASSES[a.pos_] == "A" and a.dep_ == b.dep_ == "amod" and a.head == b.head
          and all(t.is_punct or t.lower_ == "and" for t in between)):
        reason = "co-modifiers"
    elif a.head == b and a.dep_ == "compound" or b.head == a and b.dep_ == "compound":
        reason = "compound modifier and head"
    elif same:
        reason = "same class across a preposition" if across_prep else "same class, not coordinated"
    elif not between and _adjective_after_noun(a, b):
        reason = "adjective and its noun"
    elif not between and _verb_and_bare_argument(a, b):
        reason = "verb and its bare subject/object"
    elif across_prep:
        reason = "different classes across a preposition"
    else:
        reason = "different classes, near" if j - i <= 3 else "different classes, far"
    return SCORE_OF[reason], reason


def candidates(doc, text: str) -> List[Tuple[int, int, float, str]]:
    """Every pair of swappable tokens with differing words: (i, j, score, reason), i < j."""
    idx = [t.i for t in doc if swappable(t, text)]
    out = []
    for x, i in enumerate(idx):
        for j in idx[x + 1:]:
            wi = text[doc[i].idx: doc[i].idx + len(doc[i].text)]
            wj = text[doc[j].idx: doc[j].idx + len(doc[j].text)]
            if wi.lower() != wj.lower():
                out.append((i, j, *evidence(doc, i, j)))
    return out
