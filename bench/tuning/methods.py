"""Tuning methods for few-shot dense retrieval: which parameters of which encoder learn.

A :class:`DualEncoder` holds a query encoder and a passage encoder built from one checkpoint.
They are the same module (tied) when a method tunes both sides, and two modules (untied) when
a method tunes only one side; the frozen side is then the untouched checkpoint, whose
embeddings come from the shared embedding cache.

Methods (:data:`METHODS`):

================ ====== ================================================================
method           tied   what learns
================ ====== ================================================================
full-tune        yes    every parameter
qry-tune         no     every parameter of the query encoder; passages are the cached
                        checkpoint
psg-tune         no     every parameter of the passage encoder; queries are the cached
                        checkpoint
bitfit           yes    bias terms only (Ben Zaken et al., 2022), every other weight frozen
prefix           yes    peft PrefixTuning: ``prefix_tokens`` learned key/value vectors per
                        layer
lora             yes    peft LoRA (rank ``lora_r``, alpha ``lora_alpha``) on ``lora_targets``
adapter          yes    bottleneck adapters (own implementation; peft has no bottleneck
                        adapter): ``h + W_up gelu(W_down h)`` after each layer's
                        feed-forward output projection (before the residual add +
                        LayerNorm), hidden / ``adapter_reduction`` wide, W_up
                        zero-initialised so training starts from the checkpoint's function
parallel-adapter yes    parallel adapters (He et al., 2022): ``s * W_up relu(W_down x)`` from
                        each feed-forward sub-layer's input x added to its output, hidden /
                        ``parallel_adapter_reduction`` wide, s = ``parallel_adapter_scale``
iaa-s, iaa-l,    yes    IAA (Ma et al., 2022): inside adapters (or LoRA, ``iaa_inside``)
iaa-m                   connected by aside bottlenecks around every sub-layer (-s), layer
                        (-l) or the whole encoder (-m); widths from ``iaa_budget`` x
                        backbone parameters, ``iaa_inside_share`` of it inside
rem              yes    DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on
                        query/value + parallel adapters; transplantable to another backbone
                        of the same architecture
================ ====== ================================================================

The PEFT-style methods (adapter, parallel-adapter, iaa-*, rem, lora, prefix) are added by
:func:`bench.tuning.adapters.attach`; their parameters alone are saved / loaded / transplanted with
:func:`bench.tuning.adapters.save_tuned` / :func:`bench.tuning.adapters.load_tuned` (architecture, sites,
initialisation and the IAA budget arithmetic are documented there).

Embeddings follow the model spec exactly as :class:`bench.encoding.encoder.Encoder` computes them
(prefix, pooling, normalisation); an untrained :class:`DualEncoder` gives the same vectors.

Trained weights never reach the shared embedding cache: :meth:`DualEncoder.encode` is
in-memory only, and :meth:`DualEncoder.fingerprint` hashes the current state (for callers that
want a key of their own).
"""
from __future__ import annotations

import copy
import hashlib
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.core.errors import BenchError
from bench.models.spec import ModelSpec

METHODS = ("full-tune", "qry-tune", "psg-tune", "bitfit", "prefix", "lora", "adapter", "parallel-adapter",
           "iaa-s", "iaa-l", "iaa-m", "rem")
METHOD_DESCRIPTIONS = {
    "full-tune": "all parameters of one shared (tied) encoder",
    "qry-tune": "all parameters of the query encoder; passage encoder frozen (untied; cached passage embeddings)",
    "psg-tune": "all parameters of the passage encoder; query encoder frozen (untied; cached query embeddings)",
    "bitfit": "bias terms only of one shared encoder (BitFit)",
    "prefix": "peft PrefixTuning (learned per-layer key/value prefixes) on one shared encoder",
    "lora": "peft LoRA on one shared encoder",
    "adapter": "bottleneck adapters after each feed-forward block of one shared encoder (own implementation)",
    "parallel-adapter": "parallel adapters (He et al., 2022): a scaled bottleneck from each feed-forward sub-layer's "
                        "input added to its output, frozen shared encoder (own implementation)",
    "iaa-s": "IAA (Ma et al., 2022): inside adapters/LoRA connected by aside modules around every sub-layer, "
             "frozen shared encoder, parameter budget (own implementation)",
    "iaa-l": "IAA (Ma et al., 2022): inside adapters/LoRA connected by aside modules around every layer, "
             "frozen shared encoder, parameter budget (own implementation)",
    "iaa-m": "IAA (Ma et al., 2022): inside adapters/LoRA connected by one aside module around the whole encoder, "
             "frozen shared encoder, parameter budget (own implementation)",
    "rem": "DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on query/value + parallel adapters on a "
           "frozen shared encoder; transplantable (own implementation)",
}
# learning rates that move a small model within one short epoch (override with --lr)
DEFAULT_LR = {"full-tune": 2e-5, "qry-tune": 2e-5, "psg-tune": 2e-5, "bitfit": 5e-4, "prefix": 5e-3,
              "lora": 5e-4, "adapter": 5e-4, "parallel-adapter": 5e-4, "iaa-s": 1e-3, "iaa-l": 1e-3,
              "iaa-m": 1e-3, "rem": 5e-4}
