"""Typed models of a result file, part 2: the ``"fewshot"`` layout (settings x classes x trials;
suite ``fewshot``, FewDR protocol). Splits are ``base``, ``novel`` and ``all``; the measure is
R@cutoff (``measure_definition``). See :mod:`bench.results.schema_common` for the conventions.
"""
from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional, TypedDict

from bench.results.schema_common import Header, Retrieval, StatisticsHeader
from bench.results.schema_sets import SetEntry


class SplitValues(TypedDict, total=False):
    """One value per split (macro average over the split's classes)."""

    base: Annotated[Optional[float], "base classes"]
    novel: Annotated[Optional[float], "novel classes"]
    all: Annotated[Optional[float], "every class"]


class SplitLists(TypedDict, total=False):
    """One list per split, in trial order."""

    base: Annotated[List[Optional[float]], "base classes"]
    novel: Annotated[List[Optional[float]], "novel classes"]
    all: Annotated[List[Optional[float]], "every class"]


class MeanSd(TypedDict, total=False):
    """Mean and sample SD over trials."""

    mean: Annotated[Optional[float], "mean over trials"]
    sd: Annotated[Optional[float], "sample SD over trials (n-1)"]


class HeadlineKShot(TypedDict, total=False):
    """K-shot mean and SD per split."""

    base: Annotated[MeanSd, "base classes"]
    novel: Annotated[MeanSd, "novel classes"]
    all: Annotated[MeanSd, "every class"]


class TrainLog(TypedDict, total=False):
    """Summary of one training run (bench.training.loop.TrainLog.to_dict)."""

    seed: Annotated[int, "seed of the training run"]
    steps: Annotated[int, "optimizer steps"]
    examples: Annotated[int, "training examples"]
    first_loss: Annotated[Optional[float], "loss of the first step"]
    last_loss: Annotated[Optional[float], "loss of the last step"]
    mean_loss: Annotated[Optional[float], "mean loss over the steps"]


class SettingScores(TypedDict, total=False):
    """R@cutoff of one setting (zero-shot, basic, full-shot) per split and per class."""

    base: Annotated[Optional[float], "macro R@cutoff over the base classes"]
    novel: Annotated[Optional[float], "macro R@cutoff over the novel classes"]
    all: Annotated[Optional[float], "macro R@cutoff over every class"]
    per_class: Annotated[Dict[str, Optional[float]], "class: mean R@cutoff of its test queries"]
    query_mean: Annotated[SplitValues, "R@cutoff averaged over the split's test queries (not over classes)"]
    train: Annotated[TrainLog, "basic / full-shot: the training run"]
    n_train_queries: Annotated[int, "basic / full-shot: training queries used"]


class TrialStats(TypedDict, total=False):
    """One split of one K over its trials."""

    mean: Annotated[Optional[float], "mean over trials of the trial's macro R@cutoff"]
    sd: Annotated[Optional[float], "sample SD over trials (n-1)"]
    trials: Annotated[List[float], "the trials' macro R@cutoff"]
    per_query_sd: Annotated[Optional[float], "per test query SD (n-1) over trials, averaged over the split's queries"]
    query_mean: Annotated[Optional[float], "mean over trials of R@cutoff averaged over the split's test queries"]


class TrialResult(TypedDict, total=False):
    """One trial of one K."""

    trial: Annotated[int, "trial number (1-based)"]
    seed: Annotated[int, "seed of the trial's sample of training queries"]
    unit_seed: Annotated[int, "seed of the trial's training"]
    n_train_queries: Annotated[int, "training queries sampled"]
    train: Annotated[TrainLog, "the training run"]
    base: Annotated[Optional[float], "macro R@cutoff, base classes"]
    novel: Annotated[Optional[float], "macro R@cutoff, novel classes"]
    all: Annotated[Optional[float], "macro R@cutoff, every class"]
    winning_ratio: Annotated[SplitValues, "share of classes strictly better than zero-shot in this trial"]


class VsReference(TypedDict, total=False):
    """One K against the raw checkpoint (when basic learning made the zero-shot model)."""

    delta: Annotated[SplitValues, "mean over trials of the macro R@cutoff - the checkpoint's"]
    winning_ratio: Annotated[SplitValues, "share of the split's classes whose mean K-shot R@cutoff is strictly "
                                          "greater than the checkpoint's"]


class UsableClasses(TypedDict, total=False):
    """Classes with at least K training queries."""

    base: Annotated[List[str], "base classes"]
    novel: Annotated[List[str], "novel classes"]


