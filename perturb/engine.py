"""The one engine: a transformation's candidates -> the spec's constraints, in order -> the picker.

A generator's transformation proposes :class:`Candidate` edits (an :class:`perturb.spec.Edit` and
the context its constraints read: the target word, its measured values); :func:`judge` runs the
spec's constraints on each candidate in the spec's order, stopping at the first refusal and
recording it (:class:`Refusal`: which candidate, which constraint, why); a picker then draws among
the passing candidates with the query's random generator (:func:`pick_word_then_candidate`,
TextFlint's ``WordSubstitute`` draw). The constraints, their parameters and thresholds are the
spec's (:class:`perturb.spec.Spec`); nothing here holds a value of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from perturb.spec import Constraint, Edit


@dataclass(frozen=True)
class Candidate:
    """One proposed edit and the context its constraints read (``word``: the target word;
    ``group``: what the picker groups candidates by, e.g. the target's span)."""

    edit: Edit
    context: Mapping[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> Any:
        return self.context.get("group")


@dataclass(frozen=True)
class Refusal:
    """A candidate a constraint refused, and why."""

    candidate: Candidate
    constraint: str
    reason: str


@dataclass
class Judged:
    """The outcome of :func:`judge`: the passing candidates in proposal order, and the refusals."""

    passed: List[Candidate]
    refused: List[Refusal]

    def why(self) -> Dict[str, int]:
        """How many candidates each constraint refused."""
        out: Dict[str, int] = {}
        for r in self.refused:
            out[r.constraint] = out.get(r.constraint, 0) + 1
        return out


def first_refusal(constraints: Sequence[Constraint], cand: Candidate, stage: str = "edit") -> Optional[Refusal]:
    """The first of ``constraints`` (in order) judging ``stage`` (:attr:`perturb.spec.Constraint.judges`)
    that refuses ``cand``, as a :class:`Refusal`; None when all pass."""
    for c in constraints:
        if c.judges != stage:
            continue
        verdict = c.check(cand.edit, cand.context)
        if not verdict.passed:
            return Refusal(cand, c.name, verdict.reason)
    return None


def judge(constraints: Sequence[Constraint], candidates: Sequence[Candidate], stage: str = "edit") -> Judged:
    """Every candidate through the ``stage`` constraints of ``constraints`` in order (the first
    refusal stops it). A candidate edit is judged by the target constraints too: its context names
    its target word."""
    stages = ("target", "edit") if stage == "edit" else (stage,)
    passed, refused = [], []
    for cand in candidates:
        r = next((x for x in (first_refusal(constraints, cand, st) for st in stages) if x is not None), None)
        if r is None:
            passed.append(cand)
        else:
            refused.append(r)
    return Judged(passed, refused)


def groups(cands: Sequence[Candidate]) -> List[Tuple[Any, List[Candidate]]]:
    """The candidates grouped by :attr:`Candidate.group`, groups and members in proposal order."""
    out: Dict[Any, List[Candidate]] = {}
    for c in cands:
        out.setdefault(c.group, []).append(c)
    return list(out.items())


def pick_word_then_candidate(cands: Sequence[Candidate], rng: np.random.Generator
                             ) -> Optional[Tuple[Candidate, int, int]]:
    """TextFlint's ``WordSubstitute`` draw: a group (target word) uniform among the groups with a
    passing candidate, then a candidate uniform within it. ``(candidate, groups, candidates in its
    group)``, or None without a candidate."""
    grouped = groups(cands)
    if not grouped:
        return None
    _, members = grouped[int(rng.integers(len(grouped)))]
    return members[int(rng.integers(len(members)))], len(grouped), len(members)
