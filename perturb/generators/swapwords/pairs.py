"""Evidence that swapping two words of a query keeps its information need (SWAPWORDS, verified).

A *swappable* word is a content word (NOUN, PROPN, VERB, ADJ, ADV: letters only, not an NLTK stop
word, not a dotted abbreviation, not half of a hyphenated word); stop words and punctuation stay
in place. Every pair of swappable words is a candidate, classed on what the parse says about
the two words (spaCy, on the case-normalised copy): conjuncts of one coordination ("heat and mass
transfer" -> "mass and heat transfer"), co-modifier adjectives of one head, an adjective and the
noun it modifies ("round tubes" -> "tubes round"), a verb and its bare subject/object, a
compound modifier and its head ("boundary layer" -> "layer boundary"), same or different word
classes near, far or across a preposition ("X of Y" -> "Y of X"). The phrase reorderings of
:mod:`perturb.generators.swapwords.phrases` add their own kinds.

An adjective and its noun is split further by WordNet's term evidence
(:func:`perturb.resources.wordnet_index.term_evidence`: "natural frequencies", "leading edge",
"buckling load" get their own sub-kinds; "round tubes" does not) and by whether the noun is a verb's
object.

Each kind's score is its measured validity on the labelled tuning half of
``benchmarks/data/validity/SWAPWORDS.tsv``, Laplace-smoothed (:data:`EVIDENCE`), so the score of a
candidate is an estimate of the chance that it keeps the need.

The generator keeps candidates scoring at least its threshold (chosen on the labelled tuning half
of ``benchmarks/data/validity/SWAPWORDS.tsv``) and picks one, seeded.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from perturb.resources.words import is_abbreviation, stopwords
from perturb.engine import Candidate, judge
from perturb.spec import Constraint, Edit, Param, Veto
from perturb.resources.wordnet_index import TERM_EVIDENCE, term_evidence
from perturb.generators.swapwords.phrases import phrase_candidates, phrase_kinds, whole_tokens

CLASSES = {"NOUN": "N", "PROPN": "N", "VERB": "V", "ADJ": "A", "ADV": "R"}
QUANTITY = frozenset("many much several numerous little".split())
LEFT_MODIFIERS = ("compound", "amod", "nmod", "poss", "nummod", "advmod", "npadvmod")
# score = the kind's validity on the tuning half of benchmarks/data/validity/SWAPWORDS.tsv, Laplace-smoothed:
# (valid + 1) / (labelled + 2), so a kind with few labels stays near 0.5 (labelled counts in the
# comments; `python -m benchmarks.tuning kinds SWAPWORDS` recomputes them).
EVIDENCE = (
    # two words exchanged (the paper's operation, restricted by the parse)
    (0.91, "adjective and its noun"),  # 77/84
    (0.80, "coordinated"),  # 3/3
    (0.79, "adjective and its noun (term-forming adjective)"),  # 29/36
    (0.69, "adjective and its noun (verb object)"),  # 10/14
    (0.65, "co-modifiers"),  # 10/15
    (0.50, "adjective and its noun (not a noun)"),  # 2/4
    (0.44, "adjective and its noun (multi-word lemma)"),  # 3/7
    (0.44, "gerund and its bare object"),  # 3/7
    (0.30, "verb and its bare subject/object"),  # 2/8
    (0.27, "compound modifier and head"),  # 2/9
    (0.25, "adjective and its noun (modified adjective)"),  # 0/2
    (0.25, "coordinated, with modifiers"),  # 0/2
    (0.22, "same class, not coordinated"),  # 1/7
    (0.18, "different classes, near"),  # 16/90
    (0.12, "adjective and its noun (noun modifier)"),  # 0/6
    (0.12, "different classes, far"),  # 0/6
    (0.05, "same class across a preposition"),  # 0/17
    (0.04, "different classes across a preposition"),  # 0/21
    # phrase reorderings (a deviation from the paper: perturb.generators.swapwords.phrases)
    (0.93, "subject and auxiliary (copula)"),  # 12/12
    (0.88, "complement fronted"),  # 22/24 ("you are a coward" -> "a coward you are")
    (0.83, "subject and auxiliary (copula, wh-subject)"),  # 9/10 ("what is love" -> "what love is")
    (0.80, "subject and auxiliary (wh-phrase)"),  # 7/8 ("how honest are you" -> "how honest you are")
    (0.75, "subject and auxiliary (wh-phrase, predicate in the subject)"),  # 2/2
    (0.92, "subject and auxiliary (yes/no)"),  # 10/10
    (0.91, "prepositional phrase fronted"),  # 9/9
    (0.90, "sibling prepositional phrases"),  # 8/8
    (0.90, "subject and auxiliary (do)"),  # 8/8
    (0.89, "subject and auxiliary (modal)"),  # 7/7
    (0.83, "subject and auxiliary (yes/no, do)"),  # 4/4
    (0.75, "adverb moved"),  # 2/2
    (0.67, "subject and auxiliary (do, predicate in the subject)"),  # 1/1
    (0.67, "subject and auxiliary (modal, predicate in the subject)"),  # 1/1
    (0.67, "subject and auxiliary (yes/no, predicate in the subject)"),  # 1/1
    (0.64, "coordinated phrases (nominal)"),  # 6/9
    (0.57, "subject and auxiliary (copula, predicate in the subject)"),  # 3/5
    (0.50, "prepositional phrase fronted (another attachment)"),  # 1/2
    (0.50, "prepositional phrase fronted (argument)"),  # 1/2
    (0.33, "sibling prepositional phrases (another attachment)"),  # 0/1
    (0.33, "sibling prepositional phrases (of)"),  # 1/4
    (0.33, "subject and auxiliary (modal, subject cut short)"),  # 0/1
    (0.33, "subject and auxiliary (yes/no, do, predicate in the subject)"),  # 0/1
    (0.20, "coordinated phrases"),  # 1/8
)
UNLABELLED = 0.5  # a kind without a tuning label (not in EVIDENCE): (0 + 1) / (0 + 2)
SCORE_OF = {reason: score for score, reason in EVIDENCE}

# the suffixes of "adjective and its noun" (_term_suffix): none, no WordNet, a verb's object, term evidence
ADJECTIVE_SUFFIXES = ("", " (no lexicon)", " (verb object)") + tuple(f" ({why})" for why in TERM_EVIDENCE)
WORD_KINDS = ("coordinated", "coordinated, with modifiers", "co-modifiers", "compound modifier and head",
              "same class across a preposition", "same class, not coordinated",
              "adjective and its noun (modified adjective)",
              *(f"adjective and its noun{suffix}" for suffix in ADJECTIVE_SUFFIXES),
              "gerund and its bare object", "verb and its bare subject/object",
              "different classes across a preposition", "different classes, near", "different classes, far")


def kinds() -> Tuple[str, ...]:
    """Every kind :func:`evidence` and :func:`perturb.generators.swapwords.phrases.phrase_candidates`
    can give: the rows of the kind table (:data:`KIND_SCORES`)."""
    return WORD_KINDS + tuple(phrase_kinds())


#: the kind table: every kind the parse can give, with its score (a kind without labels: UNLABELLED)
KIND_SCORES = {kind: SCORE_OF.get(kind, UNLABELLED) for kind in kinds()}


#: the transformation's one parameter (SWAPWORDS' spec holds it): from how many multi-word WordNet
#: nouns an adjective starts on it counts as term-forming (:func:`perturb.resources.wordnet_index.term_evidence`)
TERM_FORMING_MIN = Param("term_forming_min", int, 10, "multi-word noun lemmas an adjective starts, from which it "
                                                      "counts as term-forming")


class UnlistedKind(ValueError):
    """A candidate of a kind the kind table does not list: the kind grammar (:func:`kinds`) misses it."""


def score_of(reason: str) -> float:
    """The kind table's score of ``reason``; :class:`UnlistedKind` for a kind it does not list
    (never a silent prior)."""
    try:
        return KIND_SCORES[reason]
    except KeyError:
        raise UnlistedKind(f"SWAPWORDS: the exchange kind {reason!r} is not in the kind table: add it to "
                           f"perturb/generators/swapwords/pairs.py WORD_KINDS or phrases.phrase_kinds()") from None


def is_labelled(reason: str) -> bool:
    """Whether the kind's score rests on labelled exchanges (else it is the prior, UNLABELLED)."""
    return reason in SCORE_OF


