"""Suite ``fewshot``: the FewDR protocol ("Rethinking Dense Retrieval's Few-Shot Ability", Sun et
al., 2023) as one command, ``bench evaluate --model CKPT --suite fewshot``.

Protocol (sampling in :mod:`suites.fewshot_sampler`):

1. **Zero-shot**: the checkpoint retrieves over the whole corpus for every test query.
2. **Basic learning** (optional, ``--basic-learning``): each method trains on all base-class
   training queries; few-shot training then starts from those weights (row ``basic``).
3. **Few-shot**: for each K and each trial, start again from the same weights (the checkpoint,
   or the basic-learned weights), train on the trial's K samples per novel class and K per base
   class, evaluate every test query (base and novel) over the whole corpus.
4. **Full-shot** (upper reference, on by default): train once on every training query.

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
trial``; ``applied`` is always 0; sets are named ``zero-shot``, ``<method>/K=<k>/trial=<j>``,
``<method>/basic``, ``<method>/full-shot``), ``timings.json``, and the
plots ``fewshot_r10.png`` and ``fewshot_winning_ratio.png``.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.tuning.adapters import describe
from bench.data.collections import Dataset
from bench.core.errors import BenchError
from bench.models.spec import ModelSpec
from bench.search.retriever import Timer, make_retriever
from bench.search.exact import TIE_BREAK
from bench.training.contrastive import TrainConfig, TrainLog, make_examples, mine_negatives, train_dual_encoder
from bench.training.dual import build_dual_encoder, tuned_module
from bench.tuning.config import METHOD_DESCRIPTIONS, METHODS, TuningConfig, check_method
from bench.core.seeding import rng_for
from suites.fewshot_sampler import DEFAULT_KS, DEFAULT_TRIALS, SHORT_RULES, FewShotPlan, build_plan

MEASURE = "R@10"
SPLITS = ("base", "novel", "all")
ZERO = "zero-shot"
FULL = "full-shot"
BASIC = "basic"
MEASURE_DEFINITION = ("FewDR R@{k}: per test query 1 if at least one relevant passage (grade > 0) is among the top {k} "
                      "retrieved from the whole corpus, else 0; per class the mean over its test queries; per split "
                      "the unweighted mean over its classes (macro average)")


@dataclass
class FewShotConfig:
    seed: int = 0
    ks: Sequence[int] = DEFAULT_KS
    n_trials: int = DEFAULT_TRIALS
    trial_seeds: Optional[Sequence[int]] = None
    novel_ratio: float = 0.5
    test_ratio: float = 0.5
    split_file: Optional[Path] = None
    short_rule: str = "all"
    min_usable_novel: int = 1
    methods: Sequence[str] = ("qry-tune",)
    basic_learning: bool = False
    full_shot: bool = True
    cutoff: int = 10
    train: TrainConfig = field(default_factory=TrainConfig)
    tuning: TuningConfig = field(default_factory=TuningConfig)
    test: str = "randomization"
    correction: str = "holm"
    n_resamples: int = 10000
    alpha: float = 0.05
    batch_size: int = 64  # encoding batch size
    cache_root: Optional[Path] = None
    progress: bool = True
    plots: bool = True

    def validate(self) -> "FewShotConfig":
        for m in self.methods:
            check_method(m)
        if not self.methods:
            raise BenchError("--methods is empty")
        if len(set(self.methods)) != len(self.methods):
            raise BenchError("--methods lists a method twice")
        if self.cutoff < 1:
            raise BenchError("--cutoff must be at least 1")
        self.train.validate()
        self.tuning.validate(self.methods)
        from bench.evaluation.stats import CORRECTIONS, TESTS

        if self.test not in TESTS:
            raise BenchError(f"--fewshot-test must be one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise BenchError(f"--correction must be one of {', '.join(CORRECTIONS)}")
        return self


# --------------------------------------------------------------------------------------------
# aggregation (pure functions)


def sample_sd(values: Sequence[float]) -> Optional[float]:
    """Sample standard deviation (n - 1 denominator); None for fewer than two values."""
    v = np.asarray(list(values), dtype=np.float64)
    return float(np.std(v, ddof=1)) if v.size >= 2 else None


def hits_at(run: Mapping[str, Sequence[Tuple[str, float]]], qrels: Mapping[str, Mapping[str, int]],
            qids: Sequence[str], k: int) -> Dict[str, float]:
    """FewDR R@k per query: 1.0 when a relevant passage is in the top k, else 0.0."""
    out = {}
    for q in qids:
        rel = {d for d, g in qrels.get(q, {}).items() if g > 0}
        out[q] = 1.0 if any(d in rel for d, _ in list(run.get(q, []))[:k]) else 0.0
    return out


def class_scores(hits: Mapping[str, float], test_by_class: Mapping[str, Sequence[str]]) -> Dict[str, float]:
    return {c: float(np.mean([hits[q] for q in qs])) for c, qs in sorted(test_by_class.items()) if qs}


def macro(per_class: Mapping[str, float], classes: Sequence[str]) -> Optional[float]:
    vals = [per_class[c] for c in classes if c in per_class]
    return float(np.mean(vals)) if vals else None


def winning_ratio(k_shot: Mapping[str, float], zero_shot: Mapping[str, float], classes: Sequence[str]) -> Optional[float]:
    """Share of ``classes`` whose K-shot score is strictly greater than zero-shot."""
    cs = [c for c in classes if c in k_shot and c in zero_shot]
    return float(np.mean([k_shot[c] > zero_shot[c] for c in cs])) if cs else None


def boosting_gradient(points: Sequence[Tuple[int, float]]) -> List[dict]:
    """Slopes between consecutive (K, R@10) points, in R@10 per shot."""
    pts = sorted((int(k), float(v)) for k, v in points if v is not None)
    return [{"from_k": a[0], "to_k": b[0], "delta": b[1] - a[1], "per_shot": (b[1] - a[1]) / (b[0] - a[0])}
            for a, b in zip(pts, pts[1:]) if b[0] != a[0]]


def _split_classes(plan: FewShotPlan) -> Dict[str, List[str]]:
    return {"base": list(plan.classes.base), "novel": list(plan.classes.novel),
            "all": sorted(list(plan.classes.base) + list(plan.classes.novel))}


def _split_qids(plan: FewShotPlan) -> Dict[str, List[str]]:
    sc = _split_classes(plan)
    return {s: plan.queries.test_ids(sorted(sc[s])) for s in SPLITS}


def summarise_setting(hits: Mapping[str, float], plan: FewShotPlan) -> dict:
    per_class = class_scores(hits, plan.queries.test)
    out = {s: macro(per_class, cs) for s, cs in _split_classes(plan).items()}
    out["per_class"] = per_class
    return out


def summarise_trials(trial_hits: Sequence[Mapping[str, float]], zero: Mapping[str, float], plan: FewShotPlan) -> dict:
    """Mean / SD over trials, per-query SD, winning ratios (mean over trials and per trial)."""
    sc = _split_classes(plan)
    sq = _split_qids(plan)
    per_trial = [summarise_setting(h, plan) for h in trial_hits]
    zero_class = class_scores(zero, plan.queries.test)
    mean_class = {c: float(np.mean([t["per_class"][c] for t in per_trial])) for c in zero_class}
    out: dict = {"per_class_mean": mean_class}
    for s in SPLITS:
        vals = [t[s] for t in per_trial if t[s] is not None]
        q_sd = [sample_sd([h[q] for h in trial_hits]) for q in sq[s]]
        q_sd = [v for v in q_sd if v is not None]
        out[s] = {"mean": float(np.mean(vals)) if vals else None, "sd": sample_sd(vals), "trials": vals,
                  "per_query_sd": float(np.mean(q_sd)) if q_sd else None}
    out["winning_ratio"] = {s: winning_ratio(mean_class, zero_class, sc[s]) for s in SPLITS}
    out["winning_ratio_per_trial"] = {s: [winning_ratio(t["per_class"], zero_class, sc[s]) for t in per_trial]
                                      for s in SPLITS}
    return out


# --------------------------------------------------------------------------------------------
# significance at the level of the headline (pure functions)


def macro_weights(test_by_class: Mapping[str, Sequence[str]], classes: Sequence[str]) -> Tuple[List[str], np.ndarray]:
    """The split's test queries (class by class, in ``classes`` order) and their macro weights
    ``1 / (test queries of the query's class x classes with test queries)``: the weighted sum of
    per-query values equals the macro average over classes of the per-class means."""
    cs = [c for c in classes if test_by_class.get(c)]
    qids: List[str] = []
    w: List[float] = []
    for c in cs:
        qs = list(test_by_class[c])
        qids += qs
        w += [1.0 / (len(qs) * len(cs))] * len(qs)
    return qids, np.asarray(w, dtype=np.float64)


def headline_comparison(zero: Mapping[str, float], trial_hits: Sequence[Mapping[str, float]],
                        test_by_class: Mapping[str, Sequence[str]], classes: Sequence[str], *,
                        test: str = "randomization", seed: int = 0, n_resamples: int = 10000,
                        key: Sequence[str] = ()) -> dict:
    """One setting (its trials' per-query hits; one element for basic / full-shot) against the
    zero-shot reference on one split, tested at the level of the headline.

    Means are computed exactly as the headline: ``mean_zero_shot`` = macro R@10 of zero-shot,
    ``mean_k_shot`` = mean over trials of each trial's macro R@10; ``delta`` = their difference.
    Trials are combined per query first (the query's hit averaged over trials; by linearity the
    macro average of those equals the trial-mean headline). Test ``randomization``: the stratified
    sign-flip test of :func:`bench.evaluation.stats.weighted_sign_flip_test` on the per-query differences with macro
    weights (statistic = ``delta``); ``t-test`` / ``wilcoxon``: :func:`bench.evaluation.stats.paired_test`
    on the per-class means (unit = class; mean of the class differences = ``delta``).
    Also per trial: ``delta_trials`` (trial macro R@10 - zero-shot) and their SD (n-1)."""
    from bench.evaluation.stats import paired_test, weighted_sign_flip_test, win_tie_loss

    qids, w = macro_weights(test_by_class, classes)
    cs = [c for c in classes if test_by_class.get(c)]
    out: dict = {"n": len(qids), "n_classes": len(cs)}
    if not qids or not trial_hits:
        out.update(mean_zero_shot=None, mean_k_shot=None, delta=None, delta_trials=[], delta_sd_trials=None,
                   statistic=None, p_value=float("nan"), method="", note="no test queries in this split",
                   n_nonzero=0, win=0, tie=0, loss=0)
        return out
    zero_macro = macro(class_scores(zero, test_by_class), cs)
    trial_macros = [macro(class_scores(h, test_by_class), cs) for h in trial_hits]
    mean_k = float(np.mean(trial_macros))
    a = np.array([zero[q] for q in qids], dtype=np.float64)
    b = np.array([np.mean([h[q] for h in trial_hits]) for q in qids], dtype=np.float64)
    d = b - a
    if test == "randomization":
        res = weighted_sign_flip_test(d, w, n_resamples=n_resamples, seed=seed, key=key)
        unit = "query (weighted)"
    else:
        za = np.array([np.mean([zero[q] for q in test_by_class[c]]) for c in cs])
        kb = np.array([np.mean([np.mean([h[q] for q in test_by_class[c]]) for h in trial_hits]) for c in cs])
        res = paired_test(za, kb, test, seed=seed, n_resamples=n_resamples, key=key)
        unit = "class"
    wn, t, l = win_tie_loss(a, b)
    deltas = [float(v - zero_macro) for v in trial_macros]
    out.update(unit=unit, mean_zero_shot=zero_macro, mean_k_shot=mean_k, delta=mean_k - zero_macro,
               n_trials=len(trial_hits), delta_trials=deltas, delta_sd_trials=sample_sd(deltas),
               statistic=res.statistic, p_value=res.pvalue, method=res.method, note=res.note,
               n_nonzero=int(np.sum(w * d != 0.0)), win=wn, tie=t, loss=l)
    return out


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

    def __init__(self, spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, timer: Timer, plan: FewShotPlan):
        self.spec, self.dataset, self.cfg, self.timer, self.plan = spec, dataset, cfg, timer, plan
        with timer("load_model_and_corpus"):
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
        from bench.models.loading import load_backbone

        if self.base_model is None:
            self.base_model, self.tokenizer = load_backbone(self.spec)
        return self.base_model, self.tokenizer

    def evaluate(self, dual) -> Dict[str, float]:
        from bench.search.exact import DenseIndex

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


def run(spec: ModelSpec, dataset: Dataset, cfg: FewShotConfig, out_dir: Optional[Path], executor=None) -> dict:
    """Run the protocol; returns ``{"result", "per_query", "timings", "plan"}`` and writes the run
    folder when ``out_dir`` is given."""
    from bench.encoding.executor import LocalExecutor
    from bench.results.writer import result_header, write_run

    t_start = time.perf_counter()
    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"the few-shot suite trains dense encoders; {spec.name!r} is {spec.kind}")
    executor = executor or LocalExecutor()
    timer = Timer()
    with timer("plan"):
        plan = build_plan(dataset, seed=cfg.seed, ks=cfg.ks, n_trials=cfg.n_trials, novel_ratio=cfg.novel_ratio,
                          test_ratio=cfg.test_ratio, split_file=cfg.split_file, short_rule=cfg.short_rule,
                          min_usable_novel=cfg.min_usable_novel, seeds=cfg.trial_seeds)
    ctx = _Context(spec, dataset, cfg, timer, plan)
    with timer("zero_shot"):
        zero = ctx.zero_shot()
    with timer("mine_negatives"):
        negs = ctx.negatives()
    examples = {ex.qid: ex for ex in make_examples(plan.queries.train_ids(), ctx.qtext, dataset.qrels, negs)}
    with timer("load_backbone"):
        base_model, tok = ctx.load_backbone()

    hits: Dict[str, Dict[str, float]] = {ZERO: zero}
    unit_log: List[dict] = []
    methods_out: Dict[str, dict] = {}

    def train_unit(unit: _Unit, start=None):
        dual = build_dual_encoder(spec, unit.method, base_model, tok, cfg.tuning, seed=unit.seed, start=start)
        ex = [examples[q] for q in unit.qids if q in examples]
        t0 = time.perf_counter()
        if ex:
            log = train_dual_encoder(dual, ex, ctx.doc_text, cfg.train, unit.seed,
                                     passage_lookup=None if dual.passage_trainable else ctx.passage_lookup,
                                     query_lookup=None if dual.query_trainable else ctx.query_lookup,
                                     progress=cfg.progress, desc=f"train {unit.set_name}")
        else:  # e.g. every class short under rule "skip": the starting weights are evaluated as they are
            log = TrainLog(seed=unit.seed)
        t1 = time.perf_counter()
        h = ctx.evaluate(dual)
        t2 = time.perf_counter()
        timing = {"set": unit.set_name, "train_seconds": round(t1 - t0, 4), "eval_seconds": round(t2 - t1, 4)}
        return dual, log, h, timing

    for method in cfg.methods:
        m_out: dict = {"description": METHOD_DESCRIPTIONS[method],
                       "training": cfg.train.resolved(method, spec.similarity),
                       "tuning": cfg.tuning.for_method(method, base_model)}
        encoded = {"query": 0, "passage": 0}
        start = None
        if cfg.basic_learning:
            base_q = plan.queries.train_ids(list(plan.classes.base))
            unit = _Unit(method, BASIC, None, None, _unit_seed(cfg.seed, method, BASIC), base_q)
            with timer(f"train+eval:{method}"):
                dual, log, h, timing = train_unit(unit)
            start = tuned_module(dual)
            hits[unit.set_name] = h
            unit_log.append(timing)
            m_out[BASIC] = dict(summarise_setting(h, plan), train=log.to_dict(), n_train_queries=len(base_q))
            for r in encoded:
                encoded[r] += dual.n_encoded[r]
        units: List[_Unit] = []
        for k in plan.ks:
            for t in plan.trials[k]:
                units.append(_Unit(method, f"K={k}", k, t.index, _unit_seed(t.seed, method, k), t.query_ids()))
        if cfg.full_shot:
            units.append(_Unit(method, FULL, None, None, _unit_seed(cfg.seed, method, FULL),
                               plan.queries.train_ids()))

        def work(unit: _Unit, _start=start):
            dual, log, h, timing = train_unit(unit, _start)
            return {"log": log.to_dict(), "hits": h, "timing": timing, "encoded": dict(dual.n_encoded),
                    "parameters": dual.parameter_counts(), "tied": dual.tied}

        with timer(f"train+eval:{method}"):
            outputs = executor.map(work, units)
        k_out: Dict[str, dict] = {}
        for unit, o in zip(units, outputs):
            hits[unit.set_name] = o["hits"]
            unit_log.append(o["timing"])
            for r in encoded:
                encoded[r] += o["encoded"][r]
            m_out["parameters"], m_out["tied"] = o["parameters"], o["tied"]
        for k in plan.ks:
            ku = [(u, o) for u, o in zip(units, outputs) if u.k == k]
            entry = summarise_trials([o["hits"] for _, o in ku], zero, plan)
            entry["trials"] = [{"trial": u.trial, "seed": plan.trials[k][u.trial - 1].seed, "unit_seed": u.seed,
                                "n_train_queries": len(u.qids), "train": o["log"],
                                **{s: entry[s]["trials"][i] for s in SPLITS},
                                "winning_ratio": {s: entry["winning_ratio_per_trial"][s][i] for s in SPLITS}}
                               for i, (u, o) in enumerate(ku)]
            entry["usable_classes"] = plan.usable[k]
            k_out[str(k)] = entry
        m_out["k"] = k_out
        if cfg.full_shot:
            u, o = units[-1], outputs[-1]
            m_out[FULL] = dict(summarise_setting(o["hits"], plan), train=o["log"], n_train_queries=len(u.qids))
        zs_novel = summarise_setting(zero, plan)["novel"]
        pts = [(0, zs_novel)] + [(k, k_out[str(k)]["novel"]["mean"]) for k in plan.ks]
        m_out["boosting_gradient"] = {"split": "novel", "points": [[k, v] for k, v in pts],
                                      "segments": boosting_gradient(pts)}
        m_out["encoded_by_tuned_model"] = encoded
        methods_out[method] = m_out

    zero_summary = summarise_setting(zero, plan)
    rows, set_order = _per_query_rows(hits, plan, cfg)
    statistics = None
    with timer("statistics"):
        statistics = _statistics(hits, plan, cfg)
    result = {
        **result_header("fewshot", spec, dataset, cfg.seed),
        "measures": [MEASURE],
        "measure_definition": MEASURE_DEFINITION.format(k=cfg.cutoff),
        "retrieval": {"cutoff": cfg.cutoff, "index": "faiss.IndexFlatIP", "similarity": spec.similarity,
                      "corpus": "whole corpus", "tie_break": TIE_BREAK},
        "protocol": {
            "methods": list(cfg.methods), "basic_learning": cfg.basic_learning, "full_shot": cfg.full_shot,
            "ks_requested": sorted(set(int(k) for k in cfg.ks)), "ks": list(plan.ks), "n_trials": cfg.n_trials,
            "novel_ratio": cfg.novel_ratio if cfg.split_file is None else None,
            "test_ratio": cfg.test_ratio, "min_usable_novel": cfg.min_usable_novel,
            "reference": ZERO,
            "start_weights": "basic-learned weights of the method" if cfg.basic_learning else "the checkpoint",
            "sd": "sample standard deviation over trials (n-1 denominator)",
            "per_query_sd": "per test query, SD (n-1) of its R@10 over trials; averaged over the split's test queries",
            "winning_ratio": "share of the split's classes whose K-shot R@10 (mean over trials) is strictly greater "
                             "than zero-shot; per trial: the same with that trial's R@10",
            "boosting_gradient": "novel R@10 against K (zero-shot = K 0); per_shot = delta R@10 / delta K",
            "embedding_cache": "trained encoders are never written to the shared embedding cache (in-memory only)",
        },
        "plan": plan.to_dict(),
        "zero_shot": zero_summary,
        "methods": methods_out,
        "sets": [{"name": s, "status": "ok"} for s in set_order],
        "summary": _summary(zero_summary, methods_out, plan, cfg),
        "statistics": statistics,
        "notes": list(plan.notes),
        "per_query_file": "per_query.csv",
        "plots": ["fewshot_r10.png", "fewshot_winning_ratio.png"] if cfg.plots else [],
    }
    from bench.evaluation.stats import to_jsonable

    result = to_jsonable(result)
    per_query_text = _per_query_csv(rows)
    timings = {"seconds": {}, "units": unit_log, "encoding": ctx.retriever.stats(), "executor": executor.name}
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
        write_run(out_dir, result, per_query_text, timings)
    else:
        timings["seconds"] = {k: round(v, 4) for k, v in sorted(timer.seconds.items())}
        timings["wall_seconds"] = round(time.perf_counter() - t_start, 2)
    return {"result": result, "per_query": per_query_text, "timings": timings, "plan": plan}


def _per_query_rows(hits: Mapping[str, Mapping[str, float]], plan: FewShotPlan, cfg: FewShotConfig):
    split_of = {c: plan.classes.split_of(c) for c in plan.queries.test}
    rows, order = [], []
    for set_name, h in hits.items():
        order.append(set_name)
        parts = set_name.split("/")
        method = "" if set_name == ZERO else parts[0]
        setting = ZERO if set_name == ZERO else parts[1]
        k = setting[2:] if setting.startswith("K=") else ("0" if setting == ZERO else "")
        trial = parts[2].split("=")[1] if len(parts) > 2 else ""
        for c in sorted(plan.queries.test):
            for q in plan.queries.test[c]:
                rows.append((set_name, method, setting, k, trial, q, c, split_of[c], h[q]))
    return rows, order


def _per_query_csv(rows) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    # the run-folder layout (set, qid, applied, measures; every column after qid numeric):
    # applied = 0 (query texts are never changed here), k = K (0 for zero-shot, nan for basic /
    # full-shot), trial = 1..n (nan outside K-shot). Class membership: result.json plan.test_queries
    w.writerow(["set", "qid", "applied", MEASURE, "k", "trial"])
    for set_name, method, setting, k, trial, q, c, split, value in rows:
        w.writerow([set_name, q, 0, repr(float(value)), k if k != "" else "nan", trial if trial != "" else "nan"])
    return buf.getvalue()


STAT_UNIT = {
    "randomization": "test query, weighted by 1/(test queries of its class x classes in the split), so that the "
                     "weighted mean difference is the macro-averaged headline difference",
    "t-test": "class (its test queries' mean R@10; n = classes in the split), so that the mean class difference "
              "is the macro-averaged headline difference",
    "wilcoxon": "class (its test queries' mean R@10; n = classes in the split), so that the mean class difference "
                "is the macro-averaged headline difference",
}
STAT_TRIALS = ("K-shot: each test query's R@10 is averaged over the K's trials before pairing (by linearity the "
               "macro average of those equals the headline, the mean over trials of each trial's macro R@10), so "
               "trial-to-trial variation enters each per-query difference; the test conditions on the drawn trials. "
               "Per trial: delta_trials (that trial's macro R@10 - zero-shot) and delta_sd_trials (sample SD, n-1). "
               "Trials are not used as the test's replicates: with 5 trials a sign-flip test over trials cannot "
               "reach p < 2/2^5 = 0.0625, and it would ignore the sampling of test queries. basic / full-shot: one run")


def _statistics(hits, plan: FewShotPlan, cfg: FewShotConfig) -> dict:
    """Per method, setting and split: the setting vs zero-shot, tested at the level of the headline
    (:func:`headline_comparison`: statistic = macro-averaged R@10 difference, trials averaged per
    query first); correction over one method x split's settings."""
    from bench.evaluation.stats import CORRECTION_DESCRIPTIONS, TEST_DESCRIPTIONS, adjust_pvalues

    sc = _split_classes(plan)
    zero = hits[ZERO]
    comps: Dict[str, Dict[str, Dict[str, dict]]] = {}
    sizes = {}
    for method in cfg.methods:
        settings: Dict[str, List[str]] = {}
        if cfg.basic_learning:
            settings[BASIC] = [f"{method}/{BASIC}"]
        for k in plan.ks:
            settings[f"K={k}"] = [f"{method}/K={k}/trial={t.index}" for t in plan.trials[k]]
        if cfg.full_shot:
            settings[FULL] = [f"{method}/{FULL}"]
        comps[method] = {s: {} for s in settings}
        for split in SPLITS:
            raw = []
            for s, names in settings.items():
                c = headline_comparison(zero, [hits[n] for n in names], plan.queries.test, sc[split], test=cfg.test,
                                        seed=cfg.seed, n_resamples=cfg.n_resamples, key=(method, s, split))
                comps[method][s][split] = c
                raw.append((s, c["p_value"]))
            adj = adjust_pvalues([p for _, p in raw], cfg.correction)
            sizes[f"{method}/{split}"] = int(np.sum(np.isfinite([p for _, p in raw])))
            for (s, _), p in zip(raw, adj):
                c = comps[method][s][split]
                c["p_corrected"] = float(p)
                c["significant"] = bool(np.isfinite(p) and p < cfg.alpha)
    if cfg.test == "randomization":
        from bench.evaluation.stats import EXACT_MAX_N

        test_description = (
            "stratified paired randomization (sign-flip) test of the headline difference: each test query's "
            "(setting, zero-shot) pair is swapped with probability 1/2 (a query stays in its class), statistic T = "
            "sum_q w_q d_q = macro average over classes of the per-class mean difference; exact enumeration of "
            f"2^n' sign vectors over the n' queries with a non-zero difference when n' <= {EXACT_MAX_N}, otherwise "
            "seeded Monte Carlo with p = (b+1)/(m+1), b = #{|T*| >= |T|}")
        statistic = "T = delta (the macro-averaged R@10 difference, setting - zero-shot)"
    else:
        test_description = "class-level " + TEST_DESCRIPTIONS[cfg.test] + " (pairs: per-class mean R@10)"
        statistic = ("t on the per-class differences (mean = delta)" if cfg.test == "t-test"
                     else "W on the per-class differences (their mean = delta)")
    header = {
        "test": cfg.test,
        "test_description": test_description,
        "statistic": statistic,
        "sidedness": "two-sided",
        "correction": cfg.correction,
        "correction_description": CORRECTION_DESCRIPTIONS[cfg.correction],
        "family": "per method and split: that method's settings (basic, each K, full-shot) vs zero-shot",
        "family_size": sizes,
        "alpha": cfg.alpha,
        "seed": cfg.seed,
        "unit": STAT_UNIT[cfg.test],
        "trials": STAT_TRIALS,
        "means": "mean_zero_shot / mean_k_shot are the headline values: R@10 macro-averaged over the split's classes "
                 "(K-shot: mean over trials of each trial's macro R@10); delta = mean_k_shot - mean_zero_shot",
        "difference": "d_q = the setting's R@10 for test query q (averaged over trials) - zero-shot R@10",
        "win_tie_loss": "per test query, unweighted counts: win = setting > zero-shot, tie = equal, "
                        "loss = setting < zero-shot",
    }
    if cfg.test == "randomization":
        header["randomization"] = {"exact_max_n": EXACT_MAX_N, "n_resamples": cfg.n_resamples,
                                   "exact_over": "queries with a non-zero weighted difference (n_nonzero)",
                                   "p_value": "exact: b/2^n'; monte carlo: (b+1)/(m+1)"}
    return {"header": header, "comparisons": comps}


def _summary(zero: dict, methods_out: dict, plan: FewShotPlan, cfg: FewShotConfig) -> dict:
    """Headline numbers for leaderboards: flat ``metrics`` (name -> value) plus the headline setting
    (the first method at the smallest K that ran)."""
    metrics = {f"{ZERO} {s} {MEASURE}": zero[s] for s in SPLITS}
    for m, mo in methods_out.items():
        if BASIC in mo:
            for s in SPLITS:
                metrics[f"{m} {BASIC} {s} {MEASURE}"] = mo[BASIC][s]
        for k, e in mo["k"].items():
            for s in SPLITS:
                metrics[f"{m} K={k} {s} {MEASURE}"] = e[s]["mean"]
                metrics[f"{m} K={k} {s} {MEASURE} SD"] = e[s]["sd"]
                metrics[f"{m} K={k} {s} winning ratio"] = e["winning_ratio"][s]
        if FULL in mo:
            for s in SPLITS:
                metrics[f"{m} {FULL} {s} {MEASURE}"] = mo[FULL][s]
    head: dict = {"measure": MEASURE, "reference": ZERO, "zero_shot": {s: zero[s] for s in SPLITS}}
    if plan.ks:
        m = cfg.methods[0]
        k = str(plan.ks[0])
        e = methods_out[m]["k"][k]
        head.update(method=m, k=int(k),
                    k_shot={s: {"mean": e[s]["mean"], "sd": e[s]["sd"]} for s in SPLITS},
                    winning_ratio=e["winning_ratio"],
                    delta_novel=(e["novel"]["mean"] - zero["novel"]) if e["novel"]["mean"] is not None else None)
        if FULL in methods_out[m]:
            head["full_shot"] = {s: methods_out[m][FULL][s] for s in SPLITS}
    return {"headline": head, "metrics": metrics}


# --------------------------------------------------------------------------------------------
# console table and plots


def _pct(v, sd=None) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}" + (f" ±{100 * sd:.1f}" if sd is not None else "")


def _statistics_lines(st: dict) -> List[str]:
    """The console description of the test: statistic, unit, trials, test, sidedness, correction."""
    if "trials" not in st:  # a result written before the headline-level test
        return [f"p = {st['test']} test per test query ({st['sidedness']}), {st['correction']} correction over each "
                f"method's settings; seed {st['seed']}"]
    if st["test"] == "randomization":
        what = "stratified paired randomization (sign-flip) test"
        unit = "test query weighted by 1/(test queries of its class x classes), so the statistic is"
    else:
        what = f"class-level paired {st['test']}"
        unit = "class (its mean R@10), so the mean class difference is"
    return [f"p = {what} of the headline difference (setting - zero-shot R@10, macro over classes), "
            f"{st['sidedness']}; unit: {unit} the headline delta; K-shot trials averaged per test query before "
            f"pairing; {st['correction']} correction over each method's settings per split; seed {st['seed']}"]


def fewshot_table(result: dict) -> str:
    """Rows: zero-shot, then per method basic / each K / full-shot; R@10 (x100, mean ± SD over
    trials) per split, winning ratio, per-query SD and the corrected p-value (novel)."""
    header = ["setting", "base R@10", "novel R@10", "all R@10", "win(novel)", "win(all)", "q-SD(novel)",
              "p(novel)"]
    zs = result["zero_shot"]
    rows = [[ZERO, _pct(zs["base"]), _pct(zs["novel"]), _pct(zs["all"]), "-", "-", "-", "-"]]
    comps = ((result.get("statistics") or {}).get("comparisons") or {})
    for m, mo in result["methods"].items():
        def p_of(setting):
            c = comps.get(m, {}).get(setting, {}).get("novel")
            return "-" if not c or c.get("p_corrected") is None else f"{c['p_corrected']:.3g}"

        if BASIC in mo:
            b = mo[BASIC]
            rows.append([f"{m} basic", _pct(b["base"]), _pct(b["novel"]), _pct(b["all"]), "-", "-", "-", p_of(BASIC)])
        for k, e in mo["k"].items():
            wr = e["winning_ratio"]
            rows.append([f"{m} K={k}", _pct(e["base"]["mean"], e["base"]["sd"]), _pct(e["novel"]["mean"], e["novel"]["sd"]),
                         _pct(e["all"]["mean"], e["all"]["sd"]), _pct(wr["novel"]), _pct(wr["all"]),
                         _pct(e["novel"]["per_query_sd"]), p_of(f"K={k}")])
        if FULL in mo:
            f = mo[FULL]
            rows.append([f"{m} full-shot", _pct(f["base"]), _pct(f["novel"]), _pct(f["all"]), "-", "-", "-",
                         p_of(FULL)])
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [header] + rows]
    lines.insert(1, "-" * len(lines[0]))
    d = result["dataset"]
    plan = result["plan"]
    sizes = plan["class_sizes"]
    n_test = sum(v["test"] for v in sizes.values())
    title = (f"{result['model']['name']} on {d['name']} ({d['n_docs']} docs): few-shot (FewDR protocol), seed "
             f"{result['seed']}, {len(plan['trial_seeds'])} trials, {len(plan['classes']['base'])} base / "
             f"{len(plan['classes']['novel'])} novel classes, {n_test} test queries")
    out = [title, "", *lines, ""]
    out.append("R@10 x100 = share of test queries with a relevant passage in the top 10, macro-averaged over "
               "classes; ± = sample SD over trials (n-1); win = winning ratio vs zero-shot (classes)")
    st = (result.get("statistics") or {}).get("header") or {}
    if st:
        out.extend(_statistics_lines(st))
    for k in plan["ks"]:
        u = plan["usable_classes"][str(k)]
        out.append(f"K={k}: usable (>= {k} training queries): base {len(u['base'])}/{len(plan['classes']['base'])}"
                   f" [{', '.join(u['base'])}], novel {len(u['novel'])}/{len(plan['classes']['novel'])}"
                   f" [{', '.join(u['novel'])}]; other classes: rule '{plan['short_class_rule']}'")
    for k, why in plan["skipped_k"].items():
        out.append(f"K={k} not run: {why}")
    for m, mo in result["methods"].items():
        arch = describe(m, mo.get("tuning") or {})
        if arch:
            out.append(f"tuning {arch}")
    for m, mo in result["methods"].items():
        segs = mo["boosting_gradient"]["segments"]
        if segs:
            out.append(f"{m} boosting gradient (novel, R@10 x100 per shot): " +
                       ", ".join(f"{s['from_k']}->{s['to_k']}: {100 * s['per_shot']:+.3f}" for s in segs))
    for n in result.get("notes") or []:
        out.append(f"note: {n}")
    return "\n".join(out)


