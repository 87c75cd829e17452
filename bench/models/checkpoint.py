"""Trained checkpoints: folders that ``--model DIR`` evaluates like any other model.

A checkpoint folder holds the backbone in Hugging Face form (``config.json``,
``model.safetensors``, tokenizer files), ``drbench_model.json`` (the spec: pooling,
normalisation, similarity, prefixes, maximum lengths) and ``training.json`` (recipe, settings,
parameter counts, time, per-step losses). A method whose modules cannot be folded into the
backbone (adapters, IAA, REM) also writes ``tuning.json`` + ``tuning.safetensors``, which
:meth:`bench.encoding.encoder.Encoder.load` attaches on load; LoRA is merged into the weights instead.

The folder is built beside its destination and renamed into place, so an interrupted save leaves
either the previous checkpoint or none, never a half-written one.
"""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Iterator, Optional

from bench.core.errors import BenchError
from bench.core.io import atomic_write_json
from bench.core.written import replace_folder
from bench.models.spec import ModelSpec

SPEC_FIELDS = ("kind", "pooling", "normalize", "similarity", "query_prefix", "passage_prefix", "max_query_length",
               "max_passage_length", "dtype")
TRAINING_FILE = "training.json"


@contextlib.contextmanager
def atomic_folder(folder: Path, force: bool = False, command: str = "train") -> Iterator[Path]:
    """Yield an empty temporary folder beside ``folder``; it replaces ``folder`` on success, and only
    when ``folder`` is absent, empty, in the cache home, or a folder drbench wrote and nobody changed
    since (:func:`bench.core.written.replace_folder`: the one marker, ``.drbench-written.json``,
    records every file). Otherwise it is refused naming the files, or with ``force`` the new files
    are moved into it and its other files kept. Nothing beside ``folder`` but the temporary folders
    made here is ever removed."""
    with replace_folder(Path(folder), command, force) as tmp:
        yield tmp


UNSAVEABLE = ("qry-tune", "psg-tune", "prefix")  # asymmetric towers or virtual tokens


def check_saveable(method: str) -> None:
    """Refuse a method whose tuned encoder cannot be written as one checkpoint folder."""
    if method in UNSAVEABLE:
        raise BenchError(f"method {method!r} cannot be saved as one checkpoint (asymmetric towers or virtual "
                         f"tokens); train with full-tune, bitfit, lora or an adapter method")


def save_checkpoint(module, tokenizer, spec: ModelSpec, folder: Path, training: dict, method: str = "full-tune",
                    backbone=None, extra_files: Optional[dict] = None, extra_tensors: Optional[dict] = None,
                    force: bool = False) -> Path:
    """Write ``module`` (the tuned encoder of ``method``) as a checkpoint folder. For methods that
    keep the backbone frozen (adapters, IAA, REM), ``backbone`` is the untouched model they were
    attached to; its weights are saved beside the method's own tensors."""
    check_saveable(method)
    folder = Path(folder)
    with atomic_folder(folder, force) as tmp:
        if method == "lora":
            from bench.tuning.adapters import merge_lora

            merge_lora(module).save_pretrained(str(tmp), safe_serialization=True)  # merged on a copy
        elif method in ("full-tune", "bitfit"):
            module.save_pretrained(str(tmp), safe_serialization=True)
        else:
            from bench.tuning.adapters import save_tuned

            if backbone is None:
                raise BenchError(f"method {method!r}: save_checkpoint needs the frozen backbone")
            backbone.save_pretrained(str(tmp), safe_serialization=True)
            save_tuned(module, tmp)
        tokenizer.save_pretrained(str(tmp))
        own = {k: getattr(spec, k) for k in SPEC_FIELDS}
        own["params"] = dict(spec.params)
        atomic_write_json(tmp / "drbench_model.json", own)
        atomic_write_json(tmp / TRAINING_FILE, training)
        for name, text in (extra_files or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
        for name, tensors in (extra_tensors or {}).items():  # {file name: {tensor name: torch tensor}}
            from safetensors.torch import save_file

            save_file(dict(tensors), str(tmp / name))
    return folder


def reusable_training(folder: Path, command: str = "train") -> Optional[dict]:
    """The training record of a complete checkpoint folder drbench may reuse, after checking its
    files against the SHA-256 recorded when it was written (:data:`bench.core.written.RECORD`);
    None when it is absent or incomplete, or (with a warning) when a file was changed, removed or
    added since: the caller then trains it again."""
    folder = Path(folder)
    rec = read_training(folder) if folder.is_dir() else None
    if not (rec and rec.get("complete")):
        return None
    from bench.core.written import cached_folder_problem

    problem = cached_folder_problem(folder, command)
    if problem:
        import sys

        print(f"drbench: warning: checkpoint {folder} is not what drbench wrote ({problem}); training it again",
              file=sys.stderr)
        return None
    return rec


def read_training(folder: Path) -> Optional[dict]:
    path = Path(folder) / TRAINING_FILE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BenchError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg}); retrain or restore the file") from None