class SwappableWords(Veto):
    """Only content words move: a word of the pair is a NOUN, PROPN, VERB, ADJ or ADV of letters
    only, not an NLTK stop word, not a dotted abbreviation, not half of "high-speed", "and/or",
    "don't" (the spec's ``words`` fact records it)."""

    name = "content words only"
    description = "both words are content words (letters, not a stop word or abbreviation, not half of a " \
                  "hyphenated word)"
    judges = "target"

    def allows(self, tok, text: str) -> bool:
        word = text[tok.idx: tok.idx + len(tok.text)]
        if not word.isalpha() or tok.pos_ not in CLASSES or word.lower() in stopwords() or is_abbreviation(word):
            return False
        before = text[tok.idx - 1] if tok.idx > 0 else " "
        after = text[tok.idx + len(word)] if tok.idx + len(word) < len(text) else " "
        return before not in "-/'" and after not in "-/'"  # not half of "high-speed", "and/or", "don't"

    def reason(self, edit, context=None):
        """Judges the context's ``token`` (a target), or its ``tokens`` (the two words of a pair)."""
        context = context or {}
        tokens = (context["token"],) if "token" in context else context.get("tokens", ())
        bad = [t.text for t in tokens if not self.allows(t, context["text"])]
        return f"not a content word: {', '.join(map(repr, bad))}" if bad else None


