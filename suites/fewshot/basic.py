"""FewDR's basic learning: the zero-shot model of the protocol.

In FewDR the model that is evaluated "zero-shot" on the classes is the pretrained checkpoint
fine-tuned on every base-class training query (the released ``zero-shot-train.sh`` trains the
full model on ``final-split-train-only-base``); few-shot training then starts from it. Here:

- one full fine-tune (``full-tune``, whatever the few-shot methods are) of the checkpoint on the
  base-class training queries of the plan, with the run's training settings;
- saved as a checkpoint folder under ``<cache>/../checkpoints/fewshot-basic-<key>`` where the key
  hashes every input of the training (checkpoint, dataset, the examples with their negatives,
  settings, seed, drbench version, torch thread count): a later run with the same inputs loads the
  folder instead of training again, and a run with other inputs trains its own;
- the folder is always read back before use, so a fresh and a reused basic-learned model are the
  same bytes and give the same results.
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.io import canonical_json, sha256_hex
from bench.core.versions import __version__
from bench.models.checkpoint import read_training, reusable_training, save_checkpoint
from bench.models.spec import ModelSpec, model_fingerprint
from bench.training.contrastive import Example, TrainConfig, train_dual_encoder
from bench.training.dual import build_dual_encoder, tuned_module
from bench.tuning.config import TuningConfig

BASIC_METHOD = "full-tune"
BASIC_RECORD_KIND = "fewshot-basic"


def basic_key(spec: ModelSpec, dataset_fingerprint: str, examples: Sequence[Example], train: TrainConfig,
              seed: int) -> str:
    """Content key of one basic learning: equal keys mean equal training inputs."""
    import torch

    inputs = {"method": BASIC_METHOD, "train": asdict(train), "seed": int(seed), "drbench": __version__,
              "torch_threads": int(torch.get_num_threads()),  # CPU training is not bit-equal across thread counts
              "examples": [[e.qid, e.text, list(e.positives), list(e.negatives)] for e in examples]}
    return sha256_hex("fewshot-basic-v1", model_fingerprint(spec), dataset_fingerprint, canonical_json(inputs))[:24]


def basic_checkpoint(spec: ModelSpec, base_model, tokenizer, examples: Sequence[Example], doc_text, train: TrainConfig,
                     seed: int, home: Path, dataset_fingerprint: str, *, passage_lookup=None, query_lookup=None,
                     progress: bool = False) -> Tuple[Path, dict, bool]:
    """(folder, training record, reused): the basic-learned checkpoint, trained unless a complete
    folder with the same key exists."""
    if not examples:
        raise BenchError("basic learning has no base-class training query with a relevant passage; give more "
                         "queries per class (--test-ratio), another --class-split, or --no-basic-learning")
    key = basic_key(spec, dataset_fingerprint, examples, train, seed)
    folder = Path(home) / f"fewshot-basic-{key}"
    record = reusable_training(folder, "evaluate")  # its files checked against their recorded SHA-256
    if record and record.get("kind") == BASIC_RECORD_KIND:
        return folder, record, True
    dual = build_dual_encoder(spec, BASIC_METHOD, base_model, tokenizer, TuningConfig(), seed=seed)
    log = train_dual_encoder(dual, list(examples), doc_text, train, seed, passage_lookup=passage_lookup,
                             query_lookup=query_lookup, progress=progress, desc="basic learning (base classes)")
    record = {"kind": BASIC_RECORD_KIND, "complete": True, "key": key, "method": BASIC_METHOD, "seed": int(seed),
              "n_train_queries": len(examples), "train": log.to_dict(),
              "training": train.resolved(BASIC_METHOD, spec.similarity)}
    save_checkpoint(tuned_module(dual), tokenizer, spec, folder, record, BASIC_METHOD)
    return folder, read_training(folder), False
