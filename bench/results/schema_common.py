"""Typed models of a result file, part 1: the header every suite writes and the retrieval and
statistics blocks. The ``"sets"`` layout (suites ``variations`` and ``domain``) is in
:mod:`bench.results.schema_sets`, the few-shot layout in :mod:`bench.results.schema_fewshot`;
:mod:`bench.results.schema` puts them together.

Every key is annotated ``Annotated[<type>, "<what it means>"]``; the JSON Schema
(``docs/result-schema.json``) and the key list (``docs/result-schema.md``) are generated from these
classes. Keys in a ``total=False`` class are optional; the suites that write a key are named in
its text when not every suite does.
"""
from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional, TypedDict

from bench.results.schema_objects import EncoderObject


# ---- header (bench.results.writer.result_header) -------------------------------------------


class MlmLoss(TypedDict, total=False):
    """DAM: the probe MLM loss at three points (bench.training.mlm_head)."""

    initial: Annotated[Optional[float], "before the head warm-up"]
    after_warmup: Annotated[Optional[float], "after the head warm-up (= initial when none ran)"]
    final: Annotated[Optional[float], "after the MLM training"]
    ln_vocab: Annotated[float, "ln V, the loss of a uniform guess over the vocabulary"]
    probe: Annotated[str, "what the probe loss is measured on"]


class HeadWarmup(TypedDict, total=False):
    """DAM: the MLM head's warm-up (head only, backbone frozen)."""

    steps: Annotated[Optional[int], "warm-up steps run"]
    stopped: Annotated[Optional[str], "why it stopped: target reached, plateau, step cap, or not needed"]
    target: Annotated[Optional[str], "the stop criterion in words"]


class DamInit(TypedDict, total=False):
    """DAM: the model its MLM training started from."""

    model: Annotated[str, "name (a target DAM: the source DAM)"]
    fingerprint: Annotated[str, "its model fingerprint"]


class ModelTraining(TypedDict, total=False):
    """What drbench recorded when it trained a checkpoint (absent for a model it did not train)."""

    kind: Annotated[Optional[str], "kind of training record: recipe, ddr-dam, ddr-rem, ..."]
    recipe: Annotated[Optional[str], "training recipe (dr, dr-qv, rodr, ...)"]
    case: Annotated[Optional[str], "rodr: existing-retriever (RoDR from the starting model) or from-dr-oq "
                                   "(DR_OQ first, then RoDR from it)"]
    weights: Annotated[Optional[Dict[str, float]], "rodr: loss weights used (w_nll, w_query, w_passage)"]
    deviations: Annotated[List[str], "departures from the recipe's paper active in its training (docs/methods.md)"]
    hyperparameter_sources: Annotated[Dict[str, str], "recipe: where each training setting comes from (the paper, "
                                                      "ours, or the command line)"]
    method: Annotated[Optional[str], "parameter-efficient method trained, null for full fine-tuning"]
    source_fingerprint: Annotated[Optional[str], "fingerprint of the model training started from"]
    parameters: Annotated[Optional[Dict[str, Any]], "parameter counts (total, trainable)"]
    steps: Annotated[Optional[int], "optimizer steps taken"]
    loss_curve: Annotated[List[float], "loss of every step, rounded to 6 decimals"]
    role: Annotated[Optional[str], "DAM: source or target corpus"]
    mlm_head: Annotated[Optional[str], "DAM: where the MLM head came from (the checkpoint's own, the source DAM's, "
                                       "or initialised from the seed)"]
    init: Annotated[Optional[DamInit], "DAM: the model its MLM training started from"]
    mlm_loss: Annotated[Optional[MlmLoss], "DAM: probe MLM loss initial / after the head warm-up / final"]
    head_warmup: Annotated[Optional[HeadWarmup], "DAM: the MLM head's warm-up"]


