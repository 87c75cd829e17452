"""The contract every query-variation generator follows.

A generator is a pure function of (query text, random generator). In a batch the random
generator is derived from (run seed, generator name, query *text*) by :func:`query_rng`, so a
query's variation depends only on the seed, the generator and the query: not on iteration order,
on which other generators ran, or on the query's id (two ids with one text get one variation).
That is what lets :mod:`perturb.io.cache` store variations by content.

Invariant: ``Perturbation.applied`` is True if and only if ``text`` differs from the input after
normalisation (case folded, whitespace collapsed: :func:`normalise`). A case-only or
whitespace-only change is not a variation: the input comes back unchanged and not applied.
:meth:`Generator.perturb` enforces it, whatever ``_perturb`` returns; every applied row carries a
non-empty ``detail`` naming its edit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.core.seeding import rng_for


def query_rng(seed: int, generator: str, text: str) -> np.random.Generator:
    """The random generator of one query: :func:`bench.core.seeding.rng_for` keyed by the query text."""
    return rng_for(seed, generator, "text:" + text)


@dataclass(frozen=True)
class Perturbation:
    """What a generator did to one query."""

    text: str
    applied: bool
    detail: str = ""  # e.g. "typo:swap 'security'->'secuirty'"; "" when not applied
    #: how many candidates each constraint refused on the way (:meth:`perturb.engine.SpecGenerator.engine`); not compared
    refused: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Resource:
    """One external resource a generator needs, for `bench doctor`."""

    name: str
    found: bool
    where: str = ""  # path or package where it was found
    install: str = ""  # exact install line when missing
    note: str = ""


class ResourceMissing(RuntimeError):
    """A generator cannot run faithfully: the message names the resource and the install line."""


def normalise(text: str) -> str:
    """The form two texts are compared in to decide "applied": case-folded, whitespace collapsed.

    A change of case or of spacing only ("do" -> "DO", a double space) never counts as a variation.
    """
    return " ".join(text.casefold().split())


def same_query(a: str, b: str) -> bool:
    return normalise(a) == normalise(b)


def settle(text: str, out: Perturbation) -> Perturbation:
    """Enforce the invariant: applied iff the normalised text changed (detail only when applied)."""
    if out.text == text or same_query(out.text, text):
        return Perturbation(text, False, "", out.refused)
    return Perturbation(out.text, True, out.detail or "changed", out.refused)


class Generator:
    """Base class. Subclasses set ``name`` and implement ``_perturb`` (or, run by the engine,
    :class:`perturb.engine.SpecGenerator`'s transformation methods).

    ``label`` is the name shown wherever the set is named; generators whose output depends on a
    configuration that changes what a number means (e.g. the back-translation pivot) put it
    there: ``BACKTRANS[spa,apertium]``.
    """

    name: str = ""
    #: longest query (characters) this generator is run on; longer ones keep their text and count as not
    #: applied, and the set records how many and why (:func:`perturb.io.generation.generate`). None: no bound
    max_query_chars: Optional[int] = None
    #: why the bound exists (recorded with the count)
    max_query_reason: str = ""

    @property
    def label(self) -> str:
        return self.name

    def config(self) -> dict:
        """Everything that changes the output besides seed and text (recorded in result files)."""
        return {}

    def resources(self) -> List[Resource]:
        return []

    def check(self) -> None:
        """Raise ResourceMissing if the generator cannot run faithfully here."""
        missing = [r for r in self.resources() if not r.found]
        if missing:
            raise ResourceMissing(
                f"{self.name}: missing " + "; ".join(f"{r.name} (install: {r.install})" for r in missing)
            )

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        raise NotImplementedError

    def prefetch(self, items: Sequence[Tuple[str, str]]) -> bool:
        """Start, in the background, the seed-independent work a later :meth:`perturb_batch` of
        ``items`` needs, so other generators can run meanwhile (:func:`perturb.io.generation.generate_many`).
        The result must not change: only work whose outcome does not depend on when or with what
        it runs belongs here. Returns whether anything was started (default: nothing, False)."""
        return False

    def perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        return settle(text, self._perturb(text, rng))

    def perturb_batch(self, items: Sequence[Tuple[str, str]], seed: int) -> List[Perturbation]:
        """Perturb ``(query id, text)`` pairs; per-query rngs (:func:`query_rng`) make the result
        independent of order, ids and batch composition."""
        return [self.perturb(text, query_rng(seed, self.name, text)) for qid, text in items]


def edit_type(detail: str) -> str:
    """The edit type a ``detail`` names: the text before its first ``:`` ("" when it has none).

    Generators whose details follow ``<type>: <edit>`` (MISSPELL: ``ocr: 'systems'->'sy8tems' (s->8)``)
    can be counted per type from a variation set's detail column."""
    head, sep, _ = detail.partition(":")
    return head.strip() if sep else ""
