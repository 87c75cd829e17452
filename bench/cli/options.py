"""Declared options (:class:`bench.core.options.Option`) turned into argparse arguments: the only
place outside the command modules where argparse is used."""
from __future__ import annotations

from typing import Iterable, Set

from bench.config import (EVALUATE_RUNTIME, MAX_NAME, check_at_least_one, check_label, out_folder,  # noqa: F401
                          slug)  # re-exported
from bench.core.options import Option
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
        group.add_argument(*opt.flags, **opt.settings)


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
