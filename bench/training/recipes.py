"""Training recipes for robustness to query variations: RoDR and its baselines.

``bench train --recipe NAME --model CKPT --dataset D --out DIR`` trains a dense retriever DR_N
initialised from CKPT and writes a checkpoint folder (:mod:`bench.models.checkpoint`) that
``bench evaluate --model DIR`` evaluates like any other model.

Recipes (:data:`RECIPES`):

- ``rodr``: RoDR, "Towards Robust Dense Retrieval via Local Ranking Alignment" (Chen et al.,
  IJCAI 2022). DR_O = CKPT, frozen, is the teacher. Each training query q is paired with one
  variation q' for the whole run (``variation_sampling="quota"``, the default, as the authors'
  ``construct_train_query_variations.py``): one of the sets that changed q, the variation types
  given equal quotas as far as the queries allow (``recipe_data.quota_assignment``); a query no
  set changed trains on itself, listed under ``deviations``. Two other rules are named
  deviations: ``"sets"`` draws q' per (query, epoch) uniformly over every set (a set that left q
  unchanged gives q itself, a (q, q) pair) and ``"changed"`` per (query, epoch) among the sets
  that changed q. For a batch of B pairs with passage columns P = B positives + B*h hard negatives:

  * ``L_nll``  = cross-entropy of q' against its own positive over P (in-batch + hard negatives),
  * ``L_q``    = mean over i of KL( p_O(. | q_i) || p_N(. | q'_i) ), each a softmax over the
    columns P of s(q, p) / tau (query-centred local ranking),
  * ``L_p``    = mean over every in-batch passage p_j in P (positives and hard negatives, as the
    paper's "for each p_j in P" and the authors' code) of KL( p_O(. | p_j) || p_N(. | p_j) ),
    each a softmax over the B in-batch queries of s(q_i, p_j) / tau for DR_O with the original
    queries q_i and for DR_N with the variations q'_i (passage-centred local ranking);
    ``passage_rows="positives"`` (ours, a named deviation) centres it on the B positives only,
  * ``loss``   = w_nll * L_nll + w_query * L_q + w_passage * L_p.

  Two cases, as in the paper: RoDR applied to an existing retriever (default: DR_O = CKPT; equal
  weights 1 / 1 / 1) and RoDR on top of DR_OQ (``from_dr_oq``, ``--from-dr-oq``: stage 1 trains
  DR_OQ from CKPT on the original queries (NLL) into ``<out>.dr-oq``; stage 2 is RoDR with
  DR_OQ as both the frozen teacher and the starting point, weights 1 / 1 / 0.2). The training
  record states the case, the weights used and the paper's weights for the case; weights given
  on the command line that differ from them are listed under ``deviations``.

  KL(P || Q) = sum_x P(x) (log P(x) - log Q(x)): the teacher's distribution is the first
  argument. s is the dot product of the model's output vectors (L2-normalised first when the
  model's similarity is cosine, so s is then the cosine), divided by the temperature tau.
  A column holding a passage judged relevant to another row's query is masked out of that row
  in every term (it is neither a negative nor part of the local ranking), in both models.
  DR_O's vectors are its cached embeddings (the corpus matrix and the query store), encoded at the
  training lengths (``--train-max-query-length`` / ``--train-max-passage-length``), so that the KL
  compares teacher and student on the same texts; the teacher never runs a forward pass during
  training. Hyperparameters: the harness's (``rodr_schedule="harness"``) or RoDR's own
  (``"paper"``: 4 epochs, 7 hard negatives, lr 5e-6); every difference from RoDR's is listed
  under ``deviations`` and the source of each setting under ``hyperparameter_sources``.
- ``dr-qv``: DR_QV, trained on the variations q' only (L_nll), no alignment.
- ``dr-oq-qv``: DR_OQ->QV: stage 1 trains DR_OQ on the original queries (L_nll) into
  ``<out>.dr-oq`` (the same stage as ``rodr --from-dr-oq``), stage 2 trains on the variations
  from it. Each stage has its own optimiser and learning-rate schedule (warm-up and decay) and
  RoDR's number of steps (``epochs`` x batches; ``--max-steps`` caps each stage).
- ``dr``: trained on the original queries only (L_nll): the plain fine-tuned baseline.

``--loss margin-mse`` (baseline recipes only) replaces L_nll by Margin-MSE distillation
(Hofstaetter et al., 2020): for each query, its positive p+ and its first hard negative p-,
``((s_S(q,p+) - s_S(q,p-)) - (s_T(q,p+) - s_T(q,p-)))^2`` averaged, raw similarities (no
temperature), the teacher T any dense model (``--teacher``, default the starting model) scored
from its cached embeddings. A cross-encoder teacher is not offered.

Negatives: DR_O's top ``negative_depth`` passages for the original query, excluding every passage
judged for it (any grade), mined once before training; per (query, epoch) ``hard_negatives`` of
them are drawn without replacement, as is the positive among the relevant passages.

Training queries: the dataset's ``--train-split`` when it has one; otherwise a seeded
``--holdout`` fraction of the judged queries is held out (ordered by sha256(seed, qid)) and
listed in the checkpoint's ``heldout_queries.txt``, so that the checkpoint can be evaluated on
queries it never saw (``bench evaluate --queries DIR/heldout_queries.txt``).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, Optional, Tuple

import numpy as np

from bench.core.errors import BenchError
from bench.core.io import canonical_json, sha256_hex
from bench.core.seeding import rng_for, torch_seed
from bench.core.timing import Timer
from bench.core.versions import library_versions
from bench.data.model import Dataset
from bench.models.checkpoint import read_training, reusable_training, save_checkpoint
from bench.models.loading import load_backbone, load_plain_encoder
from bench.models.spec import ModelSpec, model_fingerprint, resolve_model
from bench.search.retriever import make_retriever
from bench.training.contrastive import mine_negatives, relevance_mask
from bench.training.dual import build_dual_encoder, tuned_module
from bench.training.losses import margin_mse, rodr_losses
from bench.training.loop import clear_state, run_loop
from bench.training.recipe_config import (CASES, HELDOUT_FILE, PHASES, RECIPES, RecipeConfig,
                                          MASKING, PAPER_DOCUMENT_WEIGHTS, PAPER_WEIGHTS, SAMPLING_TEXT)
from bench.training.recipe_data import Schedule, split_queries, variation_pairs
from bench.tuning.adapters import set_method_trainable, tuning_info
from bench.tuning.config import DEFAULT_LR, METHOD_DESCRIPTIONS, TuningConfig

STAGE_ONE = ".dr-oq"


def stage_one_folder(out: Path) -> Path:
    """Where a two-stage run (dr-oq-qv, rodr --from-dr-oq) writes its DR_OQ checkpoint."""
    out = Path(out)
    return out.parent / f"{out.name}{STAGE_ONE}"


def variation_data_deviations(cfg: RecipeConfig, pairs, names) -> list:
    """The departures from the authors' variation assignment that this run's data forces (quota rule):
    queries that no set changed (they train on themselves) and types whose share falls short."""
    if cfg.variation_sampling != "quota":
        return []
    out, r = [], cfg.recipe
    bare = sum(1 for p in pairs if not p.variations)
    if bare:
        out.append(f"{r}: {bare} of {len(pairs)} training queries were changed by no variation set and train on the "
                   f"original query (the authors' code gives every query a changed variation)")
    counts = {n: sum(1 for p in pairs if p.variations and p.variations[0][0] == n) for n in names}
    if counts and max(counts.values()) - min(counts.values()) > 1:
        out.append(f"{r}: variation types' quotas unequal, as far as the sets changed the queries ("
                   + ", ".join(f"{k} {v}" for k, v in counts.items())
                   + "; the authors' code: equal quotas per type)")
    return out


def train_recipe(spec: ModelSpec, dataset: Dataset, cfg: RecipeConfig, out: Path, *, train_dataset: Optional[Dataset] = None,
                 cache_root: Optional[Path] = None,
                 batch_size: int = 64, progress: bool = True, stop_after: Optional[int] = None,
                 force: bool = False) -> dict:
    """Train, write the checkpoint folder ``out`` and return its training record.

    ``train_dataset``: a separate training split of the same collection (then nothing is held
    out of ``dataset``). ``stop_after``: stop after this many steps of this call (the state stays
    for a resume; no checkpoint). Two-stage runs (``dr-oq-qv``, ``rodr`` with ``from_dr_oq``)
    first write the DR_OQ checkpoint :func:`stage_one_folder` (reused when it is complete and was
    trained with the same settings), then train stage 2 from it into ``out``. ``force``: write into
    a checkpoint folder drbench did not write (:func:`bench.models.checkpoint.atomic_folder`)."""
    cfg.validate()
    kw = dict(train_dataset=train_dataset, cache_root=cache_root, batch_size=batch_size, progress=progress,
              force=force)
    if cfg.recipe != "dr-oq-qv" and not cfg.from_dr_oq:
        return _train_stage(spec, dataset, cfg, out, stop_after=stop_after, **kw)[0]
    first = stage_one_folder(out)
    one = dataclasses.replace(cfg, recipe="dr", from_dr_oq=False, w_nll=None, w_query=None, w_passage=None,
                              loss=cfg.loss if cfg.recipe == "dr-oq-qv" else "nll",
                              teacher=(cfg.teacher or spec) if cfg.loss == "margin-mse" else None)
    rec1, ran = _train_stage(spec, dataset, one, first, stop_after=stop_after, reuse=True, **kw)
    stage1 = {"stage": 1, "name": "DR_OQ", "recipe": "dr", "checkpoint": str(first), "complete": rec1["complete"],
              "reused": ran is None, "steps": rec1["log"]["steps"], "first_loss": rec1["log"]["first_loss"],
              "last_loss": rec1["log"]["last_loss"]}
    if not rec1["complete"]:
        return dict(rec1, recipe=cfg.recipe, stages=[stage1], complete=False)
    left = None if stop_after is None else stop_after - (ran or 0)
    dr_oq = resolve_model(str(first))
    two = dataclasses.replace(cfg, recipe="dr-qv" if cfg.recipe == "dr-oq-qv" else "rodr",
                              teacher=(cfg.teacher or spec) if cfg.loss == "margin-mse" else None)
    stage1["fingerprint"] = model_fingerprint(dr_oq)
    rec2, _ = _train_stage(dr_oq, dataset, two, out, stop_after=left, stage=(cfg, spec, stage1), **kw)
    return rec2


@dataclasses.dataclass
class _StageData:
    """What one stage trains on: the training queries, the passages, the training pairs and the variation sets."""

    train_ds: Dataset
    train_ids: list
    heldout: list
    retriever: object
    doc_texts: list
    doc_pos: Dict[str, int]
    pairs: list
    used_sets: list
    missing_sets: list


def _stage_data(spec: ModelSpec, dataset: Dataset, cfg: RecipeConfig, train_dataset: Optional[Dataset], timer,
                cache_root: Optional[Path], batch_size: int, progress: bool) -> _StageData:
    """The training queries (the training split, or ``dataset`` less a held-out share), the starting
    model's retriever over the training passages, its mined hard negatives and the training pairs."""
    if train_dataset is not None:
        train_ds = train_dataset
        train_ids, heldout = train_ds.judged_query_ids(), []
    else:
        train_ds = dataset
        train_ids, heldout = split_queries(dataset, cfg.holdout, cfg.seed)
    tc = cfg.train
    with timer("load_model_and_corpus"):
        retriever = make_retriever(spec, train_ds, timer, cache_root=cache_root, batch_size=batch_size,
                                   progress=progress)
    doc_ids = train_ds.doc_ids()
    doc_texts = [train_ds.corpus[d].full_text() for d in doc_ids]
    retriever.passage_cache.matrix(doc_texts)
    with timer("mine_negatives"):
        negatives: Dict[str, Tuple[str, ...]] = {}
        if tc.hard_negatives and tc.negatives_from != "none":
            depth = tc.negative_depth + max(len(v) for v in train_ds.qrels.values())
            run = retriever.search(train_ids, [train_ds.queries[q].text for q in train_ids], depth)
            judged = {q: {d: 1 for d in train_ds.qrels.get(q, {})} for q in train_ids}
            negatives = mine_negatives(run, judged, tc.negative_depth)
    with timer("variations"):
        pairs, used_sets, missing_sets = variation_pairs(train_ds, train_ids, cfg, negatives)
    pairs = [p for p in pairs if p.positives]
    if not pairs:
        raise BenchError("no training query has a relevant passage")
    return _StageData(train_ds, train_ids, heldout, retriever, doc_texts, {d: i for i, d in enumerate(doc_ids)},
                      pairs, used_sets, missing_sets)


