"""The one place that loads model weights (and attaches a checkpoint's tuned modules).

Every load is local (``local_files_only``), never runs remote code (``trust_remote_code=False``)
and reads safetensors whenever the folder has them. Pooling of the encoder's last hidden states
(CLS or masked mean, optional L2 normalisation) lives here too, so inference and training pool
the same way.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Tuple

from bench.core.errors import BenchError
from bench.models.spec import ModelSpec

TORCH_DTYPES = ("float32", "bfloat16", "float16")


def transformers_at_least(version: str) -> bool:
    import transformers

    def parts(v):
        return tuple(int(x) for x in v.split(".")[:2] if x.isdigit())

    return parts(transformers.__version__) >= parts(version)


def _has_safetensors(folder: Path) -> bool:
    return any(p.suffix == ".safetensors" for p in folder.iterdir())


def load_tokenizer(folder: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)


def load_encoder(folder: Path, dtype: str = "float32", device: str = "cpu", quiet: bool = False):
    """(model, tokenizer) of an encoder folder, in eval mode on ``device``; a drbench checkpoint's
    tuned modules (``tuning.json``) are attached. ``quiet`` silences transformers' load notices."""
    import torch
    from transformers import AutoModel

    folder = Path(folder)
    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    tok = load_tokenizer(folder)
    # transformers >= 4.56 names the argument `dtype`; older releases `torch_dtype`
    dtype_kw = "dtype" if transformers_at_least("4.56") else "torch_dtype"
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        model = AutoModel.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False,
                                          use_safetensors=_has_safetensors(folder), **{dtype_kw: torch_dtype})
    if (folder / "tuning.json").exists():  # a checkpoint with adapter-style modules (bench.tuning.adapters)
        from bench.tuning.adapters import load_tuned

        model = load_tuned(folder, model)
    return model.eval().to(device), tok


def load_backbone(spec: ModelSpec):
    """(model, tokenizer) of a dense spec in float32 (training precision), in eval mode."""
    if spec.kind != "dense":
        raise BenchError(f"model {spec.name!r} is not a dense encoder: the few-shot suite trains dense models")
    return load_encoder(spec.resolve_path(), "float32")


def load_masked_lm(folder: Path) -> Tuple[object, object, dict]:
    """(masked-LM model in float32, tokenizer, loading info) of an encoder folder; a missing MLM
    head is created (seeded by the caller's torch seed) and reported in the loading info."""
    from transformers import AutoModelForMaskedLM
    from transformers.utils import logging as hf_logging

    folder = Path(folder)
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the missing-head notice: the caller records it instead
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, info = AutoModelForMaskedLM.from_pretrained(
                str(folder), local_files_only=True, trust_remote_code=False,
                use_safetensors=_has_safetensors(folder), output_loading_info=True)
    finally:
        hf_logging.set_verbosity(level)
    return model.float(), load_tokenizer(folder), info


def load_plain_encoder(folder: Path):
    """The encoder of a folder in its plain ``AutoModel`` form (pooler included), float32, no tokenizer."""
    from transformers import AutoModel

    folder = Path(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AutoModel.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False,
                                         use_safetensors=_has_safetensors(folder)).float()


def pool(last_hidden, attention_mask, spec: ModelSpec):
    """The spec's pooling (CLS or masked mean) and optional L2 normalisation, on torch tensors."""
    import torch

    if spec.pooling == "cls":
        emb = last_hidden[:, 0]
    else:
        mask = attention_mask.unsqueeze(-1).to(last_hidden.dtype)
        emb = (last_hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    if spec.normalize:
        emb = torch.nn.functional.normalize(emb, p=2, dim=-1)
    return emb