# the TuningConfig fields each method uses (for_method keeps these)
METHOD_SETTINGS = {
    "lora": ("lora_r", "lora_alpha", "lora_dropout", "lora_targets"),
    "prefix": ("prefix_tokens",),
    "adapter": ("adapter_reduction",),
    "parallel-adapter": ("parallel_adapter_reduction", "parallel_adapter_scale"),
    "iaa-s": ("iaa_budget", "iaa_inside_share", "iaa_inside"),
    "iaa-l": ("iaa_budget", "iaa_inside_share", "iaa_inside"),
    "iaa-m": ("iaa_budget", "iaa_inside_share", "iaa_inside"),
    "rem": ("rem_lora_r", "rem_lora_alpha", "rem_adapter_reduction", "rem_adapter_scale"),
}


@dataclass
class TuningConfig:
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.1
    lora_targets: Tuple[str, ...] = ("query", "value")
    prefix_tokens: int = 10
    adapter_reduction: int = 16
    parallel_adapter_reduction: int = 16  # width = hidden / this (same size as `adapter`)
    parallel_adapter_scale: float = 4.0  # He et al.'s s for the FFN-parallel adapter
    iaa_budget: float = 0.01  # trainable parameters as a fraction of the backbone's
    iaa_inside_share: float = 0.5  # share of the budget for the inside modules (the rest: asides)
    iaa_inside: str = "adapter"  # adapter | lora
    rem_lora_r: Optional[int] = None  # None: hidden / 4 (DDR's REM: rank 192 on BERT-base)
    rem_lora_alpha: Optional[int] = None  # None: = rank (scaling 1)
    rem_adapter_reduction: int = 4  # parallel adapter width = hidden / this (DDR: "pa4")
    rem_adapter_scale: float = 4.0

    def for_method(self, method: str, model=None) -> dict:
        """The settings that matter for one method (recorded in the result file). With the
        plain backbone ``model``, own PEFT-style methods also get ``architecture``: the resolved
        widths / ranks and parameter counts (for IAA: inside, aside, trainable, share)."""
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        out = {k: d[k] for k in METHOD_SETTINGS.get(method, ())}
        if model is not None:
            from bench.tuning.adapters import OWN_METHODS, plan_for

            if method in OWN_METHODS:
                out["architecture"] = plan_for(method, self, model)
        return out

    def validate(self, methods: Sequence[str] = ()) -> "TuningConfig":
        from bench.tuning.adapters import check_config

        for m in methods:
            check_config(m, self)
        return self


def check_method(method: str) -> str:
    if method not in METHODS:
        raise BenchError(f"unknown tuning method {method!r}; choose from {', '.join(METHODS)}")
    return method


def tunes_queries(method: str) -> bool:
    return check_method(method) != "psg-tune"


def tunes_passages(method: str) -> bool:
    return check_method(method) != "qry-tune"


def load_backbone(spec: ModelSpec):
    """(model, tokenizer) of a dense spec in float32 (training precision), in eval mode."""
    from bench.encoding.encoder import Encoder

    if spec.kind != "dense":
        raise BenchError(f"model {spec.name!r} is not a dense encoder: the few-shot suite trains dense models")
    enc = Encoder(spec.with_overrides(dtype="float32"), "passage", progress=False)
    model, tok = enc.load()
    return model, tok


# --------------------------------------------------------------------------------------------
# adapters (own implementation, in bench.tuning.adapters)


def add_adapters(model, reduction: int) -> int:
    """Insert the ``adapter`` method's bottleneck adapter after every feed-forward output
    projection of a BERT-family encoder (in place, initialised from the current global RNG;
    the backbone is frozen, the adapters trainable). Returns the number inserted."""
    from bench.tuning.adapters import _attach_plan, plan_for

    cfg = TuningConfig(adapter_reduction=reduction)
    plan = plan_for("adapter", cfg, model)
    _attach_plan(model, "adapter", plan, None, settings=cfg.for_method("adapter"))
    return plan["groups"][0]["count"]


# --------------------------------------------------------------------------------------------
# the dual encoder