class DdrTraining(TypedDict, total=False):
    """Training of a two-stage DDR checkpoint (domain suite, set REM+DAM)."""

    backbone: Annotated[Optional[ModelTraining], "the domain-adaptive MLM stage (DAM)"]
    rem: Annotated[Optional[ModelTraining], "the REM module trained on top of it"]
    source_backbone: Annotated[Optional[ModelTraining], "the source DAM (MLM on the source corpus) REM was trained "
                                                        "on and the target DAM started from"]


class ModelLengths(TypedDict):
    """The maximum input lengths (tokens, special tokens included) the texts were cut to."""

    query: Annotated[int, "maximum query length"]
    passage: Annotated[int, "maximum passage length"]
    query_from: Annotated[str, "where the query length came from: --max-query-length, a folder file "
                               "(sentence_bert_config.json max_seq_length, tokenizer_config.json "
                               "model_max_length, config.json max_position_embeddings), a checkpoint's "
                               "training.json, or a registered spec"]
    passage_from: Annotated[str, "where the passage length came from (as query_from)"]


class ModelRuntime(TypedDict, total=False):
    """Where and how the forward pass ran, when not the reference runtime (the CPU with torch,
    which a result without this key used). Metrics compare across runtimes; vectors and result
    bytes are identical only within one device class, dtype and backend."""

    device: Annotated[str, "device class: cuda or mps (--device)"]
    device_name: Annotated[str, "the hardware: the GPU's name for cuda"]
    dtype: Annotated[str, "encoding precision (--dtype; also model.spec.dtype)"]
    backend: Annotated[str, "forward-pass backend: torch, onnx or onnx-int8 (--backend; onnx-int8 is a named "
                            "deviation: dynamically quantised weights)"]
    backend_version: Annotated[str, "onnx backends: the onnxruntime and onnx versions and the export opset"]
    comparability: Annotated[str, "the comparability rule in words"]


class _ModelRequired(TypedDict):
    name: Annotated[str, "model name: --name, else the registered name or the last component of the "
                         "folder it was loaded from"]


class ModelEntry(_ModelRequired, total=False):
    """The evaluated model."""

    fingerprint: Annotated[str, "hash of the weights and settings (bench.models.spec.model_fingerprint)"]
    spec: Annotated[Dict[str, Any], "the model spec without machine-specific paths (ModelSpec.portable_dict)"]
    lengths: Annotated[ModelLengths, "dense models: the maximum lengths used and where they came from"]
    training: Annotated[ModelTraining, "for a checkpoint trained by drbench: a summary of its training"]
    runtime: Annotated[ModelRuntime, "dense models on a runtime other than cpu + torch (--device, --dtype, "
                                     "--backend): what ran"]
    encoder_object: Annotated[EncoderObject, "a model given as a Python object (bench.evaluate(model=obj))"]


class _DatasetRequired(TypedDict):
    name: Annotated[str, "dataset name"]


class DatasetEntry(_DatasetRequired, total=False):
    """The evaluated dataset (bench.data.model.Dataset.describe)."""

    fingerprint: Annotated[str, "hash of corpus, queries and judgements"]
    split: Annotated[str, "split evaluated (test, dev, ...)"]
    n_docs: Annotated[int, "documents in the corpus"]
    n_queries: Annotated[int, "queries of the split"]
    n_judged_queries: Annotated[int, "queries with at least one judgement (the ones evaluated)"]
    n_qrels: Annotated[int, "relevance judgements"]


class _HeaderRequired(TypedDict):
    schema_version: Annotated[int, "version of this layout; 1 (older files are migrated when read)"]
    suite: Annotated[str, "the suite that wrote the file (variations, fewshot, domain, or a plug-in)"]
    seed: Annotated[int, "the run's seed: every random draw derives from it"]
    model: Annotated[ModelEntry, "the evaluated model"]
    dataset: Annotated[DatasetEntry, "the evaluated dataset"]


class Header(_HeaderRequired, total=False):
    """The keys every suite's result file starts with (bench.results.writer.result_header)."""

    drbench_version: Annotated[str, "version of drbench that wrote the file"]
    libraries: Annotated[Dict[str, str], "versions of the libraries that can change a number (package: version)"]
    dataset_notes: Annotated[List[str], "notes of the dataset reader (skipped lines, repaired ids, ...)"]


