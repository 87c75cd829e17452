"""The one engine: a transformation's candidates -> the spec's constraints, in order -> the picker.

A generator's transformation proposes :class:`Candidate` edits (an :class:`perturb.spec.Edit` and
the context its constraints read: the target word, its measured values); :func:`judge` runs the
spec's constraints on each candidate in the spec's order, stopping at the first refusal and
recording it (:class:`Refusal`: which candidate, which constraint, why); a picker then draws among
the passing candidates with the query's random generator (:func:`pick_word_then_candidate`,
TextFlint's ``WordSubstitute`` draw; :func:`uniform`; :func:`every`). :func:`run` is the loop a
generator runs (:meth:`SpecGenerator.engine`): propose, judge, pick, then the ``result``
constraints on the picked edits as one; :func:`draw_passing` is the loop of a transformation that
draws one edit at a time (a refused draw is drawn again). The constraints, their parameters and
thresholds are the spec's (:class:`perturb.spec.Spec`); nothing here holds a value of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from perturb.base import Generator, Perturbation
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


def count_refusals(refused: Sequence[Refusal]) -> Dict[str, int]:
    """How many candidates each constraint refused (constraints in the order they first refused)."""
    out: Dict[str, int] = {}
    for r in refused:
        out[r.constraint] = out.get(r.constraint, 0) + 1
    return out


@dataclass
class Judged:
    """The outcome of :func:`judge`: the passing candidates in proposal order, and the refusals."""

    passed: List[Candidate]
    refused: List[Refusal]

    def why(self) -> Dict[str, int]:
        """How many candidates each constraint refused."""
        return count_refusals(self.refused)


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


def judge(constraints: Sequence[Constraint], candidates: Sequence[Candidate],
          stage: Union[str, Sequence[str]] = "edit") -> Judged:
    """Every candidate through the ``stage`` constraints of ``constraints`` in order (the first
    refusal stops it). A candidate edit is judged by the target constraints too: its context names
    its target word. ``stage`` may name several stages, judged in that order."""
    stages = ("target", "edit") if stage == "edit" else (stage,) if isinstance(stage, str) else tuple(stage)
    ordered = [c for st in stages for c in constraints if c.judges == st]
    passed, refused = [], []
    for cand in candidates:
        for c in ordered:
            verdict = c.check(cand.edit, cand.context)
            if not verdict.passed:
                refused.append(Refusal(cand, c.name, verdict.reason))
                break
        else:
            passed.append(cand)
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


# --------------------------------------------------------------------------- pickers
#: a picker: the passing candidates (proposal order) and the query rng -> the candidates it picks
Picker = Callable[[Sequence[Candidate], np.random.Generator], List[Candidate]]


def uniform(cands: Sequence[Candidate], rng: np.random.Generator) -> List[Candidate]:
    """One passing candidate, uniform (one draw of the query rng); none without a candidate."""
    return [cands[int(rng.integers(len(cands)))]] if cands else []


def every(cands: Sequence[Candidate], rng: np.random.Generator) -> List[Candidate]:
    """Every passing candidate, in proposal order (no draw)."""
    return list(cands)


def word_then_candidate(cands: Sequence[Candidate], rng: np.random.Generator) -> List[Candidate]:
    """:func:`pick_word_then_candidate` as a picker."""
    picked = pick_word_then_candidate(cands, rng)
    return [picked[0]] if picked else []


# --------------------------------------------------------------------------- the loops
@dataclass
class Outcome:
    """What :func:`run` or :func:`draw_passing` decided: the picked candidates (none: not applied)
    and every refusal on the way."""

    chosen: List[Candidate]
    refused: List[Refusal]

    def why(self) -> Dict[str, int]:
        return count_refusals(self.refused)


def run(constraints: Sequence[Constraint], candidates: Sequence[Candidate], pick: Picker,
        rng: np.random.Generator, whole: Optional[Callable[[List[Candidate]], Candidate]] = None) -> Outcome:
    """The engine: ``candidates`` through the target and edit constraints (:func:`judge`), ``pick``
    among the passing ones, then the ``result`` constraints on ``whole(picked)`` (the picked edits
    as one candidate; a refusal there leaves nothing picked)."""
    judged = judge(constraints, candidates)
    chosen, refused = list(pick(judged.passed, rng)), list(judged.refused)
    if chosen and whole is not None:
        r = first_refusal(constraints, whole(chosen), "result")
        if r is not None:
            refused.append(r)
            chosen = []
    return Outcome(chosen, refused)


def draw_passing(constraints: Sequence[Constraint], draw: Callable[[], Optional[Candidate]], attempts: int,
                 refused: Optional[List[Refusal]] = None) -> Optional[Candidate]:
    """Up to ``attempts`` calls of ``draw`` (a transformation's seeded draw of one candidate; None:
    nothing drawn), the first whose candidate passes the edit constraints; each refusal is added to
    ``refused``. None when no draw passes."""
    for _ in range(attempts):
        cand = draw()
        if cand is None:
            continue
        r = first_refusal(constraints, cand)
        if r is None:
            return cand
        if refused is not None:
            refused.append(r)
    return None


# --------------------------------------------------------------------------- the generator
class SpecGenerator(Generator):
    """A generator run by the engine: its ``spec`` (:class:`perturb.spec.Spec`) and its
    transformation (:meth:`propose`, and where the default does not fit :meth:`realise` and
    :meth:`whole`); :meth:`engine` is the loop."""

    spec: Any = None

    @property
    def max_query_chars(self) -> Optional[int]:  # type: ignore[override]
        """The spec's ``max_query_chars`` parameter where it declares one (:attr:`perturb.base.Generator.max_query_chars`)."""
        declared = any(p.name == "max_query_chars" for p in self.spec.params)
        return self.param("max_query_chars") if declared else None

    @property
    def constraints(self) -> tuple:
        """The constraints this generator runs: the spec's, or those it was made with
        (``_constraints``, :meth:`perturb.spec.Spec.constraints_with`)."""
        return self.__dict__.get("_constraints") or self.spec.constraints

    def param(self, name: str) -> Any:
        """The value of the spec's parameter ``name`` for this generator (``_params`` when it was
        made with other values, :meth:`perturb.spec.Spec.param_values`)."""
        values = self.__dict__.get("_params")
        return (values if values is not None else self.spec.param_values())[name]

    def propose(self, text: str, rng: np.random.Generator) -> Sequence[Candidate]:
        """The transformation: every candidate edit of ``text``, in a fixed order."""
        raise NotImplementedError

    def whole(self, text: str, chosen: List[Candidate]) -> Optional[Candidate]:
        """The picked edits as one candidate, for the spec's ``result`` constraints (None: none)."""
        return None

    def realise(self, text: str, chosen: List[Candidate]) -> Perturbation:
        """``text`` with the picked edits (default: the one picked edit, its ``detail`` recorded)."""
        edit = chosen[0].edit
        return Perturbation(edit.apply(text), True, edit.detail)

    def engine(self, text: str, candidates: Sequence[Candidate], rng: np.random.Generator) -> Perturbation:
        """The one loop (:func:`perturb.engine.run`): ``candidates`` through :attr:`constraints` in
        order, the spec's picker, the ``result`` constraints; the refusal counts ride along."""
        out = run(self.constraints, candidates, self.spec.choose or uniform, rng,
                  lambda chosen: self.whole(text, chosen))
        done = self.realise(text, out.chosen) if out.chosen else Perturbation(text, False, "")
        return replace(done, refused=out.why())

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        return self.engine(text, self.propose(text, rng), rng)

