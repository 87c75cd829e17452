"""The training loop every recipe shares: optimiser, schedule, clipping, seeded resumable steps.

A recipe describes its work as ``total`` steps and a function ``loss_at(step)`` that builds the
batch of that step from (seed, step) alone and returns ``(loss tensor, {term: float})``. Because a
batch depends on nothing but the step number, a run resumed from a saved state makes exactly the
batches the uninterrupted run would have made.

State: every ``save_every`` steps (and at the end) the loop writes ``<state_dir>/state.pt``
atomically: the step, the trainable tensors, the optimiser and scheduler states, torch's RNG
state (dropout) and the per-step loss log. ``state_key`` (a hash of everything that defines the
run) is stored with it; a state written under another key is refused rather than continued.

Optimiser: AdamW, weight decay on tensors with dim >= 2 only; linear warm-up over
``warmup_ratio`` of the steps then linear decay to 0; gradient-norm clipping.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.progress import progress as progress_bar
from bench.core.io import atomic_path

STATE_FILE = "state.pt"


def make_optimizer(params: Sequence, lr: float, weight_decay: float):
    import torch

    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [g for g in ({"params": decay, "weight_decay": weight_decay},
                          {"params": no_decay, "weight_decay": 0.0}) if g["params"]]
    if not groups:
        raise BenchError("nothing to train: the method left no parameter trainable")
    return torch.optim.AdamW(groups, lr=lr)


def linear_schedule(opt, total: int, warmup_ratio: float):
    """Linear warm-up over ``warmup_ratio`` of ``total`` steps, then linear decay to 0."""
    import torch

    warm = int(round(warmup_ratio * total))

    def factor(step: int) -> float:
        if warm and step < warm:
            return (step + 1) / warm
        return max(0.0, (total - step) / max(1, total - warm))

    return torch.optim.lr_scheduler.LambdaLR(opt, factor)


@dataclass
class LoopLog:
    """Per-step losses (``{"loss": ..., term: ...}``), steps run, seconds and resume points."""

    losses: List[Dict[str, float]] = field(default_factory=list)
    steps: int = 0
    seconds: float = 0.0
    resumed_at: List[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        first = self.losses[0]["loss"] if self.losses else None
        last = self.losses[-1]["loss"] if self.losses else None
        return {"steps": self.steps, "seconds": round(self.seconds, 3), "resumed_at": list(self.resumed_at),
                "first_loss": first, "last_loss": last, "losses": self.losses}


def _named_trainable(modules: Dict[str, object]) -> Dict[str, object]:
    out, seen = {}, set()
    for tag, m in modules.items():
        for n, p in m.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                out[f"{tag}:{n}"] = p
    return out


def _resume(state_path: Path, state_key: str, named: Dict[str, object], opt, sched, log: LoopLog) -> int:
    """Load a saved training state into the parameters, optimiser, schedule, RNG and ``log``; the step
    to go on from. A state of another configuration is refused."""
    import torch

    state = torch.load(state_path, map_location="cpu", weights_only=True)
    if state.get("key") != state_key:
        raise BenchError(f"{state_path}: a training state of another configuration (different model, data or "
                         f"settings). Delete {state_path.parent} to start over, or rerun with the original arguments.")
    with torch.no_grad():
        for name, p in named.items():
            if name not in state["params"]:
                raise BenchError(f"{state_path}: no tensor {name!r}; delete {state_path.parent} to start over")
            p.copy_(state["params"][name])
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    start = int(state["step"])
    log.losses = [dict(d) for d in state["losses"]]
    log.resumed_at = [int(s) for s in state.get("resumed_at", [])] + [start]
    log.seconds = float(state.get("seconds", 0.0))
    return start


def _save_state(state_path: Path, state_key: str, step: int, named: Dict[str, object], opt, sched, log: LoopLog,
                seconds: float) -> None:
    """Write the training state (atomically) so that a later call resumes at ``step``."""
    import torch

    with atomic_path(state_path, suffix=".pt") as tmp:
        torch.save({"key": state_key, "step": step,
                    "params": {n: p.detach().clone() for n, p in named.items()},
                    "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                    "torch_rng": torch.get_rng_state(), "losses": log.losses,
                    "resumed_at": log.resumed_at, "seconds": seconds}, tmp)


def run_loop(modules: Dict[str, object], total: int, loss_at: Callable[[int], Tuple[object, Dict[str, float]]], *,
             lr: float, weight_decay: float = 0.01, warmup_ratio: float = 0.1, grad_clip: float = 1.0,
             seed: int = 0, state_dir: Optional[Path] = None, state_key: str = "", save_every: int = 50,
             stop_after: Optional[int] = None, progress: bool = False, desc: str = "train") -> LoopLog:
    """Train the trainable parameters of ``modules`` (name -> torch module) for ``total`` steps.

    ``stop_after``: return after this many steps of this call (an interruption, for tests and
    smoke runs), leaving the saved state to resume from. Modules are left in eval mode."""
    import torch


    if total < 1:
        raise BenchError("nothing to train: 0 steps (no training example?)")
    named = _named_trainable(modules)
    params = list(named.values())
    opt = make_optimizer(params, lr, weight_decay)
    sched = linear_schedule(opt, total, warmup_ratio)
    log = LoopLog()
    start = 0
    torch.manual_seed(int(seed))
    state_path = Path(state_dir) / STATE_FILE if state_dir is not None else None
    if state_path is not None and state_path.exists():
        start = _resume(state_path, state_key, named, opt, sched, log)

    def save(step: int, seconds: float) -> None:
        if state_path is not None:
            _save_state(state_path, state_key, step, named, opt, sched, log, seconds)

    for m in modules.values():
        m.train(True)
    t0 = time.perf_counter()
    base_seconds = log.seconds
    bar = progress_bar(total=total, initial=start, desc=desc, unit="step", enabled=progress)
    ran = 0
    step = start
    try:
        for step in range(start, total):
            if stop_after is not None and ran >= stop_after:
                break
            loss, parts = loss_at(step)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip:
                torch.nn.utils.clip_grad_norm_(params, grad_clip)
            opt.step()
            sched.step()
            entry = {"loss": float(loss.detach())}
            entry.update({k: float(v) for k, v in parts.items()})
            log.losses.append(entry)
            ran += 1
            bar.update(1)
            bar.set_postfix(loss=f"{entry['loss']:.3f}")
            if save_every and (step + 1) % save_every == 0 and step + 1 < total:
                save(step + 1, base_seconds + time.perf_counter() - t0)
        else:
            step = total
    finally:
        bar.close()
        for m in modules.values():
            m.train(False)
    log.steps = len(log.losses)
    log.seconds = base_seconds + time.perf_counter() - t0
    if log.steps < total:
        save(log.steps, log.seconds)
    return log


def clear_state(state_dir: Optional[Path]) -> None:
    """Remove a finished run's state (the checkpoint written from it is complete): the state file,
    then the folder only if nothing else is in it (the folder sits beside ``--out``; a folder of the
    same name that holds anything drbench did not put there is left alone)."""
    if state_dir is None:
        return
    state = Path(state_dir) / STATE_FILE
    if state.is_file() and not state.is_symlink():
        state.unlink()
    with contextlib.suppress(OSError):  # not empty, or absent: left as it is
        Path(state_dir).rmdir()
