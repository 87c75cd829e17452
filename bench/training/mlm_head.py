"""The masked-LM head of a DAM: where it comes from, its warm-up, and the probe loss.

DDR trains its Domain Adaption Module with BERT's masked language modelling, through BERT's
pretrained MLM head. A sentence-transformers encoder (``minilm-l6``) ships no head, so one is
created from the seed; trained straight away together with the backbone, the backbone's first
steps follow the gradients of a random head (initial loss above ln V, the loss of a uniform
guess over the vocabulary). Before the DAM's MLM training we therefore **warm the head up**:

- only the head is trained (the backbone, and the word embeddings the decoder is tied to, are
  frozen), AdamW at ``head_warmup_lr`` with constant rate, batches and masks seeded by (seed, step);
- every ``head_warmup_check_every`` steps the **probe loss** is measured; the warm-up stops as soon
  as it is below ``head_warmup_target * ln V`` ("target reached"), when it improved by less than
  ``PLATEAU_TOL`` (1 %) since the previous check ("plateau": the head has learned what the frozen
  backbone's features allow; minilm-l6's plateau is about 0.6 ln V), or after
  ``head_warmup_max_steps`` steps ("step cap"). A new head already below the target is not
  trained ("not needed"). A trained head - the checkpoint's own, or the source DAM's that a target
  DAM starts from - is never warmed up: DDR trains it together with the backbone.

Probe loss: token-weighted mean cross-entropy over the masked positions of a fixed sample of
corpus texts (``probe_texts`` texts drawn by the seed, masks seeded per probe batch), in eval mode
(no dropout), without gradients. The same probe is measured before the warm-up, after it and
after the MLM training, so the three numbers are comparable.

The head is saved beside a DAM's encoder as ``mlm_head.safetensors`` (every head tensor except a
decoder tied to the word embeddings), so a target DAM initialised from a source DAM continues with
the source DAM's head.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.seeding import rng_for, torch_seed
from bench.training.loop import make_optimizer

HEAD_FILE = "mlm_head.safetensors"

#: how the warm-up ended (recorded as ``head_warmup.stopped``)
STOP_TARGET, STOP_CAP, STOP_NOT_NEEDED = "target reached", "step cap", "not needed (probe loss already below target)"
STOP_PLATEAU = "plateau (probe loss improved < 1% since the previous check)"
STOP_TRAINED = "not needed (the head is trained: {origin})"
PLATEAU_TOL = 0.01


def base_of(mlm_model):
    """The encoder inside a masked-LM model (``model.bert`` for BERT)."""
    return getattr(mlm_model, getattr(mlm_model, "base_model_prefix", "bert"))


def _head_module(mlm_model):
    """The head as one module applied to hidden states (BERT ``cls``, RoBERTa ``lm_head``), or None."""
    for name in ("cls", "lm_head"):
        m = getattr(mlm_model, name, None)
        if m is not None:
            return m
    return None


def head_state(mlm_model) -> Dict[str, object]:
    """Every tensor of the model that is not the encoder's, except a decoder tied to the embeddings."""
    prefix = getattr(mlm_model, "base_model_prefix", "bert") + "."
    emb = mlm_model.get_input_embeddings().weight
    out = {}
    for k, v in mlm_model.state_dict().items():
        if k.startswith(prefix) or v.data_ptr() == emb.data_ptr():
            continue
        out[k] = v.detach().clone().contiguous()
    return out


def head_parameters(mlm_model) -> List[object]:
    """The trainable tensors of the head: parameters outside the encoder (a tied decoder is the
    encoder's word embedding and stays out)."""
    enc = {id(p) for p in base_of(mlm_model).parameters()}
    return [p for p in mlm_model.parameters() if id(p) not in enc]


def load_head(mlm_model, folder: Path) -> bool:
    """Load ``folder/mlm_head.safetensors`` into the model's head; False when there is none."""
    path = Path(folder) / HEAD_FILE
    if not path.is_file():
        return False
    from safetensors.torch import load_file

    tensors = load_file(str(path))
    expected = set(head_state(mlm_model))
    if set(tensors) != expected:
        raise BenchError(f"{path}: head tensors {sorted(set(tensors) ^ expected)[:3]} do not fit the model; "
                         f"delete the folder to retrain it")
    mlm_model.load_state_dict(tensors, strict=False)
    return True