def _teacher_retriever(t_spec: ModelSpec, data: _StageData, timer, cache_root: Optional[Path],
                       batch_size: int, progress: bool, same: bool):
    """The starting model's retriever when ``same``, else one of ``t_spec`` over the training passages."""
    if same:
        return data.retriever
    return make_retriever(t_spec, data.train_ds, timer, cache_root=cache_root, batch_size=batch_size,
                          progress=progress)


def _teachers(spec: ModelSpec, cfg: RecipeConfig, data: _StageData, timer, cache_root: Optional[Path],
              batch_size: int, progress: bool) -> Tuple[Optional[dict], Optional[dict]]:
    """The frozen models the loss compares the student with, from their cached embeddings:
    RoDR's DR_O (the starting model, encoded at the student's training lengths so both sides of the
    KL see the same texts; None for the other recipes) and Margin-MSE's teacher (None without it)."""
    tc, texts = cfg.train, [p.text for p in data.pairs]
    dr_o = None
    if cfg.recipe == "rodr":
        t_spec = spec.with_overrides(max_query_length=tc.max_query_length, max_passage_length=tc.max_passage_length)
        same = (t_spec.max_query_length, t_spec.max_passage_length) == (spec.max_query_length, spec.max_passage_length)
        t_ret = _teacher_retriever(t_spec, data, timer, cache_root, batch_size, progress, same)
        vecs = t_ret.query_cache.texts(texts)
        dr_o = {"q": {p.qid: vecs[i] for i, p in enumerate(data.pairs)},
                "corpus": t_ret.passage_cache.matrix(data.doc_texts),
                "lengths": {"query": t_spec.max_query_length, "passage": t_spec.max_passage_length}}
    mm = None
    if cfg.loss == "margin-mse":
        t_spec = cfg.teacher or spec
        t_ret = _teacher_retriever(t_spec, data, timer, cache_root, batch_size, progress, t_spec is spec)
        t_vecs = t_ret.query_cache.texts(texts)
        mm = {"spec": t_spec, "q": {p.qid: t_vecs[i] for i, p in enumerate(data.pairs)},
              "corpus": t_ret.passage_cache.matrix(data.doc_texts)}
    return dr_o, mm


