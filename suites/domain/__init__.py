"""Suite ``domain``: zero-shot transfer from a source to a target dataset, DDR's setting (the
systems and the outputs: :mod:`suites.domain.suite`).

- ``systems``: :class:`DomainConfig`, the four systems, DDR's training order and checkpoints, and
  the deviations from DDR a run reports (also used by ``bench adapt``);
- ``suite``: the run, the console table and :data:`SUITE` (registered as ``suites.domain:SUITE``);
  it imports ``systems``, never the other way round.
"""
from suites.domain.systems import (BASELINE, DESCRIPTIONS, PAIRS, SYSTEMS, DomainConfig, attach_rem, build_systems,
                                   ddr_deviations)
from suites.domain.suite import DOMAIN_OPTIONS, SUITE, DomainSetup, DomainSuite, domain_table, render, run

__all__ = ["BASELINE", "DESCRIPTIONS", "DOMAIN_OPTIONS", "DomainConfig", "DomainSuite", "PAIRS", "SUITE", "SYSTEMS",
           "DomainSetup", "attach_rem", "build_systems", "ddr_deviations", "domain_table", "render", "run"]
