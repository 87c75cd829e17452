"""The `bench` command line. Subcommands live in their own modules and are imported only when
run, so `bench --help` stays fast (no torch, faiss or spaCy at start-up)."""
from __future__ import annotations

import argparse
import errno
import importlib
import sys
from pathlib import Path
from typing import List, Optional
from bench.core.errors import WRITE_ERRNOS, BenchError
from bench.core.registry import UnknownName
from bench.core.versions import __version__

# name -> (module, one-line help). Each module defines `add_arguments(parser)` and `run(args) -> int`.
COMMANDS = {
    "evaluate": ("bench.cli.evaluate", "run a suite ({suites}) for a model on a dataset"),
    "perturb": ("bench.cli.perturb", "write the query-variation sets of a dataset to a folder"),
    "doctor": ("bench.cli.doctor", "list every generator's resources and how to install what is missing"),
    "models": ("bench.cli.listing", "list registered models, datasets, generators and suites"),
    "report": ("bench.cli.report", "render a run's result file as HTML or Markdown"),
    "compare": ("bench.cli.compare", "models x sets table with corrected significance markers"),
    "leaderboard": ("bench.cli.leaderboard", "build a leaderboard CSV / Markdown from run files"),
    "gate": ("bench.cli.gate", "CI regression gate: exit 1 when the candidate regressed"),
    "train": ("bench.cli.train", "train a checkpoint with a recipe (rodr, dr-qv, dr-oq-qv, dr)"),
    "adapt": ("bench.cli.adapt", "domain adaptation (ddr): adapt a backbone to a target corpus, train a REM"),
}


class UserError(Exception):
    """A mistake the user can fix; printed without a traceback, exit code 2."""


def build_parser(only: Optional[str] = None, argv: Optional[List[str]] = None) -> argparse.ArgumentParser:
    """The parser; ``only`` names the command whose options are added (the others stay empty).
    With ``argv`` asking for help (``-h`` / ``--help``) a command may show a part of its options
    (``bench evaluate --suite fewshot --help``: that suite's)."""
    parser = argparse.ArgumentParser(prog="bench", description="drbench: robustness and few-shot benchmarks for dense retrievers")
    parser.add_argument("--version", action="version", version=f"drbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from bench.results.suite import SUITES  # names only: the suites' modules are not imported

    for name, (module, help_text) in COMMANDS.items():
        help_text = help_text.replace("{suites}", ", ".join(SUITES.names()))
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            mod = importlib.import_module(module)
            if argv and ("-h" in argv or "--help" in argv) and hasattr(mod, "help_suite"):
                mod.add_arguments(p, help_suite=mod.help_suite(argv) or None)
            else:
                mod.add_arguments(p)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in COMMANDS:
        command = None
    parser = build_parser(only=command, argv=argv)
    args, extras = parser.parse_known_args(argv)
    if extras:
        print(f"bench{' ' + args.command if args.command else ''}: error: unrecognized arguments: "
              f"{' '.join(extras)}{unquoted_list_hint(argv, extras)}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(COMMANDS[args.command][0])

    try:
        return int(module.run(args) or 0)
    except (BenchError, UserError, UnknownName) as exc:
        print(f"bench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bench {args.command}: interrupted; nothing partial was written", file=sys.stderr)
        return 130
    except OSError as exc:
        message = write_error_message(exc, getattr(args, "out", None))
        if message is None:
            raise  # not a write the user can fix (a bug): keep the traceback
        print(f"bench {args.command}: error: {message}", file=sys.stderr)
        return 2


def unquoted_list_hint(argv: List[str], extras: List[str]) -> str:
    """When the first unrecognized argument follows an option's value (``--metrics nDCG@10 R@100``),
    the hint to give the list as one argument, in the separator the option's list uses (a space,
    quoted, for ``--metrics``; commas for the others); '' otherwise."""
    first = extras[0]
    if first.startswith("-") or first not in argv:
        return ""
    i = argv.index(first)
    if i >= 2 and argv[i - 2].startswith("--") and "=" not in argv[i - 2] and not argv[i - 1].startswith("-"):
        flag, start = argv[i - 2], argv[i - 1]
    elif i >= 1 and argv[i - 1].startswith("--") and "=" in argv[i - 1]:
        flag, start = argv[i - 1].split("=", 1)
    else:
        return ""
    items = [start]
    for a in argv[i:]:
        if a.startswith("-") or a not in extras:
            break
        items.append(a)
    if flag == "--metrics":
        return f'. A list is one argument: quote the list, {flag} "{" ".join(items)}"'
    return f". A list is one argument: join it with commas, {flag} {','.join(items)}"

#: free space under which a file system counts as full when a write error names no file
FULL_BYTES = 16 << 20


def is_full(path: Path) -> bool:
    """Whether the file system holding ``path`` (or its nearest existing parent) is (nearly) full."""
    import shutil

    p = Path(path).absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        return shutil.disk_usage(p).free < FULL_BYTES
    except OSError:
        return False


def write_error_message(exc: OSError, out: Optional[Path] = None) -> Optional[str]:
    """The message for an OSError raised while writing (disk full, permission, read-only file
    system) anywhere a more specific message was not given: checkpoints, run folders, Ray
    workers' shards. Every writer goes through a temporary name, so nothing partial is left.
    An error that names no file is placed in the command's ``--out`` folder when it has one."""
    if exc.errno not in WRITE_ERRNOS:
        return None
    where = Path(exc.filename).parent if exc.filename else None
    place = f" in {where}" if where else (f" in {out} (--out)" if out is not None else "")
    if where is None and exc.errno == errno.ENOSPC:  # no file named: name the full one of --out and the cache
        from bench.core.paths import cache_home

        home = cache_home()
        if is_full(home) and (out is None or not is_full(Path(out))):
            place = f" in the cache {home} (DRBENCH_HOME)"
    return (f"cannot write{place}: {exc.strerror or exc} (files are written under temporary names and "
            f"renamed when complete, so no half-written file was kept). Fix: free space there, or "
            f"give a writable folder (--out; DRBENCH_HOME for the cache and checkpoints)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
