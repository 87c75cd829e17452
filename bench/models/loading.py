"""The one place that loads model weights (and attaches a checkpoint's tuned modules).

Every load is local (``local_files_only``), never runs remote code (``trust_remote_code=False``)
and reads safetensors whenever the folder has them. Pooling of the encoder's last hidden states (CLS
or masked mean and optional L2 normalisation, or a sentence-transformers folder's own modules,
:mod:`bench.models.st_folder`) lives here too, so inference and training pool the same way.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Tuple

from bench.core.errors import BenchError, ResourceError
from bench.models.consistency import check_config, check_tokenizer, check_tokenizer_config
from bench.models.folder_config import refuse_dangling_links
from bench.models.spec import ModelSpec

TORCH_DTYPES = ("float32", "bfloat16", "float16")


def transformers_at_least(version: str) -> bool:
    import transformers

    def parts(v):
        return tuple(int(x) for x in v.split(".")[:2] if x.isdigit())

    return parts(transformers.__version__) >= parts(version)


def _has_safetensors(folder: Path) -> bool:
    return any(p.suffix == ".safetensors" for p in folder.iterdir())


#: tensors a folder may lack: the pooler (sentence-transformers checkpoints drop it; drbench never
#: uses it) and, for a masked LM, the head (created and reported by load_masked_lm)
_MAY_MISS = ("pooler.",)
_MLM_HEAD = ("cls.", "lm_head.", "vocab_transform.", "vocab_layer_norm.", "vocab_projector.", "generator_")
#: tensors a folder may hold beyond the encoder: task heads of the same backbone and old buffers
_MAY_EXTRA = ("pooler.", "cls.", "lm_head.", "qa_outputs.", "classifier.", "vocab_", "generator_")
_PICKLE = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


def check_model_folder(folder: Path) -> None:
    """Refuse, with the fix, what transformers would either run (custom code), choke on with a
    traceback (a corrupt safetensors file) or read through pickle."""
    import json


    refuse_dangling_links(folder)
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResourceError(f"{folder / 'config.json'}: unreadable ({exc})") from None
    if not isinstance(config, dict):
        raise ResourceError(f"{folder / 'config.json'}: not a JSON object. Fix: use the config saved with the model")
    if config.get("auto_map"):
        raise ResourceError(f"{folder / 'config.json'}: the model needs its own code (auto_map: "
                            f"{', '.join(sorted(config['auto_map']))}); drbench never runs custom model code. Fix: use "
                            f"a model whose architecture transformers ships, or convert it to one")
    for p in sorted(folder.glob("*.safetensors")):
        try:
            from safetensors import safe_open

            with safe_open(str(p), framework="pt") as fh:  # reads and checks the header only
                list(fh.keys())
        except Exception as exc:  # safetensors raises its own error types
            raise ResourceError(f"{p}: not a valid safetensors file ({exc}). Fix: copy or save the model "
                                f"again") from None
    check_tokenizer_config(folder)
    check_config(folder, config)


def _loaded(folder: Path, load, may_miss=_MAY_MISS):
    """Call ``load()`` (a from_pretrained with output_loading_info=True) and refuse weights that
    do not fit the architecture, naming the tensors, instead of initialising them at random."""
    pickle_only = not _has_safetensors(folder) and any(p.suffix in _PICKLE for p in folder.iterdir())
    try:
        model, info = load()
    except (OSError, ValueError, RuntimeError, EOFError, ImportError) as exc:
        if pickle_only:
            raise ResourceError(f"{folder}: the weights are a pickle file that could not be read safely ({exc}). "
                                f"Fix: convert them to safetensors (model.save_pretrained(folder, "
                                f"safe_serialization=True))") from None
        raise ResourceError(f"{folder}: the model cannot be loaded ({exc})") from None
    missing = [k for k in info.get("missing_keys", []) if not any(a in k for a in may_miss)]
    extra = [k for k in info.get("unexpected_keys", []) if not any(a in k for a in _MAY_EXTRA)
             and not k.endswith("position_ids")]
    mismatched = [str(t[0]) for t in info.get("mismatched_keys", [])]
    if missing or extra or mismatched:
        def show(keys):
            return ", ".join(sorted(keys)[:6]) + (f" and {len(keys) - 6} more" if len(keys) > 6 else "")

        parts = [f"{len(missing)} tensor(s) missing ({show(missing)})" if missing else "",
                 f"{len(extra)} unexpected ({show(extra)})" if extra else "",
                 f"{len(mismatched)} of the wrong shape ({show(mismatched)})" if mismatched else ""]
        raise ResourceError(f"{folder}: the weights do not match the architecture in config.json: "
                            f"{'; '.join(p for p in parts if p)}. They would be initialised at random, so the "
                            f"model is refused. Fix: put the weights saved with this config in the folder")
    return model


def load_tokenizer(folder: Path):
    """The folder's tokenizer, checked against its config (:func:`bench.models.consistency.check_tokenizer`)."""
    import json

    from transformers import AutoTokenizer

    check_tokenizer_config(folder)
    try:
        tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
    except Exception as exc:  # tokenizers / transformers raise many types for a file that is not a tokenizer
        raise ResourceError(f"{folder}: the tokenizer cannot be read ({type(exc).__name__}: {str(exc)[:200]}): "
                            f"tokenizer.json / vocab.txt is not this model's tokenizer. Fix: use the tokenizer files "
                            f"saved with the model") from None
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    check_tokenizer(folder, tok, config if isinstance(config, dict) else {})
    return tok