def _student(spec: ModelSpec, cfg: RecipeConfig):
    """(the dual encoder being trained, its backbone, tokenizer, tuning settings): the starting model
    with ``cfg.method``'s modules attached, or a PEFT checkpoint's own modules trained on."""
    base_model, tok = load_backbone(spec)
    tuning_cfg = cfg.tuning if cfg.tuning is not None else TuningConfig()
    tuning_cfg.validate([cfg.method])
    start = None
    info = tuning_info(base_model)
    if info is not None:  # a checkpoint carrying its method's modules (stage 1 of a PEFT run): train them on
        if info["method"] != cfg.method:
            raise BenchError(f"{spec.name} carries {info['method']} modules; train it on with --method "
                             f"{info['method']}, or start from a plain checkpoint")
        start = set_method_trainable(base_model)
        base_model = load_plain_encoder(spec.resolve_path())  # the frozen backbone, saved beside the modules
    dual = build_dual_encoder(spec, cfg.method, base_model, tok, tuning_cfg, seed=torch_seed(cfg.seed, "init", cfg.method),
                              start=start)
    return dual, base_model, tok, tuning_cfg


class _StageBatches:
    """The batches of a stage (:meth:`plan`) and the loss of each (:meth:`loss_at`, called by the loop)."""

    def __init__(self, cfg: RecipeConfig, data: _StageData, dual, sched: Schedule, phases, settings: dict,
                 weights: dict, cosine: bool, dr_o: Optional[dict], mm: Optional[dict]):
        self.cfg, self.data, self.dual, self.sched, self.phases = cfg, data, dual, sched, phases
        self.n_neg, self.tau = settings["hard_negatives"], settings["temperature"]
        self.weights, self.cosine, self.dr_o, self.mm = weights, cosine, dr_o, mm

    def plan(self, step: int):
        """The batch of ``step``: (pairs, query texts, variation set used per pair, passage columns,
        the batch row each hard-negative column belongs to)."""
        cfg, n_neg = self.cfg, self.n_neg
        pi, epoch, idx = self.sched.batch(step)
        batch = [self.data.pairs[i] for i in idx]
        phase = self.phases[pi]
        qtexts, names, pos_ids, neg_ids, neg_owner = [], [], [], [], []
        for i, ex in enumerate(batch):
            r = rng_for(cfg.seed, "recipe-pairs", f"{ex.qid}/{pi}/{epoch}")
            pos_ids.append(ex.positives[int(r.integers(len(ex.positives)))])
            if n_neg and ex.negatives:
                take = min(n_neg, len(ex.negatives))
                neg_ids += [ex.negatives[j] for j in sorted(r.choice(len(ex.negatives), size=take, replace=False))]
                neg_owner += [i] * take
            rv = rng_for(cfg.seed, "recipe-variation", f"{ex.qid}/{pi}/{epoch}")
            if phase == "variation" and ex.variations:
                name, text = ex.variations[int(rv.integers(len(ex.variations)))]
            else:
                name, text = ("ORIGINAL" if phase == "original" else "ORIGINAL (no variation applied)"), ex.text
            names.append(name)
            qtexts.append(text)
        return batch, qtexts, names, pos_ids + neg_ids, neg_owner

    @staticmethod
    def first_negatives(batch, neg_owner):
        """Per query of the batch: the column of its first hard negative (None: it has none)."""
        first = [None] * len(batch)
        for j, owner in enumerate(neg_owner):
            if first[owner] is None:
                first[owner] = len(batch) + j
        return first

    def _vectors(self, store: dict, rows, device):
        import torch

        doc_pos, corpus = self.data.doc_pos, store["corpus"]
        return torch.from_numpy(np.asarray(corpus[[doc_pos[d] for d in rows]], dtype=np.float32)).to(device)

    def _margin_mse(self, batch, cols, neg_owner, q_n, p_n):
        import torch

        mm = self.mm
        first = self.first_negatives(batch, neg_owner)
        rows = [i for i, f in enumerate(first) if f is not None]
        if not rows:
            raise BenchError("margin-mse: a batch without hard negatives (raise --negative-depth)")
        negs = [first[i] for i in rows]
        tq = torch.from_numpy(np.stack([mm["q"][batch[i].qid] for i in rows]).astype(np.float32)).to(q_n.device)
        tp = self._vectors(mm, [cols[i] for i in rows], q_n.device)
        tn = self._vectors(mm, [cols[j] for j in negs], q_n.device)
        loss = margin_mse(q_n[rows], p_n[rows], p_n[negs], tq, tp, tn, self.cosine)
        return loss, {"margin_mse": float(loss.detach())}

    def loss_at(self, step: int):
        import torch

        tc, dual, corpus = self.cfg.train, self.dual, self.data.train_ds.corpus
        batch, qtexts, _, cols, neg_owner = self.plan(step)
        q_n = dual.embed(qtexts, "query", tc.max_query_length)
        p_n = dual.embed([corpus[d].full_text() for d in cols], "passage", tc.max_passage_length)
        mask = relevance_mask(batch, cols)
        q_o = p_o = None
        if self.dr_o is not None:
            q_o = torch.from_numpy(np.stack([self.dr_o["q"][ex.qid] for ex in batch]).astype(np.float32)).to(q_n.device)
            p_o = self._vectors(self.dr_o, cols, q_n.device)
        if self.mm is not None:
            return self._margin_mse(batch, cols, neg_owner, q_n, p_n)
        l_nll, l_q, l_p = rodr_losses(q_n, p_n, q_o, p_o, len(batch), mask, self.tau, self.cosine, self.cfg.passage_rows)
        loss = self.weights["w_nll"] * l_nll
        parts = {"nll": float(l_nll.detach())}
        if l_q is not None:
            loss = loss + self.weights["w_query"] * l_q + self.weights["w_passage"] * l_p
            parts.update(kl_query=float(l_q.detach()), kl_passage=float(l_p.detach()))
        return loss, parts


