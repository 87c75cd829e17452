"""sentence-transformers folders, read and applied by sentence-transformers itself.

A folder with a ``modules.json`` is loaded with ``SentenceTransformer(folder, local_files_only=True,
trust_remote_code=False)`` (any version of the folder the installed library reads). From the loaded
model drbench takes:

- the settings that go into the :class:`~bench.models.spec.ModelSpec`: the Pooling module's mode,
  whether a Normalize module is present, the prompts (``query``; ``document``, ``passage`` or
  ``corpus`` for passages; the ``default_prompt_name`` prompt for a role without its own), the
  similarity function and the maximum sequence length;
- the head: every module after the Transformer (Pooling, Dense, Normalize, LayerNorm, ...), applied
  by the library's own module classes to the encoder's token vectors (:class:`STHead`).

The Transformer module itself is not used: drbench runs the folder's encoder through its own loading
(checks, dtype, device, the torch and ONNX backends, :mod:`bench.models.loading`), so the
fingerprint, cache and backends are those of every other model. ``--pooling`` replaces the Pooling
module's mode (the library's Pooling class with that mode).

Before the library sees the folder, ``modules.json`` is checked: each module path stays inside the
folder (:func:`bench.core.paths.inside_folder`), the Transformer comes first at the folder itself,
and module weights are safetensors (a pickle-only module is refused with the conversion).
"""
from __future__ import annotations

import contextlib
import io
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from bench.core.errors import ResourceError
from bench.core.paths import inside_folder, json_line
from bench.models.folder_config import read_json, refuse_dangling_links

