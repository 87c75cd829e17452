"""Phrase reorderings that keep a query's information need (SWAPWORDS, verified; a deviation
from the paper, which swaps two single words).

Each candidate exchanges two non-overlapping character spans of the query, everything between
them staying in place (a move is an exchange with the span it jumps over). The spans are whole
spaCy subtrees or tokens (parse of the case-normalised copy), so a candidate never cuts a word,
an abbreviation or a hyphenated word. The kinds, each with its evidence name (the ``reason``):

* ``coordinated phrases``: the two conjuncts of an "A and/or B" coordination, at least one of
  them longer than a word ("heat transfer and skin friction" -> "skin friction and heat transfer");
* ``sibling prepositional phrases``: two adjacent prepositional phrases attached to one head
  ("flights from london to paris" -> "flights to paris from london", "EFFECT OF X ON Y" ->
  "EFFECT ON Y OF X");
* ``adverb moved``: an adverb modifying a verb, moved between the verb's end and its start
  ("how to cook rice quickly" -> "how to quickly cook rice"); focus adverbs ("only", "also",
  "even", ...) and stop words never move;
* ``subject and auxiliary``: in a wh-question, the auxiliary or copula after the wh-word moved
  behind the subject (the order of an embedded question: "where can i buy shoes" -> "where i can
  buy shoes", "what is the capital of france" -> "what the capital of france is"); split by kind
  (``copula``, ``modal``, ``do``) because the labels judge them differently; a wh-phrase
  before the auxiliary ("what type of computer | are you", "how honest | are you": ``wh-phrase``),
  and a wh-word with the copula and a noun phrase the parse hangs on the copula ("what is love" ->
  "what love is", "who is the governor": ``copula, wh-subject``); a noun right after the copula's
  subject ("what is taj | mahal") is ``copula, subject cut short``;
* ``complement fronted``: a personal pronoun, the copula and its complement, the
  complement moved to the front ("you are a coward" -> "a coward you are"; not with a negation
  or a verb);
* ``prepositional phrase fronted``: a query-final prepositional phrase attached to the main
  verb, moved to the front ("how do i cook rice in a microwave" -> "in a microwave how do i cook
  rice"); a verb with a particle ("put up | with") makes the phrase an ``(argument)``.

:func:`phrase_candidates` returns ``(sa, ea, sb, eb, reason)``; the scores of the reasons live
in :mod:`perturb.generators.swapwords.pairs`.
"""
from __future__ import annotations

from typing import List, Tuple

from perturb.resources.words import FINITE_TAGS, WH_WORDS as WH, stopwords

FOCUS_ADVERBS = frozenset("even also still always never already ever only just really yet almost "
                          "merely simply mostly nearly hardly barely rather quite usually".split())
ARGUMENT_PREPS = frozenset({"of", "like", "than", "as"})
DEGREE = frozenset("much many long often far old big".split())
PERSONAL = frozenset("i you he she it we they".split())
Span = Tuple[int, int]
BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))


def _tok_span(doc, i: int, j: int) -> Span:
    """Characters of tokens ``i..j`` (inclusive), punctuation at either end left out."""
    while i < j and (doc[i].is_punct or doc[i].is_space):
        i += 1
    while j > i and (doc[j].is_punct or doc[j].is_space or doc[j].pos_ == "CCONJ"):
        j -= 1  # "is my chihuahua  male  so": the extra spaces stay where they are
    return doc[i].idx, doc[j].idx + len(doc[j].text)


def _clean(text: str, a: Span, b: Span) -> bool:
    """Both spans non-empty, ordered, apart, and not glued to a word by - / '."""
    if not (a[0] < a[1] <= b[0] < b[1]):
        return False
    for s, e in (a, b):
        if s > 0 and text[s - 1] in "-/'" or e < len(text) and text[e] in "-/'":
            return False
        piece = text[s:e]
        if not any(ch.isalnum() for ch in piece) or any(piece.count(o) != piece.count(c) for o, c in BRACKETS):
            return False  # a span that opens a bracket must close it: "(i.e. the change)" moves whole
    return True


# Marks a span may leave behind at its edges: sentence punctuation and brackets around it. Any
# other character glued to a span's first or last word (%, $, °, #, quotes, ...) belongs to that
# word and moves with it: "by 10% | in women" -> "in women | by 10%", never "in women% | by 10".
DETACHED_AFTER = frozenset(".,;:!?)]}…")
DETACHED_BEFORE = frozenset("([{")
QUOTES = (("‘", "’"), ("“", "”"), ("«", "»"))