def _record_config(cfg: RecipeConfig, data: _StageData, train_dataset: Optional[Dataset], weights: dict,
                   mm: Optional[dict], settings: dict, tuning: dict) -> dict:
    """The settings that define the stage (part of its run key)."""
    varied = cfg.recipe != "dr"
    return {"recipe": cfg.recipe, "method": cfg.method, "seed": cfg.seed, "weights": weights,
            "loss": cfg.loss, "case": cfg.case, "passage_rows": cfg.passage_rows if cfg.recipe == "rodr" else None,
            "rodr_schedule": cfg.rodr_schedule,
            "protocol": cfg.protocol if varied else None,
            "variation_sampling": cfg.variation_sampling if varied else None,
            "teacher": None if mm is None else {"name": mm["spec"].name, "fingerprint": model_fingerprint(mm["spec"])},
            "holdout": cfg.holdout if train_dataset is None else None,
            "train_split": data.train_ds.split if train_dataset is not None else None,
            "generators": list(cfg.generators) if cfg.generators is not None else None,
            "training": settings, "tuning": tuning}


def _loss_record(spec: ModelSpec, cfg: RecipeConfig, run_cfg: RecipeConfig, weights: dict, tau: float,
                 dr_o: Optional[dict], mm: Optional[dict], phases, two_stage: bool) -> dict:
    """The training record's ``loss``: the terms, their weights and the teacher."""
    teacher = dr_o is not None
    if teacher:
        definition = ("w_nll*NLL(q') + w_query*mean_i KL(p_O(.|q_i) || p_N(.|q'_i)) over in-batch passages "
                      "+ w_passage*mean_j KL(p_O(.|p_j) || p_N(.|p_j)) over in-batch queries")
    elif mm is not None:
        definition = ("Margin-MSE: mean ((s_S(q,p+) - s_S(q,p-)) - (s_T(q,p+) - s_T(q,p-)))^2 over each "
                      "query's positive and first hard negative, raw similarities, teacher "
                      f"{mm['spec'].name}")
    else:
        definition = "NLL (cross-entropy over in-batch positives + hard negatives)"
    return {"weights": weights, "temperature": tau, "similarity": spec.similarity,
            "teacher": {"name": spec.name, "fingerprint": model_fingerprint(spec),
                        "lengths": dr_o["lengths"]} if teacher else None,
            "passage_rows": ("every in-batch passage (positives and hard negatives)" if cfg.passage_rows == "all"
                             else "the B positive passages") if teacher else None,
            "definition": definition,
            "kl_direction": "KL(teacher DR_O || student DR_N)" if teacher else None,
            "masking": MASKING,
            "phases": list(PHASES[run_cfg.recipe] if not two_stage or run_cfg.recipe == "dr-oq-qv"
                           else ("original",) + phases)}


