"""Contrastive training of a :class:`bench.training.dual.DualEncoder` (CPU-friendly, seeded).

Loss: InfoNCE over in-batch negatives plus sampled hard negatives. For a batch of B queries
with one positive passage each and ``hard_negatives`` = h hard negatives each, every query is
scored against the B positives and the B*h hard negatives (``q . p / temperature``; vectors
L2-normalised first when the spec's similarity is cosine); the loss is the cross-entropy of
the query's own positive. A column holding a passage that is relevant to the query (another
query's positive, say) is masked out for that query, so no relevant passage is a negative.

Hard negatives are mined once, before training, from a ranking of the training queries (by
the model itself, BM25, or none): the top ``negative_depth`` non-relevant passages. Per epoch
and query, the positive (among the relevant passages) and the h negatives (without
replacement) are drawn from a generator derived from (seed, query id, epoch).

Optimiser: AdamW (weight decay on matrices only, not on biases / LayerNorm / 1-d tensors),
linear warm-up over ``warmup_ratio`` of the steps then linear decay to 0, gradient clipping.
Seeding: ``torch.manual_seed`` from a seed derived with :func:`perturb.base.rng_for`; the
order of examples per epoch comes from the same derivation. On CPU with a fixed thread count
the run is deterministic.

When the passage side is frozen (qry-tune), passage vectors come from a precomputed matrix (the
cached corpus embeddings of the checkpoint): the corpus is not re-encoded. When the query side
is frozen (psg-tune), query vectors come from a precomputed lookup in the same way.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.core.errors import BenchError
from bench.core.progress import progress as progress_bar
from bench.core.options import option
from bench.core.seeding import rng_for, torch_seed
from bench.training.loop import linear_schedule, make_optimizer
from bench.tuning.config import DEFAULT_LR, lr_source

NEGATIVE_SOURCES = ("model", "bm25", "none")


@dataclass
class TrainConfig:
    epochs: int = 1
    batch_size: int = 16
    lr: Optional[float] = None  # None: the method's default (bench.tuning.config.DEFAULT_LR)
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    temperature: Optional[float] = None  # None: 0.05 for cosine similarity, 1.0 for dot product
    hard_negatives: int = 1  # per query
    negatives_from: str = "model"  # model | bm25 | none
    negative_depth: int = 30
    max_query_length: int = 32
    max_passage_length: int = 128
    grad_clip: float = 1.0
    max_steps: Optional[int] = None  # stop early after this many steps (tests, smoke runs)

    def validate(self) -> "TrainConfig":
        if self.epochs < 1 or self.batch_size < 1:
            raise BenchError("--epochs and --train-batch-size must be at least 1")
        if self.negatives_from not in NEGATIVE_SOURCES:
            raise BenchError(f"--negatives must be one of {', '.join(NEGATIVE_SOURCES)}")
        if self.hard_negatives < 0:
            raise BenchError("--hard-negatives must be >= 0")
        checks = [
            (self.lr is None or self.lr > 0, f"--lr {self.lr}: a learning rate must be > 0 (leave it out for the "
                                             f"method's default)"),
            (self.weight_decay >= 0, f"--weight-decay {self.weight_decay}: must be >= 0"),
            (0 <= self.warmup_ratio < 1, f"--warmup-ratio {self.warmup_ratio}: a share of the steps, 0 <= x < 1"),
            (self.temperature is None or self.temperature > 0,
             f"--temperature {self.temperature}: must be > 0 (0 divides the scores by zero: the loss is NaN)"),
            (self.negative_depth >= 1, f"--negative-depth {self.negative_depth}: must be at least 1"),
            (self.max_steps is None or self.max_steps >= 1, f"--max-steps {self.max_steps}: must be at least 1"),
            (self.grad_clip > 0, f"grad_clip {self.grad_clip}: must be > 0"),
            (self.max_query_length >= 1 and self.max_passage_length >= 1,
             "--train-max-query-length / --train-max-passage-length must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise BenchError(message)
        return self

    def resolved(self, method: str, similarity: str) -> dict:
        """The settings actually used for a method (recorded in the result file)."""
        d = asdict(self)
        d["lr"] = self.lr if self.lr is not None else DEFAULT_LR[method]
        d["lr_source"] = lr_source(method, self.lr)
        d["temperature"] = self.temperature if self.temperature is not None else (0.05 if similarity == "cos" else 1.0)
        d["optimizer"] = "AdamW (weight decay on tensors with dim >= 2)"
        d["schedule"] = "linear warm-up then linear decay to 0"
        d["loss"] = "InfoNCE: in-batch positives + sampled hard negatives, relevant columns masked"
        if self.negatives_from == "none":
            d["hard_negatives"] = 0
        return d


@dataclass(frozen=True)
class Example:
    qid: str
    text: str
    positives: Tuple[str, ...]  # relevant doc ids (grade > 0), sorted
    negatives: Tuple[str, ...] = ()  # mined candidates, best first


@dataclass
class TrainLog:
    losses: List[float] = field(default_factory=list)
    steps: int = 0
    examples: int = 0
    seconds: float = 0.0
    seed: int = 0

    def to_dict(self) -> dict:
        return {"steps": self.steps, "examples": self.examples, "seed": self.seed,
                "first_loss": self.losses[0] if self.losses else None,
                "last_loss": self.losses[-1] if self.losses else None,
                "mean_loss": float(np.mean(self.losses)) if self.losses else None}


def make_examples(qids: Sequence[str], queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
                  negatives: Optional[Mapping[str, Sequence[str]]] = None) -> List[Example]:
    out = []
    for q in qids:
        pos = tuple(sorted(d for d, g in qrels.get(q, {}).items() if g > 0))
        if not pos:
            continue
        out.append(Example(q, queries[q], pos, tuple((negatives or {}).get(q, ()))))
    return out


def mine_negatives(run: Mapping[str, Sequence[Tuple[str, float]]], qrels: Mapping[str, Mapping[str, int]],
                   depth: int) -> Dict[str, Tuple[str, ...]]:
    """The top ``depth`` ranked passages of each query that are not relevant to it."""
    out = {}
    for q, ranked in run.items():
        rel = {d for d, g in qrels.get(q, {}).items() if g > 0}
        out[q] = tuple(d for d, _ in ranked if d not in rel)[:depth]
    return out


def relevance_mask(pairs: Sequence, cols: Sequence[str]):
    """(rows x cols) bool mask: True where column j is a passage relevant to row i's query (j != i),
    so another row's positive never counts as this row's negative. ``pairs`` carry ``positives``."""
    import torch

    mask = torch.zeros((len(pairs), len(cols)), dtype=torch.bool)
    for i, ex in enumerate(pairs):
        rel = set(ex.positives)
        for j, d in enumerate(cols):
            if j != i and d in rel:
                mask[i, j] = True
    return mask


def planned_steps(n_examples: int, cfg: TrainConfig) -> int:
    """Optimizer steps of one run of :func:`train_dual_encoder` on ``n_examples``."""
    total = ((n_examples + cfg.batch_size - 1) // cfg.batch_size) * cfg.epochs
    return min(total, cfg.max_steps) if cfg.max_steps is not None else total


def _batch_columns(batch: Sequence[Example], seed: int, epoch: int, n_neg: int) -> List[str]:
    """The passage columns of a batch: one positive per query, then its hard negatives (seeded per
    query and epoch)."""
    pos_ids, neg_ids = [], []
    for ex in batch:
        r = rng_for(seed, "fewshot-train-pairs", f"{ex.qid}/{epoch}")
        pos_ids.append(ex.positives[int(r.integers(len(ex.positives)))])
        if n_neg and ex.negatives:
            take = min(n_neg, len(ex.negatives))
            neg_ids += [ex.negatives[j] for j in sorted(r.choice(len(ex.negatives), size=take, replace=False))]
    return pos_ids + neg_ids


def _batch_loss(dual, batch: Sequence[Example], cols: Sequence[str], doc_text: Callable[[str], str], cfg: TrainConfig,
                temperature: float, query_lookup, passage_lookup, device):
    """Cross-entropy of each query against its positive over the batch's columns (other queries'
    relevant passages masked); a frozen side's vectors come from its lookup."""
    import torch

    if dual.query_trainable:
        q = dual.embed([ex.text for ex in batch], "query", cfg.max_query_length)
    else:
        q = torch.from_numpy(np.ascontiguousarray(query_lookup([ex.text for ex in batch]),
                                                  dtype=np.float32)).to(device)
    if dual.passage_trainable:
        p = dual.embed([doc_text(d) for d in cols], "passage", cfg.max_passage_length)
    else:
        p = torch.from_numpy(np.ascontiguousarray(passage_lookup(cols), dtype=np.float32)).to(device)
    if dual.spec.similarity == "cos":
        q = torch.nn.functional.normalize(q, dim=-1)
        p = torch.nn.functional.normalize(p, dim=-1)
    scores = q @ p.T / temperature
    mask = relevance_mask(batch, cols).to(scores.device)
    scores = scores.masked_fill(mask, float("-inf"))
    return torch.nn.functional.cross_entropy(scores, torch.arange(len(batch), device=scores.device))


