"""Training recipes for robustness to query variations: RoDR and its baselines.

``bench train --recipe NAME --model CKPT --dataset D --out DIR`` trains a dense retriever DR_N
initialised from CKPT and writes a checkpoint folder (:mod:`bench.models.checkpoint`) that
``bench evaluate --model DIR`` evaluates like any other model.

Recipes (:data:`RECIPES`):

- ``rodr``: RoDR, "Towards Robust Dense Retrieval via Local Ranking Alignment" (Chen et al.,
  IJCAI 2022). DR_O = CKPT, frozen, is the teacher. Each training query q is paired with one
  variation q' drawn uniformly, per (query, epoch), among the generators that changed q (q itself
  when none did). For a batch of B pairs with passage columns P = B positives + B*h hard negatives:

  * ``L_nll``  = cross-entropy of q' against its own positive over P (in-batch + hard negatives),
  * ``L_q``    = mean over i of KL( p_O(. | q_i) || p_N(. | q'_i) ), each a softmax over the
    columns P of s(q, p) / tau (query-centred local ranking),
  * ``L_p``    = mean over the B positive passages p_j of KL( p_O(. | p_j) || p_N(. | p_j) ),
    each a softmax over the B in-batch queries of s(q_i, p_j) / tau for DR_O with the original
    queries q_i and for DR_N with the variations q'_i (passage-centred local ranking),
  * ``loss``   = w_nll * L_nll + w_query * L_q + w_passage * L_p (paper: 1, 1, 0.2).

  KL(P || Q) = sum_x P(x) (log P(x) - log Q(x)): the teacher's distribution is the first
  argument. s is the dot product of the model's output vectors (L2-normalised first when the
  model's similarity is cosine, so s is then the cosine), divided by the temperature tau.
  A column holding a passage judged relevant to another row's query is masked out of that row
  in every term (it is neither a negative nor part of the local ranking), in both models.
  DR_O's vectors are its cached embeddings (the corpus matrix and the query store): the teacher
  never runs a forward pass during training.
- ``dr-qv``: DR_QV, trained on the variations q' only (L_nll), no alignment.
- ``dr-oq-qv``: DR_OQ->QV, trained on the original queries (L_nll) for ``epochs`` epochs, then on
  the variations for ``epochs`` more, in sequence.
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

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.data.model import Dataset
from bench.core.errors import BenchError
from bench.models.spec import ModelSpec
from bench.training.contrastive import TrainConfig, relevance_mask
from bench.core.seeding import rng_for
from bench.training.losses import margin_mse, rodr_losses
from bench.core.io import canonical_json, sha256_hex
from bench.core.seeding import torch_seed
from bench.core.timing import Timer
from bench.core.versions import library_versions
from bench.data.model import natural_key
from bench.models.checkpoint import check_saveable, save_checkpoint
from bench.models.loading import load_backbone
from bench.models.spec import model_fingerprint
from bench.search.retriever import make_retriever
from bench.training.contrastive import mine_negatives
from bench.training.dual import build_dual_encoder, tuned_module
from bench.training.loop import clear_state, run_loop
from bench.tuning.config import DEFAULT_LR, METHOD_DESCRIPTIONS, TuningConfig
from perturb import PAPER_ORDER
from perturb.sets import generate

RECIPES = {
    "rodr": "RoDR: NLL on a sampled query variation + query- and passage-centred local ranking alignment "
            "(KL from the frozen original model)",
    "dr-qv": "DR_QV: fine-tuned on query variations only (NLL), no alignment",
    "dr-oq-qv": "DR_OQ->QV: fine-tuned on the original queries, then on query variations (NLL), in sequence",
    "dr": "DR: fine-tuned on the original queries (NLL)",
}
PHASES = {"rodr": ("variation",), "dr-qv": ("variation",), "dr-oq-qv": ("original", "variation"), "dr": ("original",)}
HELDOUT_FILE = "heldout_queries.txt"
LOSSES = ("nll", "margin-mse")


@dataclass
class RecipeConfig:
    recipe: str = "rodr"
    method: str = "full-tune"
    seed: int = 0
    w_nll: float = 1.0
    w_query: float = 1.0
    w_passage: float = 0.2
    holdout: float = 0.5
    train_split: Optional[str] = None
    generators: Optional[Sequence[str]] = None  # None: the paper's eight
    save_every: int = 50
    train: TrainConfig = field(default_factory=TrainConfig)
    tuning: Optional[object] = None  # bench.tuning.config.TuningConfig (None: its defaults)
    loss: str = "nll"  # recipes dr / dr-qv / dr-oq-qv: "nll" or "margin-mse"
    teacher: Optional[object] = None  # margin-mse: the teacher's ModelSpec (None: the starting model)

    def validate(self) -> "RecipeConfig":
        if self.recipe not in RECIPES:
            raise BenchError(f"unknown recipe {self.recipe!r}; choose from {', '.join(RECIPES)}")

        check_saveable(self.method)  # before any training, not after it
        if not 0.0 < self.holdout < 1.0:
            raise BenchError("--holdout must be between 0 and 1 (exclusive), or give --train-split")
        if self.loss not in LOSSES:
            raise BenchError(f"--loss must be one of {', '.join(LOSSES)}")
        if self.loss == "margin-mse" and self.recipe == "rodr":
            raise BenchError("--loss margin-mse replaces the NLL of the baseline recipes; rodr keeps its own loss")
        if self.loss == "margin-mse" and (self.train.hard_negatives < 1 or self.train.negatives_from == "none"):
            raise BenchError("--loss margin-mse needs hard negatives (--hard-negatives >= 1, --negatives model|bm25)")
        if min(self.w_nll, self.w_query, self.w_passage) < 0:
            raise BenchError("loss weights must be >= 0")
        self.train.validate()
        return self

    def weights(self) -> Dict[str, float]:
        if self.recipe == "rodr":
            return {"w_nll": self.w_nll, "w_query": self.w_query, "w_passage": self.w_passage}
        return {"w_nll": 1.0, "w_query": 0.0, "w_passage": 0.0}


@dataclass(frozen=True)
class Pair:
    qid: str
    text: str
    positives: Tuple[str, ...]
    negatives: Tuple[str, ...]
    variations: Tuple[Tuple[str, str], ...]  # (set name, text) of every generator that changed the query


def split_queries(dataset: Dataset, holdout: float, seed: int) -> Tuple[List[str], List[str]]:
    """(train ids, held-out ids): the judged queries ordered by sha256(seed, qid); the first
    round(holdout * n) are held out. Both lists are returned in the dataset's natural order."""
    qids = dataset.judged_query_ids()
    order = sorted(qids, key=lambda q: hashlib.sha256(f"{seed}\t{q}".encode()).hexdigest())
    n_out = int(round(holdout * len(qids)))
    if n_out < 1 or n_out >= len(qids):
        raise BenchError(f"--holdout {holdout} leaves no training or no held-out query ({len(qids)} judged queries)")
    held = set(order[:n_out])
    return ([q for q in qids if q not in held], sorted(held, key=natural_key))


