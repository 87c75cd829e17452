"""`bench adapt --recipe ddr --model CKPT --source SRC --target TGT --out DIR`: DDR checkpoints.

Writes four checkpoint folders under DIR, each usable as ``--model``, in DDR's order:
``dam-source`` (CKPT's backbone adapted to SRC's corpus by MLM), ``rem`` (REM trained on SRC with
the source DAM frozen, on that backbone), ``dam`` (the source DAM adapted further to TGT's corpus)
and ``rem+dam`` (the same REM on the target DAM). Finished folders are reused.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from bench.cli.options import add_options, add_training_options, out_folder
from bench.config import check_at_least_one
from bench.core.paths import check_cache_home, check_writable_folder
from bench.core.written import check_folder_replaceable
from bench.core.timing import Timer
from bench.data.collections import load_dataset
from bench.models.loading import refuse_dense
from bench.models.spec import resolve_model
from bench.training.contrastive import train_config_from
from bench.training.ddr import MLM_OPTIONS, mlm_config_from
from bench.tuning.config import tuning_config_from
from bench.models.checkpoint import read_training
from suites.domain import DomainConfig, build_systems, ddr_deviations


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recipe", default="ddr", choices=["ddr"], help="ddr: disentangled domain and relevance "
                                                                    "modelling (REM + DAM)")
    p.add_argument("--model", default="minilm-l6", help="the source model")
    p.add_argument("--source", default="chatterbot", help="labelled source dataset REM trains on")
    p.add_argument("--source-split", default=None, help="qrels split of the source dataset REM trains on (default: test; dev for MS MARCO folders)")
    p.add_argument("--target", required=True, help="target dataset whose corpus the backbone adapts to (no labels used)")
    p.add_argument("--target-split", default=None, help="split of the target dataset (its corpus is used, no labels; default: test; dev for MS MARCO folders)")
    p.add_argument("--out", type=out_folder, required=True, help="folder for the rem, dam and rem+dam checkpoints")
    p.add_argument("--seed", type=int, default=0, help="training seed (default: 0)")
    p.add_argument("--rem-lr", type=float, default=None, help="REM learning rate (default: the rem method's)")

    add_options(p, MLM_OPTIONS)
    add_training_options(p, "REM optimisation", "method settings (rem-*)", "encoding batch size")


def run(args) -> int:


    check_at_least_one(args, "batch_size")
    check_writable_folder(args.out, "--out", "give --out a new or writable folder")
    for name in ("dam-source", "rem", "dam", "rem+dam"):  # the folders it writes (finished ones are reused)
        if (args.out / name).is_dir() and not (read_training(args.out / name) or {}).get("complete"):
            check_folder_replaceable(args.out / name, "--out", False, "give --out a new folder")
    check_cache_home()
    from bench.encoding import runtime

    spec = runtime.apply(resolve_model(args.model).with_overrides(), args.device, args.dtype, "torch")
    refuse_dense(spec, "bench adapt")
    print(spec.describe(), file=sys.stderr)
    source = load_dataset(args.source, args.source_split)
    target = load_dataset(args.target, args.target_split)
    cfg = DomainConfig(seed=args.seed, systems=("zero-shot", "REM", "REM+DAM"), train=train_config_from(args),
                       rem_lr=args.rem_lr, tuning=tuning_config_from(args),
                       mlm=mlm_config_from(args),
                       batch_size=args.batch_size, progress=not args.no_progress,
                       notify=lambda line: print(f"bench adapt: {line}", file=sys.stderr)).validate()
    print(f"bench adapt: ddr from {spec.name}: source DAM on {source.name}'s corpus, REM on {source.name}'s labels, "
          f"target DAM on {target.name}'s corpus", file=sys.stderr)
    folders = build_systems(spec, source, target, cfg, Path(args.out), Timer(),
                            names={"DAM-source": "dam-source", "REM": "rem", "DAM": "dam", "REM+DAM": "rem+dam"})
    for key in ("DAM-source", "REM", "DAM", "REM+DAM"):
        print(f"{key:<10} {folders[key]}")
    for line in ddr_deviations(spec, cfg, read_training(folders["DAM-source"])):
        print(f"deviation from DDR: {line}")
    return 0