class KResult(TypedDict, total=False):
    """One method at one K (number of training queries per class)."""

    base: Annotated[TrialStats, "base classes"]
    novel: Annotated[TrialStats, "novel classes"]
    all: Annotated[TrialStats, "every class"]
    per_class_mean: Annotated[Dict[str, float], "class: R@cutoff, mean over trials"]
    winning_ratio: Annotated[SplitValues, "share of the split's classes whose mean K-shot R@cutoff is strictly "
                                          "greater than zero-shot"]
    winning_ratio_per_trial: Annotated[SplitLists, "the same per trial"]
    trials: Annotated[List[TrialResult], "every trial"]
    steps_per_trial: Annotated[List[int], "optimizer steps of each trial's training, in trial order"]
    vs_checkpoint: Annotated[VsReference, "against the raw checkpoint (with basic learning only)"]
    usable_classes: Annotated[UsableClasses, "classes with at least K training queries"]


class GradientSegment(TypedDict, total=False):
    """Slope between two consecutive K."""

    from_k: Annotated[int, "lower K (0 = zero-shot)"]
    to_k: Annotated[int, "upper K"]
    delta: Annotated[float, "R@cutoff difference"]
    per_shot: Annotated[float, "delta / (to_k - from_k)"]


class BoostingGradient(TypedDict, total=False):
    """Novel R@cutoff against K."""

    split: Annotated[str, "the split (novel)"]
    reference: Annotated[str, "the setting at K 0 (zero-shot)"]
    points: Annotated[List[List[float]], "[K, R@cutoff] pairs, K 0 = zero-shot"]
    segments: Annotated[List[GradientSegment], "slopes between consecutive points"]


class ParameterCounts(TypedDict, total=False):
    """Parameters of the tuned dual encoder."""

    total: Annotated[int, "all parameters"]
    trainable: Annotated[int, "parameters trained"]


class EncodedCounts(TypedDict, total=False):
    """Texts encoded by tuned encoders (never cached)."""

    query: Annotated[int, "queries"]
    passage: Annotated[int, "passages"]


MethodResult = TypedDict("MethodResult", {
    "description": Annotated[str, "the method in words"],
    "training": Annotated[Dict[str, Any], "resolved training settings (bench.training TrainConfig)"],
    "tuning": Annotated[Dict[str, Any], "the method's tuning settings and architecture (bench.tuning)"],
    "deviations": Annotated[List[str], "departures from the method's paper active in this run "
                                       "(bench.tuning.config.method_deviations; docs/methods.md)"],
    "parameters": Annotated[ParameterCounts, "parameter counts"],
    "tied": Annotated[bool, "query and passage encoders share weights"],
    "basic": Annotated[SettingScores, "older results: the method's own basic learning (now shared: "
                                      "references.basic_learned)"],
    "k": Annotated[Dict[str, KResult], "K (as a string): results at that K"],
    "full-shot": Annotated[SettingScores, "training on every training query (when enabled)"],
    "boosting_gradient": Annotated[BoostingGradient, "novel R@cutoff against K"],
    "encoded_by_tuned_model": Annotated[EncodedCounts, "texts encoded by the tuned encoders"],
}, total=False)
MethodResult.__doc__ = "One parameter-efficient method over every setting."


class ClassSplit(TypedDict, total=False):
    """Which classes are base and which novel."""

    base: Annotated[List[str], "base classes"]
    novel: Annotated[List[str], "novel classes"]
    source: Annotated[str, "how the split was made (seeded(novel_ratio=..., seed=...) or a split file)"]
    left_out: Annotated[List[str], "classes in neither split"]


class ClassSize(TypedDict, total=False):
    """Queries of one class."""

    train: Annotated[int, "training queries"]
    test: Annotated[int, "test queries"]


class PlannedTrial(TypedDict, total=False):
    """One planned trial."""

    trial: Annotated[int, "trial number (1-based)"]
    seed: Annotated[int, "seed of its sample"]
    n_samples: Annotated[int, "training queries sampled"]
    capped: Annotated[Dict[str, int], "short classes under rule all: class: queries taken"]
    skipped: Annotated[List[str], "short classes under rule skip"]


class FewshotPlan(TypedDict, total=False):
    """The sampling plan (suites.fewshot.sampler.FewShotPlan.to_dict): reproducible from the seed."""

    classes: Annotated[ClassSplit, "base / novel split of the classes"]
    test_ratio: Annotated[float, "share of each class's queries held out for testing"]
    class_sizes: Annotated[Dict[str, ClassSize], "class: training and test queries"]
    test_queries: Annotated[Dict[str, List[str]], "class: its test query ids"]
    ks: Annotated[List[int], "K values run"]
    skipped_k: Annotated[Dict[str, str], "K not run: why"]
    trial_seeds: Annotated[List[int], "seed of each trial"]
    short_class_rule: Annotated[str, "all or skip: classes with fewer than K training queries"]
    short_class_rule_description: Annotated[str, "the rule in words"]
    usable_classes: Annotated[Dict[str, UsableClasses], "K: classes with at least K training queries"]
    trials: Annotated[Dict[str, List[PlannedTrial]], "K: its trials"]
    notes: Annotated[List[str], "remarks of the planner"]
    min_class_test: Annotated[int, "--min-class-test: classes with fewer test queries take no part in the scores"]
    excluded_classes: Annotated[Dict[str, int], "class left out by --min-class-test: its test queries"]