class DualEncoder:
    """Query and passage encoders of one checkpoint under one tuning method."""

    def __init__(self, spec: ModelSpec, method: str, query_model, passage_model, tokenizer,
                 settings: Optional[dict] = None):
        self.spec, self.method = spec, check_method(method)
        self.query_model, self.passage_model, self.tokenizer = query_model, passage_model, tokenizer
        self.settings = dict(settings or {})
        self.n_encoded = {"query": 0, "passage": 0}  # texts run through each side (training + encode)

    @property
    def tied(self) -> bool:
        return self.query_model is self.passage_model

    @property
    def query_trainable(self) -> bool:
        return tunes_queries(self.method)

    @property
    def passage_trainable(self) -> bool:
        return tunes_passages(self.method)

    def model_for(self, role: str):
        return self.query_model if role == "query" else self.passage_model

    def modules(self) -> List:
        return [self.query_model] if self.tied else [self.query_model, self.passage_model]

    def trainable_parameters(self) -> List:
        seen, out = set(), []
        for m in self.modules():
            for p in m.parameters():
                if p.requires_grad and id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
        return out

    def named_trainable(self) -> Dict[str, object]:
        out = {}
        for tag, m in (("query", self.query_model), ("passage", self.passage_model)):
            if tag == "passage" and self.tied:
                break
            for n, p in m.named_parameters():
                if p.requires_grad:
                    out[f"{tag}:{n}"] = p
        return out

    def parameter_counts(self) -> dict:
        total = sum(p.numel() for m in self.modules() for p in m.parameters())
        trainable = sum(p.numel() for p in self.trainable_parameters())
        return {"trainable": int(trainable), "total": int(total)}

    def train(self, mode: bool = True) -> None:
        """Train mode for the trainable side(s); a frozen side stays in eval mode (no dropout)."""
        self.query_model.train(mode and self.query_trainable)
        if not self.tied:
            self.passage_model.train(mode and self.passage_trainable)

    def max_length(self, role: str) -> int:
        return self.spec.max_query_length if role == "query" else self.spec.max_passage_length

    def embed(self, texts: Sequence[str], role: str, max_length: Optional[int] = None):
        """Embeddings (torch, with grad when that side is trainable and grad is enabled)."""
        from bench.encoding.encoder import pool

        model = self.model_for(role)
        prefix = self.spec.query_prefix if role == "query" else self.spec.passage_prefix
        batch = self.tokenizer([prefix + t for t in texts], padding=True, truncation=True,
                               max_length=max_length or self.max_length(role), return_tensors="pt")
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        emb = pool(out, batch["attention_mask"], self.spec)
        self.n_encoded[role] += len(texts)
        return emb

    def encode(self, texts: Sequence[str], role: str, batch_size: int = 64, progress: bool = False,
               desc: str = "") -> np.ndarray:
        """In-memory inference embeddings (float32), length-sorted batches; never cached."""
        import torch
        from tqdm.auto import tqdm

        model = self.model_for(role)
        was_training = model.training
        model.eval()
        prefix = self.spec.query_prefix if role == "query" else self.spec.passage_prefix
        lengths = [len(ids) for ids in self.tokenizer([prefix + t for t in texts], truncation=True,
                                                      max_length=self.max_length(role))["input_ids"]]
        order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
        dim = int(self.query_model.config.hidden_size)
        out = np.empty((len(texts), dim), dtype=np.float32)
        bar = tqdm(total=len(texts), desc=desc or f"encode {role}s (tuned)", unit="text",
                   disable=not progress or None, leave=False)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = np.sort(order[start:start + batch_size])
                out[idx] = self.embed([texts[i] for i in idx], role).float().cpu().numpy()
                bar.update(len(idx))
        bar.close()
        model.train(was_training)
        return out

    def fingerprint(self) -> str:
        """SHA-256 of the method and every tensor of both sides (a key for trained weights)."""
        h = hashlib.sha256()
        h.update(self.method.encode())
        for tag, m in (("query", self.query_model), ("passage", self.passage_model)):
            for name, t in sorted(m.state_dict().items()):
                h.update(f"{tag}:{name}:{tuple(t.shape)}".encode())
                h.update(t.detach().cpu().contiguous().numpy().tobytes())
        return h.hexdigest()


def _peft_wrap(model, method: str, cfg: TuningConfig):
    from bench.tuning.adapters import attach

    return attach(model, method, cfg, seed=None)


