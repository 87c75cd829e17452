"""Where and how the forward pass runs: ``--device``, ``--dtype`` and ``--backend``.

- ``--device auto|cpu|cuda[:N]|mps`` (default ``auto``: the first CUDA GPU when one is visible,
  else Apple's MPS when available, else the CPU); resolved once, before any model loads, into
  :attr:`bench.models.spec.ModelSpec.device`.
- ``--dtype float32|float16|bfloat16`` (default: the model spec's, float32 for every registered
  model) sets :attr:`~bench.models.spec.ModelSpec.dtype`, already part of every encoder key and of
  the result's ``model.spec``. Training keeps float32 weights whatever ``--dtype`` says (the
  encoders that evaluate a trained model use it).
- ``--backend torch|onnx|onnx-int8`` (default ``torch``; :mod:`bench.encoding.onnx_backend`).

Comparability (:data:`COMPARABILITY`): metrics compare across devices, dtypes and backends (the
difference is a measured property, see docs/scale.md); bytes (vectors, per-query values, result
files) are identical only on one device class, dtype and backend. So the embedding cache is keyed
on them (:func:`key_parts`), and a result records them (:func:`record`) as ``model.runtime``
whenever they are not the reference runtime (cpu, torch): a result without ``model.runtime`` ran
on the CPU with torch, like every result written before these options existed, whose files and
cache keys stay exactly as they were.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from bench.core.errors import BenchError, ResourceError
from bench.core.options import option

DEVICE_CHOICES = "auto, cpu, cuda, cuda:N or mps"
BACKENDS = ("torch", "onnx", "onnx-int8")
COMPARABILITY = ("metrics compare across devices, dtypes and backends; vectors and result bytes are identical "
                 "only on one device class, dtype and backend (each has its own embedding cache entries)")

RUNTIME_OPTIONS = (
    option("--device", default="auto", help="where the model runs: auto (a GPU when one is visible, else the "
                                            "CPU), cpu, cuda, cuda:N or mps (default: auto)"),
    option("--dtype", default=None, choices=["float32", "float16", "bfloat16"],
           help="encoding precision (default: the model spec's, float32); training keeps float32 weights"),
)
BACKEND_OPTION = option("--backend", default="torch", choices=list(BACKENDS),
                        help='forward-pass backend: torch (default), onnx (ONNX Runtime, CPU; pip install '
                             '"drbench[onnx]") or onnx-int8 (dynamic int8 quantisation: a named deviation)')

_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(?::(\d+))?)$")


def resolve_device(name: Optional[str]) -> str:
    """``auto`` / ``cpu`` / ``cuda[:N]`` / ``mps`` as the device the model will run on
    (``cpu``, ``cuda:N`` or ``mps``); a device that is asked for but absent is an error."""
    name = "auto" if name is None else str(name).strip().lower()
    m = _DEVICE.match(name)
    if not m:
        raise BenchError(f"--device {name!r}: give one of {DEVICE_CHOICES}")
    if name == "cpu":
        return "cpu"
    import torch

    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if name == "auto":
        return "cuda:0" if cuda else "mps" if mps else "cpu"
    if name == "mps":
        if not mps:
            raise ResourceError("--device mps: this torch sees no MPS device. Fix: --device auto or cpu")
        return "mps"
    if not cuda:
        raise ResourceError(f"--device {name}: torch sees no CUDA GPU (torch {torch.__version__}, CUDA build "
                            f"{torch.version.cuda or 'none'}). Fix: --device auto or cpu, or install a CUDA build of "
                            f"torch")
    index = int(m.group(2) or 0)
    if index >= torch.cuda.device_count():
        raise ResourceError(f"--device {name}: only {torch.cuda.device_count()} CUDA device(s) are visible "
                            f"(cuda:0 to cuda:{torch.cuda.device_count() - 1})")
    return f"cuda:{index}"


def device_class(device: str) -> str:
    """``cpu``, ``cuda`` or ``mps`` (the index of a GPU does not change its vectors)."""
    return str(device).split(":")[0]


def device_name(device: str) -> str:
    """The hardware behind a device: the GPU's name for CUDA (vectors differ between GPU models)."""
    cls = device_class(device)
    if cls == "cuda":
        import torch

        return str(torch.cuda.get_device_name(int(device.split(":")[1]) if ":" in device else 0))
    return cls


def key_parts(device: str, backend: str) -> List[str]:
    """What the embedding cache key adds for a runtime other than the reference (cpu, torch):
    nothing for cpu + torch, so every key of before stays valid."""
    parts: List[str] = []
    if device_class(device) != "cpu":
        parts += ["device", device_class(device), device_name(device)]
    if backend != "torch":
        from bench.encoding.onnx_backend import backend_version

        parts += ["backend", backend, backend_version()]
    return parts


def record(spec) -> Optional[Dict[str, str]]:
    """``model.runtime`` of a result: None for the reference runtime (cpu, torch)."""
    device = getattr(spec, "device", "cpu")
    backend = getattr(spec, "backend", "torch")
    if device_class(device) == "cpu" and backend == "torch":
        return None
    out = {"device": device_class(device), "device_name": device_name(device), "dtype": spec.dtype,
           "backend": backend, "comparability": COMPARABILITY}
    if backend != "torch":
        from bench.encoding.onnx_backend import backend_version

        out["backend_version"] = backend_version()
    return out


def describe(spec) -> str:
    """One console line: the runtime and the comparability rule."""
    device = getattr(spec, "device", "cpu")
    return (f"runtime: {device} ({device_name(device)}), {spec.dtype}, backend {getattr(spec, 'backend', 'torch')}; "
            f"{COMPARABILITY}")


def apply(spec, device: Optional[str] = "auto", dtype: Optional[str] = None, backend: Optional[str] = "torch"):
    """The spec with the resolved runtime (``--device``, ``--dtype``, ``--backend``)."""
    import dataclasses

    backend = backend or "torch"
    if backend not in BACKENDS:
        raise BenchError(f"--backend {backend!r}: give one of {', '.join(BACKENDS)}")
    if getattr(spec, "kind", "dense") != "dense":
        return spec
    resolved = resolve_device(device)
    if backend != "torch":
        if device not in (None, "auto", "cpu"):
            raise BenchError(f"--backend {backend} runs on the CPU (ONNX Runtime's CPU provider); --device {device} "
                             f"cannot be combined with it. Fix: --device cpu, or --backend torch")
        resolved = "cpu"
        if (dtype or spec.dtype) != "float32":
            raise BenchError(f"--backend {backend} exports the model in float32; --dtype {dtype or spec.dtype} "
                             f"cannot be combined with it")
    return dataclasses.replace(spec, device=resolved, dtype=dtype or spec.dtype, backend=backend)
