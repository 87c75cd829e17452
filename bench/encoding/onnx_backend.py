"""The optional ONNX Runtime backend (``--backend onnx`` / ``onnx-int8``; ``pip install "drbench[onnx]"``).

The transformer of a model folder is exported once to ONNX (float32, dynamic batch and sequence
axes, output ``last_hidden_state``) and cached under ``<cache home>/onnx/<key>/``; the key covers
the weights fingerprint, the torch, onnx and onnxruntime versions and the opset, so a new model,
a retrained checkpoint or another exporter gets its own file. Pooling, Dense modules and
normalisation stay in torch (:func:`bench.models.loading.pool`), exactly as for the torch backend;
only the transformer's forward pass moves to ONNX Runtime's CPU provider, with as many intra-op
threads as torch uses here.

``onnx-int8`` is the same export after ONNX Runtime's dynamic quantisation (int8 weights of the
MatMul / Gemm operators, activations quantised per batch at run time): a **named deviation**,
never a default; its vectors are not those of the model (docs/scale.md gives the measured effect
on the metrics). Its result records ``model.runtime.backend = "onnx-int8"`` and it has its own
embedding-cache entries and run-folder hash (``--backend`` changes the result).

Files are written to a temporary name and renamed, so an interrupted export leaves nothing half
written. ``export.json`` records the SHA-256 of each exported file (``sha256``); before a session
is built the file is checked against it, and a file that does not match (weights replaced,
truncated, damaged), or one without a recorded digest (exported before the check), is exported
again with a warning: a cached export never serves other vectors than the model's.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Tuple

from bench.core.errors import ResourceError
from bench.core.io import sha256_hex

OPSET = 17
INSTALL = 'pip install "drbench[onnx]"'


def _ort():
    try:
        import onnx
        import onnxruntime
    except ImportError:
        raise ResourceError(f"--backend onnx needs the onnxruntime and onnx packages. Install: {INSTALL}") from None
    return onnxruntime, onnx


def backend_version() -> str:
    """The exporter and runtime versions a vector of this backend depends on."""
    import torch

    ort, onnx = _ort()
    return f"onnxruntime {ort.__version__}; onnx {onnx.__version__}; torch {torch.__version__}; opset {OPSET}"


def export_folder(weights_fp: str) -> Path:
    from bench.core.paths import cache_home

    return cache_home() / "onnx" / sha256_hex("onnx-export-v1", weights_fp, backend_version())[:32]


class OnnxEncoderModel:
    """An ONNX Runtime session behind the call signature the encoder uses on a transformers model:
    ``model(**batch).last_hidden_state`` (a torch tensor), ``model.config``."""

    def __init__(self, session, config, input_names):
        self.session, self.config, self.input_names = session, config, tuple(input_names)

    def eval(self):
        return self

    def __call__(self, **batch):
        import torch

        feed = {k: batch[k].cpu().numpy() for k in self.input_names}
        (hidden,) = self.session.run(["last_hidden_state"], feed)

        class _Out:
            last_hidden_state = torch.from_numpy(hidden)

        return _Out()


def _export(folder: Path, target: Path, names) -> None:
    import torch

    from bench.core.io import atomic_path
    from bench.models.loading import load_encoder

    model, tok = load_encoder(folder, "float32", "cpu", quiet=True)

    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            return self.inner(**dict(zip(names, args))).last_hidden_state

    sample = tok(["an example passage to trace", "a second one"], padding=True, return_tensors="pt")
    args = tuple(sample[n] for n in names)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with atomic_path(target, suffix=".onnx") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Wrapped(model).eval(), args, str(tmp), input_names=list(names),
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET, dynamo=False)


def _quantise(src: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from bench.core.io import atomic_path

    with atomic_path(target, suffix=".onnx") as tmp:
        quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8)


EXPORT_RECORD = "export.json"


def _recorded(root: Path) -> dict:
    try:
        meta = json.loads((root / EXPORT_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _usable(path: Path, root: Path) -> bool:
    """Whether the cached export ``path`` is the file that was written (its SHA-256 is the one
    ``export.json`` records); a warning says why not (then it is made again)."""
    if not path.exists():
        return False
    from bench.core.written import file_sha256

    want = (_recorded(root).get("sha256") or {}).get(path.name) if isinstance(_recorded(root).get("sha256"), dict) \
        else None
    if not want:
        why = "no SHA-256 recorded for it (exported before exports were checked)"
    elif file_sha256(path) != want:
        why = "it does not match the SHA-256 recorded when it was exported (replaced, truncated or damaged)"
    else:
        return True
    import sys

    print(f"drbench: warning: cached ONNX export {path}: {why}; exporting it again", file=sys.stderr)
    path.unlink()
    return False


def _record_export(root: Path, path: Path, weights_fp: str, names) -> None:
    from bench.core.io import atomic_write_text
    from bench.core.written import file_sha256

    meta = _recorded(root)
    sums = meta.get("sha256") if isinstance(meta.get("sha256"), dict) else {}
    sums = {k: v for k, v in sums.items() if (root / k).exists() and k != path.name}
    sums[path.name] = file_sha256(path)
    atomic_write_text(root / EXPORT_RECORD, json.dumps({"weights": weights_fp, "inputs": list(names), "opset": OPSET,
                                                        "versions": backend_version(), "sha256": dict(sorted(sums.items()))},
                                                       indent=2) + "\n")


def ensure_export(folder: Path, weights_fp: str, backend: str, names) -> Path:
    """The cached ONNX file of ``folder`` for ``backend`` (exported / quantised on first use, and
    again when the cached file is not the one recorded in ``export.json``)."""
    ort, _ = _ort()
    root = export_folder(weights_fp)
    root.mkdir(parents=True, exist_ok=True)
    fp32 = root / "model.onnx"
    int8 = root / "model-int8.onnx"
    if not _usable(fp32, root):
        if int8.exists():
            int8.unlink()  # quantised from the file that is being replaced
        _export(folder, fp32, names)
        _record_export(root, fp32, weights_fp, names)
    if backend == "onnx":
        return fp32
    if not _usable(int8, root):
        _quantise(fp32, int8)
        _record_export(root, int8, weights_fp, names)
    return int8


def load_onnx(folder: Path, weights_fp: str, backend: str) -> Tuple[OnnxEncoderModel, object]:
    """(model, tokenizer) of ``folder`` on ONNX Runtime (``backend``: ``onnx`` or ``onnx-int8``)."""
    import torch
    from transformers import AutoConfig

    from bench.models.loading import check_model_folder, load_tokenizer

    ort, _ = _ort()
    folder = Path(folder)
    check_model_folder(folder)
    tok = load_tokenizer(folder)
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in tok.model_input_names]
    path = ensure_export(folder, weights_fp, backend, names)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(torch.get_num_threads())
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    config = AutoConfig.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
    return OnnxEncoderModel(session, config, names), tok
