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
The MLM head (:mod:`bench.training.mlm_head`): a source DAM's own ``mlm_head.safetensors`` when
the model is one (sequential initialisation: a target DAM continues with the source DAM's head);
else the checkpoint's own; else (sentence-transformers encoders ship none) a new head initialised
from the seed, its decoder tied to the word embeddings. Before the MLM training the head is
warmed up alone (backbone frozen) until its probe loss is below ``head_warmup_target * ln V`` or
a step cap; the probe loss before the warm-up, after it and after the MLM training is recorded
(``mlm_loss``). The adapted checkpoint holds the encoder in its plain form plus the head file.

Training order of DDR (step 1-3): a **source DAM** is this MLM training on the source corpus; REM
is trained on the frozen source DAM; a **target DAM** is this MLM training on the target corpus
started from the source DAM (``spec`` = the source DAM's folder). ``record["init"]`` names the
model a DAM started from.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence

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
from bench.training.mlm_head import (HEAD_FILE, STOP_TRAINED, Probe, base_of, describe_warmup, head_origin_note,
                                     head_state, load_head, mlm_loss, warm_up_head)


@dataclass
class MLMConfig:
    epochs: int = 1
    batch_size: int = 16
    lr: float = 1e-5  # small: the backbone keeps what it knew, it only moves towards the target domain
    target_lr: Optional[float] = None  # the target DAM's rate (None: lr, one rate for both DAMs; DDR: smaller)
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    grad_clip: float = 1.0
    max_length: int = 128
    mlm_probability: float = 0.15
    mask_ratio: float = 0.8
    random_ratio: float = 0.1
    max_steps: Optional[int] = None
    save_every: int = 50
    # the MLM head's warm-up (bench.training.mlm_head): head only, backbone frozen
    head_warmup_lr: float = 1e-3
    head_warmup_max_steps: int = 300
    head_warmup_target: float = 0.5  # stop when the probe loss < this * ln V
    head_warmup_check_every: int = 25
    probe_texts: int = 64

    def validate(self) -> "MLMConfig":
        if not 0.0 < self.mlm_probability < 1.0:
            raise BenchError("--mlm-probability must be between 0 and 1")
        if self.mask_ratio < 0 or self.random_ratio < 0 or self.mask_ratio + self.random_ratio > 1:
            raise BenchError("mask and random ratios must be >= 0 and sum to at most 1")
        if self.epochs < 1 or self.batch_size < 1:
            raise BenchError("--mlm-epochs and --mlm-batch-size must be at least 1")
        if self.target_lr is not None and self.target_lr < 0:
            raise BenchError("--mlm-target-lr must be >= 0")
        if self.head_warmup_max_steps < 0 or self.head_warmup_check_every < 1 or self.probe_texts < 1:
            raise BenchError("--mlm-head-warmup-steps must be >= 0 (0: no warm-up); the check interval and "
                             "probe size at least 1")
        if not 0.0 < self.head_warmup_target <= 1.0:
            raise BenchError("--mlm-head-warmup-target must be in (0, 1] (a fraction of ln V)")
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
    """(masked-LM model, tokenizer, head origin, head_initialised) from the spec's folder, float32."""
    import torch

    folder = spec.resolve_path()
    torch.manual_seed(int(seed))

    # the missing-head notice is silenced there and recorded in the training record instead
    model, tok, info = load_masked_lm(folder)
    model = model.to(getattr(spec, "device", "cpu"))
    missing = [k for k in info.get("missing_keys", []) if not k.endswith("decoder.weight")]
    head_missing = any(("cls." in k or "lm_head" in k or "predictions" in k) for k in missing)
    encoder_missing = [k for k in missing if not ("cls." in k or "lm_head" in k or "predictions" in k)]
    if encoder_missing:
        raise BenchError(f"{folder}: the masked-LM model misses encoder weights ({', '.join(encoder_missing[:3])}); "
                         f"this architecture cannot be adapted by MLM here")
    if load_head(model, folder):
        head, initialised = f"the source DAM's ({HEAD_FILE})", False
    elif head_missing:
        head, initialised = "initialised from the seed (the checkpoint has no MLM head)", True
    else:
        head, initialised = "the checkpoint's own", False
    return model.float(), tok, head, initialised


class _MaskedBatches:
    """The MLM batches of ``texts``: each epoch a seeded order, each batch seeded masks."""

    def __init__(self, texts: Sequence[str], tok, cfg: MLMConfig, seed: int):
        self.texts, self.tok, self.cfg, self.seed = texts, tok, cfg, seed
        self.per_epoch = (len(texts) + cfg.batch_size - 1) // cfg.batch_size

    def encode(self, batch_texts, mask_seed: int):
        import torch

        cfg, tok = self.cfg, self.tok
        enc = tok(list(batch_texts), padding=True, truncation=True, max_length=cfg.max_length,
                  return_tensors="pt", return_special_tokens_mask=True)
        special = enc["special_tokens_mask"].bool() | (enc["attention_mask"] == 0)
        g = torch.Generator().manual_seed(mask_seed)
        inputs, labels = mask_tokens(enc["input_ids"], special, tok.mask_token_id, len(tok), g,
                                     cfg.mlm_probability, cfg.mask_ratio, cfg.random_ratio)
        if int((labels != -100).sum()) == 0:
            labels = labels.clone()
            labels[0, 1] = inputs[0, 1]  # a batch with no selected token still has a defined loss
        return inputs, enc["attention_mask"], labels

    def batcher(self, phase: str):
        """``step -> batch`` of one phase (the head warm-up or the MLM training), its own seeds."""
        perms: Dict[int, np.ndarray] = {}
        n, seed, size, per_epoch = len(self.texts), self.seed, self.cfg.batch_size, self.per_epoch

        def batch_at(step: int):
            epoch, start = divmod(step, per_epoch)
            if epoch not in perms:
                perms[epoch] = rng_for(seed, f"{phase}-order", str(epoch)).permutation(n)
            idx = perms[epoch][start * size:(start + 1) * size]
            return self.encode([self.texts[i] for i in idx], torch_seed(seed, f"{phase}-mask", str(step)))
        return batch_at


def _warm_head(model, tok, head: str, initialised: bool, probe: Probe, batches: _MaskedBatches, cfg: MLMConfig,
               seed: int) -> dict:
    """A new MLM head warmed up on the frozen encoder until its probe loss reaches the target (a
    trained head is not); the warm-up record with the probe loss before and after."""
    if initialised:
        warm, initial, after_warm = warm_up_head(
            model, probe, batches.batcher("mlm-warmup"), vocab_size=len(tok), lr=cfg.head_warmup_lr,
            max_steps=cfg.head_warmup_max_steps, target=cfg.head_warmup_target,
            check_every=cfg.head_warmup_check_every, weight_decay=cfg.weight_decay, grad_clip=cfg.grad_clip,
            seed=torch_seed(seed, "mlm-warmup"))
    else:  # a trained head goes straight into the MLM training, as in DDR
        initial = after_warm = probe.loss(model)
        warm = {"target": "only a new head is warmed up", "steps": 0, "stopped": STOP_TRAINED.format(origin=head),
                "checks": [], "losses": []}
    warm.update(initial=initial, after=after_warm)
    return warm


def _dam_record(spec: ModelSpec, cfg: MLMConfig, role: str, record_cfg: dict, head: str, warm: dict, final,
                vocab: int, probe: Probe, n: int, corpus_fingerprint: str, n_params: int, log, complete: bool) -> dict:
    """The DAM's training record (``training.json`` of its checkpoint)."""
    return {
        "schema_version": 1,
        "kind": "ddr-dam",
        "recipe": "ddr-dam",
        "role": role,
        "description": f"DDR Domain Adaption Module ({role}): the backbone adapted to the {role} corpus by masked "
                       f"language modelling" + (", initialised from the source DAM" if role == "target" else ""),
        "config": record_cfg,
        "masking": {"probability": cfg.mlm_probability, "mask": cfg.mask_ratio, "random": cfg.random_ratio,
                    "keep": round(1.0 - cfg.mask_ratio - cfg.random_ratio, 6),
                    "excluded": "special tokens and padding"},
        "mlm_head": head,
        "head_warmup": warm,
        "mlm_loss": {"initial": warm["initial"], "after_warmup": warm["after"], "final": final,
                     "ln_vocab": math.log(vocab),
                     "probe": f"token-weighted mean cross-entropy on the masked positions of {probe.n_texts} "
                              f"corpus texts (seeded sample and masks), eval mode"},
        "init": {"model": spec.name, "fingerprint": model_fingerprint(spec)},
        "source_model": spec.portable_dict(),
        "source_fingerprint": model_fingerprint(spec),
        "target_corpus": {"n_texts": n, "fingerprint": corpus_fingerprint},
        "parameters": {"trainable": n_params, "total": n_params, "trainable_share": 1.0},
        "log": log.to_dict(),
        "library_versions": library_versions(),
        "complete": complete,
    }


def adapt_backbone(spec: ModelSpec, texts: Sequence[str], cfg: MLMConfig, out: Path, *, seed: int = 0,
                   corpus_fingerprint: str = "", progress: bool = True, stop_after: Optional[int] = None,
                   role: str = "target", notify: Optional[Callable[[str], None]] = None) -> dict:
    """MLM-adapt ``spec``'s backbone on ``texts``; write a checkpoint (encoder + MLM head) to ``out``.
    ``role``: "source" (DDR step 1, the source corpus) or "target" (step 3, ``spec`` is then the
    source DAM). ``notify`` receives console notes (the missing-head note, the warm-up line).

    Returns the training record (``complete`` False when stopped early; the state then stays
    beside ``out`` for a resume)."""
    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"{spec.name!r} is not a dense encoder")
    refuse_dense(spec, "MLM adaptation")
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise BenchError(f"the {role} corpus has no text to adapt on")
    out = Path(out)
    model, tok, head, initialised = _mlm_model(spec, torch_seed(seed, "mlm-head"))
    if tok.mask_token_id is None:
        raise BenchError(f"{spec.name}: the tokenizer has no mask token; MLM adaptation needs one")
    if initialised and notify is not None:
        notify(head_origin_note(spec.name))
    n = len(texts)
    batches = _MaskedBatches(texts, tok, cfg, seed)
    total = batches.per_epoch * cfg.epochs
    if cfg.max_steps is not None:
        total = min(total, cfg.max_steps)
    probe = Probe(texts, batches.encode, cfg.probe_texts, cfg.batch_size, seed)
    warm = _warm_head(model, tok, head, initialised, probe, batches, cfg, seed)
    line = describe_warmup(warm)
    if line and notify is not None:
        notify(f"{role} DAM: {line}")
    batch_of = batches.batcher("mlm")

    def loss_at(step: int):
        inputs, attn, labels = batch_of(step)
        loss = mlm_loss(model, inputs, attn, labels)
        return loss, {"mlm": float(loss.detach())}

    record_cfg = {"recipe": "ddr-dam", "mlm": asdict(cfg), "seed": seed}
    state_key = sha256_hex("ddr-dam-v2", canonical_json(record_cfg), model_fingerprint(spec), corpus_fingerprint,
                           str(n))
    state_dir = out.parent / f".{out.name}.state"
    for p in model.parameters():
        p.requires_grad_(True)
    log = run_loop({"model": model}, total, loss_at, lr=cfg.lr, weight_decay=cfg.weight_decay,
                   warmup_ratio=cfg.warmup_ratio, grad_clip=cfg.grad_clip, seed=torch_seed(seed, "mlm-train"),
                   state_dir=state_dir, state_key=state_key, save_every=cfg.save_every, stop_after=stop_after,
                   progress=progress, desc=f"adapt backbone (MLM, {role} corpus)")
    n_params = sum(p.numel() for p in base_of(model).parameters())
    complete = log.steps == total
    final = probe.loss(model) if complete else None
    record = _dam_record(spec, cfg, role, record_cfg, head, warm, final, len(tok), probe, n, corpus_fingerprint,
                         n_params, log, complete)
    if not complete:
        return record
    # keep the encoder in the model's plain (AutoModel) form, pooler included, as the source had it

    plain = load_plain_encoder(spec.resolve_path())
    missing, unexpected = plain.load_state_dict(base_of(model).state_dict(), strict=False)
    if unexpected or any(not k.startswith("pooler.") for k in missing):
        raise BenchError(f"adapted weights do not fit the encoder (missing {missing[:3]}, unexpected {unexpected[:3]})")
    save_checkpoint(plain, tok, spec, out, record, "full-tune", extra_tensors={HEAD_FILE: head_state(model)})
    clear_state(state_dir)
    return record


#: The DAM's MLM options (``MLMConfig``) on an argparse group.
MLM_OPTIONS = (
    option('--mlm-epochs', type=int, default=1, help='DAM: MLM epochs over the target corpus (default: 1)'),
    option('--mlm-batch-size', type=int, default=16, help='DAM: MLM batch size in passages (default: 16)'),
    option('--mlm-lr', type=float, default=1e-05, help='DAM: MLM learning rate (default: 1e-5, small; the source DAM, '
                                                        'and the target DAM unless --mlm-target-lr is given)'),
    option('--mlm-target-lr', type=float, default=None,
           help="DAM: the target DAM's own MLM learning rate (DDR: smaller than the source DAM's, 2e-5 vs 5e-5; "
                "default: --mlm-lr, a recorded deviation)"),
    option('--mlm-max-length', type=int, default=128, help='DAM: longest passage in tokens for MLM (default: 128)'),
    option('--mlm-probability', type=float, default=0.15, help='DAM: share of tokens masked (default: 0.15, as BERT)'),
    option('--mlm-max-steps', type=int, default=None, help='cap DAM steps (smoke runs)'),
    option('--mlm-head-warmup-steps', type=int, default=300,
           help='DAM: most steps of the MLM head warm-up (head only, backbone frozen; 0: none; default: 300)'),
    option('--mlm-head-warmup-lr', type=float, default=1e-3, help='DAM: learning rate of the head warm-up (default: 1e-3)'),
    option('--mlm-head-warmup-target', type=float, default=0.5,
           help='DAM: the warm-up stops once the probe MLM loss < this * ln(vocabulary size) (default: 0.5)'),
)


def mlm_config_from(args) -> MLMConfig:
    """The MLMConfig of parsed option values (attributes named by the options' dest)."""
    return MLMConfig(epochs=args.mlm_epochs, batch_size=args.mlm_batch_size, lr=args.mlm_lr,
                     target_lr=getattr(args, "mlm_target_lr", None),
                     max_length=args.mlm_max_length, mlm_probability=args.mlm_probability,
                     max_steps=args.mlm_max_steps, head_warmup_max_steps=args.mlm_head_warmup_steps,
                     head_warmup_lr=args.mlm_head_warmup_lr, head_warmup_target=args.mlm_head_warmup_target)