def whole_tokens(text: str, start: int, end: int) -> "Span | None":
    """The span ``[start, end)`` widened to whole whitespace tokens: the symbols glued to its first
    and last words ("10%", "$5", "’s" after a quote) are taken along, sentence punctuation and
    brackets (:data:`DETACHED_AFTER`, :data:`DETACHED_BEFORE`) stay where they are. None when
    widening would reach a letter or digit (the span would cut a word: "40°|C", "baseball|’s"), or
    would take one quotation mark or bracket without its pair ("Bottle’" of "‘Genie in a Bottle’",
    "wrapper(" of "wrapper():")."""
    e = end
    while e < len(text) and not text[e].isspace() and not all(c in DETACHED_AFTER for c in
                                                               text[e:_token_end(text, e)]):
        if text[e].isalnum():
            return None
        e += 1
    s = start
    while s > 0 and not text[s - 1].isspace() and not all(c in DETACHED_BEFORE for c in
                                                          text[_token_start(text, s):s]):
        if text[s - 1].isalnum():
            return None
        s -= 1
    taken = text[s:start] + text[end:e]
    if any(q in taken for pair in QUOTES + BRACKETS for q in pair) or any(q in taken for q in "\"'"):
        piece = text[s:e]
        if any(piece.count(o) != piece.count(c) for o, c in QUOTES + BRACKETS) or piece.count('"') % 2 or \
                piece.count("'") % 2:
            return None  # "wrapper(" of "wrapper():", "Bottle’" of "‘Genie in a Bottle’"
    return s, e


def _token_end(text: str, i: int) -> int:
    while i < len(text) and not text[i].isspace():
        i += 1
    return i


def _token_start(text: str, i: int) -> int:
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    return i


def _coordinations(doc):
    for b in doc:
        a = b.head
        if b.dep_ != "conj" or a is b or a.i > b.i:
            continue
        if sum(1 for c in a.children if c.dep_ == "conj") != 1:
            continue  # lists of three or more: leave them
        cc = [c for c in a.children if c.dep_ == "cc" and a.i < c.i < b.i and c.lower_ in ("and", "or")]
        if not cc:
            continue
        start = a.left_edge.i  # "the A and B": A's determiner travels with A
        sa = _tok_span(doc, start, cc[0].i - 1)
        sb = _tok_span(doc, b.left_edge.i, b.right_edge.i)
        if b.right_edge.i - b.left_edge.i == 0 and cc[0].i - 1 - start == 0:
            continue  # two single words: the word-level candidate covers it
        yield sa, sb, "coordinated phrases" + (" (nominal)" if _nominal_pair(doc, a, b, start) else "")


def _nominal_pair(doc, a, b, start: int) -> bool:
    """Two noun (or prepositional) phrases with nothing that could be their shared head after them
    ("between a hot gas and a cold solid"), no comma list and no wh-word inside: the parse's
    conjuncts are then the reader's ("LEADING EDGE BLUNTNESS", "writer and poet", clauses are not)."""
    kinds = {"NOUN", "PROPN"}
    if not ({a.pos_, b.pos_} <= kinds or a.pos_ == b.pos_ == "ADP"):
        return False
    after = doc[b.right_edge.i + 1] if b.right_edge.i + 1 < len(doc) else None
    if after is not None and after.pos_ in ("NOUN", "PROPN", "ADJ", "NUM"):
        return False
    inside = doc[start: b.right_edge.i + 1]
    return not any(t.lower_ in WH or t.text == "," for t in inside)


def _sibling_preps(doc):
    for h in doc:
        preps = [c for c in h.children if c.dep_ == "prep" and c.i > h.i]
        for p1, p2 in zip(preps, preps[1:]):
            if p2.left_edge.i == p1.right_edge.i + 1 and p1.right_edge.i > p1.i and p2.right_edge.i > p2.i:
                # an "of" phrase is the argument of the noun before it: moved, it attaches to another noun
                kind = " (of)" if ARGUMENT_PREPS & {p1.lower_, p2.lower_} else ""
                if not kind and (p1.lower_ == p2.lower_ or _nests(doc, p1)):
                    kind = " (another attachment)"  # "on forces on surfaces", "after X in the us in 1865"
                yield (_tok_span(doc, p1.left_edge.i, p1.right_edge.i),
                       _tok_span(doc, p2.left_edge.i, p2.right_edge.i), "sibling prepositional phrases" + kind)