def train_dual_encoder(dual, examples: Sequence[Example], doc_text: Callable[[str], str], cfg: TrainConfig,
                       seed: int, *, passage_lookup: Optional[Callable[[Sequence[str]], np.ndarray]] = None,
                       query_lookup: Optional[Callable[[Sequence[str]], np.ndarray]] = None,
                       progress: bool = False, desc: str = "train") -> TrainLog:
    """Train ``dual`` in place on ``examples``.

    ``doc_text(doc_id)`` gives a passage's text. ``passage_lookup(doc_ids)`` / ``query_lookup(texts)``
    give precomputed vectors for a frozen side (required there: a frozen side is never
    re-encoded)."""
    import torch


    cfg.validate()
    if not examples:
        raise BenchError("no training examples (no training query has a relevant passage)")
    if not dual.passage_trainable and passage_lookup is None:
        raise BenchError("the passage side is frozen: give passage_lookup (cached corpus embeddings)")
    if not dual.query_trainable and query_lookup is None:
        raise BenchError("the query side is frozen: give query_lookup (cached query embeddings)")
    settings = cfg.resolved(dual.method, dual.spec.similarity)
    lr, temperature = settings["lr"], settings["temperature"]
    n_neg = settings["hard_negatives"]
    device = next(dual.query_model.parameters()).device  # the spec's --device (the CPU by default)
    torch.manual_seed(torch_seed(seed, "train", dual.method))
    order_rng = rng_for(seed, "fewshot-train-order", dual.method)
    n = len(examples)
    total = planned_steps(n, cfg)
    opt = make_optimizer(dual.trainable_parameters(), lr, cfg.weight_decay)
    sched = linear_schedule(opt, total, cfg.warmup_ratio)
    log = TrainLog(seed=int(seed))
    t0 = time.perf_counter()
    dual.train(True)
    bar = progress_bar(total=total, desc=desc, unit="step", enabled=progress)
    step = 0
    for epoch in range(cfg.epochs):
        perm = order_rng.permutation(n)
        for start in range(0, n, cfg.batch_size):
            if step >= total:
                break
            batch = [examples[i] for i in perm[start:start + cfg.batch_size]]
            cols = _batch_columns(batch, seed, epoch, n_neg)
            loss = _batch_loss(dual, batch, cols, doc_text, cfg, temperature, query_lookup, passage_lookup, device)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.grad_clip:
                torch.nn.utils.clip_grad_norm_(dual.trainable_parameters(), cfg.grad_clip)
            opt.step()
            sched.step()
            log.losses.append(float(loss.detach()))
            log.examples += len(batch)
            step += 1
            bar.update(1)
            bar.set_postfix(loss=f"{log.losses[-1]:.3f}")
    bar.close()
    dual.train(False)
    log.steps = step
    log.seconds = time.perf_counter() - t0
    return log


