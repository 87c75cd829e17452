"""Typed models of the applicability figures of a variations run (computed by
:mod:`bench.results.applicability`), used by :mod:`bench.results.schema_common`."""
from __future__ import annotations

from typing import Annotated, Dict, List, Optional, TypedDict


class AppliedOnlyAverage(TypedDict, total=False):
    """variations: the applied-only companion of VARIATIONS (AVG.): the mean of the sets' applied-only drop rates."""

    definition: Annotated[str, "what is averaged, in words"]
    method: Annotated[str, "the interval in words"]
    interval: Annotated[str, "interval method: skew-t (the skewness-widened t interval), or percentile (the "
                             "bootstrap of runs written before it)"]
    B: Annotated[int, "bootstrap replicates (used by the percentile interval only)"]
    confidence: Annotated[float, "confidence level (two-sided central interval)"]
    seed: Annotated[int, "seed of the resampling (the run's seed)"]
    sets: Annotated[List[str], "the sets averaged (those with at least one changed query)"]
    excluded: Annotated[Dict[str, str], "set name: why it is left out of the average (no changed query)"]
    excluded_by_measure: Annotated[Dict[str, Dict[str, str]], "measure: {set: why it is left out on that measure "
                                                               "(ORIGINAL scores 0 on its changed queries)}"]
    drop_rate: Annotated[Dict[str, Optional[float]], "measure: mean of the averaged sets' applied-only drop rates "
                                                     "(null: no set to average)"]
    drop_rate_ci: Annotated[Dict[str, List[Optional[float]]], "measure: [low, high] interval"]
    interval_note: Annotated[Dict[str, Optional[str]], "measure: 'interval unreliable: k of n queries changed in any "
                                                       "of the S sets' (one set: 'in SET') when fewer than 10 judged "
                                                       "queries changed in any averaged set, else null"]
    n_sets: Annotated[Dict[str, int], "measure: sets averaged"]
    n_undefined: Annotated[Dict[str, int], "measure: percentile bootstrap replicates left out (0 for skew-t; an averaged set without a changed query "
                                           "in the resample, or ORIGINAL summing to 0 on that set's resampled "
                                           "changed queries)"]
    recomputed: Annotated[str, "only when read from a run written before this figure: where it was recomputed from "
                               "(never written to result.json)"]


class Applicability(TypedDict, total=False):
    """variations: the applicability threshold and the sets below it."""

    threshold: Annotated[float, "a set whose applicability (n_applied / n_evaluated) is below this share is flagged"]
    definition: Annotated[str, "applicability and the flag in words"]
    low_sets: Annotated[List[str], "the variation sets below the threshold"]
