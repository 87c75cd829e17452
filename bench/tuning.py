"""Tuning methods for few-shot dense retrieval: which parameters of which encoder learn.

A :class:`DualEncoder` holds a query encoder and a passage encoder built from one checkpoint.
They are the same module (tied) when a method tunes both sides, and two modules (untied) when
a method tunes only one side; the frozen side is then the untouched checkpoint, whose
embeddings come from the shared embedding cache.

Methods (:data:`METHODS`):

========== ====== ======================================================================
method     tied   what learns
========== ====== ======================================================================
full-tune  yes    every parameter
qry-tune   no     every parameter of the query encoder; passages are the cached checkpoint
psg-tune   no     every parameter of the passage encoder; queries are the cached checkpoint
bitfit     yes    bias terms only (Ben Zaken et al., 2022), every other weight frozen
prefix     yes    peft PrefixTuning: ``prefix_tokens`` learned key/value vectors per layer
lora       yes    peft LoRA (rank ``lora_r``, alpha ``lora_alpha``) on ``lora_targets``
adapter    yes    bottleneck adapters (own implementation; peft has no bottleneck adapter):
                  ``h + W_up gelu(W_down h)`` after each layer's feed-forward output
                  projection (before the residual add + LayerNorm), hidden / ``adapter_reduction``
                  wide, W_up zero-initialised so training starts from the checkpoint's function
========== ====== ======================================================================

Embeddings follow the model spec exactly as :class:`bench.encode.Encoder` computes them
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

from bench.errors import BenchError
from bench.models import ModelSpec

METHODS = ("full-tune", "qry-tune", "psg-tune", "bitfit", "prefix", "lora", "adapter")
METHOD_DESCRIPTIONS = {
    "full-tune": "all parameters of one shared (tied) encoder",
    "qry-tune": "all parameters of the query encoder; passage encoder frozen (untied; cached passage embeddings)",
    "psg-tune": "all parameters of the passage encoder; query encoder frozen (untied; cached query embeddings)",
    "bitfit": "bias terms only of one shared encoder (BitFit)",
    "prefix": "peft PrefixTuning (learned per-layer key/value prefixes) on one shared encoder",
    "lora": "peft LoRA on one shared encoder",
    "adapter": "bottleneck adapters after each feed-forward block of one shared encoder (own implementation)",
}
# learning rates that move a small model within one short epoch (override with --lr)
DEFAULT_LR = {"full-tune": 2e-5, "qry-tune": 2e-5, "psg-tune": 2e-5, "bitfit": 5e-4, "prefix": 5e-3,
              "lora": 5e-4, "adapter": 5e-4}


@dataclass
class TuningConfig:
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.1
    lora_targets: Tuple[str, ...] = ("query", "value")
    prefix_tokens: int = 10
    adapter_reduction: int = 16

    def for_method(self, method: str) -> dict:
        """The settings that matter for one method (recorded in the result file)."""
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        keep = {"lora": ("lora_r", "lora_alpha", "lora_dropout", "lora_targets"), "prefix": ("prefix_tokens",),
                "adapter": ("adapter_reduction",)}.get(method, ())
        return {k: d[k] for k in keep}


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
    from bench.encode import Encoder

    if spec.kind != "dense":
        raise BenchError(f"model {spec.name!r} is not a dense encoder: the few-shot suite trains dense models")
    enc = Encoder(spec.with_overrides(dtype="float32"), "passage", progress=False)
    model, tok = enc.load()
    return model, tok


# --------------------------------------------------------------------------------------------
# adapters (own implementation)


def _adapter_class():
    import torch

    class BottleneckAdapter(torch.nn.Module):
        """``h + up(gelu(down(h)))`` with ``up`` zero-initialised (identity at the start)."""

        def __init__(self, hidden: int, reduction: int):
            super().__init__()
            width = max(1, hidden // max(1, reduction))
            self.down = torch.nn.Linear(hidden, width)
            self.up = torch.nn.Linear(width, hidden)
            torch.nn.init.zeros_(self.up.weight)
            torch.nn.init.zeros_(self.up.bias)

        def forward(self, h):
            return h + self.up(torch.nn.functional.gelu(self.down(h)))

    return BottleneckAdapter


def add_adapters(model, reduction: int) -> int:
    """Insert a bottleneck adapter after every feed-forward output projection (modules named
    ``*.output`` with a ``dense`` and a ``LayerNorm`` that are not attention outputs, as in
    BERT-family encoders). Returns the number inserted."""
    import torch

    Adapter = _adapter_class()
    n = 0
    for name, module in list(model.named_modules()):
        if not (name.endswith(".output") and ".attention." not in name + "."):
            continue
        dense = getattr(module, "dense", None)
        if not isinstance(dense, torch.nn.Linear) or not hasattr(module, "LayerNorm"):
            continue
        module.dense = torch.nn.Sequential(dense, Adapter(dense.out_features, reduction))
        n += 1
    if n == 0:
        raise BenchError(f"adapter: found no feed-forward output blocks in {type(model).__name__}; "
                         f"use lora or bitfit for this architecture")
    return n


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
        from bench.encode import pool

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
    try:
        from peft import LoraConfig, PrefixTuningConfig, TaskType, get_peft_model
    except ImportError:
        from bench.errors import ResourceError

        raise ResourceError(f"method {method!r} needs peft. Install: pip install peft==0.21.2") from None
    if method == "lora":
        pcfg = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                          target_modules=list(cfg.lora_targets), bias="none", task_type=TaskType.FEATURE_EXTRACTION)
    else:
        pcfg = PrefixTuningConfig(num_virtual_tokens=cfg.prefix_tokens, task_type=TaskType.FEATURE_EXTRACTION)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_peft_model(model, pcfg)


def build_dual_encoder(spec: ModelSpec, method: str, base_model, tokenizer, cfg: Optional[TuningConfig] = None,
                       seed: int = 0, start: Optional[object] = None) -> DualEncoder:
    """A fresh :class:`DualEncoder` for ``method`` from ``base_model``'s weights (copied:
    ``base_model`` is never changed; an untied frozen side IS ``base_model``, read-only).
    ``start``: the tuned module of an earlier :class:`DualEncoder` of the same method (e.g. after
    basic learning) to continue from, copied. ``seed`` seeds the initialisation of new
    parameters (LoRA, prefix, adapters)."""
    import torch

    check_method(method)
    cfg = cfg or TuningConfig()
    torch.manual_seed(int(seed))
    frozen = base_model
    for p in frozen.parameters():
        p.requires_grad_(False)
    frozen.eval()
    settings = cfg.for_method(method)
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
    elif method == "adapter":
        for p in model.parameters():
            p.requires_grad_(False)
        add_adapters(model, cfg.adapter_reduction)
        for name, p in model.named_parameters():
            p.requires_grad_(".1.down." in name or ".1.up." in name)
    elif method in ("lora", "prefix"):
        model = _peft_wrap(model, method, cfg)
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
