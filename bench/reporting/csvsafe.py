"""CSV cells safe to open in a spreadsheet: the rule and the one writer live in
:mod:`bench.core.sheet` (``csv_cell``, ``csv_text``), which every CSV file drbench writes uses;
re-exported here for the reporting commands."""
from __future__ import annotations

from bench.core.sheet import csv_cell, csv_text, formula_risk

__all__ = ["csv_cell", "csv_text", "formula_risk"]