def _variation_use(batches: _StageBatches, steps: int) -> Dict[str, int]:
    """How many times each variation set (or the original query) was trained on in ``steps`` steps."""
    use_count: Dict[str, int] = {}
    for step in range(steps):
        for name in batches.plan(step)[2]:  # noqa: B007
            use_count[name] = use_count.get(name, 0) + 1
    return use_count


def _variations_record(cfg: RecipeConfig, data: _StageData, use_count: Dict[str, int]) -> dict:
    """The training record's ``variations``: the sets, the sampling rule and how often a pair was (q, q)."""
    varied = cfg.recipe != "dr"
    pairs, names = data.pairs, [u["name"] for u in data.used_sets]
    n_var_steps = sum(v for k, v in use_count.items() if k != "ORIGINAL")
    n_same = sum(v for k, v in use_count.items() if k.endswith("(unchanged)") or k.endswith("(no variation applied)"))
    return {"sets": data.used_sets, "missing": data.missing_sets,
            "n_train_queries_without_variation": sum(1 for p in pairs if not p.n_changed),
            "sampling": SAMPLING_TEXT[cfg.variation_sampling] if varied else None,
            "rule": cfg.variation_sampling if varied else None,
            "protocol": cfg.protocol if varied else None,
            "assigned": ({n: sum(1 for p in pairs if p.variations and p.variations[0][0] == n) for n in names}
                         if varied and cfg.variation_sampling == "quota" else None),
            "unchanged_pairs": {"n": n_same, "of": n_var_steps,
                                "share": round(n_same / n_var_steps, 4) if n_var_steps else 0.0}
            if varied else None}


