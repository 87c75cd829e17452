"""The torch modules of the own PEFT methods (bottleneck adapters, LoRA deltas), built on first
use so that importing this package never imports torch. Architecture: :mod:`bench.tuning.adapters`."""
from __future__ import annotations

import math
from typing import Dict

from bench.core.errors import BenchError


# --------------------------------------------------------------------------------------------
# torch modules (built on first use; module-level names so that pickling finds them)

_CLASSES: Dict[str, type] = {}


class _BottleneckHooks:
    """The forward hooks of a bottleneck module (:func:`module_classes`' ``Bottleneck``), apart from
    its layers so that they need no torch at import; ``self(x)`` is the bottleneck's output. Hooks
    are bound methods: a deep copy of the model re-binds them to the copied module."""

    def post_hook_output(self, module, args, output):
        if self.width == 0:
            return None  # the module's own output, untouched
        return output + self(output)

    def pre_hook_input_tensor(self, module, args, kwargs):
        if self.width == 0:
            return None
        args, kwargs = list(args), dict(kwargs)
        if len(args) > 1:
            args[1] = args[1] + self(args[1])
        else:
            kwargs["input_tensor"] = kwargs["input_tensor"] + self(kwargs["input_tensor"])
        return tuple(args), kwargs

    def post_hook_aside(self, module, args, kwargs, output):
        """after-ln: y' = LN(F(x) + x) + x + A(x); scaled: y' = (LN(F(x) + x) + x + A(x)) / 2."""
        if self.width == 0 and not self.skip:
            return None
        if self.site == "ffn_aside":
            x = args[1] if len(args) > 1 else kwargs["input_tensor"]
        else:
            x = args[0] if args else kwargs["hidden_states"]
        delta = x if self.width == 0 else (x + self(x) if self.skip else self(x))
        if self.skip_at == "scaled":
            return _scale_output(_add_to_output(output, delta), 0.5)
        return _add_to_output(output, delta)

    def pre_hook_hold_input(self, module, args, kwargs):
        """before-ln at layer / model grain: hold the spanned unit's input x until its last LayerNorm."""
        self._x = args[0] if args else kwargs["hidden_states"]
        return None

    def pre_hook_before_ln(self, module, args, kwargs):
        """before-ln: the skip and the bottleneck join inside the unit's last residual, before its
        LayerNorm: LN(F(x) + r + x + A(x)), r the sub-layer's own residual input (for a sub-layer
        r = x, so LN(F(x) + 2x + A(x)))."""
        args, kwargs = list(args), dict(kwargs)
        r = args[1] if len(args) > 1 else kwargs["input_tensor"]
        x = r if self.site in ("attn_aside", "ffn_aside") else self._x
        self._x = None
        r = r + (x if self.width == 0 else x + self(x))
        if len(args) > 1:
            args[1] = r
        else:
            kwargs["input_tensor"] = r
        return tuple(args), kwargs


def module_classes() -> Dict[str, type]:
    if _CLASSES:
        return _CLASSES
    import torch

    class Bottleneck(torch.nn.Module, _BottleneckHooks):
        """``scale * up(act(down(x)))``; ``up`` zero-initialised. ``site`` says where it acts.
        Width 0 has no parameters. Sequential and parallel modules of width 0 leave their site's
        output unchanged. An IAA aside module (``skip``) carries an identity path from the spanned
        unit's input ``x`` to its output ``F(x)``: ``F(x) + x + up(act(down(x)))``, joined after
        the unit's own residual + LayerNorm; at width 0 it is the plain skip ``F(x) + x`` (IAA,
        RQ4). Plans written before the skip existed have no ``skip`` key and load without it."""

        def __init__(self, d_in: int, d_out: int, width: int, activation: str, scale: float, init: str,
                     site: str, skip: bool = False, skip_at: str = "after-ln"):
            super().__init__()
            self.width = int(width)
            self.activation, self.scale, self.site, self.skip = activation, float(scale), site, bool(skip)
            self.skip_at = skip_at  # IAA asides: after-ln | before-ln | scaled (bench.tuning.plans.IAA_SKIP)
            self._x = None  # before-ln at layer / model grain: the spanned unit's input, held during its forward
            if self.width == 0:
                return
            self.down = torch.nn.Linear(d_in, width)
            self.up = torch.nn.Linear(width, d_out)
            if init == "lora":
                torch.nn.init.zeros_(self.down.bias)
            torch.nn.init.zeros_(self.up.weight)
            torch.nn.init.zeros_(self.up.bias)

        def forward(self, x):
            if self.width == 0:
                return torch.zeros_like(x)
            h = self.down(x)
            h = torch.nn.functional.relu(h) if self.activation == "relu" else torch.nn.functional.gelu(h)
            out = self.up(h)
            return out if self.scale == 1.0 else out * self.scale

    class LoRA(torch.nn.Module):
        """``(x A^T B^T) * alpha / r`` added to a linear projection's output; ``B`` zero-initialised.
        Rank 0 is the identity path (no parameters; the projection's output is left as it is)."""

        def __init__(self, d_in: int, d_out: int, rank: int, alpha: float, site: str):
            super().__init__()
            self.rank, self.site = int(rank), site
            self.scaling = float(alpha) / rank if rank else 0.0
            if self.rank == 0:
                return
            self.lora_A = torch.nn.Parameter(torch.empty(rank, d_in))
            self.lora_B = torch.nn.Parameter(torch.zeros(d_out, rank))
            torch.nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

        def forward(self, x):
            return (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling

        def post_hook_output(self, module, args, output):
            if self.rank == 0:
                return None
            return output + self(args[0])

    for cls in (Bottleneck, LoRA):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
        _CLASSES[cls.__name__] = cls
    return _CLASSES


def __getattr__(name: str):  # PEP 562: Bottleneck / LoRA resolve lazily (pickle, isinstance)
    if name in ("Bottleneck", "LoRA"):
        return module_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _scale_output(output, factor: float):
    """``output`` with its hidden states multiplied by ``factor`` (as :func:`_add_to_output`)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output * factor
    if isinstance(output, tuple):
        return (output[0] * factor,) + tuple(output[1:])
    output.last_hidden_state = output.last_hidden_state * factor
    return output


def _add_to_output(output, delta):
    """``output`` with ``delta`` added to its hidden states (a tensor, a tuple's first item, or a
    ModelOutput's ``last_hidden_state``)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output + delta
    if isinstance(output, tuple):
        return (output[0] + delta,) + tuple(output[1:])
    if hasattr(output, "last_hidden_state"):
        output.last_hidden_state = output.last_hidden_state + delta  # a fresh object of the forward call
        return output
    raise BenchError(f"cannot add an aside module's output to a {type(output).__name__}")
