"""EXTRAPUNC: one to three identical successive marks from ``, . ? !`` appended at the end."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import draw_marks
from perturb.engine import Candidate, SpecGenerator
from perturb.spec import Edit, Param, Spec, Veto

MARKS = (",", ".", "?", "!")


def append_marks(text: str, marks: Sequence[str], max_repeat: int,
                 rng: np.random.Generator) -> Optional[Tuple[str, str]]:
    """The EXTRAPUNC operation (both protocols): ``(text with the marks, the marks)``, the marks
    drawn by :func:`perturb.resources.words.draw_marks` and put right after the last non-space
    character (trailing whitespace dropped); None for an empty or whitespace-only text (no draw)."""
    base = text.rstrip()
    if not base:
        return None
    added = draw_marks(marks, max_repeat, rng)
    return base + added, added


class NotBlank(Veto):
    """An empty or whitespace-only query is left alone: there is no query to end."""

    name = "not blank"
    description = "the query has a non-space character"

    def refuses(self, text: str) -> bool:
        return not text.strip()

    def reason(self, edit, context=None):
        return "a blank query" if self.refuses(context["text"]) else None


NOT_BLANK = NotBlank()

#: EXTRAPUNC's parameters, both protocols (``label``: the detail's first word, before the marks)
PARAMS = (Param("marks", str, "".join(MARKS), "the marks one is drawn from, one character each"),
          Param("max_repeat", int, 3, "the most copies of the mark appended"))

SPEC = Spec(
    name="EXTRAPUNC", version=1, protocol="validated",
    transformation="k copies of one mark appended after the last non-space character",
    constraints=(NOT_BLANK,),
    picker="mark uniform over the marks, k uniform in 1..max_repeat (query rng)",
    facts={"position": "end"}, params=PARAMS + (Param("label", str, "appended", "the detail's first word"),))


class ExtraPunc(SpecGenerator):
    """Append ``k`` copies of one mark (mark uniform over ``, . ? !``; ``k`` uniform in 1..3).

    The marks go right after the last non-space character (trailing whitespace is dropped).
    Empty and whitespace-only queries are left alone (not applied): there is no query to end.
    """

    name = "EXTRAPUNC"
    spec = SPEC

    def __init__(self, marks: Optional[str] = None, max_repeat: Optional[int] = None):
        self._params = self.spec.param_values(marks=marks, max_repeat=max_repeat)
        if not self._params["marks"] or self._params["max_repeat"] < 1:
            raise ValueError("ExtraPunc needs at least one mark and max_repeat >= 1")

    marks = property(lambda self: tuple(self.param("marks")))
    max_repeat = property(lambda self: self.param("max_repeat"))

    def config(self) -> dict:
        return self.spec.config(marks="".join(self.marks), max_repeat=self.max_repeat)

    def propose(self, text: str, rng: np.random.Generator) -> List[Candidate]:
        """The one edit: the drawn marks in place of the trailing whitespace (none for a blank query)."""
        done = append_marks(text, self.marks, self.max_repeat, rng)
        base = len(text.rstrip())
        edit = Edit.replace(base, len(text), done[1], detail=f"{self.param('label')} {done[1]!r}") if done else Edit(())
        return [Candidate(edit, {"text": text})]
