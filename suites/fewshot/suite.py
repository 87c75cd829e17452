"""Suite ``fewshot``: the FewDR protocol ("Rethinking Dense Retrieval's Few-Shot Ability", Sun et
al., 2023) as one command, ``bench evaluate --model CKPT --suite fewshot``.

Protocol (sampling in :mod:`suites.fewshot.sampler`):

1. **Checkpoint**: the raw checkpoint retrieves over the whole corpus for every test query.
2. **Basic learning** (on by default; ``--no-basic-learning`` skips it, a recorded deviation):
   one full fine-tune of the checkpoint on every base-class training query
   (:mod:`suites.fewshot.basic`; trained once, saved as a content-keyed checkpoint folder and
   reused by later runs with the same inputs). As in FewDR, this basic-learned model is the
   **zero-shot** model: the reference of winning ratios, boosting gradients and tests. Without
   basic learning the zero-shot model is the checkpoint.
3. **Few-shot**: for each method, K and trial, start again from the zero-shot model, train with
   the method on the trial's K samples per novel class and K per base class, evaluate every test
   query (base and novel) over the whole corpus.
4. **Full-shot** (upper reference, on by default): each method trains once from the checkpoint
   on every training query.

Both references are in the result: ``zero_shot`` (the reference used) and
``references.checkpoint`` / ``references.basic_learned``; per K, ``vs_checkpoint`` gives the
deltas and winning ratios against the raw checkpoint.

Measure: FewDR's R@10 — per test query 1 if any relevant passage is in the top 10, else 0 (the
share of queries with a hit, not trec_eval's recall). Per class: the mean over the class's test
queries; per split (base, novel, all): the unweighted mean over its classes (macro average).

Over trials: mean and sample standard deviation (n-1 denominator) of the split's macro R@10;
the per-test-query SD (each test query's hit SD over trials, n-1, averaged over the split's
test queries); the winning ratio (share of the split's classes whose K-shot R@10, averaged over
trials, is strictly greater than zero-shot; also per trial); the boosting gradient (novel R@10
against K: the points and the slope between consecutive points, in R@10 per shot, zero-shot
being K = 0).

Significance, at the level of the headline (:func:`headline_comparison`): each setting against
zero-shot per split, with the headline difference (macro R@10, K-shot averaged over trials) as
the statistic. K-shot trials are averaged per test query first. Default test: a two-sided
stratified paired randomization (sign-flip) test over test queries weighted by 1/(test queries
of the class x classes of the split) (:func:`bench.evaluation.stats.weighted_sign_flip_test`; exact for <= 20 non-zero
differences, else seeded Monte Carlo); ``t-test`` / ``wilcoxon`` run on per-class means (unit =
class). Holm correction over the settings of one method and split. The statistics block's
``mean_zero_shot`` / ``mean_k_shot`` are the headline values.

Outputs in the run folder: ``result.json`` (suite ``fewshot``; ``summary`` carries the headline
numbers), ``per_query.csv`` (one row per setting x test query: ``set, qid, applied, R@10, k,
trial``; ``applied`` is always 0; sets are named ``zero-shot``, ``checkpoint`` (with basic
learning), ``<method>/K=<k>/trial=<j>``, ``<method>/full-shot``), ``timings.json``, and the
plots ``fewshot_r10.png`` and ``fewshot_winning_ratio.png``.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.data.model import Dataset
from bench.core.progress import count
from bench.core.errors import BenchError
from bench.results.suite import Suite
from bench.models.spec import ModelSpec
from bench.core.timing import Timer
from bench.search.retriever import make_retriever
from bench.search.exact import TIE_BREAK
from bench.training.contrastive import TrainLog, make_examples, mine_negatives, planned_steps, train_dual_encoder
from bench.training.dual import build_dual_encoder
from bench.tuning.config import METHOD_DESCRIPTIONS, method_deviations
from bench.core.seeding import rng_for
from suites.fewshot.sampler import FewShotPlan, build_plan
from bench.core.paths import checkpoint_home
from suites.fewshot.progress import Overall, plan_line, training_runs
from suites.fewshot.basic import BASIC_METHOD, basic_checkpoint
from suites.fewshot.config import (FEWSHOT_OPTIONS, PAPER_SCHEDULE, FewShotConfig, active_deviations, config_from,
                                   schedule_text, short_class_deviations)
from suites.fewshot.metrics import CHECKPOINT, FULL, MEASURE, MEASURE_DEFINITION, PROTOCOL_NOTES, SPLITS, WIN_RULE, ZERO, boosting_gradient, hits_at, recorded_choices, statistics_block, summarise_setting, summarise_trials, vs_reference
from suites.fewshot.result import per_query_csv, per_query_rows, summary
from suites.fewshot.output import announce, render, write_plots
from bench.encoding.executor import LocalExecutor
from bench.evaluation.stats import to_jsonable
from bench.models.loading import load_backbone, refuse_dense
from bench.models.spec import spec_from_folder
from bench.results.writer import result_header, write_run
from bench.search.exact import DenseIndex


# --------------------------------------------------------------------------------------------
# the protocol


@dataclass
class _Unit:
    method: str
    setting: str  # "K=5", "full-shot", "basic"
    k: Optional[int]
    trial: Optional[int]
    seed: int
    qids: List[str]

    @property
    def set_name(self) -> str:
        return f"{self.method}/{self.setting}" + (f"/trial={self.trial}" if self.trial is not None else "")


def _unit_seed(seed: int, *keys) -> int:
    return int(rng_for(seed, "fewshot-unit", "/".join(str(k) for k in keys)).integers(0, 2 ** 31 - 1))


class _Context:
    """What every training unit shares: the plan, the zero-shot retriever, cached embeddings."""

    def __init__(self, spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, timer: Timer, plan: FewShotPlan,
                 label: str = "checkpoint"):
        self.spec, self.dataset, self.cfg, self.timer, self.plan = spec, dataset, cfg, timer, plan
        with timer(f"load_model_and_corpus:{label}"):
            self.retriever = make_retriever(spec, dataset, timer, cache_root=cfg.cache_root,
                                            batch_size=cfg.batch_size, progress=cfg.progress)
        self.doc_ids = dataset.doc_ids()
        self.doc_pos = {d: i for i, d in enumerate(self.doc_ids)}
        self.doc_texts = [dataset.corpus[d].full_text() for d in self.doc_ids]
        # the checkpoint's corpus matrix: a cache hit (encoded once by make_retriever)
        self.corpus_matrix = self.retriever.passage_cache.matrix(self.doc_texts)
        self.test_ids = plan.queries.test_ids()
        self.test_texts = [dataset.queries[q].text for q in self.test_ids]
        self.qtext = {q: dataset.queries[q].text for q in plan.labels}
        self.base_model = None
        self.tokenizer = None

    def doc_text(self, d: str) -> str:
        return self.dataset.corpus[d].full_text()

    def passage_lookup(self, ids: Sequence[str]) -> np.ndarray:
        return np.asarray(self.corpus_matrix[[self.doc_pos[d] for d in ids]], dtype=np.float32)

    def query_lookup(self, texts: Sequence[str]) -> np.ndarray:
        return self.retriever.query_cache.texts(list(texts))  # the checkpoint's vectors: its own key

    def zero_shot(self) -> Dict[str, float]:
        run = self.retriever.search(self.test_ids, self.test_texts, self.cfg.cutoff)
        return hits_at(run, self.dataset.qrels, self.test_ids, self.cfg.cutoff)

    def negatives(self) -> Dict[str, Tuple[str, ...]]:
        tc = self.cfg.train
        train_ids = self.plan.queries.train_ids()
        if tc.negatives_from == "none" or tc.hard_negatives == 0 or not train_ids:
            return {}
        texts = [self.qtext[q] for q in train_ids]
        depth = tc.negative_depth + max(len(v) for v in self.dataset.qrels.values())
        if tc.negatives_from == "model":
            run = self.retriever.search(train_ids, texts, depth)
        else:
            from bench.search.exact import BM25Index

            from bench.models.spec import resolve_model

            bm = BM25Index(self.doc_ids, self.doc_texts, resolve_model("bm25").params)
            run = bm.search_texts(train_ids, texts, depth)
        return mine_negatives(run, self.dataset.qrels, tc.negative_depth)

    def load_backbone(self):
        if self.base_model is None:
            self.base_model, self.tokenizer = load_backbone(self.spec)
        return self.base_model, self.tokenizer

    def evaluate(self, dual) -> Dict[str, float]:
        if dual.query_trainable:
            q = dual.encode(self.test_texts, "query", self.cfg.batch_size)
        else:
            q = self.query_lookup(self.test_texts)
        if dual.passage_trainable:
            p = dual.encode(self.doc_texts, "passage", self.cfg.batch_size, progress=self.cfg.progress,
                            desc="encode corpus (tuned, in memory)")
            index = DenseIndex(self.doc_ids, p, self.spec.similarity)
        else:
            index = self.retriever.index  # the cached checkpoint corpus: not re-encoded
        run = index.search(self.test_ids, q, self.cfg.cutoff)
        return hits_at(run, self.dataset.qrels, self.test_ids, self.cfg.cutoff)


def _status(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr)


def _plan(dataset: Dataset, cfg: FewShotConfig, timer: Timer) -> Tuple[FewShotPlan, List[str]]:
    """The classes, splits and trials of the run, and the base-class training queries basic learning reads."""
    with timer("plan"):
        plan = build_plan(dataset, seed=cfg.seed, ks=cfg.ks, n_trials=cfg.n_trials, novel_ratio=cfg.novel_ratio,
                          test_ratio=cfg.test_ratio, split_file=cfg.split_file, short_rule=cfg.short_rule,
                          min_usable_novel=cfg.min_usable_novel, seeds=cfg.trial_seeds,
                          min_class_test=cfg.min_class_test)
    _status(plan_line(plan, cfg.ks, cfg.n_trials, cfg.methods, cfg.full_shot))
    base_q = plan.queries.train_ids(list(plan.classes.base))
    if cfg.basic_learning and not any(g > 0 for q in base_q for g in dataset.qrels.get(q, {}).values()):
        raise BenchError("basic learning has no base-class training query with a relevant passage; give more "
                         "queries per class (--test-ratio), another --class-split, or --no-basic-learning")
    return plan, base_q


def _basic_learning(spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, timer: Timer, ctx: _Context,
                    base_model, tok, bex: list):
    """FewDR's zero-shot model: the checkpoint trained on every base-class training query (``bex``).
    Returns (its context, its test-query hits, its summary for the result, whether it was reused)."""
    plan = ctx.plan
    steps = planned_steps(len(bex), cfg.train)
    lr = cfg.train.resolved(BASIC_METHOD, spec.similarity)["lr"]
    paper = schedule_text(PAPER_SCHEDULE["epochs"], PAPER_SCHEDULE["batch_size"], PAPER_SCHEDULE["lr"])
    _status(f"basic learning (FewDR's zero-shot model): {BASIC_METHOD} on {len(bex)} training queries of "
            f"{len(plan.classes.base)} base classes, {schedule_text(cfg.train.epochs, cfg.train.batch_size, lr)}"
            f" = {count(steps, 'step')} (FewDR: {paper})")
    with timer("basic_learning"):
        folder, record, reused = basic_checkpoint(
            spec, base_model, tok, bex, ctx.doc_text, cfg.train, _unit_seed(cfg.seed, BASIC_METHOD, "basic"),
            checkpoint_home(cfg.cache_root), dataset.fingerprint(), progress=cfg.progress)
    if reused:
        _status(f"basic learning: reused {folder} (same inputs; not trained again)")
    # evaluated at the run's lengths, not the basic-learned checkpoint's training lengths: the two
    # zero-shot references must differ in their weights only
    basic_spec = dataclasses.replace(spec_from_folder(folder, name=f"{spec.name}+basic"),
                                     max_query_length=spec.max_query_length,
                                     max_passage_length=spec.max_passage_length,
                                     length_sources=dict(spec.length_sources), device=spec.device,
                                     dtype=spec.dtype, backend=spec.backend)
    start_ctx = _Context(basic_spec, dataset, cfg, timer, plan, "basic")
    with timer("zero_shot:basic"):
        zero = start_ctx.zero_shot()
    basic_out = dict(summarise_setting(zero, plan), method=BASIC_METHOD, classes=list(plan.classes.base),
                     n_train_queries=record["n_train_queries"], train=record["train"],
                     training=record["training"], checkpoint=folder.name)
    return start_ctx, zero, basic_out, reused


def _train_unit(unit: _Unit, c: _Context, ctx: _Context, examples: dict, cfg: FewShotConfig):
    """Train one unit's model from ``c``'s weights on the unit's queries and evaluate it on the test queries."""
    model, tokenizer = c.load_backbone()
    dual = build_dual_encoder(c.spec, unit.method, model, tokenizer, cfg.tuning, seed=unit.seed)
    ex = [examples[q] for q in unit.qids if q in examples]
    t0 = time.perf_counter()
    if ex:
        log = train_dual_encoder(dual, ex, ctx.doc_text, cfg.train, unit.seed,
                                 passage_lookup=None if dual.passage_trainable else c.passage_lookup,
                                 query_lookup=None if dual.query_trainable else c.query_lookup,
                                 progress=cfg.progress, desc=f"train {unit.set_name}")
    else:  # e.g. every class short under rule "skip": the starting weights are evaluated as they are
        log = TrainLog(seed=unit.seed)
    t1 = time.perf_counter()
    h = c.evaluate(dual)
    t2 = time.perf_counter()
    timing = {"set": unit.set_name, "train_seconds": round(t1 - t0, 4), "eval_seconds": round(t2 - t1, 4)}
    return dual, log, h, timing