def write_plots(result: dict, out_dir: Path) -> List[str]:
    """R@10 against K with SD bands, and winning ratio per K (PNG, matplotlib Agg, imported here)."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt
    except ImportError:
        return ["matplotlib is not installed: no plots (pip install matplotlib)"]
    from bench.core.io import atomic_path

    ks = [int(k) for k in result["plan"]["ks"]]
    zs = result["zero_shot"]
    colors = {"base": "tab:blue", "novel": "tab:orange", "all": "tab:green"}
    styles = ["-", "--", ":", "-."]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    x_all = [0] + ks
    xpos = list(range(len(x_all)))
    labels = ["0 (zero-shot)"] + [str(k) for k in ks]
    for mi, (m, mo) in enumerate(result["methods"].items()):
        for s in SPLITS:
            means = [zs[s]] + [mo["k"][str(k)][s]["mean"] for k in ks]
            sds = [0.0] + [mo["k"][str(k)][s]["sd"] or 0.0 for k in ks]
            means = np.array([np.nan if v is None else 100 * v for v in means])
            sds = 100 * np.array(sds)
            ax.plot(xpos, means, styles[mi % len(styles)], marker="o", color=colors[s], label=f"{m} {s}")
            ax.fill_between(xpos, means - sds, means + sds, color=colors[s], alpha=0.15)
            if FULL in mo and mo[FULL][s] is not None:
                ax.axhline(100 * mo[FULL][s], color=colors[s], linestyle=styles[mi % len(styles)], alpha=0.4,
                           linewidth=1)
    ax.set_xticks(xpos)
    ax.set_xticklabels(labels)
    ax.set_xlabel("K (training queries per class)")
    ax.set_ylabel("R@10 (x100, macro over classes)")
    ax.set_title(f"{result['model']['name']} on {result['dataset']['name']}: R@10 vs K "
                 f"(bands: ±SD over trials; faint lines: full-shot)", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_path(out_dir / "fewshot_r10.png", suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    methods = list(result["methods"])
    hatches = ["", "//", "..", "xx", "\\\\", "--", "oo", "++"]
    width = 0.8 / max(1, len(methods) * len(SPLITS))
    for mi, m in enumerate(methods):
        for si, s in enumerate(SPLITS):
            vals = [result["methods"][m]["k"][str(k)]["winning_ratio"][s] for k in ks]
            vals = [np.nan if v is None else 100 * v for v in vals]
            off = (mi * len(SPLITS) + si) * width - 0.4 + width / 2
            bars = ax.bar(np.arange(len(ks)) + off, vals, width, color=colors[s], label=f"{m} {s}",
                          hatch=hatches[mi % len(hatches)], edgecolor="white", linewidth=0.3)
            ax.bar_label(bars, labels=["-" if np.isnan(v) else f"{v:.0f}" for v in vals], fontsize=7, padding=1)
    ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(np.arange(len(ks)))
    ax.set_xticklabels([f"K={k}" for k in ks])
    ax.set_ylim(0, 100)
    ax.set_ylabel("winning ratio (% of classes beating zero-shot)")
    ax.set_title("Winning ratio per K (trial-mean class R@10 > zero-shot)", fontsize=9)
    ax.legend(fontsize=7, ncol=max(1, len(methods) // 2))
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    with atomic_path(out_dir / "fewshot_winning_ratio.png", suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return []


# --------------------------------------------------------------------------------------------
# command line


def _ints(text: str, what: str) -> List[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise BenchError(f"{what} must be integers separated by commas, not {text!r}") from None


def add_arguments(g) -> None:
    """Options of ``bench evaluate --suite fewshot`` (added to the evaluate command's parser)."""
    g.add_argument("--methods", default="qry-tune",
                   help=f"comma-separated tuning methods from {', '.join(METHODS)} (default: qry-tune)")
    g.add_argument("--ks", default=",".join(str(k) for k in DEFAULT_KS),
                   help="K values, training queries per class (default: 5,20,100; a K runs where at least "
                        "--min-usable-novel novel classes have K training queries)")
    g.add_argument("--trials", type=int, default=DEFAULT_TRIALS, help="sampling trials per K (default: 5)")
    g.add_argument("--trial-seeds", default=None, help="explicit comma-separated trial seeds (default: derived "
                                                       "from --seed, recorded)")
    g.add_argument("--class-split", type=Path, default=None, help="base/novel split file (JSON {base, novel} or "
                                                                  "'class base|novel' lines)")
    g.add_argument("--novel-ratio", type=float, default=0.5, help="share of classes drawn as novel without "
                                                                  "--class-split (default: 0.5)")
    g.add_argument("--test-ratio", type=float, default=0.5, help="share of each class's queries held out for "
                                                                 "testing (default: 0.5)")
    g.add_argument("--short-classes", choices=list(SHORT_RULES), default="all",
                   help="classes with fewer than K training queries: 'all' = use all of them (capped), "
                        "'skip' = none at that K (default: all)")
    g.add_argument("--min-usable-novel", type=int, default=1, help="run a K only if this many novel classes "
                                                                   "have K training queries (default: 1)")
    g.add_argument("--basic-learning", action="store_true", help="first train each method on all base training "
                                                                 "queries; few-shot starts from those weights")
    g.add_argument("--no-full-shot", action="store_true", help="skip the full-shot upper reference")
    g.add_argument("--cutoff", type=int, default=10, help="R@k cutoff (default: 10, FewDR's R@10)")
    from bench.training.contrastive import add_training_arguments
    from bench.cli.options import add_tuning_arguments

    add_training_arguments(g)
    add_tuning_arguments(g)
    g.add_argument("--fewshot-test", default="randomization", help="paired test vs zero-shot: randomization "
                                                                   "(default), t-test, wilcoxon")
    g.add_argument("--resamples", type=int, default=10000, help="Monte Carlo resamples of the randomization test")
    g.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")


def config_from_args(args) -> FewShotConfig:
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    from bench.training.contrastive import train_config_from_args
    from bench.cli.options import tuning_config_from_args

    train = train_config_from_args(args)
    tuning = tuning_config_from_args(args)
    return FewShotConfig(
        seed=args.seed, ks=_ints(args.ks, "--ks"), n_trials=args.trials,
        trial_seeds=_ints(args.trial_seeds, "--trial-seeds") if args.trial_seeds else None,
        novel_ratio=args.novel_ratio, test_ratio=args.test_ratio, split_file=args.class_split,
        short_rule=args.short_classes, min_usable_novel=args.min_usable_novel, methods=methods,
        basic_learning=args.basic_learning, full_shot=not args.no_full_shot, cutoff=args.cutoff, train=train,
        tuning=tuning, test=args.fewshot_test, correction=args.correction, n_resamples=args.resamples,
        batch_size=args.batch_size, progress=not args.no_progress, plots=not args.no_plots)


def run_from_args(args, spec: ModelSpec, dataset: Dataset, out_dir: Path, executor) -> int:
    cfg = config_from_args(args).validate()
    t0 = time.perf_counter()
    print(f"bench: {spec.name} on {dataset.name} ({len(dataset.corpus)} docs, {len(dataset.queries)} queries), "
          f"suite fewshot, methods {', '.join(cfg.methods)}, K {', '.join(map(str, sorted(set(cfg.ks))))}, "
          f"{cfg.n_trials} trials, seed {cfg.seed}", file=sys.stderr)
    out = run(spec, dataset, cfg, out_dir, executor=executor)
    print(fewshot_table(out["result"]))
    wall = time.perf_counter() - t0
    print(f"\nwall time {wall:.0f} s ({wall / 60:.1f} min)")
    print(f"result: {Path(out_dir) / 'result.json'}  per-query: {Path(out_dir) / 'per_query.csv'}  plots: "
          f"{', '.join(str(Path(out_dir) / p) for p in out['result']['plots']) or 'none'}")
    return 0