class PaperSchedule(TypedDict, total=False):
    """FewDR's training schedule (every stage)."""

    epochs: Annotated[int, "epochs"]
    batch_size: Annotated[int, "queries per batch"]
    lr: Annotated[float, "learning rate"]
    max_query_length: Annotated[int, "query tokens"]
    max_passage_length: Annotated[int, "passage tokens"]
    hard_negatives: Annotated[int, "hard negatives per query"]
    trials: Annotated[int, "trials (seeds) per K"]
    source: Annotated[str, "where the schedule is stated"]


class FewshotProtocol(TypedDict, total=False):
    """The protocol's settings and definitions."""

    methods: Annotated[List[str], "methods run"]
    basic_learning: Annotated[bool, "methods first learn on the base classes"]
    full_shot: Annotated[bool, "a full-shot setting was run"]
    ks_requested: Annotated[List[int], "K values asked for"]
    ks: Annotated[List[int], "K values run"]
    n_trials: Annotated[int, "trials per K"]
    novel_ratio: Annotated[Optional[float], "share of classes drawn as novel (null with a split file)"]
    test_ratio: Annotated[float, "share of each class's queries held out for testing"]
    min_usable_novel: Annotated[int, "novel classes needed for a K to run"]
    reference: Annotated[str, "the reference setting (zero-shot)"]
    start_weights: Annotated[str, "weights each K-shot run starts from"]
    zero_shot_model: Annotated[str, "what the zero-shot reference is (basic-learned model or the checkpoint)"]
    full_shot_start: Annotated[str, "weights full-shot training starts from"]
    paper_schedule: Annotated[PaperSchedule, "FewDR's training schedule, for comparison with ours"]
    sd: Annotated[str, "definition of sd"]
    per_query_sd: Annotated[str, "definition of per_query_sd"]
    winning_ratio: Annotated[str, "definition of the winning ratio"]
    boosting_gradient: Annotated[str, "definition of the boosting gradient (ours)"]
    aggregation: Annotated[str, "how R@cutoff is averaged per split (macro over classes; query_mean beside it)"]
    our_choices: Annotated[List[str], "definitions that are ours, not FewDR's"]
    embedding_cache: Annotated[str, "how trained encoders use the embedding cache"]
    similarity: Annotated[str, "the training and retrieval score (the model's similarity, temperature; FewDR's)"]
    negatives: Annotated[str, "where the hard negatives come from (FewDR's: its preprocessed data)"]


class Headline(TypedDict, total=False):
    """The headline setting: the first method at the smallest K that ran."""

    measure: Annotated[str, "the measure (R@10)"]
    reference: Annotated[str, "the reference setting (zero-shot)"]
    zero_shot_model: Annotated[str, "basic-learned or checkpoint"]
    zero_shot: Annotated[SplitValues, "zero-shot R@cutoff (the reference)"]
    checkpoint: Annotated[SplitValues, "the raw checkpoint's R@cutoff (with basic learning)"]
    method: Annotated[str, "the method"]
    k: Annotated[int, "the K"]
    k_shot: Annotated[HeadlineKShot, "K-shot mean and SD"]
    winning_ratio: Annotated[SplitValues, "winning ratio at that K"]
    delta_novel: Annotated[Optional[float], "K-shot - zero-shot, novel classes"]
    delta_novel_vs_checkpoint: Annotated[Optional[float], "K-shot - checkpoint, novel classes (with basic learning)"]
    full_shot: Annotated[SplitValues, "full-shot R@cutoff (when run)"]


class FewshotSummary(TypedDict, total=False):
    """Headline numbers for leaderboards."""

    headline: Annotated[Headline, "the headline setting"]
    metrics: Annotated[Dict[str, Optional[float]], "flat name: value (\"<method> K=<k> <split> R@10\", ...)"]


class FewshotStatisticsHeader(StatisticsHeader, total=False):
    """Header of the few-shot statistics block (suites.fewshot.metrics.statistics_block)."""

    statistic: Annotated[str, "the test statistic"]
    unit: Annotated[str, "the unit of pairing (test query, weighted, or class)"]
    trials: Annotated[str, "how trials enter the test"]
    means: Annotated[str, "definition of mean_zero_shot / mean_k_shot"]