def _method_units(method: str, plan: FewShotPlan, cfg: FewShotConfig) -> List[_Unit]:
    """A method's training units: every (K, trial), then full-shot when enabled (last)."""
    units: List[_Unit] = []
    for k in plan.ks:
        for t in plan.trials[k]:
            units.append(_Unit(method, f"K={k}", k, t.index, _unit_seed(t.seed, method, k), t.query_ids()))
    if cfg.full_shot:
        units.append(_Unit(method, FULL, None, None, _unit_seed(cfg.seed, method, FULL), plan.queries.train_ids()))
    return units


def _k_results(units: List[_Unit], outputs: list, plan: FewShotPlan, cfg: FewShotConfig, zero, checkpoint_hits
               ) -> Dict[str, dict]:
    """Per K: the trials' scores against the zero-shot model (and the checkpoint after basic learning)."""
    k_out: Dict[str, dict] = {}
    for k in plan.ks:
        ku = [(u, o) for u, o in zip(units, outputs) if u.k == k]
        entry = summarise_trials([o["hits"] for _, o in ku], zero, plan)
        entry["trials"] = [{"trial": u.trial, "seed": plan.trials[k][u.trial - 1].seed, "unit_seed": u.seed,
                            "n_train_queries": len(u.qids), "train": o["log"],
                            **{s: entry[s]["trials"][i] for s in SPLITS},
                            "winning_ratio": {s: entry["winning_ratio_per_trial"][s][i] for s in SPLITS}}
                           for i, (u, o) in enumerate(ku)]
        entry["steps_per_trial"] = [o["log"]["steps"] for _, o in ku]
        entry["usable_classes"] = plan.usable[k]
        if cfg.basic_learning:
            entry["vs_checkpoint"] = vs_reference([o["hits"] for _, o in ku], checkpoint_hits, plan)
        k_out[str(k)] = entry
    return k_out


