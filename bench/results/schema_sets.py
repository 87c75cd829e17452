"""Typed models of a result file, part 2: the ``"sets"`` layout (suites ``variations`` and
``domain``), built on the header and blocks of :mod:`bench.results.schema_common`."""
from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional, TypedDict, Union

from bench.results.schema_applicability import Applicability, AppliedOnlyAverage
from bench.results.schema_common import (DatasetEntry, DdrTraining, Header, ModelTraining, PairwiseStatistics, Retrieval,
                                         SetsStatistics)
from bench.results.schema_draws import DrawsBlock

class _SetEntryRequired(TypedDict):
    name: Annotated[str, "set name (ORIGINAL, MISSPELL, ...; domain: zero-shot, DR, REM, REM+DAM)"]


class SetEntry(_SetEntryRequired, total=False):
    """One evaluated set: a variation set of the queries, or (domain) one system on the same queries."""

    label: Annotated[str, "display label, with the generator's settings (BACKTRANS[spa,apertium])"]
    status: Annotated[str, "ok, or missing when the set could not be built (then only name, label, status, "
                           "source, config, n_queries and reason)"]
    reason: Annotated[str, "status missing: why, and how to install what is missing"]
    source: Annotated[str, "variations: generated, or frozen (read from --variations)"]
    config: Annotated[Dict[str, Any], "variations: settings of the generator"]
    fingerprint: Annotated[str, "variations: hash of the set's texts"]
    description: Annotated[str, "domain: the system in words"]
    n_queries: Annotated[int, "queries in the set"]
    n_applied: Annotated[int, "queries the generator changed (0 for ORIGINAL)"]
    n_evaluated: Annotated[int, "queries evaluated (every query, changed or not)"]
    applicability: Annotated[Optional[float], "variations: n_applied / n_evaluated, the share of the judged queries "
                                              "the generator changed (variation sets only)"]
    edit_types: Annotated[Dict[str, int], "variations: edit type (the detail's text before its first ':', else its "
                                          "first word): changed queries"]
    metrics: Annotated[Dict[str, Optional[float]], "measure: mean over the evaluated queries"]
    drop_rate: Annotated[Optional[Dict[str, Optional[float]]],
                         "measure: (M_reference - M_set) / M_reference, null when M_reference is 0; null for the "
                         "reference set"]
    too_long: Annotated[Dict[str, Any], "only when queries exceed the generator's bound: n, max_chars, reason"]
    truncated: Annotated[Dict[str, Any], "only when the model cuts queries: n, edits_cut (now not applied), max_length"]
    draws: Annotated[DrawsBlock, "variations with several generation seeds: the set's draws (its metrics, drop rate "
                                 "and per-query rows are the means over them)"]
    checkpoint: Annotated[Optional[str], "domain: the trained checkpoint's folder name, null for zero-shot"]
    training: Annotated[Optional[Union[ModelTraining, DdrTraining]], "domain: summary of the system's training"]


class SetsSummary(TypedDict, total=False):
    """An average over sets (variations: VARIATIONS (AVG.), the unweighted mean of the ok variation sets)."""

    sets: Annotated[List[str], "the sets averaged"]
    metrics: Annotated[Dict[str, Optional[float]], "measure: the average"]
    drop_rate: Annotated[Dict[str, Optional[float]], "measure: drop rate of the average against the reference"]
    applied_only: Annotated[AppliedOnlyAverage, "variations: the mean of the sets' applied-only drop rates with a "
                                                "bootstrap interval (the paper's average is kept above)"]


class SubsetEntry(TypedDict, total=False):
    """variations: one set on a subset of its queries, ORIGINAL on the same queries."""

    n: Annotated[int, "queries the figures rest on"]
    metrics_original: Annotated[Dict[str, Optional[float]], "measure: mean of ORIGINAL on these queries (null: n = 0)"]
    metrics: Annotated[Dict[str, Optional[float]], "measure: mean of the set on these queries (null: n = 0)"]
    drop_rate: Annotated[Dict[str, Optional[float]], "measure: (M_original - M_set) / M_original on these queries, "
                                                     "null when M_original is 0 or n = 0"]


class SubsetBlock(TypedDict, total=False):
    """variations: the figures of every variation set on one subset of its queries."""

    description: Annotated[str, "which queries the subset keeps"]
    sets: Annotated[Dict[str, SubsetEntry], "set name: its figures on the subset"]
    statistics: Annotated[Optional[SetsStatistics], "the run's paired tests on the subset (its own correction family "
                                                    "per measure; sets with n = 0 left out); null when not computed"]


