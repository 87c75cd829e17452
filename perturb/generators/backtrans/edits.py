"""A round trip as word-level edits of the query (:class:`WordEdit`), candidates as sets of edits
(:class:`Candidate`, an :class:`perturb.spec.Edit`), and an edit set applied back to the query in its
own case (:func:`apply_edits`, :func:`sentence_case`); scored in :mod:`perturb.generators.backtrans.score`."""
from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from dataclasses import dataclass
from typing import AbstractSet, FrozenSet, List, Optional, Sequence, Tuple

from perturb.resources.words import capitalised_as_first, collapse_spaces, starts_capitalised
from perturb.spec import Edit

_TOKEN = re.compile(r"\w+(?:['-]\w+)*|[^\w\s]")
_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class WordEdit:
    """One word-level difference of a round trip from the query (a ``difflib`` opcode over their
    case-folded tokens): the part a candidate is made of and is scored on, not the candidate
    itself (:class:`Candidate`, whose ``text`` is the query with a set of them applied in its own
    case)."""

    start: int  # token span [start, end) of the query replaced by ``new``
    end: int
    new: Tuple[str, ...]  # case-folded tokens of the round trip


@dataclass(frozen=True)
class Candidate(Edit):
    """A BACKTRANS candidate, an :class:`perturb.spec.Edit` of the query as sent to the translators:
    ``spans`` the one span of whole words it changes (between the longest common beginning and
    end, widened to word edges), so ``apply(query) == text``; ``score`` its weakest word edit's evidence sum,
    ``detail`` what the set records when it is picked. Besides: the ``word_edits`` of one round
    trip it is made of (applied by :func:`apply_edits` and :func:`sentence_case`: case and spacing
    rules, which is why the span is read off the result), the ``pivots`` whose round trips
    propose them and the evidence ``reasons`` of its edits."""

    text: str = ""
    word_edits: Tuple[WordEdit, ...] = ()
    pivots: FrozenSet[str] = frozenset()
    reasons: Tuple[str, ...] = ()

    @classmethod
    def of(cls, query: str, text: str, word_edits: Sequence[WordEdit], pivots: AbstractSet[str], score: float,
           reasons: Tuple[str, ...]) -> "Candidate":
        """The candidate ``text`` of ``query`` (its spans read off the two texts)."""
        head = 0
        top = min(len(query), len(text))
        while head < top and query[head] == text[head]:
            head += 1
        tail = 0
        while tail < top - head and query[-1 - tail] == text[-1 - tail]:
            tail += 1
        while head > 0 and query[head - 1].isalnum():  # whole words: the span begins and ends at word edges
            head -= 1
        while tail > 0 and query[len(query) - tail].isalnum():
            tail -= 1
        span = (head, len(query) - tail, text[head:len(text) - tail])
        return cls((span,), kind="round trip", score=score, text=text, word_edits=tuple(word_edits),
                   pivots=frozenset(pivots), reasons=reasons)

    def described(self, old: Sequence[str]) -> "Candidate":
        """The candidate with its ``detail`` (``old``: the query's case-folded tokens)."""
        shown = ", ".join(f"{' '.join(old[e.start:e.end]) or '^'!r}->{' '.join(e.new) or '_'!r}"
                          for e in self.word_edits)
        return dataclasses.replace(
            self, detail=f"pivot:{'+'.join(sorted(self.pivots))} score {self.score:.2f} edits: {shown}")


