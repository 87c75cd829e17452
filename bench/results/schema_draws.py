"""Typed models of the several-draws figures of a variations run (``--generation-seeds``; computed
by :mod:`bench.evaluation.draws`, laid out by :mod:`suites.variations.draws`), used by
:mod:`bench.results.schema_common`."""
from __future__ import annotations

from typing import Annotated, Dict, List, Optional, TypedDict


class DrawComponents(TypedDict, total=False):
    """Variance components of the drop rate (nested one-way ANOVA on its linearised values)."""

    within: Annotated[Optional[float], "s_e^2: mean over queries of the variance over draws (ddof 1)"]
    between: Annotated[Optional[float], "s_a^2: variance of the per-query means (ddof 1) minus within / G, floored at 0"]
    draw_share_1: Annotated[Optional[float], "share of a one-draw drop rate's variance due to the draw: "
                                             "s_e^2 / (s_a^2 + s_e^2)"]
    draw_share_G: Annotated[Optional[float], "the same with this run's G draws: (s_e^2/G) / (s_a^2 + s_e^2/G)"]


class DrawMeasure(TypedDict, total=False):
    """One measure of a set drawn several times."""

    drop_rates: Annotated[List[Optional[float]], "drop rate of each draw against ORIGINAL, in seed order"]
    drop_rate_mean: Annotated[Optional[float], "mean of the draws' drop rates (= the set's drop_rate)"]
    drop_rate_sd: Annotated[Optional[float], "SD of the draws' drop rates (ddof 1)"]
    drop_rate_ci: Annotated[List[Optional[float]], "[low, high] 95% variance-components interval over queries "
                                                   "and draws (skewness-widened t; see interval)"]
    metric_per_draw: Annotated[List[float], "the measure's mean in each draw, in seed order"]
    worst_metric: Annotated[float, "mean over queries of the lowest value over the draws (worst of N)"]
    worst_drop_rate: Annotated[Optional[float], "drop rate of the worst of N against ORIGINAL"]
    worst_drop_rate_ci: Annotated[List[Optional[float]], "[low, high] skewness-widened t interval of "
                                                         "worst_drop_rate"]
    n_changed: Annotated[int, "queries whose value differs from ORIGINAL's in at least one draw"]
    interval_note: Annotated[Optional[str], "'interval unreliable: k of n queries changed' when n_changed < 10, "
                                            "else null"]
    components: Annotated[DrawComponents, "variance components and the draw's share of the spread"]


class DrawsBlock(TypedDict, total=False):
    """variations with several generation seeds: the draws of one set."""

    seeds: Annotated[List[int], "the generation seeds, one draw each"]
    n_draws: Annotated[int, "number of draws"]
    sets: Annotated[List[str], "the draws' names in per_query.csv (NAME@g<seed>)"]
    fingerprints: Annotated[List[str], "each draw's set fingerprint (as a one-draw run records it)"]
    n_applied: Annotated[List[int], "queries each draw changed"]
    applicability: Annotated[List[Optional[float]], "each draw's n_applied / n_evaluated"]
    applied_rule: Annotated[str, "when the combined set counts a query as applied"]
    paired_tests_on: Annotated[str, "what the paired tests against ORIGINAL use (per-query means over draws)"]
    interval: Annotated[str, "the interval of drop_rate_ci in words"]
    worst: Annotated[str, "the worst-of-N figures in words"]
    measures: Annotated[Dict[str, DrawMeasure], "measure: its figures"]