class _Schedule:
    """Step -> (phase, epoch, batch start); batches depend on (seed, phase, epoch) only."""

    def __init__(self, n: int, batch_size: int, phases: Sequence[str], epochs: int, seed: int,
                 max_steps: Optional[int]):
        self.n, self.bs, self.seed = n, batch_size, seed
        self.steps = [(pi, e, s) for pi in range(len(phases)) for e in range(epochs) for s in range(0, n, batch_size)]
        if max_steps is not None:
            self.steps = self.steps[:max_steps]
        self._perm: Dict[Tuple[int, int], np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.steps)

    def batch(self, step: int) -> Tuple[int, int, np.ndarray]:
        pi, e, s = self.steps[step]
        if (pi, e) not in self._perm:
            self._perm[(pi, e)] = rng_for(self.seed, "recipe-order", f"{pi}/{e}").permutation(self.n)
        return pi, e, self._perm[(pi, e)][s:s + self.bs]


def _variation_pairs(dataset: Dataset, train_ids: Sequence[str], cfg: RecipeConfig, negatives) -> Tuple[List[Pair], list, list]:
    items = [(q, dataset.queries[q].text) for q in train_ids]
    names = list(cfg.generators) if cfg.generators is not None else list(PAPER_ORDER)
    by_q: Dict[str, List[Tuple[str, str]]] = {q: [] for q in train_ids}
    used, missing = [], []
    if cfg.recipe != "dr":
        for name in names:
            vs = generate(name, items, cfg.seed)
            if vs.status != "ok":
                missing.append({"name": vs.name, "reason": vs.reason})
                continue
            used.append({"name": vs.name, "label": vs.label, "n_applied": int(vs.n_applied),
                         "fingerprint": vs.fingerprint()})
            for q, t, a in zip(vs.qids, vs.texts, vs.applied):
                if a:
                    by_q[q].append((vs.name, t))
    pairs = []
    for q, text in items:
        pos = tuple(sorted(d for d, g in dataset.qrels.get(q, {}).items() if g > 0))
        pairs.append(Pair(q, text, pos, tuple(negatives.get(q, ())), tuple(by_q[q])))
    return pairs, used, missing