def build_dual_encoder(spec: ModelSpec, method: str, base_model, tokenizer, cfg: Optional[TuningConfig] = None,
                       seed: int = 0, start: Optional[object] = None) -> DualEncoder:
    """A fresh :class:`DualEncoder` for ``method`` from ``base_model``'s weights (copied:
    ``base_model`` is never changed; an untied frozen side IS ``base_model``, read-only).
    ``start``: the tuned module of an earlier :class:`DualEncoder` of the same method (e.g. after
    basic learning) to continue from, copied. ``seed`` seeds the initialisation of new
    parameters (LoRA, prefix, adapters, IAA, REM: :func:`bench.tuning.adapters.attach`).
    ``settings`` of the result: :meth:`TuningConfig.for_method` with ``base_model`` (resolved
    architecture and parameter counts of the PEFT-style methods)."""
    import torch

    check_method(method)
    cfg = cfg or TuningConfig()
    cfg.validate([method])
    torch.manual_seed(int(seed))
    frozen = base_model
    for p in frozen.parameters():
        p.requires_grad_(False)
    frozen.eval()
    settings = cfg.for_method(method, base_model)
    if start is not None:
        model = copy.deepcopy(start)
        model.eval()
        return _assemble(spec, method, model, frozen, tokenizer, settings)
    model = copy.deepcopy(base_model)
    for p in model.parameters():
        p.requires_grad_(True)
    if method in ("full-tune", "qry-tune", "psg-tune"):
        pass
    elif method == "bitfit":
        for name, p in model.named_parameters():
            p.requires_grad_(name.endswith("bias"))
    else:  # PEFT-style: modules added to a frozen copy, only they learn
        from bench.tuning.adapters import attach

        model = attach(model, method, cfg, seed=int(seed))
    model.eval()
    return _assemble(spec, method, model, frozen, tokenizer, settings)


def _assemble(spec, method, model, frozen, tokenizer, settings) -> DualEncoder:
    if method == "qry-tune":
        return DualEncoder(spec, method, model, frozen, tokenizer, settings)
    if method == "psg-tune":
        return DualEncoder(spec, method, frozen, model, tokenizer, settings)
    return DualEncoder(spec, method, model, model, tokenizer, settings)


def tuned_module(dual: DualEncoder):
    """The module ``dual``'s method trains (the ``start`` of further training of that method)."""
    return dual.model_for("query" if dual.query_trainable else "passage")


# --------------------------------------------------------------------------------------------
# command-line options (few-shot suite, bench train, bench adapt)


def add_tuning_arguments(g) -> None:
    """The per-method settings (``TuningConfig``) on an argparse group."""
    g.add_argument("--lora-r", type=int, default=8)
    g.add_argument("--lora-alpha", type=int, default=16)
    g.add_argument("--lora-dropout", type=float, default=0.1)
    g.add_argument("--lora-targets", default="query,value")
    g.add_argument("--prefix-tokens", type=int, default=10)
    g.add_argument("--adapter-reduction", type=int, default=16)
    g.add_argument("--parallel-adapter-reduction", type=int, default=16,
                   help="parallel-adapter: bottleneck width = hidden / this (default: 16)")
    g.add_argument("--parallel-adapter-scale", type=float, default=4.0,
                   help="parallel-adapter: output scale s (default: 4, He et al. 2022)")
    g.add_argument("--iaa-budget", type=float, default=0.01,
                   help="iaa-s/l/m: trainable parameters as a fraction of the backbone's (default: 0.01)")
    g.add_argument("--iaa-inside-share", type=float, default=0.5,
                   help="iaa-s/l/m: share of the budget for the inside modules; the rest for asides (default: 0.5)")
    g.add_argument("--iaa-inside", choices=["adapter", "lora"], default="adapter",
                   help="iaa-s/l/m: inside modules, bottleneck adapters or LoRA (default: adapter)")
    g.add_argument("--rem-lora-r", type=int, default=None, help="rem: LoRA rank (default: hidden / 4)")
    g.add_argument("--rem-lora-alpha", type=int, default=None, help="rem: LoRA alpha (default: the rank)")
    g.add_argument("--rem-adapter-reduction", type=int, default=4,
                   help="rem: parallel adapter width = hidden / this (default: 4)")
    g.add_argument("--rem-adapter-scale", type=float, default=4.0, help="rem: parallel adapter scale (default: 4)")


def tuning_config_from_args(args) -> TuningConfig:
    return TuningConfig(lora_r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                        lora_targets=tuple(t.strip() for t in args.lora_targets.split(",") if t.strip()),
                        prefix_tokens=args.prefix_tokens, adapter_reduction=args.adapter_reduction,
                        parallel_adapter_reduction=args.parallel_adapter_reduction,
                        parallel_adapter_scale=args.parallel_adapter_scale, iaa_budget=args.iaa_budget,
                        iaa_inside_share=args.iaa_inside_share, iaa_inside=args.iaa_inside, rem_lora_r=args.rem_lora_r,
                        rem_lora_alpha=args.rem_lora_alpha, rem_adapter_reduction=args.rem_adapter_reduction,
                        rem_adapter_scale=args.rem_adapter_scale)