def mlm_loss(mlm_model, inputs, attention_mask, labels, frozen_backbone: bool = False):
    """Mean cross-entropy over the selected positions (``labels != -100``), as the Hugging Face
    masked-LM loss, but the head runs on the selected positions only (the same number, far less
    work). ``frozen_backbone``: the encoder runs without gradients (head warm-up)."""
    import torch

    device = next(mlm_model.parameters()).device  # masks are drawn on the CPU, the model runs on --device
    inputs, attention_mask, labels = inputs.to(device), attention_mask.to(device), labels.to(device)
    head = _head_module(mlm_model)
    if head is None:  # an architecture whose head is not one module: the library's own loss
        return mlm_model(input_ids=inputs, attention_mask=attention_mask, labels=labels).loss
    if frozen_backbone:
        with torch.no_grad():
            hidden = base_of(mlm_model)(input_ids=inputs, attention_mask=attention_mask)[0]
    else:
        hidden = base_of(mlm_model)(input_ids=inputs, attention_mask=attention_mask)[0]
    sel = labels != -100
    return torch.nn.functional.cross_entropy(head(hidden[sel]).float(), labels[sel])


class Probe:
    """The fixed probe of the module docstring: ``batches`` are (inputs, attention mask, labels)."""

    def __init__(self, texts: Sequence[str], make_batch: Callable, n_texts: int, batch_size: int, seed: int):
        n = len(texts)
        take = min(n_texts, n)
        idx = sorted(rng_for(seed, "mlm-probe").choice(n, size=take, replace=False).tolist())
        self.n_texts = take
        self.batches = [make_batch([texts[i] for i in idx[s:s + batch_size]], torch_seed(seed, "mlm-probe-mask", str(s)))
                        for s in range(0, take, batch_size)]

    def loss(self, mlm_model) -> float:
        import torch

        was = mlm_model.training
        mlm_model.train(False)
        total, count = 0.0, 0
        try:
            with torch.no_grad():
                for inputs, attn, labels in self.batches:
                    k = int((labels != -100).sum())
                    if k == 0:
                        continue
                    total += float(mlm_loss(mlm_model, inputs, attn, labels)) * k
                    count += k
        finally:
            mlm_model.train(was)
        return total / count if count else float("nan")


def warm_up_head(mlm_model, probe: Probe, batch_at: Callable[[int], Tuple[object, object, object]], *, vocab_size: int,
                 lr: float, max_steps: int, target: float, check_every: int, weight_decay: float, grad_clip: float,
                 seed: int) -> Tuple[dict, float, float]:
    """Train the head only until the probe loss is below ``target * ln(vocab_size)``, stops
    improving, or ``max_steps`` steps. Returns (record, probe loss before, probe loss after)."""
    import torch

    threshold = target * math.log(vocab_size)
    before = probe.loss(mlm_model)
    record = {"target": f"probe loss < {target} * ln V = {threshold:.4f}, or < 1% better than at the previous "
                        f"check, or {max_steps} steps", "threshold": threshold,
              "lr": lr, "max_steps": max_steps, "check_every": check_every, "steps": 0, "checks": [], "losses": []}
    if before < threshold:
        record["stopped"] = STOP_NOT_NEEDED
        return record, before, before
    if max_steps < 1:
        record["stopped"] = STOP_CAP
        return record, before, before
    enc_params = list(base_of(mlm_model).parameters())
    flags = [p.requires_grad for p in enc_params]
    for p in enc_params:
        p.requires_grad_(False)
    params = head_parameters(mlm_model)
    for p in params:
        p.requires_grad_(True)
    opt = make_optimizer(params, lr, weight_decay)
    torch.manual_seed(int(seed))
    after, stopped = before, STOP_CAP
    mlm_model.train(True)
    try:
        for step in range(max_steps):
            inputs, attn, labels = batch_at(step)
            loss = mlm_loss(mlm_model, inputs, attn, labels, frozen_backbone=True)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip:
                torch.nn.utils.clip_grad_norm_(params, grad_clip)
            opt.step()
            record["losses"].append(round(float(loss.detach()), 6))
            record["steps"] = step + 1
            regular = (step + 1) % check_every == 0
            if regular or step + 1 == max_steps:
                previous, after = after, probe.loss(mlm_model)
                record["checks"].append({"step": step + 1, "probe_loss": after})
                if after < threshold:
                    stopped = STOP_TARGET
                    break
                if regular and step + 1 < max_steps and previous - after < PLATEAU_TOL * previous:
                    stopped = STOP_PLATEAU  # judged over a full check interval only
                    break
    finally:
        mlm_model.train(False)
        for p, f in zip(enc_params, flags):
            p.requires_grad_(f)
    record["stopped"] = stopped
    return record, before, after


def head_origin_note(model_name: str) -> str:
    return (f"note: {model_name} has no pretrained MLM head (DDR adapts BERT through its own); a head is created "
            f"from the seed and warmed up alone, backbone frozen, before the DAM's MLM training "
            f"(deviation DDR-2 in docs/methods.md)")


def describe_warmup(rec: dict) -> Optional[str]:
    """One console line on the warm-up (None when it was not needed)."""
    if str(rec.get("stopped", "")).startswith("not needed"):
        return None
    return (f"MLM head warm-up: {rec['steps']} steps, {rec['stopped']} ({rec['target']}); probe loss "
            f"{rec.get('initial', float('nan')):.3f} -> {rec.get('after', float('nan')):.3f}")