class FewshotComparison(TypedDict, total=False):
    """One setting against zero-shot on one split, at the level of the headline."""

    n: Annotated[int, "test queries of the split"]
    n_classes: Annotated[int, "classes with test queries"]
    unit: Annotated[str, "unit of the test"]
    mean_zero_shot: Annotated[Optional[float], "zero-shot macro R@cutoff"]
    mean_k_shot: Annotated[Optional[float], "the setting's macro R@cutoff (mean over trials)"]
    delta: Annotated[Optional[float], "mean_k_shot - mean_zero_shot"]
    n_trials: Annotated[int, "trials of the setting"]
    delta_trials: Annotated[List[float], "per trial: macro R@cutoff - zero-shot"]
    delta_sd_trials: Annotated[Optional[float], "sample SD of delta_trials"]
    statistic: Annotated[Optional[float], "test statistic"]
    p_value: Annotated[Optional[float], "p-value"]
    p_corrected: Annotated[Optional[float], "p-value after the correction"]
    significant: Annotated[bool, "p_corrected < alpha"]
    method: Annotated[str, "how the p-value was obtained"]
    note: Annotated[str, "why a value is missing, or an empty string"]
    n_nonzero: Annotated[int, "queries with a non-zero weighted difference"]
    win: Annotated[int, "test queries better than zero-shot"]
    tie: Annotated[int, "test queries equal"]
    loss: Annotated[int, "test queries worse"]


class FewshotStatistics(TypedDict, total=False):
    """Every method x setting x split against zero-shot."""

    header: Annotated[FewshotStatisticsHeader, "the test, correction and seed"]
    comparisons: Annotated[Dict[str, Dict[str, Dict[str, FewshotComparison]]],
                           "method: {setting (basic, K=<k>, full-shot): {split: comparison}}"]


class BasicLearning(TypedDict, total=False):
    """FewDR's basic learning: the checkpoint fine-tuned on every base-class training query (the
    zero-shot model), with its R@cutoff."""

    base: Annotated[Optional[float], "macro R@cutoff over the base classes"]
    novel: Annotated[Optional[float], "macro R@cutoff over the novel classes"]
    all: Annotated[Optional[float], "macro R@cutoff over every class"]
    per_class: Annotated[Dict[str, Optional[float]], "class: mean R@cutoff of its test queries"]
    query_mean: Annotated[SplitValues, "R@cutoff averaged over the split's test queries (not over classes)"]
    method: Annotated[str, "how it is trained (full-tune)"]
    classes: Annotated[List[str], "the base classes it trains on"]
    n_train_queries: Annotated[int, "training queries (with a relevant passage) used"]
    train: Annotated[TrainLog, "the training run"]
    training: Annotated[Dict[str, Any], "resolved training settings"]
    checkpoint: Annotated[str, "folder name of the saved basic-learned checkpoint (content-keyed)"]


class References(TypedDict, total=False):
    """Both references: the raw checkpoint and the basic-learned model."""

    zero_shot: Annotated[str, "which one is zero-shot: basic-learned or checkpoint"]
    checkpoint: Annotated[SettingScores, "the raw checkpoint"]
    basic_learned: Annotated[Optional[BasicLearning], "the basic-learned model (null without basic learning)"]


class Deviation(TypedDict, total=False):
    """A departure from the paper's protocol that is active in this run (docs/methods.md)."""

    name: Annotated[str, "short name"]
    paper: Annotated[str, "what the paper does"]
    ours: Annotated[str, "what this run did"]
    why: Annotated[str, "why"]


class FewshotResult(Header, total=False):
    """A result file of layout "fewshot" (suite fewshot): settings x classes x trials."""

    measures: Annotated[List[str], "the measure ([R@10])"]
    measure_definition: Annotated[str, "the measure in words"]
    retrieval: Annotated[Retrieval, "how documents were retrieved"]
    protocol: Annotated[FewshotProtocol, "settings and definitions of the protocol"]
    plan: Annotated[FewshotPlan, "the sampling plan"]
    zero_shot: Annotated[SettingScores, "the reference: the basic-learned model (the checkpoint without basic "
                                        "learning, and in older results)"]
    references: Annotated[References, "the raw checkpoint and the basic-learned model"]
    deviations: Annotated[List[Deviation], "departures from FewDR's protocol active in this run"]
    methods: Annotated[Dict[str, MethodResult], "method: its results"]
    sets: Annotated[List[SetEntry], "the columns of per_query.csv's set column (name, status)"]
    summary: Annotated[FewshotSummary, "headline numbers"]
    statistics: Annotated[Optional[FewshotStatistics], "tests against zero-shot"]
    notes: Annotated[List[str], "notes of the plan"]
    per_query_file: Annotated[str, "the per-query table beside this file (per_query.csv)"]
    per_query_sha256: Annotated[str, "SHA-256 of the per-query table (as in per_query.sha256): readers refuse a "
                                     "table that does not match it"]
    plots: Annotated[List[str], "plot files written beside this file"]