def tokens(text: str) -> List[Tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _is_mark(token: str) -> bool:
    return not _WORD.search(token)


def without_added_marks(old: Sequence[str], new: Sequence[str]) -> Tuple[str, ...]:
    """``new`` without the bare punctuation tokens it adds to ``old`` (an edit's two sides): a round
    trip that puts a comma the query did not have ("smoking on" -> "smoking , on") changes only its
    punctuation there, so the comma is dropped and the rest of the edit kept. A mark that replaces
    one of the query's ("’" -> "'") is no addition and stays."""
    extra = sum(map(_is_mark, new)) - sum(map(_is_mark, old))
    if extra <= 0:
        return tuple(new)
    have = [t for t in old if _is_mark(t)]
    out = []
    for t in new:
        if _is_mark(t):
            if t in have:
                have.remove(t)
            elif extra > 0:
                extra -= 1
                continue  # added: dropped
        out.append(t)
    return tuple(out)


def edits_of(query: str, back: str, old: Optional[Sequence[str]] = None) -> List[WordEdit]:
    """The difflib edits from ``query`` to ``back`` (``old``: the query's case-folded tokens, when
    the caller has them already), each without the bare punctuation it would add
    (:func:`without_added_marks`); an edit left equal to the query's tokens is none."""
    a = [t.lower() for t, _, _ in tokens(query)] if old is None else list(old)
    b = [t.lower() for t, _, _ in tokens(back)]
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    out = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        new = without_added_marks(a[i1:i2], b[j1:j2])
        if new != tuple(a[i1:i2]):
            out.append(WordEdit(i1, i2, new))
    return out


def apply_edits(query: str, edits: Sequence[WordEdit], toks: Optional[Sequence[Tuple[str, int, int]]] = None,
                cased: bool = False) -> str:
    """The query with ``edits`` applied (character spans of its tokens replaced, right to left);
    ``toks``: ``tokens(query)``, when the caller has them already. ``cased``: the query is not all
    lower case, so the pronoun "i" an edit brings is written "I" ("i'm" -> "I am")."""
    toks = tokens(query) if toks is None else toks
    out = query
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        new = _join(_capital_i(e.new) if cased else e.new)
        if e.start < e.end:
            s, t = toks[e.start][1], toks[e.end - 1][2]
        else:
            s = t = toks[e.start][1] if e.start < len(toks) else len(query)
            new = (new + " ") if e.start < len(toks) else (" " + new)
        out = out[:s] + new + out[t:]
    return collapse_spaces(out)


def _capital_i(words: Sequence[str]) -> Tuple[str, ...]:
    """The pronoun "i" ("i", "i'm", "i'd", ...) as "I"; "i" of "i.e." left alone."""
    return tuple("I" + w[1:] if (w == "i" or w[:2] in ("i'", "i’")) and (k + 1 == len(words) or words[k + 1] != ".")
                 else w for k, w in enumerate(words))


def sentence_case(query: str, text: str, edits: Sequence[WordEdit], is_name=lambda word: False) -> str:
    """``text`` (the query with ``edits`` applied) in the query's sentence case, when an edit
    inserts before, replaces or drops the query's first word (:func:`perturb.resources.words.starts_capitalised`):
    the new first word is capitalised ("the Robots are" -> "The ...", "which company" -> "Which
    company"), and the old first word, moved behind an inserted one, is lower-cased when its
    capital only marked the start (:func:`perturb.resources.words.capitalised_as_first`: "The robots
    are"; not "NASA", "I" or a name, ``is_name``). Any other text is returned as it is."""
    first = [e for e in edits if e.start == 0]
    if not first or not starts_capitalised(query):
        return text
    e = first[0]
    m = re.search(r"[^\W\d_]+", text)
    if m and m.group(0).islower():
        text = text[:m.start()] + text[m.start()].upper() + text[m.start() + 1:]
    if e.end == 0 and e.new:  # an insertion before the first word: that word now comes after it
        old_first = tokens(query)[0][0]
        at = len(_join(e.new)) + 1
        if text[at: at + len(old_first)] == old_first and capitalised_as_first(query) and not is_name(old_first):
            text = text[:at] + old_first[0].lower() + text[at + 1:]
    return text


_BEFORE_MARK = re.compile(r" ([,.;:?!)])")


@functools.lru_cache(maxsize=65536)
def _joined(words: Tuple[str, ...]) -> str:
    return _BEFORE_MARK.sub(r"\1", " ".join(words))


def _join(words: Sequence[str]) -> str:
    return _joined(tuple(words))
