"""`bench evaluate --model CKPT --suite SUITE [--dataset D] [--seed N] [--metrics ...] [--out DIR]`

Every registered suite (bench.results.suite.SUITES) adds its own option group; an option of
another suite, or a shared option the chosen suite does not honour, is refused when it was set.
The options are declared in :mod:`bench.config`; the parsed command line becomes its typed
:class:`~bench.config.EvaluateConfig`, which :func:`bench.api.execute` runs (the layers: CLI ->
typed config -> API -> suites).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import List, Optional, Tuple

from bench.cli.options import add_options
from bench.config import (COMMON, MODEL_OVERRIDES, SHARED, _suites, changed_options, config_from_namespace,
                          declared_options, unknown_option)
from bench.core.errors import BenchError
from bench.core.registry import UnknownName
from bench.results.suite import SUITES, suite_named


def add_arguments(p: argparse.ArgumentParser, help_suite: Optional[str] = None) -> None:
    """Every suite's options (what parsing needs). With ``help_suite`` (``bench evaluate [--suite S]
    --help``) only that suite's options and the shared options it honours are added, so the help
    shows one suite; the others are named with the command that shows theirs."""
    names = SUITES.names()
    p.usage = "bench evaluate [--suite SUITE] [--model MODEL] [--dataset DATASET] [OPTION ...]"
    p.add_argument("--suite", default="variations", help=f"suite: {', '.join(names)} (default: variations)")
    taken = {"suite"}
    suites = _suites()
    if help_suite is not None:
        chosen = [s for s in suites if s.name == help_suite]
        if chosen:
            suites = chosen
            others = [n for n in names if n != help_suite]
            p.description = (f"{p.description}. Options of --suite {help_suite} only; the other suites' options: "
                             + "; ".join(f"bench evaluate --suite {n} --help" for n in others) + ".")
    add_options(p, COMMON, taken)
    honoured = set().union(*(set(s.shared) for s in suites))
    add_options(p.add_argument_group("options shared by several suites"),
                [o for o in SHARED if o.dest in honoured], taken)
    for suite in suites:
        g = p.add_argument_group(f"--suite {suite.name}: {suite.description}")
        add_options(g, suite.options, taken)
    add_options(p.add_argument_group("model overrides (for folders without a sentence-transformers config)"),
                MODEL_OVERRIDES, taken)


def help_suite(argv: List[str]) -> str:
    """The suite whose options ``bench evaluate ... --help`` shows: the ``--suite`` given (by its
    canonical name), else the default suite."""
    value = "variations"
    for i, a in enumerate(argv):
        if a == "--suite" and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith("--suite="):
            value = a.split("=", 1)[1]
    try:
        return SUITES.canonical(value)
    except UnknownName:  # an unknown suite: the help lists every suite's options
        return ""


class _Parser(argparse.ArgumentParser):
    """Raises BenchError instead of printing usage and exiting (for the Python API)."""

    def error(self, message: str):
        raise BenchError(message)


def namespace(**values) -> argparse.Namespace:
    """The options of ``bench evaluate`` from Python values (``bench.evaluate(**values)``), parsed
    and checked by the same parser as the command line. Keys are option dests (``top_k``); a list
    is given as its comma-separated text; ``None`` keeps the default; a flag takes True / False."""
    parser = _Parser(prog="bench.evaluate", add_help=False)
    add_arguments(parser)
    declared = declared_options()
    argv: List[str] = []
    for key, value in values.items():
        dest = key.replace("-", "_")
        if dest not in declared:
            raise unknown_option(key, declared)
        if value is None:
            continue
        opt = declared[dest]
        if opt.settings.get("action") in ("store_true", "store_false"):
            if not isinstance(value, bool):
                raise BenchError(f"option {key!r} is a flag: give True or False, not {value!r}")
            if value != opt.default:
                argv.append(opt.flags[0])
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        argv.append(f"{opt.flags[0]}={value}")
    return parser.parse_args(argv)


def run(args) -> int:
    import time

    from bench.cli.next_steps import duration, next_steps

    t0 = time.perf_counter()
    config = config_from_namespace(args)
    code, out = execute(config)
    print(f"\ntotal time {duration(time.perf_counter() - t0)} (bench evaluate, start to end)")
    if code == 0:
        suite = suite_named(SUITES.canonical(config.suite))
        print("\n".join(next_steps(out, config, suite.name, bool(getattr(suite, "gated", False)),
                                   changed_options(config, suite))))
    return code


def execute(args) -> Tuple[int, Path]:
    """Run the chosen suite as the command does (its console report on stdout); the exit code and
    the run folder. ``args``: a parsed namespace or an :class:`~bench.config.EvaluateConfig`."""
    from bench.api import execute as run_config
    from bench.config import EvaluateConfig

    config = args if isinstance(args, EvaluateConfig) else config_from_namespace(args)
    code, out, _ = run_config(config, console=True)  # names the run folder's files once it is in place
    return code, out
