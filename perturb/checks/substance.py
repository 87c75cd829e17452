"""Substance of a variation set: which words its changes touch.

A set can be valid and applied to many queries yet only ever edit filler words ("especially",
"using"): a retriever that matches content words is then barely tested. For each changed query the
words the change touches are the original's words in the replace/delete blocks of a word-level
diff of the two texts; a change is **on a content word** when one of them is a NOUN, PROPN, main
VERB or ADJ of the original (spaCy, the tagger the generators use). NOSTOPWORD removes only stop
words and EXTRAPUNC touches no word, by design.
"""
from __future__ import annotations

import collections
import difflib
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

CONTENT = ("NOUN", "PROPN", "VERB", "ADJ")
TOP = 3
_WORD = re.compile(r"\w+(?:['’-]\w+)*")


def touched(original: str, variation: str) -> List[Tuple[int, int]]:
    """The (start, end) character spans of the original's words in the diff's replace/delete blocks."""
    a = [(m.start(), m.end(), m.group(0).lower()) for m in _WORD.finditer(original)]
    b = [m.group(0).lower() for m in _WORD.finditer(variation)]
    sm = difflib.SequenceMatcher(a=[w for _, _, w in a], b=b, autojunk=False)
    return [a[i][:2] for op, i1, i2, _, _ in sm.get_opcodes() if op in ("replace", "delete") for i in range(i1, i2)]


@dataclass(frozen=True)
class Substance:
    changed: int  # queries changed
    content: int  # of those, changes touching a content word
    top: Tuple[Tuple[str, int], ...]  # the most touched words (lower case) and their counts

    @property
    def content_share(self) -> Optional[float]:
        return self.content / self.changed if self.changed else None

    def top_text(self) -> str:
        """``word 14%; word 9%`` of the changed queries, or empty."""
        if not self.changed:
            return ""
        return "; ".join(f"{w} {100.0 * c / self.changed:.0f}%" for w, c in self.top)


def parse_originals(texts: Sequence[str]) -> Dict[str, object]:
    """text -> its spaCy tagging (the tagging copy, as the generators tag it), each distinct text once."""
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    distinct = list(dict.fromkeys(texts))
    # the whole pipeline: without the parser, spaCy tags some auxiliaries and verbs otherwise
    parsed = parsing.parse([tagging_copy(t) for t in distinct], 64) if distinct else []
    return dict(zip(distinct, parsed))


def substance_of(originals: Sequence[str], variations: Sequence[str], applied: Sequence[bool],
                 docs: Optional[Dict[str, object]] = None) -> Substance:
    """The :class:`Substance` of one set: ``originals[i]`` -> ``variations[i]`` where ``applied[i]``.
    ``docs``: text -> tagging of the originals (:func:`parse_originals`), made here when not given."""
    idx = [i for i, a in enumerate(applied) if a]
    if docs is None:
        docs = parse_originals([originals[i] for i in idx])
    changed = content = 0
    words: collections.Counter = collections.Counter()
    for i in idx:
        text, new = originals[i], variations[i]
        changed += 1
        spans = touched(text, new)
        content += any(t.pos_ in CONTENT for t in docs[text] if any(s <= t.idx < e for s, e in spans))
        words.update({text[s:e].lower() for s, e in spans})
    top = tuple(sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP])
    return Substance(changed, content, top)


def substance_of_sets(originals: Dict[str, str], sets) -> Dict[str, Substance]:
    """Set name -> :class:`Substance` of every generated set (``originals``: qid -> query text), over
    the rows whose query id is among the originals."""
    sets = [vs for vs in sets if vs.status == "ok"]
    # only the rows whose original is known (an imported set may name query ids the originals lack)
    rows = {vs.name: [(originals[q], t, a) for q, t, a in zip(vs.qids, vs.texts, vs.applied) if q in originals]
            for vs in sets}
    docs = parse_originals([o for vs in sets for o, _, a in rows[vs.name] if a])  # once for every set
    return {vs.name: substance_of([r[0] for r in rows[vs.name]], [r[1] for r in rows[vs.name]],
                                  [r[2] for r in rows[vs.name]], docs) for vs in sets}
