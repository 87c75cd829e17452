"""The words for a run's confidence intervals, from the run's own record: every renderer (HTML and
Markdown report, plots, headline notes) names the interval through these functions, so the report
cannot say "bootstrap" where result.json records a t interval.

The record is ``statistics.header.bootstrap`` of result.json: ``interval`` (``skew-t``, ``t``, ``bca``
or ``percentile``; files written before it was recorded used the percentile bootstrap), ``method``
(the full description, :data:`bench.evaluation.intervals.CI_DESCRIPTIONS`) and ``confidence``."""
from __future__ import annotations

from typing import Any, Mapping, Optional

#: the interval's name in a sentence (singular)
NAMES = {"skew-t": "skewness-widened t interval", "t": "Student t interval", "bca": "BCa bootstrap interval", "percentile": "percentile bootstrap interval"}
#: the short label of plots and table legends
SHORT = {"skew-t": "skew-t interval", "t": "t interval", "bca": "BCa bootstrap", "percentile": "percentile bootstrap"}
#: the interval of result files that do not record one
LEGACY = "percentile"


def record(header: Optional[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The ``bootstrap`` block of a statistics header (empty when absent)."""
    return (header or {}).get("bootstrap") or {}


def interval_key(header: Optional[Mapping[str, Any]]) -> str:
    return str(record(header).get("interval") or LEGACY)


def interval_name(header: Optional[Mapping[str, Any]], plural: bool = False) -> str:
    """``Student t interval`` / ``BCa bootstrap interval`` / ``percentile bootstrap interval``."""
    key = interval_key(header)
    name = NAMES.get(key, f"{key} interval")
    return name + "s" if plural else name


def interval_label(header: Optional[Mapping[str, Any]]) -> str:
    """The short label (``t interval``, ``BCa bootstrap``, ``percentile bootstrap``)."""
    key = interval_key(header)
    return SHORT.get(key, key)


def confidence_percent(header: Optional[Mapping[str, Any]]) -> int:
    return int(round(100 * float(record(header).get("confidence", 0.95))))


def uses_resampling(header: Optional[Mapping[str, Any]]) -> bool:
    return interval_key(header) not in ("t", "skew-t")