def train_recipe(spec: ModelSpec, dataset: Dataset, cfg: RecipeConfig, out: Path, *, train_dataset: Optional[Dataset] = None,
                 cache_root: Optional[Path] = None,
                 batch_size: int = 64, progress: bool = True, stop_after: Optional[int] = None) -> dict:
    """Train, write the checkpoint folder ``out`` and return its training record.

    ``train_dataset``: a separate training split of the same collection (then nothing is held
    out of ``dataset``). ``stop_after``: stop after this many steps (the state stays for a
    resume; no checkpoint)."""
    import torch


    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"bench train trains dense encoders; {spec.name!r} is {spec.kind}")
    out = Path(out)
    timer = Timer()
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
    doc_pos = {d: i for i, d in enumerate(doc_ids)}
    doc_texts = [train_ds.corpus[d].full_text() for d in doc_ids]
    corpus = retriever.passage_cache.matrix(doc_texts)
    with timer("mine_negatives"):
        negatives: Dict[str, Tuple[str, ...]] = {}
        if tc.hard_negatives and tc.negatives_from != "none":
            depth = tc.negative_depth + max(len(v) for v in train_ds.qrels.values())
            run = retriever.search(train_ids, [train_ds.queries[q].text for q in train_ids], depth)
            judged = {q: {d: 1 for d in train_ds.qrels.get(q, {})} for q in train_ids}
            negatives = mine_negatives(run, judged, tc.negative_depth)
    with timer("variations"):
        pairs, used_sets, missing_sets = _variation_pairs(train_ds, train_ids, cfg, negatives)
    pairs = [p for p in pairs if p.positives]
    if not pairs:
        raise BenchError("no training query has a relevant passage")
    weights = cfg.weights()
    teacher = weights["w_query"] > 0 or weights["w_passage"] > 0
    teacher_q = {}
    if teacher:
        vecs = retriever.query_cache.texts([p.text for p in pairs])
        teacher_q = {p.qid: vecs[i] for i, p in enumerate(pairs)}

    mm = None
    if cfg.loss == "margin-mse":
        t_spec = cfg.teacher or spec
        t_ret = retriever if t_spec is spec else make_retriever(t_spec, train_ds, timer, cache_root=cache_root,
                                                                batch_size=batch_size, progress=progress)
        t_vecs = t_ret.query_cache.texts([p.text for p in pairs])
        mm = {"spec": t_spec, "q": {p.qid: t_vecs[i] for i, p in enumerate(pairs)},
              "corpus": t_ret.passage_cache.matrix(doc_texts)}

    base_model, tok = load_backbone(spec)
    tuning_cfg = cfg.tuning if cfg.tuning is not None else TuningConfig()
    tuning_cfg.validate([cfg.method])
    dual = build_dual_encoder(spec, cfg.method, base_model, tok, tuning_cfg, seed=torch_seed(cfg.seed, "init", cfg.method))
    student = tuned_module(dual)
    settings = tc.resolved(cfg.method, spec.similarity)
    lr, tau, n_neg = settings["lr"], settings["temperature"], settings["hard_negatives"]
    cosine = spec.similarity == "cos"
    phases = PHASES[cfg.recipe]
    sched = _Schedule(len(pairs), tc.batch_size, phases, tc.epochs, cfg.seed, tc.max_steps)

    def plan(step: int):
        """The batch of ``step``: (pairs, query texts, variation set used per pair, passage columns)."""
        pi, epoch, idx = sched.batch(step)
        batch = [pairs[i] for i in idx]
        phase = phases[pi]
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

    def first_negatives(batch, cols, neg_owner):
        """Per query of the batch: the column of its first hard negative (None: it has none)."""
        first = [None] * len(batch)
        for j, owner in enumerate(neg_owner):
            if first[owner] is None:
                first[owner] = len(batch) + j
        return first

    def loss_at(step: int):
        batch, qtexts, _, cols, neg_owner = plan(step)
        q_n = dual.embed(qtexts, "query", tc.max_query_length)
        p_n = dual.embed([train_ds.corpus[d].full_text() for d in cols], "passage", tc.max_passage_length)
        mask = relevance_mask(batch, cols)
        q_o = p_o = None
        if teacher:
            q_o = torch.from_numpy(np.stack([teacher_q[ex.qid] for ex in batch]).astype(np.float32))
            p_o = torch.from_numpy(np.asarray(corpus[[doc_pos[d] for d in cols]], dtype=np.float32))
        if mm is not None:
            first = first_negatives(batch, cols, neg_owner)
            rows = [i for i, f in enumerate(first) if f is not None]
            if not rows:
                raise BenchError("margin-mse: a batch without hard negatives (raise --negative-depth)")
            negs = [first[i] for i in rows]
            tq = torch.from_numpy(np.stack([mm["q"][batch[i].qid] for i in rows]).astype(np.float32))
            tp = torch.from_numpy(np.asarray(mm["corpus"][[doc_pos[cols[i]] for i in rows]], dtype=np.float32))
            tn = torch.from_numpy(np.asarray(mm["corpus"][[doc_pos[cols[j]] for j in negs]], dtype=np.float32))
            loss = margin_mse(q_n[rows], p_n[rows], p_n[negs], tq, tp, tn, cosine)
            return loss, {"margin_mse": float(loss.detach())}
        l_nll, l_q, l_p = rodr_losses(q_n, p_n, q_o, p_o, len(batch), mask, tau, cosine)
        loss = weights["w_nll"] * l_nll
        parts = {"nll": float(l_nll.detach())}
        if l_q is not None:
            loss = loss + weights["w_query"] * l_q + weights["w_passage"] * l_p
            parts.update(kl_query=float(l_q.detach()), kl_passage=float(l_p.detach()))
        return loss, parts

    record_cfg = {"recipe": cfg.recipe, "method": cfg.method, "seed": cfg.seed, "weights": weights,
                  "loss": cfg.loss,
                  "teacher": None if mm is None else {"name": mm["spec"].name, "fingerprint": model_fingerprint(mm["spec"])},
                  "holdout": cfg.holdout if train_dataset is None else None,
                  "train_split": train_ds.split if train_dataset is not None else None,
                  "generators": list(cfg.generators) if cfg.generators is not None else None,
                  "training": settings, "tuning": tuning_cfg.for_method(cfg.method, base_model)}
    state_key = sha256_hex("recipe-v1", canonical_json(record_cfg), model_fingerprint(spec), train_ds.fingerprint(),
                           *train_ids, *[s["fingerprint"] for s in used_sets])
    state_dir = out.parent / f".{out.name}.state"
    with timer("train"):
        log = run_loop({"model": student}, len(sched), loss_at, lr=lr, weight_decay=tc.weight_decay,
                       warmup_ratio=tc.warmup_ratio, grad_clip=tc.grad_clip,
                       seed=torch_seed(cfg.seed, "train", cfg.recipe, cfg.method), state_dir=state_dir,
                       state_key=state_key, save_every=cfg.save_every, stop_after=stop_after, progress=progress,
                       desc=f"train {cfg.recipe}")
    counts = dual.parameter_counts()
    use_count: Dict[str, int] = {}
    for step in range(log.steps):
        for name in plan(step)[2]:  # noqa: B007
            use_count[name] = use_count.get(name, 0) + 1
    record = {
        "schema_version": 1,
        "kind": "recipe",
        "recipe": cfg.recipe,
        "description": RECIPES[cfg.recipe],
        "loss": {"weights": weights, "temperature": tau, "similarity": spec.similarity,
                 "definition": "w_nll*NLL(q') + w_query*mean_i KL(p_O(.|q_i) || p_N(.|q'_i)) over in-batch passages "
                               "+ w_passage*mean_j KL(p_O(.|p_j) || p_N(.|p_j)) over in-batch queries"
                 if teacher else ("Margin-MSE: mean ((s_S(q,p+) - s_S(q,p-)) - (s_T(q,p+) - s_T(q,p-)))^2 over each "
                                  "query's positive and first hard negative, raw similarities, teacher "
                                  f"{mm['spec'].name}" if mm is not None else
                                  "NLL (cross-entropy over in-batch positives + hard negatives)"),
                 "kl_direction": "KL(teacher DR_O || student DR_N)" if teacher else None,
                 "phases": list(phases)},
        "config": record_cfg,
        "method": {"name": cfg.method, "description": METHOD_DESCRIPTIONS.get(cfg.method, ""),
                   "default_lr": DEFAULT_LR.get(cfg.method)},
        "source_model": spec.portable_dict(),
        "source_fingerprint": model_fingerprint(spec),
        "dataset": train_ds.describe(),
        "queries": {"n_train": len(pairs), "n_heldout": len(heldout), "train": [p.qid for p in pairs],
                    "heldout": list(heldout), "heldout_file": HELDOUT_FILE if heldout else None},
        "variations": {"sets": used_sets, "missing": missing_sets,
                       "n_train_queries_without_variation": sum(1 for p in pairs if not p.variations)},
        "variation_use": dict(sorted(use_count.items())),
        "parameters": {**counts, "trainable_share": counts["trainable"] / counts["total"] if counts["total"] else 0.0},
        "log": log.to_dict(),
        "timings": {k: round(v, 3) for k, v in sorted(timer.seconds.items())},
        "library_versions": library_versions(),
        "complete": log.steps == len(sched),
    }
    if log.steps < len(sched):
        return record  # interrupted: the state stays for a resume; no checkpoint is written
    extra = {HELDOUT_FILE: "\n".join(heldout) + "\n"} if heldout else {}
    save_checkpoint(student, tok, spec, out, record, cfg.method, backbone=base_model, extra_files=extra)
    clear_state(state_dir)
    return record