def _nests(doc, p) -> bool:
    """The phrase of ``p`` holds a prepositional phrase of its own (not "of"/"like"/...): a phrase
    moved next to it could attach to that inner noun instead."""
    return any(t.dep_ == "prep" and t.lower_ not in ARGUMENT_PREPS for t in doc[p.i + 1: p.right_edge.i + 1])


def _adverbs(doc, text: str):
    stops = stopwords()
    for adv in doc:
        v = adv.head
        low = adv.lower_
        if (adv.dep_ != "advmod" or adv.pos_ != "ADV" or v.pos_ != "VERB" or low in stops or low in FOCUS_ADVERBS
                or low in WH or not adv.text.isalpha() or any(c.dep_ == "neg" for c in v.children)):
            continue
        if adv.i > v.i + 1 and adv.i == v.right_edge.i:  # "cook rice quickly" -> "quickly cook rice"
            yield _tok_span(doc, v.i, adv.i - 1), _tok_span(doc, adv.i, adv.i), "adverb moved"
        elif adv.i == v.i - 1 and v.right_edge.i > v.i:  # "quickly cook rice" -> "cook rice quickly"
            yield _tok_span(doc, adv.i, adv.i), _tok_span(doc, v.i, v.right_edge.i), "adverb moved"


def _subject_aux(doc):
    words = [t for t in doc if not t.is_punct]
    if not words:
        return
    phrase = ""
    if words[0].pos_ == "AUX" and words[0].tag_ in FINITE_TAGS and len(words) > 2:
        k = 0  # "are you a robot" -> "you are a robot": a yes/no question in statement order
    elif words[0].lower_ not in WH:
        return
    else:
        k = 2 if len(words) > 2 and words[0].lower_ == "how" and words[1].lower_ in DEGREE else 1
        k, phrase = _wh_phrase(doc, words, k)
    if k >= len(words):
        return
    aux = words[k]
    if aux.pos_ != "AUX" or aux.tag_ not in FINITE_TAGS:
        return
    head = aux if aux.dep_ == "ROOT" else aux.head
    subj = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass", "expl") and c.i > aux.i]
    if not subj:
        if k >= 1 and (head.i == aux.i or aux.dep_ == "aux" and head.pos_ in ("NOUN", "PROPN", "ADJ") and head.i > aux.i):
            yield from _wh_subject_copula(doc, words, aux, phrase)  # "what is love": the parse hangs "is" on "love"
        return
    s = subj[0]
    if s.left_edge.i != aux.i + 1:
        return
    base = "copula" if head is aux else ("modal" if aux.tag_ == "MD" or aux.lemma_ in ("be", "have") else "do")
    # "what is a community of ants called": the parse ate the predicate
    predicate = any(t.tag_ in ("VBN", "JJ") and t.i > s.i and t.head.i >= s.i for t in doc[s.i + 1: s.right_edge.i + 1]
                    if t.dep_ in ("acl", "amod", "advcl", "relcl"))
    nxt = [t for t in doc[s.right_edge.i + 1:] if not t.is_space]
    continues = nxt and (nxt[0].pos_ in ("NOUN", "PROPN", "ADP", "NUM", "DET") or nxt[0].tag_ == "TO" or
                         nxt[0].pos_ == "ADJ" and aux.lemma_ != "be")  # "are | warm blooded" is a predicate
    kind = aux_kind(base, predicate=predicate, to_end=s.right_edge.i == words[-1].i,
                    cut_short=bool(continues or len(subj) > 1),
                    how_adjective=k == 1 and words[0].lower_ == "how" and doc[s.left_edge.i].pos_ in ("ADJ", "ADV"),
                    noun_after=bool(nxt and nxt[0].pos_ in ("NOUN", "PROPN")),
                    complement_after=s.right_edge.i < words[-1].i and any(
                        t.dep_ not in ("punct",) for t in doc[s.right_edge.i + 1:] if t.head is aux),
                    wh_phrase=bool(phrase), yes_no=k == 0)
    yield _tok_span(doc, aux.i, aux.i), _tok_span(doc, s.left_edge.i, s.right_edge.i), kind