def _run_method(method: str, spec: ModelSpec, cfg: FewShotConfig, timer: Timer, ctx: _Context, start_ctx: _Context,
                examples: dict, base_model, zero, checkpoint_hits, executor, overall: Overall,
                hits: Dict[str, Dict[str, float]], unit_log: List[dict]) -> dict:
    """Train and evaluate every unit of ``method`` (adds each unit's hits to ``hits`` and its timing to
    ``unit_log``); returns the method's part of the result."""
    plan = ctx.plan
    m_out: dict = {"description": METHOD_DESCRIPTIONS[method],
                   "training": cfg.train.resolved(method, spec.similarity),
                   "tuning": cfg.tuning.for_method(method, base_model)}
    m_out["deviations"] = method_deviations(method, cfg.tuning, m_out["training"]["lr"])
    encoded = {"query": 0, "passage": 0}
    units = _method_units(method, plan, cfg)

    def work(unit: _Unit):
        # few-shot starts from the zero-shot model; full-shot from the checkpoint (FewDR's full-shot-train)
        dual, log, h, timing = _train_unit(unit, ctx if unit.setting == FULL else start_ctx, ctx, examples, cfg)
        return {"log": log.to_dict(), "hits": h, "timing": timing, "encoded": dict(dual.n_encoded),
                "parameters": dual.parameter_counts(), "tied": dual.tied}

    with timer(f"train+eval:{method}"):
        outputs = executor.map(overall.wrap(work), units)
    for unit, o in zip(units, outputs):
        hits[unit.set_name] = o["hits"]
        unit_log.append(o["timing"])
        for r in encoded:
            encoded[r] += o["encoded"][r]
        m_out["parameters"], m_out["tied"] = o["parameters"], o["tied"]
    k_out = _k_results(units, outputs, plan, cfg, zero, checkpoint_hits)
    m_out["k"] = k_out
    if cfg.full_shot:
        u, o = units[-1], outputs[-1]
        m_out[FULL] = dict(summarise_setting(o["hits"], plan), train=o["log"], n_train_queries=len(u.qids))
    zs_novel = summarise_setting(zero, plan)["novel"]
    pts = [(0, zs_novel)] + [(k, k_out[str(k)]["novel"]["mean"]) for k in plan.ks]
    m_out["boosting_gradient"] = {"split": "novel", "reference": ZERO, "points": [[k, v] for k, v in pts],
                                  "segments": boosting_gradient(pts)}
    m_out["encoded_by_tuned_model"] = encoded
    return m_out