# ---- retrieval and statistics blocks -------------------------------------------------------


class CorpusShards(TypedDict):
    """How the corpus was split for encoding (only when it is larger than one shard)."""

    shard_size: Annotated[int, "documents per shard"]
    n_shards: Annotated[int, "number of shards"]


class Retrieval(TypedDict, total=False):
    """How documents were retrieved. Keys absent when they do not apply."""

    top_k: Annotated[int, "documents retrieved per query (variations, domain): every measure's depth"]
    depth: Annotated[str, "only when the depth is not --top-k: why (the deepest cutoff, at most the corpus size)"]
    cutoff: Annotated[int, "rank cut-off of the measure (fewshot: R@cutoff)"]
    index: Annotated[str, "faiss.IndexFlatIP (exact inner product), faiss.IndexIVFFlat, faiss.IndexHNSWFlat or bm25s"]
    similarity: Annotated[str, "cos, dot or bm25"]
    corpus: Annotated[str, "which documents are searched (fewshot: whole corpus)"]
    tie_break: Annotated[str, "order of equal scores (score desc, then doc id asc, as trec_eval)"]
    corpus_shards: Annotated[CorpusShards, "corpus larger than one shard: its sharding"]
    index_params: Annotated[Dict[str, Any], "approximate index only: its parameters (kind ivf: nlist, nlist_source, "
                                            "nprobe, nprobe_clamped, train_size, train_seed; kind hnsw: M, "
                                            "ef_construction, ef_search, build_threads)"]
    recall_vs_exact: Annotated[Dict[str, Any], "approximate index only: queries, n_queries, k, exact, and recall@j = "
                                               "mean |approximate top-j & exact top-j| / |exact top-j|"]
    bm25: Annotated[Dict[str, Any], "BM25 only: analyzer (lucene-english or bm25s), stemmer, stopwords, k1, b; rankings, "
                                    "rankings_short (fewer than top_k documents: only matching ones are returned), short_reason"]


class Bootstrap(TypedDict, total=False):
    """The confidence interval of delta and drop rate."""

    B: Annotated[int, "bootstrap resamples"]
    interval: Annotated[str, "interval method (bca, percentile, t, ...)"]
    method: Annotated[str, "its description"]
    confidence: Annotated[float, "confidence level (two-sided central interval)"]
    sidedness: Annotated[str, "always a two-sided (central) interval"]
    resampling: Annotated[str, "what is resampled (queries with replacement, jointly for both sets)"]


class RandomizationHeader(TypedDict, total=False):
    """Settings of the paired randomization (sign-flip) test."""

    exact_max_n: Annotated[int, "exact enumeration up to this many non-zero differences"]
    n_resamples: Annotated[int, "Monte Carlo resamples beyond it"]
    exact_over: Annotated[str, "which differences the exact enumeration runs over (fewshot)"]
    p_value: Annotated[str, "how the p-value is computed"]


class WilcoxonHeader(TypedDict, total=False):
    """Settings of the Wilcoxon signed-rank test."""

    exact_max_n: Annotated[int, "exact distribution up to this many non-zero differences"]
    zero_method: Annotated[str, "treatment of zero differences"]
    p_value: Annotated[str, "how the p-value is computed"]


class StatisticsHeader(TypedDict, total=False):
    """What every statistics block says about its tests."""

    test: Annotated[str, "paired test: t-test, wilcoxon or randomization"]
    test_description: Annotated[str, "the test in words"]
    sidedness: Annotated[str, "two-sided or the one-sided alternative in words"]
    correction: Annotated[str, "multiple-comparison correction (holm, bonferroni, bh, none, ...)"]
    correction_description: Annotated[str, "the correction in words"]
    family: Annotated[str, "which comparisons form one correction family"]
    family_size: Annotated[Dict[str, int], "comparisons with a p-value in each family (family: size)"]
    alpha: Annotated[float, "significance level of `significant`"]
    seed: Annotated[int, "seed of resampling tests and bootstrap intervals"]
    difference: Annotated[str, "the per-query difference d that is tested"]
    win_tie_loss: Annotated[str, "how wins, ties and losses are counted"]
    randomization: Annotated[RandomizationHeader, "test randomization only"]


