"""A model folder's own configuration, read into :class:`~bench.models.spec.ModelSpec` fields (plain dicts).

- :func:`st_modules`: a sentence-transformers ``modules.json`` and the module folders it names.
  drbench applies the modules ``Transformer``, ``Pooling`` (CLS or mean), ``Dense`` (linear layer,
  optional bias, Tanh or Identity activation), ``Dropout`` (nothing at inference) and ``Normalize``
  in the file's order. Any other module, or an order drbench cannot apply, is refused with the
  reason: evaluating without it would report numbers for other vectors than the model's.
- :func:`folder_lengths`: the maximum input length the folder states (``sentence_bert_config.json``
  ``max_seq_length``, else ``tokenizer_config.json`` ``model_max_length``, else ``config.json``
  ``max_position_embeddings``), with where it came from.
- :func:`training_lengths`: the lengths a drbench checkpoint was trained with (``training.json``).

Module folders named in ``modules.json`` must stay inside the model folder
(:func:`bench.core.paths.inside_folder`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bench.core.errors import ResourceError
from bench.core.paths import inside_folder, json_line

#: model types whose position ids start after the padding index (max_position_embeddings - pad - 1 usable)
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "xlm-roberta-xl", "data2vec-text")
#: Dense activation names in sentence-transformers configs -> ours (the class default is Tanh)
ACTIVATIONS = {"torch.nn.modules.activation.Tanh": "tanh", "torch.nn.modules.linear.Identity": "identity"}
#: a tokenizer's model_max_length at or above this is transformers' "no limit set" sentinel
_NO_LIMIT = 1_000_000
_POOL_MODES = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean"}


def read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ResourceError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg}). Fix: restore the file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"{path}: unreadable ({exc})") from None


def position_limit(folder: Path) -> Optional[int]:
    """The longest input (special tokens included) the folder's model can embed, from config.json's
    ``max_position_embeddings``; None when the config does not say."""
    try:
        cfg = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    mpe = cfg.get("max_position_embeddings") if isinstance(cfg, dict) else None
    if isinstance(mpe, bool) or not isinstance(mpe, int) or mpe < 1:
        return None
    if cfg.get("model_type") in _OFFSET_POSITIONS:
        mpe -= int(cfg.get("pad_token_id", 1) or 0) + 1
    return mpe


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def folder_lengths(folder: Path) -> Tuple[int, str]:
    """(maximum input length in tokens, where it came from) for both roles, as sentence-transformers
    uses it: queries and passages alike."""
    folder = Path(folder)
    sb = folder / "sentence_bert_config.json"
    if sb.exists():
        value = read_json(sb).get("max_seq_length")
        if value is not None:
            if not _whole(value):
                raise ResourceError(f"{sb}: max_seq_length {value!r} is not a whole number >= 1. Fix: correct the "
                                    f"file, or give --max-query-length and --max-passage-length")
            return value, "sentence_bert_config.json max_seq_length"
    limit = position_limit(folder)
    tc = folder / "tokenizer_config.json"
    if tc.exists():
        value = read_json(tc).get("model_max_length")
        if _whole(value) and value < _NO_LIMIT:
            if limit is not None and value > limit:
                return limit, f"config.json max_position_embeddings (below tokenizer model_max_length {value})"
            return value, "tokenizer_config.json model_max_length"
    if limit is not None:
        return limit, "config.json max_position_embeddings"
    return 512, "drbench default (the folder states no maximum length)"


def training_lengths(folder: Path) -> Optional[Tuple[int, int]]:
    """(query, passage) lengths a drbench checkpoint was trained with, from ``training.json``
    (``config.training``); None for folders without one (or trained otherwise, e.g. MLM)."""
    path = Path(folder) / "training.json"
    if not path.exists():
        return None
    rec = read_json(path)
    tc = ((rec.get("config") or {}).get("training") or {}) if isinstance(rec, dict) else {}
    q, p = tc.get("max_query_length"), tc.get("max_passage_length")
    return (q, p) if _whole(q) and _whole(p) else None


def dense_config(sub: Path, source: Path, line: Optional[int]) -> Dict[str, Any]:
    """The checked configuration of a sentence-transformers Dense module folder:
    ``in_features``, ``out_features``, ``bias``, ``activation`` ("tanh" or "identity"), ``weights``."""
    cfg_path = sub / "config.json"
    if not cfg_path.exists():
        raise ResourceError(f"{source}{f':{line}' if line else ''}: Dense module folder {sub} has no config.json. "
                            f"Fix: restore the module folder")
    cfg = read_json(cfg_path)
    n_in, n_out = cfg.get("in_features"), cfg.get("out_features")
    if not (_whole(n_in) and _whole(n_out)):
        raise ResourceError(f"{cfg_path}: in_features / out_features must be whole numbers, found {n_in!r} / {n_out!r}")
    act = cfg.get("activation_function", "torch.nn.modules.activation.Tanh")  # the library's default
    if act not in ACTIVATIONS:
        raise ResourceError(f"{cfg_path}: activation_function {act!r} is not supported (drbench applies "
                            f"{' or '.join(ACTIVATIONS)}); evaluating without it would give other vectors")
    for key in ("module_input_name", "module_output_name"):
        if cfg.get(key) not in (None, "sentence_embedding"):
            raise ResourceError(f"{cfg_path}: {key} {cfg[key]!r}: drbench applies Dense to the pooled "
                                f"sentence embedding only")
    weights = sub / "model.safetensors"
    if not weights.exists():
        pickled = [p.name for p in sorted(sub.iterdir()) if p.suffix in (".bin", ".pt", ".pth")]
        if pickled:
            raise ResourceError(f"{sub}: the Dense weights are a pickle file ({', '.join(pickled)}); drbench loads "
                                f"safetensors only. Fix: convert to safetensors (e.g. load the state dict once with "
                                f"torch.load(weights_only=True) and save it with safetensors.torch.save_file as "
                                f"{weights.name})")
        raise ResourceError(f"{sub}: no Dense weights ({weights.name}). Fix: restore the module folder")
    bias = cfg.get("bias", True)
    if not isinstance(bias, bool):
        raise ResourceError(f"{cfg_path}: bias must be true or false, not {bias!r}")
    return {"in_features": n_in, "out_features": n_out, "bias": bias, "activation": ACTIVATIONS[act],
            "weights": weights}


def _pooling(sub: Path, prefixes: bool) -> str:
    cfg_path = sub / "config.json"
    if not cfg_path.exists():
        raise ResourceError(f"{sub}: the Pooling module has no config.json. Fix: restore the module folder")
    cfg = read_json(cfg_path)
    on = sorted(k for k, v in cfg.items() if k.startswith("pooling_mode") and v is True)
    if len(on) != 1 or on[0] not in _POOL_MODES:
        raise ResourceError(f"{cfg_path}: pooling {', '.join(on) or 'none'}: drbench pools with exactly one of "
                            f"{' or '.join(_POOL_MODES)}")
    if cfg.get("include_prompt") is False and prefixes:
        raise ResourceError(f"{cfg_path}: include_prompt false (the prompt's tokens are left out of the pooling) "
                            f"is not supported; drbench pools every token of the prefixed text")
    return _POOL_MODES[on[0]]


#: files from which transformers builds a tokenizer (one of these sets must be complete)
TOKENIZER_SETS = (("tokenizer.json",), ("vocab.txt",), ("vocab.json", "merges.txt"), ("sentencepiece.bpe.model",),
                  ("spiece.model",), ("tokenizer.model",))


def check_tokenizer_files(folder: Path) -> None:
    """Refuse a model folder from which no tokenizer can be built (transformers would fail deep
    inside with ``TypeError: stat: path should be string``)."""
    folder = Path(folder)
    if any(all((folder / f).is_file() for f in files) for files in TOKENIZER_SETS):
        return
    wanted = " or ".join(" + ".join(files) for files in TOKENIZER_SETS)
    raise ResourceError(f"{folder}: no tokenizer files (drbench needs {wanted}). Fix: copy the tokenizer files of "
                        f"the model the weights come from into the folder (tokenizer.save_pretrained(FOLDER))")


def backbone_dim(folder: Path) -> Optional[int]:
    """The encoder's output dimension from ``config.json`` (``hidden_size``, DistilBERT's ``dim`` or
    ``d_model``), or None when it names none."""
    path = Path(folder) / "config.json"
    cfg = read_json(path) if path.is_file() else {}
    for key in ("hidden_size", "dim", "d_model"):
        if _whole(cfg.get(key)):
            return int(cfg[key])
    return None


def st_modules(folder: Path, prefixes: bool = False) -> Dict[str, Any]:
    """``pooling``, ``normalize`` and ``dense`` (module folders, in order) of a sentence-transformers
    folder's ``modules.json``; refused with the reason when drbench cannot apply a module."""
    folder = Path(folder)
    path = folder / "modules.json"
    text = path.read_text(encoding="utf-8")
    modules = read_json(path)
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ResourceError(f"{path}: expected a list of modules ({{\"type\": ..., \"path\": ...}})")
    out: Dict[str, Any] = {"normalize": False}
    dense: List[str] = []
    dim = backbone_dim(folder)  # the vectors' dimension after each module, checked module by module
    stage = 0  # 0: before the encoder, 1: encoder, 2: pooled, 3: normalised
    for i, m in enumerate(modules):
        typ, rel = str(m.get("type", "")), str(m.get("path", "") or "")
        short = typ.rsplit(".", 1)[-1]
        line = json_line(text, typ) if not rel else json_line(text, rel)
        sub = inside_folder(folder, rel, path, line, f"module {short or i} path")
        where = f"{path}:{line}: module {typ!r}"
        if not typ.startswith("sentence_transformers.") or short not in (
                "Transformer", "Pooling", "Dense", "Dropout", "Normalize"):
            raise ResourceError(f"{where} is not applied by drbench (it applies Transformer, Pooling, Dense, Dropout and "
                                f"Normalize); evaluating without it would give other vectors than the model's")
        if short == "Transformer":
            if stage != 0 or sub.resolve() != folder.resolve():
                raise ResourceError(f"{where}: drbench reads the encoder from the folder itself, as the first "
                                    f"module (path \"\"); this folder has it at {rel!r}")
            stage = 1
        elif short == "Pooling":
            if stage != 1:
                raise ResourceError(f"{where}: Pooling must follow the Transformer module, once")
            out["pooling"], stage = _pooling(sub, prefixes), 2
            pooled = read_json(sub / "config.json").get("word_embedding_dimension")
            if dim is not None and _whole(pooled) and pooled != dim:
                raise ResourceError(f"{sub / 'config.json'}: word_embedding_dimension {pooled}, but the encoder's "
                                    f"hidden size is {dim} ({folder / 'config.json'}). Fix: set it to {dim}, or use "
                                    f"the Pooling module saved with this encoder")
        elif short == "Dense":
            if stage != 2:
                raise ResourceError(f"{where}: drbench applies Dense between Pooling and Normalize only")
            cfg = dense_config(sub, path, line)
            if dim is not None and cfg["in_features"] != dim:  # checked here, not after the corpus is encoded
                before = "the encoder's hidden size" if not dense else f"the out_features of {dense[-1]}"
                raise ResourceError(f"{sub / 'config.json'}: in_features {cfg['in_features']}, but {before} is "
                                    f"{dim}: the module cannot be applied to these vectors. Fix: use the Dense "
                                    f"module saved with this encoder")
            dim = cfg["out_features"]
            dense.append(Path(*Path(rel).parts).as_posix())
        elif short == "Normalize":
            if stage != 2:
                raise ResourceError(f"{where}: Normalize must follow Pooling (and any Dense), once")
            out["normalize"], stage = True, 3
    if stage < 2:
        raise ResourceError(f"{path}: no Pooling module after the Transformer; drbench needs one to pool token vectors")
    out["dense"] = tuple(dense)
    return out


def check_lowercase(folder: Path) -> None:
    """sentence-transformers lowercases the text when ``sentence_bert_config.json`` says
    ``do_lower_case``; that equals what drbench does only when the tokenizer lowercases too."""
    sb = Path(folder) / "sentence_bert_config.json"
    if not sb.exists() or read_json(sb).get("do_lower_case") is not True:
        return
    tc, tj = Path(folder) / "tokenizer_config.json", Path(folder) / "tokenizer.json"
    if tc.exists() and read_json(tc).get("do_lower_case") is True:
        return
    if tj.exists() and ((read_json(tj).get("normalizer") or {}).get("lowercase") is True):
        return
    raise ResourceError(f"{sb}: do_lower_case true with a tokenizer that keeps case; drbench does not lowercase "
                        f"the text itself. Fix: set \"do_lower_case\": true in tokenizer_config.json if the "
                        f"vocabulary is uncased")
