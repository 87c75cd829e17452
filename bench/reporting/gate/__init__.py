"""``bench gate``: does a candidate run hold against a baseline run? (the checks, the family, the
correction and the verdict: :mod:`bench.reporting.gate.verdict`; the contract: docs/gate.md).

- ``checks``: the checks from per-query arrays, their one-sided tests, the correction and the
  non-inferiority bounds;
- ``power``: the smallest regression each primary check detects with 80 % power, and the
  low-power warning (:func:`minimum_detectable` is also the rule of the report's small-n warning);
- ``render``: the verdict as Markdown and as GitHub Actions annotations;
- ``verdict``: :class:`GateOptions`, :class:`Verdict`, :func:`gate_arrays` and :func:`run_gate`,
  the only module that imports the other three.
"""
from bench.reporting.gate.power import DEFAULT_POWER, minimum_detectable
from bench.reporting.gate.verdict import CORRECTIONS, FAMILIES, VERDICTS, GateOptions, Verdict, gate_arrays, run_gate

__all__ = ["CORRECTIONS", "DEFAULT_POWER", "FAMILIES", "VERDICTS", "GateOptions", "Verdict", "gate_arrays",
           "minimum_detectable", "run_gate"]