class WholeTokens(Veto):
    """A span moves as whole whitespace tokens (:func:`perturb.generators.swapwords.phrases.whole_tokens`:
    "10%" and "$5" move whole); a span that would cut a token, or two spans that would then meet, refuse
    the candidate (the spec's ``spans`` fact records it)."""

    name = "whole tokens"
    description = "each span widens to whole whitespace tokens without cutting one; the two stay apart"

    def widen(self, text: str, sa: int, ea: int, sb: int, eb: int):
        """The two spans widened, or None when the candidate is refused."""
        a, b = whole_tokens(text, sa, ea), whole_tokens(text, sb, eb)
        return None if a is None or b is None or not a[1] < b[0] else (a, b)

    def reason(self, edit, context=None):
        (sa, ea, _), (sb, eb, _) = edit.spans
        ok = self.widen(context["text"], sa, ea, sb, eb) is not None
        return None if ok else "a span would cut a token, or the spans would meet"


CONTENT_WORDS = SwappableWords()
WHOLE_TOKENS = WholeTokens()


def swappable(tok, text: str) -> bool:
    return CONTENT_WORDS.allows(tok, text)


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


def _term_suffix(adj, noun, term_forming_min: int) -> str:
    """The kind's suffix from WordNet's term evidence for ``adj noun``
    (:func:`perturb.resources.wordnet_index.term_evidence`): ``""`` when nothing says it is a fixed
    term, else the evidence in brackets (" (multi-word lemma)": "leading edge", " (noun modifier)":
    "buckling load", ...), " (no lexicon)" without WordNet (a kind without labels: it scores 0.5).
    Without term evidence, a noun that is a verb's direct object gets " (verb object)": the moved
    adjective can read as the object's complement ("rendering solutions approximate", "remove the
    patch nude"; chosen on the tuning half, docs/methods.md)."""
    why = term_evidence(adj.lower_, noun.lower_, noun.lemma_, term_forming_min=term_forming_min)
    if why is None:
        return " (no lexicon)"
    if not why and noun.dep_ == "dobj":
        why = "verb object"  # moved behind a verb's object it reads as its complement: "rendering solutions approximate"
    return f" ({why})" if why else ""


