"""The dual encoder that training and the few-shot suite tune: query and passage encoders of one
checkpoint under one tuning method (methods and their settings: :mod:`bench.tuning.config`)."""
from __future__ import annotations

import copy
import hashlib
from typing import Dict, List, Optional, Sequence

import numpy as np

from bench.models.loading import pool
from bench.models.spec import ModelSpec
from bench.tuning.adapters import attach_plan, attach
from bench.tuning.plans import plan_for
from bench.tuning.config import TuningConfig, check_method, tunes_passages, tunes_queries
from bench.core.progress import plural, progress as progress_bar


# --------------------------------------------------------------------------------------------
# adapters (own implementation, in bench.tuning.adapters)


def add_adapters(model, reduction: int, method: str = "pfeiffer") -> int:
    """Insert bottleneck adapters into a BERT-family encoder (in place, initialised from the
    current global RNG; the backbone is frozen, the adapters trainable): ``pfeiffer`` after every
    feed-forward output projection, ``adapter`` (Houlsby) also after every attention output
    projection. Returns the number inserted."""
    cfg = TuningConfig(adapter_reduction=reduction)
    plan = plan_for(method, cfg, model)
    attach_plan(model, method, plan, None, settings=cfg.for_method(method))
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

        model = self.model_for(role)
        prefix = self.spec.query_prefix if role == "query" else self.spec.passage_prefix
        batch = self.tokenizer([prefix + t for t in texts], padding=True, truncation=True,
                               max_length=max_length or self.max_length(role), return_tensors="pt")
        device = next(model.parameters()).device  # the spec's --device (a no-op on the CPU)
        ids, attn = batch["input_ids"].to(device), batch["attention_mask"].to(device)
        out = model(input_ids=ids, attention_mask=attn).last_hidden_state
        emb = pool(out, attn, self.spec)
        self.n_encoded[role] += len(texts)
        return emb

    def encode(self, texts: Sequence[str], role: str, batch_size: int = 64, progress: bool = False,
               desc: str = "") -> np.ndarray:
        """In-memory inference embeddings (float32), length-sorted batches; never cached."""
        import torch

        model = self.model_for(role)
        was_training = model.training
        model.eval()
        prefix = self.spec.query_prefix if role == "query" else self.spec.passage_prefix
        lengths = [len(ids) for ids in self.tokenizer([prefix + t for t in texts], truncation=True,
                                                      max_length=self.max_length(role))["input_ids"]]
        order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
        dim = int(self.query_model.config.hidden_size)
        out = np.empty((len(texts), dim), dtype=np.float32)
        bar = progress_bar(total=len(texts), desc=desc or f"encode {plural(role)} (tuned)", unit="text",
                           enabled=progress)
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

