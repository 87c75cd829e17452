"""A model folder's files checked against each other before any weight is used: config.json
against the weights it sits beside and the class it was saved as, the tokenizer against the
config, and every file the folder names actually there.

* ``architectures`` (the class ``save_pretrained`` wrote the weights with) must belong to the
  config's ``model_type``: a BERT checkpoint whose config says ``roberta`` is refused.
* Weights drbench knows (a registered model's ``model.safetensors``, by SHA-256) must come with the
  architecture settings of that model's own config.json (``num_attention_heads``, ``hidden_act``,
  ``model_type`` ...): an edited copy over the same weights is refused, naming the keys.
* The tokenizer must fit the embedding table (``len(tokenizer) <= vocab_size``), have its special
  tokens in its vocabulary and its padding token at config.json's ``pad_token_id``; a tokenizer of
  another family than ``model_type`` is a warning.
* A file that is a link to nothing is named (it read as "no weights" or a transformers traceback).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Dict, Optional

from bench.core.errors import ResourceError

#: the settings that define the network; two configs that differ in one of them compute other vectors
ARCHITECTURE_KEYS = ("model_type", "hidden_act", "hidden_size", "num_attention_heads", "num_hidden_layers",
                     "intermediate_size", "max_position_embeddings", "type_vocab_size", "vocab_size",
                     "position_embedding_type", "layer_norm_eps")
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
_known: Optional[Dict[str, Path]] = None


def _known_weights() -> Dict[str, Path]:
    """SHA-256 of each installed registered model's weights -> its config.json."""
    global _known
    if _known is None:
        from bench.models.spec import MODELS, file_sha256

        _known = {}
        for name in MODELS.names():
            try:
                spec = MODELS.get(name)()
                if getattr(spec, "kind", "dense") != "dense" or not spec.package:
                    continue
                folder = spec.resolve_path()
            except Exception:  # a registered model whose package is not installed: nothing to compare with
                continue
            for w in _WEIGHTS:
                if (folder / w).is_file() and (folder / "config.json").is_file():
                    _known[file_sha256(folder / w)] = folder / "config.json"
    return _known


def check_config(folder: Path, config: dict) -> None:
    """config.json against the class the weights were saved as and, for weights drbench knows, against
    the config they were published with."""
    path = Path(folder) / "config.json"
    model_type = config.get("model_type")
    for arch in config.get("architectures") or ():
        import transformers

        cls = getattr(transformers, str(arch), None)
        saved = getattr(getattr(cls, "config_class", None), "model_type", None)
        if saved and model_type and saved != model_type:
            raise ResourceError(f"{path}: model_type {model_type!r}, but the weights were saved as {arch} (a "
                                f"{saved!r} model, 'architectures'). Fix: restore \"model_type\": \"{saved}\"")
    from bench.models.spec import file_sha256

    for w in _WEIGHTS:
        if not (Path(folder) / w).is_file():
            continue
        reference = _known_weights().get(file_sha256(Path(folder) / w))
        if reference is None or reference.resolve() == path.resolve():
            continue
        ref = json.loads(reference.read_text(encoding="utf-8"))
        changed = [k for k in ARCHITECTURE_KEYS if k in ref and config.get(k, ref[k]) != ref[k]]
        if changed:
            shown = "; ".join(f"{k} {config.get(k)!r} (saved with {ref[k]!r})" for k in changed)
            raise ResourceError(f"{path}: the weights ({w}) are those of {reference.parent}, saved with another "
                                f"architecture: {shown}. They would compute other vectors without a word. Fix: use "
                                f"the config.json the weights were saved with")


def check_tokenizer(folder: Path, tok, config: dict) -> None:
    """The tokenizer fits the embedding table and holds its special tokens."""
    vocab = config.get("vocab_size")
    n = len(tok)
    if isinstance(vocab, int) and n > vocab:
        raise ResourceError(f"{folder}: the tokenizer has {n} tokens but config.json vocab_size is {vocab}: ids beyond "
                            f"the embedding table. Fix: use the tokenizer files saved with the model")
    unk = getattr(tok, "unk_token_id", None)
    for token in getattr(tok, "all_special_tokens", ()):
        tid = tok.convert_tokens_to_ids(token)
        if tid is None or (tid == unk and token != getattr(tok, "unk_token", None)) or not 0 <= int(tid) < n:
            raise ResourceError(f"{folder}: the tokenizer's special token {token!r} is not in its vocabulary: the "
                                f"vocabulary file is not this model's. Fix: use the tokenizer files saved with the "
                                f"model")
    pad, pad_id = getattr(tok, "pad_token", None), getattr(tok, "pad_token_id", None)
    if isinstance(config.get("pad_token_id"), int) and pad_id is not None and pad_id != config["pad_token_id"]:
        raise ResourceError(f"{folder}: the tokenizer's padding token {pad!r} has id {pad_id}, config.json "
                            f"pad_token_id is {config['pad_token_id']}: the vocabulary is not this model's. Fix: use "
                            f"the tokenizer files saved with the model")
    family = _tokenizer_family(config.get("model_type"))
    if family and not any(type(tok).__name__.startswith(f) for f in family):
        warnings.warn(f"{folder}: tokenizer {type(tok).__name__} is not one of {config.get('model_type')!r} models "
                      f"({', '.join(family)})", stacklevel=2)


def _tokenizer_family(model_type) -> tuple:
    try:
        from transformers.models.auto.tokenization_auto import TOKENIZER_MAPPING_NAMES
    except ImportError:
        return ()
    names = TOKENIZER_MAPPING_NAMES.get(str(model_type)) or ()
    return tuple(n.replace("Fast", "") for n in names if n)


def check_tokenizer_config(folder: Path) -> None:
    """tokenizer_config.json that asks for custom code is refused before transformers reads it."""
    path = Path(folder) / "tokenizer_config.json"
    if not path.is_file():
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResourceError(f"{path}: unreadable ({exc}). Fix: use the tokenizer files saved with the model") from None
    if isinstance(data, dict) and data.get("auto_map"):
        raise ResourceError(f"{path}: the tokenizer needs its own code (auto_map); drbench never runs custom code. Fix: "
                            f"use a tokenizer transformers ships (tokenizer.json or vocab.txt of the model)")
