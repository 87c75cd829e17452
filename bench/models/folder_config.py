"""A model folder's own configuration, read into :class:`~bench.models.spec.ModelSpec` fields (plain dicts).

- a sentence-transformers folder's modules are read by the library itself (:mod:`bench.models.st_folder`).
- :func:`folder_lengths`: the maximum input length the folder states (``sentence_bert_config.json``
  ``max_seq_length``, else ``tokenizer_config.json`` ``model_max_length``, else ``config.json``
  ``max_position_embeddings``), with where it came from.
- :func:`training_lengths`: the lengths a drbench checkpoint was trained with (``training.json``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Tuple

from bench.core.errors import ResourceError

#: model types whose position ids start after the padding index (max_position_embeddings - pad - 1 usable)
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "xlm-roberta-xl", "data2vec-text")
#: a tokenizer's model_max_length at or above this is transformers' "no limit set" sentinel
_NO_LIMIT = 1_000_000


def read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ResourceError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg}). Fix: restore the file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"{path}: unreadable ({exc})") from None


def refuse_dangling_links(folder: Path) -> None:
    """A file of the folder that is a symbolic link to nothing, named with its target."""
    for p in sorted(Path(folder).iterdir()):
        if p.is_symlink() and not p.exists():
            import os

            raise ResourceError(f"{p}: a symbolic link to {os.readlink(p)}, which does not exist. Fix: point it at the "
                                f"file, or copy the file into {folder}")


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