# --------------------------------------------------------------------------------------------
# command-line options shared by every command that trains (few-shot suite, recipes, adaptation)


#: The optimisation options (``TrainConfig``) on an argparse group.
TRAINING_OPTIONS = (
    option('--epochs', type=int, default=1, help='passes over the training queries (default: 1)'),
    option('--train-batch-size', type=int, default=16, help='training queries per step, each with its positive and hard negatives; the other queries\' passages are in-batch negatives (default: 16)'),
    option('--lr', type=float, default=None, help="learning rate (default per method, the IAA paper's: full/qry/psg-tune 2e-5; bitfit, prefix, lora, adapter, pfeiffer, iaa-s/l/m 1e-4; ours for methods it does not cover: parallel-adapter, rem 5e-4)"),
    option('--weight-decay', type=float, default=0.01, help='AdamW weight decay (default: 0.01)'),
    option('--warmup-ratio', type=float, default=0.1, help='share of the steps with a linear learning-rate warm-up, then linear decay (default: 0.1)'),
    option('--temperature', type=float, default=None, help='softmax temperature (default: 0.05 for cosine models, 1.0 for dot product)'),
    option('--hard-negatives', type=int, default=1, help='hard negatives per query (default: 1)'),
    option('--negatives', choices=list(NEGATIVE_SOURCES), default='model', help="hard negatives mined from the checkpoint's own ranking, BM25, or none (default: model)"),
    option('--negative-depth', type=int, default=30, help='mine among the top N non-relevant (default: 30)'),
    option('--train-max-query-length', type=int, default=32, help='training: longest query in tokens, longer ones are cut (default: 32)'),
    option('--train-max-passage-length', type=int, default=128, help='training: longest passage in tokens, longer ones are cut (default: 128)'),
    option('--max-steps', type=int, default=None, help='cap training steps (smoke runs)'),
)


def train_config_from(args) -> TrainConfig:
    """The TrainConfig of parsed option values (attributes named by the options' dest)."""
    return TrainConfig(epochs=args.epochs, batch_size=args.train_batch_size, lr=args.lr,
                       weight_decay=args.weight_decay, warmup_ratio=args.warmup_ratio, temperature=args.temperature,
                       hard_negatives=args.hard_negatives, negatives_from=args.negatives,
                       negative_depth=args.negative_depth, max_query_length=args.train_max_query_length,
                       max_passage_length=args.train_max_passage_length, max_steps=args.max_steps)