def _protocol(spec: ModelSpec, cfg: FewShotConfig, plan: FewShotPlan) -> dict:
    """The result's ``protocol``: the run's settings and what each reference means."""
    return {
        "methods": list(cfg.methods), "basic_learning": cfg.basic_learning, "full_shot": cfg.full_shot,
        "ks_requested": sorted(set(int(k) for k in cfg.ks)), "ks": list(plan.ks), "n_trials": cfg.n_trials,
        "novel_ratio": cfg.novel_ratio if cfg.split_file is None else None,
        "test_ratio": cfg.test_ratio, "min_usable_novel": cfg.min_usable_novel,
        "reference": ZERO,
        "zero_shot_model": (f"basic-learned: the checkpoint after {BASIC_METHOD} on every base-class training "
                            f"query" if cfg.basic_learning else "the checkpoint (no basic learning)"),
        "start_weights": "the zero-shot model" + (" (basic-learned)" if cfg.basic_learning else " (the checkpoint)"),
        "full_shot_start": "the checkpoint",
        "paper_schedule": PAPER_SCHEDULE,
        "winning_ratio": ("share of the split's classes that win against zero-shot: " + WIN_RULE
                          + "; per trial: the same with that trial's R@10"),
        **PROTOCOL_NOTES, **recorded_choices(spec.similarity, cfg.train),  # sd labels, scores, negatives
    }