def load_encoder(folder: Path, dtype: str = "float32", device: str = "cpu", quiet: bool = False):
    """(model, tokenizer) of an encoder folder, in eval mode on ``device``; a drbench checkpoint's
    tuned modules (``tuning.json``) are attached. ``quiet`` silences transformers' load notices."""
    import torch
    from transformers import AutoModel

    folder = Path(folder)
    check_model_folder(folder)
    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    tok = load_tokenizer(folder)
    # transformers >= 4.56 names the argument `dtype`; older releases `torch_dtype`
    dtype_kw = "dtype" if transformers_at_least("4.56") else "torch_dtype"
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        model = _loaded(folder, lambda: AutoModel.from_pretrained(
            str(folder), local_files_only=True, trust_remote_code=False, use_safetensors=_has_safetensors(folder),
            output_loading_info=True, **{dtype_kw: torch_dtype}))
    if (folder / "tuning.json").exists():  # a checkpoint with adapter-style modules (bench.tuning.adapters)
        from bench.tuning.adapters import load_tuned

        model = load_tuned(folder, model)
    return model.eval().to(device), tok


#: sentence-transformers modules whose effect drbench's own pooling reproduces exactly (training pools
#: with :func:`pool` on the transformer alone and saves the transformer only)
_PLAIN_MODULES = ("Pooling", "Normalize", "Dropout")


def refuse_dense(spec: ModelSpec, what: str) -> None:
    """Training writes the encoder only: a model whose sentence-transformers modules do more than
    mean or CLS pooling and normalisation (Dense, LayerNorm, other pooling modes) would lose them."""
    extra = [m for m in spec.modules if m.split(":")[0] not in _PLAIN_MODULES]
    if extra or (spec.modules and spec.pooling not in ("mean", "cls")):
        what_lost = ", ".join(extra) or f"{spec.pooling} pooling"
        raise BenchError(f"model {spec.name!r} has sentence-transformers module(s) drbench's training does not keep "
                         f"({what_lost}); {what} trains and saves the transformer only, so its vectors would lose "
                         f"them. Fix: use a model whose modules are mean or CLS Pooling and Normalize only")


def load_backbone(spec: ModelSpec):
    """(model, tokenizer) of a dense spec in float32 (training precision), in eval mode, on the
    spec's device (``--device``; the CPU by default)."""
    if spec.kind != "dense":
        raise BenchError(f"model {spec.name!r} is not a dense encoder: the few-shot suite trains dense models")
    refuse_dense(spec, "training")
    return load_encoder(spec.resolve_path(), "float32", getattr(spec, "device", "cpu"))


def load_masked_lm(folder: Path) -> Tuple[object, object, dict]:
    """(masked-LM model in float32, tokenizer, loading info) of an encoder folder; a missing MLM
    head is created (seeded by the caller's torch seed) and reported in the loading info."""
    from transformers import AutoModelForMaskedLM
    from transformers.utils import logging as hf_logging

    folder = Path(folder)
    check_model_folder(folder)
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the missing-head notice: the caller records it instead
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            holder = {}

            def load():
                holder["model"], holder["info"] = AutoModelForMaskedLM.from_pretrained(
                    str(folder), local_files_only=True, trust_remote_code=False,
                    use_safetensors=_has_safetensors(folder), output_loading_info=True)
                return holder["model"], holder["info"]

            model = _loaded(folder, load, may_miss=_MAY_MISS + _MLM_HEAD)
            info = holder["info"]
    finally:
        hf_logging.set_verbosity(level)
    return model.float(), load_tokenizer(folder), info


def load_plain_encoder(folder: Path):
    """The encoder of a folder in its plain ``AutoModel`` form (pooler included), float32, no tokenizer."""
    from transformers import AutoModel

    folder = Path(folder)
    check_model_folder(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _loaded(folder, lambda: AutoModel.from_pretrained(
            str(folder), local_files_only=True, trust_remote_code=False, use_safetensors=_has_safetensors(folder),
            output_loading_info=True)).float()


def pool(last_hidden, attention_mask, spec: ModelSpec, head=None):
    """The spec's pooling on torch tensors: a sentence-transformers folder's modules (``head``, from
    :func:`bench.models.st_folder.load_head`), or drbench's CLS or masked mean and optional L2
    normalisation (also for a folder whose modules are only mean or CLS Pooling and Normalize, when
    no head is given: training, which reproduces them exactly)."""
    import torch

    if spec.modules and head is not None:
        return head(last_hidden, attention_mask)
    if spec.modules:
        refuse_dense(spec, "pooling without the loaded modules")
    if spec.pooling == "cls":
        emb = last_hidden[:, 0]
    else:
        mask = attention_mask.unsqueeze(-1).to(last_hidden.dtype)
        emb = (last_hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    if spec.normalize:
        emb = torch.nn.functional.normalize(emb, p=2, dim=-1)
    return emb
