"""NOSTOPWORD: every stop word (NLTK's 179-word English list) removed from the query, except the
words whose removal reverses or changes the need (:data:`KEPT`). The transformation proposes one
removal per stop word (:func:`stopword_candidates`), the spec's constraints refuse the kept words
(:data:`KEPT_WORDS`) and an emptied query (:data:`WORDS_LEFT`), the picker takes every other one."""
from __future__ import annotations

import re
from typing import List

import numpy as np

from perturb.resources.words import NEED_WORDS, collapse_spaces, stopwords, stopwords_resource, word_spans
from perturb.base import Perturbation, Resource
from perturb.engine import Candidate, SpecGenerator, every
from perturb.spec import Edit, Param, Spec, Veto

# A whitespace token is "punctuation + core + punctuation"; only a core of word characters and
# apostrophes ("don't") can be a stop word. "(i.e.," (core "i.e"), "and/or", "U.S." are kept whole.
_TOKEN = re.compile(r"\S+")
_CORE = re.compile(r"^([^\w'’]*)([\w'’]+)([^\w'’]*)$")

# Stop words that stay (a deviation from the paper, chosen from the labelled errors of
# benchmarks/data/validity/NOSTOPWORD.tsv: "I do not feel scared" -> "feel scared", "won t turn" ->
# "turn", "keep my cat from scratching" -> "keep cat scratching"; second round: "one or more
# blade rows" -> "one blade rows", "consumes the most chocolate" -> "consumes chocolate"):
# negations, the prepositions of opposition, separation and absence, and the words of quantity,
# comparison and restriction.
KEPT = NEED_WORDS | {"from"}
# Negated auxiliaries: "don't", "won’t", and the split forms "don t", "won t" of ANTIQUE/TREC text.
NEGATED_STEMS = frozenset("don doesn didn isn aren wasn weren hasn haven hadn couldn shouldn wouldn won "
                          "mustn needn mightn shan ain can".split())
_NEGATED = re.compile(r"^\w+n['’]t$")


def _kept(cores: List[str], k: int) -> bool:
    """Is token ``k`` (lower-cased cores of the whitespace tokens) a negation that must stay?"""
    low = cores[k].replace("’", "'")
    if low in KEPT or _NEGATED.match(low) or low == "cannot":
        return True
    if low == "t" and k > 0 and cores[k - 1] in NEGATED_STEMS:  # "won t": the "t" is the negation
        return True
    return low in NEGATED_STEMS and k + 1 < len(cores) and cores[k + 1] == "t"


class KeptWords(Veto):
    """Negations and the need words stay (:data:`KEPT`, negated auxiliaries: "don't", "won t", "cannot"):
    their removal reverses or changes the need."""

    name = "need words kept"
    description = "negations, negated auxiliaries and the need words (no, not, without, only, most, from, ...) " \
                  "are not removed"

    def keeps(self, cores: List[str], k: int) -> bool:
        """Whether token ``k`` (of the lower-cased cores of the whitespace tokens) stays."""
        return _kept(cores, k)

    def reason(self, edit, context=None):
        cores, k = context["cores"], context["k"]
        return f"{cores[k]!r} is a need word or a negation" if self.keeps(cores, k) else None


class WordsLeft(Veto):
    """A query whose every word is a stop word ("what is it") is not emptied: nothing could be searched."""

    name = "a word left"
    description = "at least one word of the query remains"
    judges = "result"

    def refuses(self, removed: int, words: int) -> bool:
        return removed >= words

    def reason(self, edit, context=None):
        return "no word would remain" if self.refuses(context["removed"], context["words"]) else None


KEPT_WORDS = KeptWords()
WORDS_LEFT = WordsLeft()


def stopword_candidates(text: str, as_written: bool = False) -> List[Candidate]:
    """The transformation: one removal per whole token of ``text`` whose word is a stop word
    (surrounding punctuation excluded), its context the lower-cased cores of the whitespace tokens
    and its token's index (what :data:`KEPT_WORDS` reads). ``as_written``: the paper's, one per
    TextAttack word (:func:`~perturb.resources.words.word_spans`) that is a stop word as written."""
    stops = stopwords()
    if as_written:
        return [Candidate(Edit.replace(s, e, "")) for s, e in word_spans(text) if text[s:e] in stops]
    out = []
    tokens = list(_TOKEN.finditer(text))
    cores = [((c.group(2) if c else "") or "").lower() for c in (_CORE.match(m.group(0)) for m in tokens)]
    for k, m in enumerate(tokens):
        core = _CORE.match(m.group(0))
        if core is None or core.group(2).lower().strip("'") not in stops and core.group(2).lower() not in stops:
            continue
        start = m.start() + len(core.group(1))
        out.append(Candidate(Edit.replace(start, start + len(core.group(2)), ""), {"cores": cores, "k": k}))
    return out


# Where a word was removed, the text on its two sides meets at a JOIN mark (a character that
# cannot occur in a query); separators that then meet across it were doubled by the removal.
JOIN = "\x00"
_SEPARATORS = ",;:"
_STRENGTH = {",": 0, ":": 1, ";": 2}  # two separators meeting keep the stronger ("a, and; b" -> "a; b")
_GAP = r"[\s\x00]*\x00[\s\x00]*"  # a join, with the spaces around it
_DOUBLED = re.compile(r"([,;:])(" + _GAP + r")([,;:])")
_BEFORE_CLOSE = re.compile(r"[,;:](" + _GAP + r")([)\]}]|[.?!](?=\s|$))")  # "dogs, the)" -> "dogs)", "and." -> "."
_AFTER_OPEN = re.compile(r"([(\[{])(" + _GAP + r")[,;:]\s*")  # "(the, dogs)" -> "(dogs)"