def _result(spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, plan: FewShotPlan, zero_summary: dict,
            checkpoint_summary: dict, basic_out: Optional[dict], methods_out: Dict[str, dict], set_order: list,
            statistics: dict) -> dict:
    """The result file's content."""
    return {
        **result_header("fewshot", spec, dataset, cfg.seed),
        "measures": [MEASURE],
        "measure_definition": MEASURE_DEFINITION.format(k=cfg.cutoff),
        "retrieval": {"cutoff": cfg.cutoff, "index": "faiss.IndexFlatIP", "similarity": spec.similarity,
                      "corpus": "whole corpus", "tie_break": TIE_BREAK},
        "protocol": _protocol(spec, cfg, plan),
        "plan": plan.to_dict(),
        "zero_shot": zero_summary,
        "references": {"zero_shot": "basic-learned" if cfg.basic_learning else "checkpoint",
                       "checkpoint": checkpoint_summary, "basic_learned": basic_out},
        "deviations": active_deviations(cfg, spec.similarity) + short_class_deviations(plan),
        "methods": methods_out,
        "sets": [{"name": s, "status": "ok"} for s in set_order],
        "summary": summary(zero_summary, checkpoint_summary if cfg.basic_learning else None, methods_out, plan, cfg),
        "statistics": statistics,
        "notes": list(plan.notes),
        "per_query_file": "per_query.csv",
        "plots": ["fewshot_r10.png", "fewshot_winning_ratio.png"] if cfg.plots else [],
    }