AUX_BASES = ("copula", "modal", "do")
AUX_FLAGS = ("predicate", "to_end", "cut_short", "how_adjective", "noun_after", "complement_after", "wh_phrase",
             "yes_no")


def aux_kind(base: str, *, predicate: bool, to_end: bool, cut_short: bool, how_adjective: bool, noun_after: bool,
             complement_after: bool, wh_phrase: bool, yes_no: bool) -> str:
    """The kind of a subject-and-auxiliary exchange (``subject and auxiliary (...)``) from what the
    parse says (:func:`_subject_aux`); :func:`aux_kinds` runs it over every combination, so the
    kind table lists every kind this can give. ``base``: copula, modal or do."""
    kind = base
    if predicate:
        kind += ", predicate in the subject"
    elif base != "copula" and to_end:
        kind += ", subject to the end"  # "does a membrane theory exist ..." -> "... does": no verb left after it
    if base != "copula" and cut_short:
        kind += ", subject cut short"  # "can the procedure of matching | inner and outer solutions ... be"
    elif how_adjective:
        kind += ", how + adjective"  # "how large changes ... do affect" reads as "how large"
    if kind == "copula" and noun_after:
        kind = "copula, subject cut short"  # "what is taj mahal" -> "what taj is mahal"
    if kind == "copula" and complement_after:
        kind = "copula, complement after"  # "what is X like" -> "what X is like"
    if wh_phrase:  # "what type of computer | are you", "how honest | are you": one kind, scored on its own labels
        kind = "wh-phrase" + (kind[kind.index(","):] if "," in kind and not kind.startswith("copula, complement") else "")
    if yes_no:
        kind = ("yes/no, do" if kind.startswith("do") else "yes/no") + kind[kind.index(","):] if "," in kind and \
            not kind.startswith("copula, complement") else ("yes/no, do" if kind == "do" else "yes/no")
    return f"subject and auxiliary ({kind})"


def aux_kinds() -> List[str]:
    """Every kind :func:`aux_kind` can give (a yes/no question has no wh-phrase and no "how"), and
    the wh-subject copula's (:func:`_wh_subject_copula`)."""
    out = {WH_SUBJECT_COPULA}
    for base in AUX_BASES:
        for bits in range(1 << len(AUX_FLAGS)):
            flags = {name: bool(bits >> n & 1) for n, name in enumerate(AUX_FLAGS)}
            if flags["yes_no"] and (flags["wh_phrase"] or flags["how_adjective"]):
                continue
            out.add(aux_kind(base, **flags))
    return sorted(out)


WH_SUBJECT_COPULA = "subject and auxiliary (copula, wh-subject)"


def phrase_kinds() -> List[str]:
    """Every kind :func:`phrase_candidates` can give (the rows a kind table must list)."""
    return sorted({"coordinated phrases", "coordinated phrases (nominal)", "adverb moved", "complement fronted",
                   *(f"sibling prepositional phrases{k}" for k in ("", " (of)", " (another attachment)")),
                   *(f"prepositional phrase fronted{k}" for k in ("", " (argument)", " (another attachment)")),
                   *aux_kinds()})


def _wh_phrase(doc, words, k: int):
    """(position of the auxiliary, kind suffix) after a wh-word that opens a longer phrase:
    a wh-determiner's noun phrase ("what type of computer | are you", "which name | is ...") or
    "how" + an adjective or adverb ("how honest | are you", "how often | do ..."); else ``(k, "")``."""
    first = words[0]
    if k == 1 and first.dep_ == "det" and first.head.pos_ in ("NOUN", "PROPN") and first.head.i > first.i:
        end = first.head.right_edge.i
    elif k == 1 and first.lower_ == "how" and len(words) > 2 and words[1].pos_ in ("ADJ", "ADV") and \
            words[1].lower_ not in WH:
        end = words[1].i
    else:
        return k, ""
    nxt = [n for n, w in enumerate(words) if w.i > end]
    return (nxt[0], ", wh-phrase") if nxt else (len(words), "")


