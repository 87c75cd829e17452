"""Declared options (:class:`bench.core.options.Option`) turned into argparse arguments: the only
place outside the command modules where argparse is used."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Set

from bench.core.io import safe_name, visible
from bench.core.options import Option
from bench.core.errors import BenchError
from bench.encoding.runtime import BACKEND_OPTION, RUNTIME_OPTIONS
from bench.training.contrastive import TRAINING_OPTIONS
from bench.tuning.config import TUNING_OPTIONS


def add_options(group, options: Iterable[Option], taken: Set[str] = None) -> None:
    """Add each option to an argparse parser or group; options whose dest is in ``taken`` (already
    added by another group) are skipped, and the dests added are recorded in ``taken``."""
    for opt in options:
        if taken is not None:
            if opt.dest in taken:
                continue
            taken.add(opt.dest)
        group.add_argument(*opt.flags, **opt.settings)


def add_training_options(p, optimisation: str, methods: str, batch_help: str) -> None:
    """The options every training command shares: encoding batch size, progress, and the
    optimisation (TRAINING_OPTIONS) and method-setting (TUNING_OPTIONS) groups."""
    p.add_argument("--batch-size", type=int, default=64, help=batch_help)
    p.add_argument("--no-progress", action="store_true", help="hide progress bars (plain lines outside a terminal)")
    add_options(p.add_argument_group("runtime"), RUNTIME_OPTIONS)
    add_options(p.add_argument_group(optimisation), TRAINING_OPTIONS)
    add_options(p.add_argument_group(methods), TUNING_OPTIONS)


#: --device, --dtype and --backend (bench evaluate: every suite, the few-shot suite included)
EVALUATE_RUNTIME = RUNTIME_OPTIONS + (BACKEND_OPTION,)


def out_folder(text: str) -> Path:
    """The type of every ``--out``: an empty name (which would mean the working folder) is a usage error."""
    import argparse

    if not str(text).strip():
        raise argparse.ArgumentTypeError("an empty folder name would mean the working folder; give a folder, "
                                         "e.g. --out runs/my-run")
    return Path(text)


def check_at_least_one(args, *dests: str) -> None:
    """Refuse counts (``--batch-size``, ``--top-k`` ...) below 1 before any work starts."""
    for dest in dests:
        value = getattr(args, dest, None)
        if value is not None and value < 1:
            flag = "--" + dest.replace("_", "-")
            raise BenchError(f"{flag} {value}: must be at least 1. Fix: give {flag} N with N >= 1")


def slug(name: str) -> str:
    """A model or dataset name as a part of a default output folder name (a path keeps its last part)."""
    return safe_name(Path(name).name if ("/" in name or "\\" in name) else name)


#: the longest --name: it is part of the default run folder's name, and a file name has at most 255 bytes
MAX_NAME = 100


def check_label(value: str, option: str = "--name") -> str:
    """A model label given on the command line: one visible line (``org/model`` is fine), without a
    leading dot or ``.`` / ``..`` parts (it names the default run folder, which ``../x`` would hide),
    at most :data:`MAX_NAME` characters. Returns it stripped."""
    label = value.strip()
    fix = f"give a short label on one line, e.g. {option} my-model"
    if not visible(label) or any(c in label for c in "\n\r\t"):
        raise BenchError(f"{option} {value!r}: give a non-empty label on one line (no zero-width-only text). Fix: {fix}")
    parts = label.replace("\\", "/").split("/")
    if label.startswith(".") or any(p in (".", "..") for p in parts):
        raise BenchError(f"{option} {value!r}: a label must not start with '.' or hold a '.' or '..' path part: it "
                         f"names the default run folder, which would be hidden or outside runs/. Fix: {fix}, and "
                         f"--out FOLDER for where the run goes")
    if len(label) > MAX_NAME:
        raise BenchError(f"{option}: {len(label)} characters, at most {MAX_NAME} (the label is part of the run "
                         f"folder's name). Fix: {fix}")
    return label


def read_metric(value):
    """A ``--metric`` given by its trec_eval name (``ndcg_cut_10``) read as ours (``nDCG@10``),
    said on stderr; any other value is passed on unchanged (the run's measures decide)."""
    import sys

    from bench.evaluation.measures import parse_measure, trec_eval_notes

    if value is None:
        return None
    notes = trec_eval_notes([value])
    if not notes:
        return value
    print(f"bench: --metric {notes[0]}", file=sys.stderr)
    return str(parse_measure(value))
