"""The Suite protocol: what a suite is, what it adds to the CLI, and how every consumer reads its
results. Consumers (``bench evaluate``, report, compare, leaderboard, gate, run folders) ask the
suite object for these declarations and never branch on a suite's name.

Built-in suites are registered lazily (``"module:attr"`` strings, nothing is imported until
used); other packages register theirs through the entry-point group ``drbench.suites``, naming a
:class:`Suite` instance.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

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
    - ``config_from_args(values, measures)``: the suite's typed config from the evaluation's
      options (``values``: one attribute per option ``dest``, a :class:`bench.config.EvaluateConfig`);
    - ``evaluate(config, spec, dataset, out_dir, executor) -> dict``: run, write the run folder and
      return the outcome (``{"result": <result.json dict>, "per_query": <csv text>, ...}``) without
      printing on stdout (status lines go to stderr);
    - ``render(outcome, out_dir, seconds=None) -> str``: the console report of an outcome (``bench
      evaluate`` prints the total time and, once the run folder is in place, its files);
    - ``run(values, spec, dataset, measures, out_dir, executor) -> int``: the command's path: the
      three above, the report printed; returns the exit code. A suite may instead implement
      ``run`` alone (older plug-ins): ``bench.evaluate`` then calls it, and its report is printed.
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

    def config_from_args(self, values: Any, measures) -> Any:  # pragma: no cover
        raise NotImplementedError

    def evaluate(self, config: Any, spec, dataset, out_dir, executor) -> dict:  # pragma: no cover
        raise NotImplementedError

    def render(self, outcome: dict, out_dir, seconds: Optional[float] = None) -> str:  # pragma: no cover
        raise NotImplementedError

    @property
    def returns_results(self) -> bool:
        """Whether the suite implements :meth:`evaluate` (else only :meth:`run`)."""
        return type(self).evaluate is not Suite.evaluate

    def run(self, values: Any, spec, dataset, measures, out_dir, executor) -> int:
        """The command's path: config, evaluate, the console report on stdout."""
        import sys
        import time

        if not self.returns_results:  # pragma: no cover
            raise NotImplementedError
        config = self.config_from_args(values, measures)
        t0 = time.perf_counter()
        outcome = self.evaluate(config, spec, dataset, out_dir, executor)
        sys.stdout.write(self.render(outcome, out_dir, time.perf_counter() - t0))
        return 0

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