def _wh_subject_copula(doc, words, aux, phrase: str = ""):
    """"what is love" -> "what love is", "who is the governor" -> "who the governor is": a wh-word and
    the copula "is/are/was/were" with everything after it one noun phrase the parse hangs on the copula
    (it calls the wh-word the subject, so the plain subject-and-auxiliary candidate does not arise).
    No verb, no wh-word, no comma and no stranded preposition in the phrase."""
    if aux.lemma_ != "be" or aux.tag_ not in ("VBZ", "VBP", "VBD"):
        return
    rest = [t for t in words if t.i > aux.i]
    if not rest or rest[0].pos_ in ("VERB", "AUX", "ADP", "SCONJ", "CCONJ", "PART"):
        return
    if any(t.pos_ in ("VERB", "AUX") or t.lower_ in WH or t.text == "," for t in rest) or rest[-1].pos_ == "ADP":
        return
    top = [t for t in rest if not rest[0].i <= t.head.i <= rest[-1].i or t.head.i == t.i]  # the phrase's top word(s)
    if len(top) != 1 or top[0].dep_ not in ("attr", "acomp", "nsubj", "dep", "npadvmod", "punct", "advmod", "ROOT"):
        return
    yield _tok_span(doc, aux.i, aux.i), _tok_span(doc, rest[0].i, rest[-1].i), WH_SUBJECT_COPULA


def _complement_fronted(doc):
    """"you are a coward" -> "a coward you are": a statement of a personal pronoun, the copula and
    its complement (no negation, no verb, no wh-word), the complement moved to the front."""
    words = [t for t in doc if not t.is_punct]
    if len(words) < 3 or words[0].lower_ not in PERSONAL or words[0].dep_ != "nsubj":
        return
    cop = words[1]
    if cop.lemma_ != "be" or cop.dep_ != "ROOT" or words[0].head.i != cop.i:
        return
    rest = words[2:]
    if any(t.pos_ in ("VERB", "AUX", "PART", "SCONJ", "CCONJ") or t.lower_ in WH or t.dep_ == "neg" or t.text == ","
           for t in rest):
        return
    yield _tok_span(doc, words[0].i, cop.i), _tok_span(doc, rest[0].i, rest[-1].i), "complement fronted"


def _fronted_pp(doc):
    words = [t for t in doc if not t.is_punct]
    if len(words) < 4:
        return
    root = [t for t in doc if t.dep_ == "ROOT"][0]
    if root.pos_ not in ("VERB", "AUX"):
        return  # a noun's prepositional phrase does not move to the front of a title
    for p in root.children:
        if p.dep_ == "prep" and p.i > root.i and p.right_edge.i == words[-1].i and p.right_edge.i > p.i:
            kind = " (argument)" if p.lower_ in ARGUMENT_PREPS or any(
                t.pos_ == "VERB" for t in doc[p.i + 1: p.right_edge.i + 1]) or any(
                c.dep_ == "prt" for c in root.children) else ""  # "get rid of", a clause, "put up | with"
            if not kind and (words[0].pos_ in ("NOUN", "PROPN", "ADJ") or _inner_host(doc, p)):
                kind = " (another attachment)"  # "IN THE INTERIOR OF AIRCRAFT BOUNDARY LAYER ...", "in 1865"
            yield _tok_span(doc, words[0].i, p.i - 1), _tok_span(doc, p.i, p.right_edge.i), \
                "prepositional phrase fronted" + kind


def _inner_host(doc, p) -> bool:
    """The word before ``p`` is the object of another (non-argument) preposition: the phrase may
    belong to that noun ("the abolition of slavery in the us in 1865")."""
    prev = [t for t in doc[:p.i] if not (t.is_punct or t.is_space)]
    return bool(prev) and prev[-1].dep_ == "pobj" and prev[-1].head.lower_ not in ARGUMENT_PREPS


def phrase_candidates(doc, text: str) -> List[Tuple[int, int, int, int, str]]:
    """Every phrase reordering of ``doc`` (a parse of ``text`` or its same-length lower-cased copy)."""
    out, seen = [], set()
    for gen in (_coordinations(doc), _sibling_preps(doc), _adverbs(doc, text), _subject_aux(doc), _fronted_pp(doc),
                _complement_fronted(doc)):
        for a, b, reason in gen:
            if _clean(text, a, b) and (a, b) not in seen and text[a[0]:a[1]].lower() != text[b[0]:b[1]].lower():
                seen.add((a, b))
                out.append((a[0], a[1], b[0], b[1], reason))
    return out