def _train_stage(spec: ModelSpec, dataset: Dataset, cfg: RecipeConfig, out: Path, *, train_dataset: Optional[Dataset],
                 cache_root: Optional[Path], batch_size: int, progress: bool, stop_after: Optional[int],
                 reuse: bool = False, stage: Optional[tuple] = None, force: bool = False
                 ) -> Tuple[dict, Optional[int]]:
    """One stage: train ``spec`` with ``cfg`` into ``out``. Returns (record, steps run by this call;
    None when ``reuse`` found ``out`` complete with the same run key). ``stage``: (the two-stage
    run's config, its starting model, the stage-1 summary) for stage 2 of a two-stage run."""
    if spec.kind != "dense":
        raise BenchError(f"bench train trains dense encoders; {spec.name!r} is {spec.kind}")
    out, timer, tc = Path(out), Timer(), cfg.train
    data = _stage_data(spec, dataset, cfg, train_dataset, timer, cache_root, batch_size, progress)
    dr_o, mm = _teachers(spec, cfg, data, timer, cache_root, batch_size, progress)
    dual, base_model, tok, tuning_cfg = _student(spec, cfg)
    student = tuned_module(dual)
    settings = tc.resolved(cfg.method, spec.similarity)
    settings["lr_source"] = cfg.lr_source()  # a recipe's rate is the harness's or RoDR's, never "the IAA paper's"
    weights, phases = cfg.weights(), PHASES[cfg.recipe]
    sched = Schedule(len(data.pairs), tc.batch_size, phases, tc.epochs, cfg.seed, tc.max_steps)
    batches = _StageBatches(cfg, data, dual, sched, phases, settings, weights, spec.similarity == "cos", dr_o, mm)
    record_cfg = _record_config(cfg, data, train_dataset, weights, mm, settings,
                                tuning_cfg.for_method(cfg.method, base_model))
    state_key = sha256_hex("recipe-v1", canonical_json(record_cfg), model_fingerprint(spec), data.train_ds.fingerprint(),
                           *data.train_ids, *[s["fingerprint"] for s in data.used_sets])
    state_dir = out.parent / f".{out.name}.state"
    if reuse and (read_training(out) or {}).get("run_key") == state_key and reusable_training(out) is not None:
        return read_training(out), None  # this stage is already trained with these settings (files checked)
    with timer("train"):
        log = run_loop({"model": student}, len(sched), batches.loss_at, lr=settings["lr"],
                       weight_decay=tc.weight_decay, warmup_ratio=tc.warmup_ratio, grad_clip=tc.grad_clip,
                       seed=torch_seed(cfg.seed, "train", cfg.recipe, cfg.method), state_dir=state_dir,
                       state_key=state_key, save_every=cfg.save_every, stop_after=stop_after, progress=progress,
                       desc=f"train {cfg.recipe}")
    ran = log.steps - (log.resumed_at[-1] if log.resumed_at else 0)
    run_cfg, origin = (stage[0], stage[1]) if stage is not None else (cfg, spec)
    record = _stage_record(spec, cfg, run_cfg, origin, stage, data, dual, log, sched, record_cfg, state_key,
                           _loss_record(spec, cfg, run_cfg, weights, settings["temperature"], dr_o, mm, phases,
                                        stage is not None),
                           _variation_use(batches, log.steps), timer)
    if log.steps < len(sched):
        return record, ran  # interrupted: the state stays for a resume; no checkpoint is written
    extra = {HELDOUT_FILE: "\n".join(data.heldout) + "\n"} if data.heldout else {}
    save_checkpoint(student, tok, spec, out, record, cfg.method, backbone=base_model, extra_files=extra, force=force)
    clear_state(state_dir)
    return record, ran


