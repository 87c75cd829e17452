"""The Suite protocol: what a suite is, what it adds to the CLI, and how every consumer reads its
results. Consumers (``bench evaluate``, report, compare, leaderboard, gate, run folders) ask the
suite object for these declarations and never branch on a suite's name.

Built-in suites are registered lazily (``"module:attr"`` strings, nothing is imported until
used); other packages register theirs through the entry-point group ``drbench.suites``, naming a
:class:`Suite` instance.
"""
from __future__ import annotations

from typing import Any, Sequence

from bench.core.errors import BenchError
from bench.core.options import Option
from bench.core.registry import Registry

#: result layouts the generic consumers understand
LAYOUTS = ("sets", "fewshot")


class Suite:
    """Base class of a suite (subclass it, or provide the same attributes).

    - ``name``, ``description``: the registry key and the one-line help.
    - ``options``: the suite's own CLI options (:class:`~bench.core.options.Option`), added to
      ``bench evaluate`` under a group of the suite's name; options of other suites are refused.
    - ``shared``: ``dest`` names of the evaluate command's shared options the suite honours
      (beyond the model, dataset, seed, output and progress options every suite takes).
    - ``layout``: how its result file is laid out: ``"sets"`` (``sets`` compared with the
      ``reference`` set on per-query ``measures``; read by report, compare, leaderboard and gate)
      or ``"fewshot"`` (settings x classes x trials).
    - ``reference``: the set the others are compared with (``"ORIGINAL"``, ``"zero-shot"``).
    - ``gated``: whether ``bench gate`` compares two runs of the suite (``reason_not_gated``
      says why not).
    - ``takes_objects``: whether a model given as a Python object (:mod:`bench.models.objects`)
      can be evaluated (it cannot be trained: the suites that train say False).
    - ``run(values, spec, dataset, measures, out_dir, executor) -> int``: run from parsed
      options (``values``: a namespace with one attribute per option ``dest``), print the
      console output, write the run folder, return the exit code.
    """

    name: str = ""
    description: str = ""
    options: Sequence[Option] = ()
    shared: frozenset = frozenset()
    layout: str = "sets"
    reference: str = "ORIGINAL"
    gated: bool = False
    reason_not_gated: str = ""
    takes_objects: bool = False  # whether a model object (bench.evaluate(model=obj)) can be evaluated

    def run(self, values: Any, spec, dataset, measures, out_dir, executor) -> int:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<suite {self.name}>"


SUITES: Registry = Registry("suite", "drbench.suites")
SUITES.register("variations", "suites.variations:SUITE")
SUITES.register("fewshot", "suites.fewshot:SUITE")
SUITES.register("domain", "suites.domain:SUITE")


def suite_named(name: str) -> Suite:
    suite = SUITES.get(name)
    if isinstance(suite, type):
        suite = suite()
    for attr in ("name", "layout", "options", "run"):
        if not hasattr(suite, attr):
            raise BenchError(f"suite {name!r} does not follow the Suite protocol (no {attr!r}); see "
                             f"bench.results.suite.Suite")
    if suite.layout not in LAYOUTS:
        raise BenchError(f"suite {name!r} declares layout {suite.layout!r}; known layouts: {', '.join(LAYOUTS)}")
    return suite


class _Unregistered(Suite):
    """A result file of a suite that is not installed: read by its layout alone."""

    def __init__(self, name: str, layout: str):
        self.name, self.layout = name, layout


def suite_of(run_or_result: Any) -> Suite:
    """The suite of a run (or of a loaded ``result.json`` dict). A result of a suite that is not
    installed is read generically: as ``"sets"`` when it has ``sets``, else ``"fewshot"``."""
    data = run_or_result.result if hasattr(run_or_result, "result") else run_or_result
    name = str(data.get("suite") or "")
    if name and name in SUITES:
        return suite_named(name)
    return _Unregistered(name, "sets" if isinstance(data.get("sets"), list) and data.get("measures") else "fewshot")


def layout_of(data: Any) -> str:
    return suite_of(data).layout