class LabelFileEntry(TypedDict, total=False):
    """A human label file given to the run (--labels)."""

    file: Annotated[str, "file name"]
    format: Annotated[str, "audit-sample (labelled audit_sample.tsv) or penha-csv"]
    sha256: Annotated[str, "hash of the file's bytes"]
    rows: Annotated[int, "data rows read"]
    labelled: Annotated[int, "rows with a label (1/0) in the valid column"]


class HumanValidity(TypedDict, total=False):
    """Human labels of one variation set's pairs of this run."""

    n_applied: Annotated[int, "queries the generator changed"]
    n_labelled: Annotated[int, "of those, queries with a label that judges this run's variation text"]
    n_valid: Annotated[int, "labelled valid (the variation keeps the information need)"]
    n_invalid: Annotated[int, "labelled not valid"]
    n_unlabelled: Annotated[int, "changed queries without a label (left out of the valid-only figures)"]
    valid_rate: Annotated[Optional[float], "n_valid / n_labelled (null when nothing is labelled)"]
    valid_rate_ci: Annotated[List[Optional[float]], "[low, high] Wilson score 95% interval of valid_rate"]


class HumanLabels(TypedDict, total=False):
    """variations with --labels: the label files, per-set human-valid rates, and labels not used."""

    files: Annotated[List[LabelFileEntry], "the label files, in the order given"]
    interval: Annotated[str, "the interval of valid_rate"]
    sets: Annotated[Dict[str, HumanValidity], "variation set name: its labels"]
    unused: Annotated[Dict[str, int], "labels not used, by reason: set_not_in_run, query_not_in_run, not_applied, "
                                      "variation_differs (the run's variation is another text)"]
    unknown_sets: Annotated[List[str], "set names in the label files that are not among the run's sets"]


class _SetsRequired(Header):
    measures: Annotated[List[str], "the measures, in column order of per_query.csv"]
    sets: Annotated[List[SetEntry], "the sets, reference first, in row order of per_query.csv"]


class SetsResult(_SetsRequired, total=False):
    """A result file of layout "sets" (suites variations and domain): named sets compared with a
    reference set on per-query measures. A suite may add keys of its own."""

    retrieval: Annotated[Retrieval, "how documents were retrieved"]
    missing_sets: Annotated[List[str], "names of the sets whose status is not ok"]
    protocol: Annotated[str, "variations: the generators' protocol: validated (the default) or rodr (the paper's "
                             "unconstrained operations); for frozen sets (--variations) the protocols their configs "
                             "record, joined with '+' (imported: none recorded)"]
    applicability: Annotated[Applicability, "variations: the applicability threshold and the sets below it"]
    summary: Annotated[Dict[str, SetsSummary], "name: average over sets (VARIATIONS (AVG.))"]
    notes: Annotated[List[str], "notes of the run (frozen sets aligned, protocol remarks, ...)"]
    per_query_file: Annotated[str, "the per-query table beside this file (per_query.csv)"]
    generation_seeds: Annotated[List[int], "variations with --generation-seeds: the seeds the sets were drawn with "
                                           "(absent: one draw with the run seed)"]
    per_query_sha256: Annotated[str, "SHA-256 of the per-query table (as in per_query.sha256): readers refuse a "
                                     "table that does not match it"]
    statistics: Annotated[Optional[SetsStatistics], "paired statistics against the reference set, null when "
                                                    "they could not be computed"]
    subsets: Annotated[Dict[str, SubsetBlock], "variations: extra figures on subsets of each set's queries beside "
                                               "the headline (all queries): applied_only (the queries the generator "
                                               "changed) always, valid_only (changed and labelled valid) with --labels"]
    human_labels: Annotated[HumanLabels, "variations with --labels: per-set human-valid rates"]
    baseline: Annotated[str, "domain: the reference set (zero-shot)"]
    source_dataset: Annotated[DatasetEntry, "domain: the dataset the systems were trained on"]
    settings: Annotated[Dict[str, Any], "domain: training settings (train, rem_lr, mlm, rem)"]
    pairwise: Annotated[PairwiseStatistics, "domain: DDR's claims as paired tests (REM+DAM vs DR, REM+DAM vs REM)"]
    deviations: Annotated[List[str], "domain: the deviations from DDR active in the run (ids as in "
                                     "docs/methods.md)"]