def _stage_record(spec: ModelSpec, cfg: RecipeConfig, run_cfg: RecipeConfig, origin: ModelSpec, stage: Optional[tuple],
                  data: _StageData, dual, log, sched: Schedule, record_cfg: dict, state_key: str, loss: dict,
                  use_count: Dict[str, int], timer) -> dict:
    """The stage's training record (``training.json`` of the checkpoint)."""
    counts = dual.parameter_counts()
    data_deviations = (variation_data_deviations(cfg, data.pairs, [u["name"] for u in data.used_sets])
                       if cfg.recipe != "dr" else [])
    heldout = data.heldout
    return {
        "schema_version": 1,
        "kind": "recipe",
        "recipe": run_cfg.recipe,
        "description": RECIPES[run_cfg.recipe],
        "case": run_cfg.case,
        "case_description": CASES.get(run_cfg.case or ""),
        "paper_weights": dict(zip(("w_nll", "w_query", "w_passage"), PAPER_WEIGHTS[run_cfg.case])) if run_cfg.case else None,
        "paper_weights_document_ranking": (dict(zip(("w_nll", "w_query", "w_passage"), PAPER_DOCUMENT_WEIGHTS))
                                           if run_cfg.case else None),
        "deviations": run_cfg.deviations(spec.similarity) + data_deviations,
        "hyperparameter_sources": run_cfg.hyperparameter_sources(),
        "run_key": state_key,
        "loss": loss,
        "config": record_cfg,
        "method": {"name": cfg.method, "description": METHOD_DESCRIPTIONS.get(cfg.method, ""),
                   "default_lr": DEFAULT_LR.get(cfg.method)},
        "source_model": origin.portable_dict(),
        "source_fingerprint": model_fingerprint(origin),
        "stages": None if stage is None else [stage[2], {"stage": 2, "name": "RoDR" if cfg.recipe == "rodr" else "QV",
                                                         "recipe": cfg.recipe, "steps": log.steps,
                                                         "complete": log.steps == len(sched)}],
        "dataset": data.train_ds.describe(),
        "queries": {"n_train": len(data.pairs), "n_heldout": len(heldout), "train": [p.qid for p in data.pairs],
                    "heldout": list(heldout), "heldout_file": HELDOUT_FILE if heldout else None},
        "variations": _variations_record(cfg, data, use_count),
        "variation_use": dict(sorted(use_count.items())),
        "parameters": {**counts, "trainable_share": counts["trainable"] / counts["total"] if counts["total"] else 0.0},
        "log": log.to_dict(),
        "timings": {k: round(v, 3) for k, v in sorted(timer.seconds.items())},
        "library_versions": library_versions(),
        "complete": log.steps == len(sched),
    }
