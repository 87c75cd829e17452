"""``bench compare``: a models x sets table of one metric with corrected significance markers,
and the drop rates of comparable run pairs (:mod:`bench.reporting.compare.table`).

- ``droprate``: the drop rate of VARIATIONS (AVG.) compared between every pair of comparable
  runs (bootstrap interval, swap test), as Markdown and CSV;
- ``table``: :class:`CompareTable` and :func:`compare`; it imports ``droprate``.
"""
from bench.reporting.compare.table import Cell, CompareTable, compare

__all__ = ["Cell", "CompareTable", "compare"]
