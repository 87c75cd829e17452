"""DDR: disentangled domain and relevance modelling (Zhan et al., 2022, "Disentangled Modeling of
Domain and Relevance for Adaptable Dense Retrieval").

Two parts, trained separately:

- **REM** (Relevance Estimation Module): LoRA in the attention plus a Parallel Adapter, added to
  the frozen backbone (method ``rem`` of :mod:`bench.tuning.config`), trained once on supervised
  source-domain data with the contrastive NLL of :mod:`bench.training.recipes` (recipe ``dr``).
- **DAM** (Domain Adaption Module): the backbone itself, adapted to a target corpus without
  labels by masked language modelling, initialised from the source backbone (sequential
  initialisation) and trained at a small learning rate. REM is then attached, unchanged, to the
  adapted backbone.

MLM masking (BERT's rule, :func:`mask_tokens`): of the tokens that are not special and not
padding, each is selected with probability ``mlm_probability`` (0.15); a selected token becomes
``[MASK]`` with probability 0.8, a uniformly random vocabulary token with probability 0.1, and
stays unchanged with probability 0.1. The loss is cross-entropy on the selected positions only.
The MLM head: the checkpoint's own when it has one; otherwise (sentence-transformers encoders
ship none) a new head is initialised from the seed, its decoder tied to the word embeddings.
Only the encoder is kept in the adapted checkpoint.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence

import numpy as np

from bench.core.errors import BenchError
from bench.core.options import option
from bench.models.spec import ModelSpec
from bench.core.seeding import rng_for
from bench.core.io import canonical_json, sha256_hex
from bench.core.seeding import torch_seed
from bench.core.versions import library_versions
from bench.models.checkpoint import save_checkpoint
from bench.models.loading import load_masked_lm, load_plain_encoder, refuse_dense
from bench.models.spec import model_fingerprint
from bench.training.loop import clear_state, run_loop


@dataclass
class MLMConfig:
    epochs: int = 1
    batch_size: int = 16
    lr: float = 1e-5  # small: the backbone keeps what it knew, it only moves towards the target domain
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    grad_clip: float = 1.0
    max_length: int = 128
    mlm_probability: float = 0.15
    mask_ratio: float = 0.8
    random_ratio: float = 0.1
    max_steps: Optional[int] = None
    save_every: int = 50

    def validate(self) -> "MLMConfig":
        if not 0.0 < self.mlm_probability < 1.0:
            raise BenchError("--mlm-probability must be between 0 and 1")
        if self.mask_ratio < 0 or self.random_ratio < 0 or self.mask_ratio + self.random_ratio > 1:
            raise BenchError("mask and random ratios must be >= 0 and sum to at most 1")
        if self.epochs < 1 or self.batch_size < 1:
            raise BenchError("--mlm-epochs and --mlm-batch-size must be at least 1")
        return self


def mask_tokens(input_ids, special_mask, mask_token_id: int, vocab_size: int, generator,
                mlm_probability: float = 0.15, mask_ratio: float = 0.8, random_ratio: float = 0.1):
    """``(inputs, labels)`` for MLM (see the module docstring); ``labels`` is -100 where no token
    was selected. ``special_mask`` is True at special tokens and padding (never selected).
    ``input_ids`` is not modified."""
    import torch

    inputs = input_ids.clone()
    labels = input_ids.clone()
    prob = torch.full(inputs.shape, float(mlm_probability))
    prob.masked_fill_(special_mask, 0.0)
    selected = torch.bernoulli(prob, generator=generator).bool()
    labels[~selected] = -100
    u = torch.rand(inputs.shape, generator=generator)
    to_mask = selected & (u < mask_ratio)
    to_random = selected & (u >= mask_ratio) & (u < mask_ratio + random_ratio)
    inputs[to_mask] = mask_token_id
    random_tokens = torch.randint(vocab_size, inputs.shape, generator=generator, dtype=inputs.dtype)
    inputs[to_random] = random_tokens[to_random]
    return inputs, labels


def _mlm_model(spec: ModelSpec, seed: int):
    """(masked-LM model, tokenizer, head origin) from the spec's folder, in float32."""
    import torch

    folder = spec.resolve_path()
    torch.manual_seed(int(seed))

    # the missing-head notice is silenced there and recorded in the training record instead
    model, tok, info = load_masked_lm(folder)
    missing = [k for k in info.get("missing_keys", []) if not k.endswith("decoder.weight")]
    head = "initialised from the seed (the checkpoint has no MLM head)" if any(
        ("cls." in k or "lm_head" in k or "predictions" in k) for k in missing) else "the checkpoint's own"
    encoder_missing = [k for k in missing if not ("cls." in k or "lm_head" in k or "predictions" in k)]
    if encoder_missing:
        raise BenchError(f"{folder}: the masked-LM model misses encoder weights ({', '.join(encoder_missing[:3])}); "
                         f"this architecture cannot be adapted by MLM here")
    return model.float(), tok, head


def _base_of(mlm_model):
    base_prefix = getattr(mlm_model, "base_model_prefix", "bert")
    return getattr(mlm_model, base_prefix)


