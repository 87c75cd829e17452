"""Declared options (:class:`bench.core.options.Option`) turned into argparse arguments: the only
place outside the command modules where argparse is used."""
from __future__ import annotations

from typing import Iterable, Set

import argparse

from bench import config
from bench.core.options import BadValue, Option
from bench.encoding.runtime import RUNTIME_OPTIONS
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
        settings = dict(opt.settings)
        kind = settings.get("type")
        if kind is not None and not isinstance(kind, type):
            settings["type"] = usage_type(kind)
        group.add_argument(*opt.flags, **settings)


def usage_type(kind):
    """An option's converter for argparse: its :class:`BadValue` message becomes argparse's
    (``argument --out: an empty folder name ...``), not ``invalid out_folder value``."""
    def convert(text):
        try:
            return kind(text)
        except BadValue as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(kind, "__name__", "value")
    return convert


#: the type of every ``--out`` of the commands (bench.config.out_folder, as argparse reports it)
out_folder = usage_type(config.out_folder)


def add_training_options(p, optimisation: str, methods: str, batch_help: str) -> None:
    """The options every training command shares: encoding batch size, progress, and the
    optimisation (TRAINING_OPTIONS) and method-setting (TUNING_OPTIONS) groups."""
    p.add_argument("--batch-size", type=int, default=64, help=batch_help)
    p.add_argument("--no-progress", action="store_true", help="hide progress bars (plain lines outside a terminal)")
    add_options(p.add_argument_group("runtime"), RUNTIME_OPTIONS)
    add_options(p.add_argument_group(optimisation), TRAINING_OPTIONS)
    add_options(p.add_argument_group(methods), TUNING_OPTIONS)



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