def evidence(doc, i: int, j: int, term_forming_min: int = TERM_FORMING_MIN.default) -> Tuple[float, str]:
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
        adj = a if a.pos_ == "ADJ" else b
        # "most popular food" -> "most food popular", "widely different structures": the adjective's own
        # modifier stays behind
        reason = "adjective and its noun (modified adjective)" if any(True for _ in adj.children) or \
            adj.lower_ in QUANTITY else "adjective and its noun" + _term_suffix(adj, a if adj is b else b,
                                                                                  term_forming_min)
    elif not between and _verb_and_bare_argument(a, b):
        verb, noun = (a, b) if a.pos_ == "VERB" else (b, a)
        # a gerund and the bare object after it ("calculating pressure" -> "pressure calculating") keeps
        # its roles; a finite verb and its subject/object can swap roles ("who frankenstein wrote")
        gerund = verb.tag_ == "VBG" and noun.dep_ == "dobj" and noun.i > verb.i
        reason = "gerund and its bare object" if gerund else "verb and its bare subject/object"
    elif across_prep:
        reason = "different classes across a preposition"
    else:
        reason = "different classes, near" if j - i <= 3 else "different classes, far"
    return score_of(reason), reason


def swappable_tokens(doc, text: str, constraints: Sequence[Constraint] = (CONTENT_WORDS,)) -> List[int]:
    """The indices of the tokens of ``doc`` that pass the ``target`` constraints of ``constraints``
    (:func:`perturb.engine.judge`; by default :data:`CONTENT_WORDS`)."""
    cands = [Candidate(Edit(()), {"token": t, "text": text, "group": t.i}) for t in doc]
    return [c.group for c in judge(constraints, cands, "target").passed]


def word_candidates(doc, text: str, targets: Optional[Sequence[int]] = None,
                    term_forming_min: int = TERM_FORMING_MIN.default) -> List[Tuple[int, int, float, str]]:
    """Every pair of ``targets`` (token indices; by default :func:`swappable_tokens`) with differing
    words: (i, j, score, reason), i < j."""
    idx = swappable_tokens(doc, text) if targets is None else list(targets)
    out = []
    for x, i in enumerate(idx):
        for j in idx[x + 1:]:
            wi = text[doc[i].idx: doc[i].idx + len(doc[i].text)]
            wj = text[doc[j].idx: doc[j].idx + len(doc[j].text)]
            if wi.lower() != wj.lower():
                out.append((i, j, *evidence(doc, i, j, term_forming_min)))
    return out


def candidates(doc, text: str, targets: Optional[Sequence[int]] = None,
               term_forming_min: int = TERM_FORMING_MIN.default) -> List[Edit]:
    """Every candidate exchange of two character spans of ``text``, as :class:`perturb.spec.Edit`
    (two spans, the first before the second; ``kind``: the evidence kind, ``score``: its score in the
    kind table): the word pairs above and the phrase reorderings of
    :mod:`perturb.generators.swapwords.phrases`. Each span is whole whitespace tokens
    (:data:`WHOLE_TOKENS`: "10%" moves whole); a candidate whose span would cut a token, or whose
    two spans would then meet, is dropped. ``targets``: the words that may move (:func:`word_candidates`)."""
    raw = []
    for i, j, score, reason in word_candidates(doc, text, targets, term_forming_min):
        a, b = doc[i], doc[j]
        raw.append((a.idx, a.idx + len(a.text), b.idx, b.idx + len(b.text), score, reason))
    for sa, ea, sb, eb, reason in phrase_candidates(doc, text):
        raw.append((sa, ea, sb, eb, score_of(reason), reason))
    out, seen = [], set()
    for sa, ea, sb, eb, score, reason in raw:
        spans = WHOLE_TOKENS.widen(text, sa, ea, sb, eb)
        if spans is None or spans in seen:
            continue
        seen.add(spans)
        out.append(Edit.exchange(text, *spans[0], *spans[1], kind=reason, score=score))
    return out