def _write(out_dir: Optional[Path], cfg: FewShotConfig, timer: Timer, t_start: float, result: dict,
           per_query_text: str, timings: dict) -> None:
    """The plots (a failed plot is a note, never a lost run) and the run folder, when ``out_dir`` is
    given; the timings' seconds either way."""
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        if cfg.plots:
            with timer("plots"):
                try:
                    plot_notes = write_plots(result, out_dir)
                except Exception as exc:  # a plot must never cost the computed results
                    plot_notes = [f"plots failed: {type(exc).__name__}: {exc}"]
                    print(f"bench: warning: {plot_notes[0]}", file=sys.stderr)
            if plot_notes:
                timings["plot_notes"] = plot_notes
    timings["seconds"] = {k: round(v, 4) for k, v in sorted(timer.seconds.items())}
    timings["wall_seconds"] = round(time.perf_counter() - t_start, 2)
    if out_dir is not None:
        write_run(Path(out_dir), result, per_query_text, timings)


def run(spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, out_dir: Optional[Path], executor=None) -> dict:
    """Run the protocol; returns ``{"result", "per_query", "timings", "plan"}`` and writes the run
    folder when ``out_dir`` is given."""
    t_start = time.perf_counter()
    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"the few-shot suite trains dense encoders; {spec.name!r} is {spec.kind}")
    refuse_dense(spec, "the few-shot suite")
    executor = executor or LocalExecutor()
    timer = Timer()
    plan, base_q = _plan(dataset, cfg, timer)
    ctx = _Context(spec, dataset, cfg, timer, plan)
    with timer("zero_shot:checkpoint"):
        checkpoint_hits = ctx.zero_shot()
    with timer("mine_negatives"):
        negs = ctx.negatives()
    examples = {ex.qid: ex for ex in make_examples(plan.queries.train_ids(), ctx.qtext, dataset.qrels, negs)}
    with timer("load_backbone"):
        base_model, tok = ctx.load_backbone()
    start_ctx, zero, basic_out, reused = ctx, checkpoint_hits, None, None
    if cfg.basic_learning:
        start_ctx, zero, basic_out, reused = _basic_learning(spec, dataset, cfg, timer, ctx, base_model, tok,
                                                             [examples[q] for q in base_q if q in examples])
    hits: Dict[str, Dict[str, float]] = {ZERO: zero}
    if cfg.basic_learning:
        hits[CHECKPOINT] = checkpoint_hits
    unit_log: List[dict] = []
    checkpoint_summary = summarise_setting(checkpoint_hits, plan)
    overall = Overall(training_runs(plan, cfg.methods, cfg.full_shot), cfg.progress, executor)
    methods_out = {method: _run_method(method, spec, cfg, timer, ctx, start_ctx, examples, base_model, zero,
                                       checkpoint_hits, executor, overall, hits, unit_log) for method in cfg.methods}
    overall.close()
    zero_summary = summarise_setting(zero, plan)
    rows, set_order = per_query_rows(hits, plan)
    with timer("statistics"):
        statistics = statistics_block(hits, plan, cfg)
    result = to_jsonable(_result(spec, dataset, cfg, plan, zero_summary, checkpoint_summary, basic_out, methods_out,
                                 set_order, statistics))
    per_query_text = per_query_csv(rows)
    timings = {"seconds": {}, "units": unit_log, "encoding": ctx.retriever.stats(), "executor": executor.name}
    if reused is not None:
        timings["basic_learning_reused"] = reused
    _write(out_dir, cfg, timer, t_start, result, per_query_text, timings)
    return {"result": result, "per_query": per_query_text, "timings": timings, "plan": plan}


class FewShotSuite(Suite):
    name = "fewshot"
    description = "FewDR protocol: base/novel classes, K-shot trials, R@10 per class, winning ratios, tests"
    options = FEWSHOT_OPTIONS
    shared = frozenset({"correction"})
    layout = "fewshot"
    reference = ZERO
    gated = True

    def config_from_args(self, values, measures) -> FewShotConfig:
        return config_from(values).validate()

    def evaluate(self, config: FewShotConfig, spec, dataset, out_dir, executor) -> dict:
        announce(spec.name, dataset, config)
        return run(spec, dataset, config, out_dir, executor=executor)

    def render(self, outcome: dict, out_dir, seconds=None) -> str:
        return render(outcome, out_dir, seconds)


SUITE = FewShotSuite()