def _tidy_joins(text: str) -> str:
    """Separators made to meet by a removal (``text`` carries a :data:`JOIN` mark where each
    removed word was): two separators meeting become one (",," and ", ," -> ",", ";;" -> ";"), a
    separator before a closing mark or a sentence end, or after an opening mark, is dropped.
    Punctuation that meets nowhere near a join (doubled in the query itself: "dogs,, and") stays."""
    text = re.sub(r"[(\[]" + _GAP + r"[)\]]", JOIN, text)  # "(it)" -> "()": brackets emptied by a removal
    prev = None
    while prev != text:
        prev = text
        text = _DOUBLED.sub(lambda m: max(m.group(1), m.group(3), key=_STRENGTH.get) + m.group(2), text)
        text = _BEFORE_CLOSE.sub(r"\1\2", text)
        text = _AFTER_OPEN.sub(r"\1\2", text)
    return text.replace(JOIN, "")


def _tidy(text: str) -> str:
    """Punctuation orphaned by a removal: separators doubled across it (:func:`_tidy_joins`), empty
    brackets dropped, no space before , ; : and no leading separator ("where, is the cat" -> "cat",
    not ", cat")."""
    text = _tidy_joins(text)
    text = re.sub(r"\(\s*\)|\[\s*\]", "", text)
    text = re.sub(r"\s+([,;:])", r"\1", text)
    return collapse_spaces(text.lstrip(",;: "))


SPEC = Spec(
    name="NOSTOPWORD", version=2, protocol="validated",
    transformation="every whole token whose lower-cased form is an NLTK stop word removed",
    constraints=(KEPT_WORDS, WORDS_LEFT),
    picker="deterministic (every stop word outside KEPT)", choose=every,
    params=(Param("as_written", bool, False, "TextAttack words matched as written and cut out in place (the "
                                             "paper's); False: whole whitespace tokens matched lower-cased"),),
    facts={"stopwords": "nltk-english-179", "match": "lowercased whole token (punctuation around it kept)",
           "kept": sorted(KEPT) + ["negated auxiliaries (n't, split 'don t')"],
           "punctuation": "separators doubled by a removal made one (',,' ', ,' ';;' -> one; none before a "
                          "closing mark or sentence end, none after an opening mark); the query's own kept"})


class NoStopword(SpecGenerator):
    """Drop each whole token whose lower-cased form is an NLTK stop word.

    Tokens are whitespace-separated; leading and trailing punctuation is not part of the word and
    stays ("Don't stop it!" -> "stop!"). A stop word is never cut out of a longer token: "(i.e.,"
    keeps its "i", "and/or" stays, "U.S." keeps its "S". Not applicable when the query has no stop
    word, or when no word would remain (e.g. "what is it"). Each removed word takes the
    whitespace before it along (after it, when it opens the token: "(the cat)" -> "(cat)");
    whitespace runs then collapse to one space. With the spec's ``as_written`` (the paper
    protocol's): TextAttack words that are stop words as written, cut out wherever they are.
    """

    name = "NOSTOPWORD"
    spec = SPEC

    def config(self) -> dict:
        return self.spec.config()

    def resources(self) -> List[Resource]:
        return [stopwords_resource()]

    def propose(self, text: str, rng: np.random.Generator) -> List[Candidate]:
        return stopword_candidates(text, self.param("as_written"))

    def whole(self, text: str, chosen: List[Candidate]) -> Candidate:
        if self.param("as_written"):
            words = len(word_spans(text))
        else:
            words = sum(1 for m in _TOKEN.finditer(text) if any(c.isalnum() for c in m.group(0)))
        return Candidate(Edit(tuple(c.edit.spans[0] for c in chosen)), {"removed": len(chosen), "words": words})

    def realise(self, text: str, chosen: List[Candidate]) -> Perturbation:
        """Each removed word takes the whitespace before it along (after it when it opens the
        token), then :func:`_tidy` mends the punctuation; ``as_written``: the words cut out,
        whitespace collapsed."""
        removed = [c.edit.spans[0][:2] for c in chosen]
        words = [text[s:e] for s, e in removed]
        detail = f"removed {len(words)}: " + " ".join(words)
        if self.param("as_written"):
            return Perturbation(collapse_spaces(Edit(tuple(c.edit.spans[0] for c in chosen)).apply(text)), True, detail)
        pieces, last = [], 0
        for s, e in removed:
            if s > 0 and not text[s - 1].isspace() and e < len(text) and not text[e].isspace():
                pass  # inside punctuation on both sides, e.g. "(it)": drop the word only
            elif s > last and text[s - 1].isspace():
                while s > last and text[s - 1].isspace():
                    s -= 1
            else:
                while e < len(text) and text[e].isspace():
                    e += 1
            pieces.append(text[last:s])
            last = e
        pieces.append(text[last:])
        return Perturbation(_tidy(JOIN.join(pieces)), True, detail)
