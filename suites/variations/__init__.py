"""Suite ``variations``: ORIGINAL plus the eight query-variation sets of RoDR (the protocol and
the outputs: :mod:`suites.variations.suite`).

- ``subsets``: the applied-only / valid-only figures and the human-valid rates of each set;
- ``protocol``: the ``--protocol validated|rodr`` record and its console block;
- ``draws``: several generation seeds in one run (``--generation-seeds``);
- ``suite``: :class:`VariationsConfig`, building the sets, the run, the CLI options and
  :data:`SUITE` (registered as ``suites.variations:SUITE``); the only module that imports the
  other three.
"""
from suites.variations.suite import SUITE, VARIATIONS_OPTIONS, VariationsConfig, VariationsSuite, build_sets, run

__all__ = ["SUITE", "VARIATIONS_OPTIONS", "VariationsConfig", "VariationsSuite", "build_sets", "run"]