#: sentence-transformers pooling modes (the library's names) drbench records as the spec's pooling
ST_POOLINGS = ("mean", "cls", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken")
_PICKLE = (".bin", ".pt", ".pth")
#: roles -> the prompt names sentence-transformers' encode_query / encode_document look for
_PROMPT_NAMES = {"query": ("query",), "passage": ("document", "passage", "corpus")}
_SIMILARITIES = {"cosine": "cos", "dot": "dot", "dot_product": "dot"}


@dataclass(frozen=True)
class STFolder:
    """What drbench takes from a loaded sentence-transformers folder."""

    modules: Tuple[str, ...]  # "Type:path" of every module after the Transformer, in order
    pooling: str
    normalize: bool
    include_prompt: bool
    query_prefix: str
    passage_prefix: str
    similarity: Optional[str]  # "cos", "dot" or None when the folder names none
    max_seq_length: Optional[int]
    dim: int
    version: str  # the library version that read the folder


def check_modules_json(folder: Path) -> list:
    """The modules of ``folder/modules.json``, checked before the library loads them."""
    path = folder / "modules.json"
    text = path.read_text(encoding="utf-8")
    modules = read_json(path)
    if not isinstance(modules, list) or not modules or not all(isinstance(m, dict) for m in modules):
        raise ResourceError(f"{path}: expected a list of modules ({{\"type\": ..., \"path\": ...}})")
    for i, m in enumerate(modules):
        typ, rel = str(m.get("type", "")), str(m.get("path", "") or "")
        short = typ.rsplit(".", 1)[-1]
        line = json_line(text, rel) if rel else json_line(text, typ)
        sub = inside_folder(folder, rel, path, line, f"module {short or i} path")
        if not typ.startswith("sentence_transformers."):
            raise ResourceError(f"{path}:{line}: module {typ!r} is not a sentence-transformers module; drbench never "
                                f"runs custom module code. Fix: use a model built from the library's modules")
        if i == 0 and (short != "Transformer" or sub.resolve() != folder.resolve()):
            raise ResourceError(f"{path}:{line}: drbench reads the encoder from the folder itself, as the first "
                                f"module (a Transformer with path \"\"); this folder has {short!r} at {rel!r}. Fix: "
                                f"save the model again with the installed sentence-transformers (model.save(DIR))")
        if i > 0 and sub.is_dir() and not any(p.suffix == ".safetensors" for p in sub.iterdir()):
            pickled = [p.name for p in sorted(sub.iterdir()) if p.suffix in _PICKLE]
            if pickled:
                raise ResourceError(f"{sub}: the {short} weights are a pickle file ({', '.join(pickled)}); drbench "
                                    f"loads safetensors only. Fix: convert to safetensors (load the state dict once "
                                    f"with torch.load(weights_only=True) and save it with safetensors.torch.save_file "
                                    f"as model.safetensors)")
    return modules


def _load_library_model(folder: Path):
    """``SentenceTransformer(folder)``, local files only, no remote code, on the CPU; the library's
    notices silenced (drbench prints what it uses)."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ResourceError(f"{folder} is a sentence-transformers folder and reading it needs the library. "
                            f"Install: pip install 'sentence-transformers>=5.7,<6'") from None
    st_logger = logging.getLogger("sentence_transformers")
    level = st_logger.level
    st_logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            return SentenceTransformer(str(folder), device="cpu", local_files_only=True, trust_remote_code=False)
    except Exception as exc:  # the library raises many types for a folder it cannot read
        raise ResourceError(f"{folder}: sentence-transformers cannot load this folder ({type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:300]}). Fix: restore the module files saved with the model, or save it again with "
                            f"the installed sentence-transformers (SentenceTransformer(...).save(DIR))") from None
    finally:
        st_logger.setLevel(level)


def _prompt(model, role: str) -> str:
    prompts = dict(getattr(model, "prompts", None) or {})
    for name in _PROMPT_NAMES[role]:
        if name in prompts:
            return str(prompts[name] or "")
    default = getattr(model, "default_prompt_name", None)
    return str(prompts.get(default, "") or "") if default else ""


def _pooling_of(head, folder: Path) -> Tuple[str, bool]:
    from sentence_transformers.sentence_transformer.modules import Pooling

    pools = [m for m in head if isinstance(m, Pooling)]
    if len(pools) != 1:
        raise ResourceError(f"{folder / 'modules.json'}: {len(pools)} Pooling modules after the Transformer; drbench "
                            f"needs exactly one to turn token vectors into one vector")
    mode = pools[0].pooling_mode
    return "+".join([mode] if isinstance(mode, str) else mode), bool(getattr(pools[0], "include_prompt", True))


_memo: Dict[tuple, Tuple[STFolder, Any]] = {}


def _memo_key(folder: Path) -> tuple:
    """The folder and the size and time of its configs and of every file in its module folders."""
    files = [folder / "modules.json", folder / "config_sentence_transformers.json",
             folder / "sentence_bert_config.json", folder / "config.json"]
    files += sorted(p for sub in folder.iterdir() if sub.is_dir() for p in sub.iterdir() if p.is_file())
    stamps = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files if p.exists())
    return (str(folder.resolve()),) + stamps


def read_st_folder(folder: Path) -> Tuple[STFolder, Any]:
    """(settings, head modules) of a sentence-transformers folder, loaded once per process (the head
    is a ``torch.nn.Sequential`` of the library's modules; callers copy it before moving it)."""
    import torch

    folder = Path(folder)
    key = _memo_key(folder)
    if key in _memo:
        return _memo[key]
    refuse_dangling_links(folder)
    modules = check_modules_json(folder)
    model = _load_library_model(folder)
    head = torch.nn.Sequential(*list(model)[1:]).eval()
    pooling, include_prompt = _pooling_of(head, folder)
    sim = getattr(model, "similarity_fn_name", None)
    sim = None if sim is None else str(getattr(sim, "value", sim))
    if sim is not None and sim not in _SIMILARITIES:
        raise ResourceError(f"{folder / 'config_sentence_transformers.json'}: similarity {sim!r} is not supported "
                            f"(cosine or dot). Fix: give --similarity cos or dot")
    from sentence_transformers import __version__ as st_version
    from sentence_transformers.sentence_transformer.modules import Normalize

    names = tuple(f"{type(m).__name__}:{str(d.get('path', '') or '')}" for m, d in zip(list(model)[1:], modules[1:]))
    info = STFolder(modules=names, pooling=pooling, normalize=any(isinstance(m, Normalize) for m in head),
                    include_prompt=include_prompt, query_prefix=_prompt(model, "query"),
                    passage_prefix=_prompt(model, "passage"),
                    similarity=None if sim is None else _SIMILARITIES[sim],
                    max_seq_length=getattr(model, "max_seq_length", None),
                    dim=int(getattr(model, "get_embedding_dimension", None) and model.get_embedding_dimension() or 0), version=str(st_version))
    del model
    _memo[key] = (info, head)
    return info, head


def st_spec_fields(folder: Path) -> Dict[str, Any]:
    """The :class:`~bench.models.spec.ModelSpec` fields a sentence-transformers folder sets."""
    info, _ = read_st_folder(folder)
    if not info.include_prompt and (info.query_prefix or info.passage_prefix):
        raise ResourceError(f"{folder}: the Pooling module leaves the prompt's tokens out (include_prompt false), "
                            f"which drbench does not reproduce; drbench pools every token of the prefixed text")
    kw: Dict[str, Any] = {"pooling": info.pooling, "normalize": info.normalize, "modules": info.modules,
                          "query_prefix": info.query_prefix, "passage_prefix": info.passage_prefix}
    if info.similarity is not None:
        kw["similarity"] = info.similarity
    else:
        kw["similarity"] = "cos" if info.normalize else "dot"
    return kw


class STHead:
    """The modules after a sentence-transformers folder's Transformer, applied by the library to the
    encoder's last hidden states: ``head(last_hidden, attention_mask) -> sentence vectors``."""

    def __init__(self, modules, dim: int):
        self.modules, self.dim = modules, dim

    def __call__(self, last_hidden, attention_mask):
        features = self.modules({"token_embeddings": last_hidden, "attention_mask": attention_mask})
        return features["sentence_embedding"]


def load_head(folder: Path, pooling: str, dtype: str = "float32", device: str = "cpu") -> STHead:
    """The folder's head (a copy, on ``device`` in ``dtype``), its Pooling module's mode set to
    ``pooling`` (``--pooling`` overrides the folder's)."""
    import copy

    import torch
    from sentence_transformers.sentence_transformer.modules import Pooling

    info, head = read_st_folder(folder)
    head = copy.deepcopy(head)
    if pooling != info.pooling:
        for i, m in enumerate(head):
            if isinstance(m, Pooling):
                head[i] = Pooling(m.embedding_dimension, pooling_mode=tuple(pooling.split("+")),
                                  include_prompt=m.include_prompt)
    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    head = head.eval().to(device=device, dtype=torch_dtype)
    dim = info.dim
    with torch.inference_mode():  # the vectors' dimension after the (possibly replaced) head
        probe = torch.zeros(1, 2, _word_dim(head), dtype=torch_dtype, device=device)
        dim = int(head({"token_embeddings": probe, "attention_mask": torch.ones(1, 2, dtype=torch.long,
                                                                                device=device)})
                  ["sentence_embedding"].shape[-1])
    return STHead(head, dim)


def _word_dim(head) -> int:
    from sentence_transformers.sentence_transformer.modules import Pooling

    return int(next(m for m in head if isinstance(m, Pooling)).embedding_dimension)


def check_head(folder: Path, hidden: Optional[int]) -> None:
    """Run the head once on zeros of the encoder's hidden size, so a module that does not fit the
    encoder (a Pooling or Dense dimension) is refused when the folder is read, not after encoding."""
    import torch

    if hidden is None:
        return
    info, head = read_st_folder(folder)
    word = _word_dim(head)
    if word != hidden:
        rel = next(m.split(":", 1)[1] for m in info.modules if m.startswith("Pooling:"))
        raise ResourceError(f"{folder / rel / 'config.json'}: the Pooling module expects {word}-dimensional token "
                            f"vectors, but the encoder's hidden size is {hidden} ({folder / 'config.json'}). Fix: set "
                            f"its dimension to {hidden}, or use the Pooling module saved with this encoder")
    try:
        with torch.inference_mode():
            head({"token_embeddings": torch.zeros(1, 2, hidden), "attention_mask": torch.ones(1, 2, dtype=torch.long)})
    except RuntimeError as exc:
        raise ResourceError(f"{folder}: the modules after the Transformer ({', '.join(info.modules)}) cannot be "
                            f"applied to the encoder's {hidden}-dimensional vectors ({str(exc)[:200]}). Fix: use "
                            f"the modules saved with this encoder") from None