def adapt_backbone(spec: ModelSpec, texts: Sequence[str], cfg: MLMConfig, out: Path, *, seed: int = 0,
                   corpus_fingerprint: str = "", progress: bool = True, stop_after: Optional[int] = None) -> dict:
    """MLM-adapt ``spec``'s backbone on ``texts`` (the target corpus); write a checkpoint to ``out``.

    Returns the training record (``complete`` False when stopped early; the state then stays
    beside ``out`` for a resume)."""
    import torch


    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"{spec.name!r} is not a dense encoder")
    refuse_dense(spec, "MLM adaptation")
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise BenchError("the target corpus has no text to adapt on")
    out = Path(out)
    model, tok, head = _mlm_model(spec, torch_seed(seed, "mlm-head"))
    if tok.mask_token_id is None:
        raise BenchError(f"{spec.name}: the tokenizer has no mask token; MLM adaptation needs one")
    n = len(texts)
    per_epoch = (n + cfg.batch_size - 1) // cfg.batch_size
    total = per_epoch * cfg.epochs
    if cfg.max_steps is not None:
        total = min(total, cfg.max_steps)
    perms: Dict[int, np.ndarray] = {}

    def batch_of(step: int):
        epoch, start = divmod(step, per_epoch)
        if epoch not in perms:
            perms[epoch] = rng_for(seed, "mlm-order", str(epoch)).permutation(n)
        idx = perms[epoch][start * cfg.batch_size:(start + 1) * cfg.batch_size]
        enc = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=cfg.max_length,
                  return_tensors="pt", return_special_tokens_mask=True)
        special = enc["special_tokens_mask"].bool() | (enc["attention_mask"] == 0)
        g = torch.Generator().manual_seed(torch_seed(seed, "mlm-mask", str(step)))
        inputs, labels = mask_tokens(enc["input_ids"], special, tok.mask_token_id, len(tok), g,
                                     cfg.mlm_probability, cfg.mask_ratio, cfg.random_ratio)
        return inputs, enc["attention_mask"], labels

    def loss_at(step: int):
        inputs, attn, labels = batch_of(step)
        if int((labels != -100).sum()) == 0:
            labels = labels.clone()
            labels[0, 1] = inputs[0, 1]  # a batch with no selected token still has a defined loss
        out_ = model(input_ids=inputs, attention_mask=attn, labels=labels)
        return out_.loss, {"mlm": float(out_.loss.detach())}

    record_cfg = {"recipe": "ddr-dam", "mlm": asdict(cfg), "seed": seed}
    state_key = sha256_hex("ddr-dam-v1", canonical_json(record_cfg), model_fingerprint(spec), corpus_fingerprint,
                           str(n))
    state_dir = out.parent / f".{out.name}.state"
    for p in model.parameters():
        p.requires_grad_(True)
    log = run_loop({"model": model}, total, loss_at, lr=cfg.lr, weight_decay=cfg.weight_decay,
                   warmup_ratio=cfg.warmup_ratio, grad_clip=cfg.grad_clip, seed=torch_seed(seed, "mlm-train"),
                   state_dir=state_dir, state_key=state_key, save_every=cfg.save_every, stop_after=stop_after,
                   progress=progress, desc="adapt backbone (MLM)")
    n_params = sum(p.numel() for p in _base_of(model).parameters())
    record = {
        "schema_version": 1,
        "kind": "ddr-dam",
        "recipe": "ddr-dam",
        "description": "DDR Domain Adaption Module: the backbone adapted to the target corpus by masked language "
                       "modelling, initialised from the source backbone",
        "config": record_cfg,
        "masking": {"probability": cfg.mlm_probability, "mask": cfg.mask_ratio, "random": cfg.random_ratio,
                    "keep": round(1.0 - cfg.mask_ratio - cfg.random_ratio, 6),
                    "excluded": "special tokens and padding"},
        "mlm_head": head,
        "source_model": spec.portable_dict(),
        "source_fingerprint": model_fingerprint(spec),
        "target_corpus": {"n_texts": n, "fingerprint": corpus_fingerprint},
        "parameters": {"trainable": n_params, "total": n_params, "trainable_share": 1.0},
        "log": log.to_dict(),
        "library_versions": library_versions(),
        "complete": log.steps == total,
    }
    if log.steps < total:
        return record
    # keep the encoder in the model's plain (AutoModel) form, pooler included, as the source had it

    plain = load_plain_encoder(spec.resolve_path())
    missing, unexpected = plain.load_state_dict(_base_of(model).state_dict(), strict=False)
    if unexpected or any(not k.startswith("pooler.") for k in missing):
        raise BenchError(f"adapted weights do not fit the encoder (missing {missing[:3]}, unexpected {unexpected[:3]})")
    save_checkpoint(plain, tok, spec, out, record, "full-tune")
    clear_state(state_dir)
    return record


#: The DAM's MLM options (``MLMConfig``) on an argparse group.
MLM_OPTIONS = (
    option('--mlm-epochs', type=int, default=1, help='DAM: MLM epochs over the target corpus (default: 1)'),
    option('--mlm-batch-size', type=int, default=16),
    option('--mlm-lr', type=float, default=1e-05, help='DAM: MLM learning rate (default: 1e-5, small)'),
    option('--mlm-max-length', type=int, default=128),
    option('--mlm-probability', type=float, default=0.15),
    option('--mlm-max-steps', type=int, default=None, help='cap DAM steps (smoke runs)'),
)


def mlm_config_from(args) -> MLMConfig:
    """The MLMConfig of parsed option values (attributes named by the options' dest)."""
    return MLMConfig(epochs=args.mlm_epochs, batch_size=args.mlm_batch_size, lr=args.mlm_lr,
                     max_length=args.mlm_max_length, mlm_probability=args.mlm_probability,
                     max_steps=args.mlm_max_steps)
