"""Measurements of drbench (speed, coverage, power, the generators' validity and applicability),
run by hand, never by the test suite: ``python -m benchmarks.NAME`` or ``python benchmarks/NAME.py``
from the repository root. Helpers several scripts use live in one module each: :mod:`benchmarks.common`
(paths, the shared collections) and :mod:`benchmarks.backtrans_common`.
What tunes a generator (thresholds, fitted weights) is :mod:`benchmarks.tuning`, on the labelled
sets of ``benchmarks/data/validity/`` (the tests import it). None of it is installed: the product ships the fitted values,
each beside the code that reads it with the command that regenerates it."""