class SetsStatisticsHeader(StatisticsHeader, total=False):
    """Header of the statistics block of the sets layout (bench.evaluation.significance.statistics_header)."""

    alternative: Annotated[str, "alternative hypothesis: two-sided, less or greater"]
    drop_rate: Annotated[str, "definition of the drop rate"]
    effect_size: Annotated[str, "definition of the effect size d_z"]
    bootstrap: Annotated[Bootstrap, "the confidence intervals"]
    degenerate: Annotated[str, "what happens with n < 2 or all-zero differences"]
    wilcoxon: Annotated[WilcoxonHeader, "test wilcoxon only"]


class Comparison(TypedDict, total=False):
    """One set against the reference set on one measure, paired by query."""

    n: Annotated[int, "queries paired (finite in both sets)"]
    n_applied: Annotated[Optional[int], "of those, queries the variation changed (null without the applied column)"]
    mean_original: Annotated[Optional[float], "mean of the reference set"]
    mean_variation: Annotated[Optional[float], "mean of the compared set"]
    delta: Annotated[Optional[float], "mean_variation - mean_original"]
    delta_ci: Annotated[List[Optional[float]], "[low, high] confidence interval of delta"]
    drop_rate: Annotated[Optional[float], "(mean_original - mean_variation) / mean_original"]
    drop_rate_ci: Annotated[List[Optional[float]], "[low, high] confidence interval of the drop rate"]
    n_changed: Annotated[int, "queries whose value differs between the two sets"]
    interval_note: Annotated[Optional[str], "'interval unreliable: k of n queries changed' when n_changed < 10 (no "
                                            "interval measured holds its coverage there), else null"]
    statistic: Annotated[Optional[float], "test statistic"]
    p_value: Annotated[Optional[float], "p-value of the test"]
    p_corrected: Annotated[Optional[float], "p-value after the family's correction"]
    significant: Annotated[bool, "p_corrected < alpha"]
    d_z: Annotated[Optional[float], "effect size mean(d) / SD(d)"]
    win: Annotated[int, "queries better in the compared set"]
    tie: Annotated[int, "queries equal"]
    loss: Annotated[int, "queries worse"]
    method: Annotated[str, "how the p-value was obtained (exact, monte carlo, normal, ...)"]
    note: Annotated[str, "why a value is missing, or an empty string"]


class SetsStatistics(TypedDict, total=False):
    """Paired statistics of every set x measure against the reference set (bench.evaluation.significance)."""

    header: Annotated[SetsStatisticsHeader, "the tests, correction, intervals and seed"]
    sets: Annotated[List[str], "the compared sets (the reference set excluded)"]
    measures: Annotated[List[str], "the measures compared"]
    comparisons: Annotated[Dict[str, Dict[str, Comparison]], "set: {measure: comparison}"]


class PairEntry(TypedDict):
    """One tested pair of sets."""

    name: Annotated[str, "SYSTEM vs REFERENCE"]
    system: Annotated[str, "the set claimed better"]
    reference: Annotated[str, "the set it is compared with"]


class PairwiseStatistics(TypedDict, total=False):
    """Paired statistics of named pairs of sets (bench.evaluation.significance.pair_statistics)."""

    header: Annotated[SetsStatisticsHeader, "the test, sidedness, correction (family: the pairs of one measure)"]
    pairs: Annotated[List[PairEntry], "the pairs, in order"]
    measures: Annotated[List[str], "the measures compared"]
    comparisons: Annotated[Dict[str, Dict[str, Comparison]], "pair name: {measure: comparison}; mean_original is the "
                                                            "reference's mean, mean_variation the system's"]
