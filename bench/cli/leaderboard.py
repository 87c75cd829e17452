"""`bench leaderboard RUN ... [-o FILE.csv] [--md FILE.md] [--force]`: runs ranked per group of
comparable runs, with rank intervals from corrected pairwise tests. It prints the Markdown table of
headline columns; ``-o FILE.csv`` also writes the long CSV there, the wide CSV to
``FILE.wide.csv`` and the method to ``FILE.method.md``; ``--md FILE`` writes the Markdown to FILE
instead of printing it; ``-o -`` prints the long CSV instead. A file drbench did not write is not
replaced without ``--force`` (bench/cli/outputs.py). See bench/reporting/leaderboard/board.py."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.cli.outputs import STDOUT, add_force, check_output_files, write_output_files
from bench.core.errors import BenchError
from bench.reporting.leaderboard import build


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or result.json files); few-shot results too")
    p.add_argument("-o", "--output", default=None, metavar="CSV",
                   help="also write the long CSV (one row per model x dataset x set x metric) here, with "
                        "<stem>.wide.csv and <stem>.method.md beside it; '-' prints the long CSV instead of the "
                        "Markdown table")
    p.add_argument("--md", nargs="?", const=STDOUT, default=None, metavar="FILE",
                   help="write the Markdown table (headline columns, method) to FILE instead of printing it "
                        "(default: printed)")
    add_force(p)
    p.add_argument("--metric", action="append", default=None,
                   help="measure(s) in the CSV files; repeat for several (default: every measure the runs share, in the "
                        "first run's order); the first ranks and heads the Markdown table")
    p.add_argument("--rank-by", default="VARIATIONS (AVG.)",
                   help="set whose first-metric score ranks variation runs (default: VARIATIONS (AVG.); or ORIGINAL)")
    p.add_argument("--test", default="t-test", choices=["t-test", "randomization", "wilcoxon"],
                   help="paired test that separates two models (two-sided; default t-test)")
    p.add_argument("--correction", default="holm", choices=["holm", "bh", "none"],
                   help="correction over the k(k-1)/2 model pairs of a group (default holm: simultaneous intervals)")
    p.add_argument("--alpha", type=float, default=0.05, help="level of the pairwise separations (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization test's resamples")


def sidecars(output: str) -> tuple:
    """(wide CSV path, method path) beside the long CSV."""
    out = Path(output)
    stem = out.name[:-len(out.suffix)] if out.suffix else out.name
    return out.with_name(stem + ".wide.csv"), out.with_name(stem + ".method.md")


def run(args: argparse.Namespace) -> int:
    if args.output == STDOUT and args.md == STDOUT:
        raise BenchError("-o - and --md without a file would both print on stdout (CSV and Markdown mixed). Fix: "
                         "drop one, or name a file for the other (--md leaderboard.md)")
    csv_out = args.output if args.output != STDOUT else None
    md_out = args.md if args.md != STDOUT else None
    wide, method = sidecars(csv_out) if csv_out else (None, None)
    check_output_files([("-o", csv_out), ("-o (its wide CSV)", wide), ("-o (its method)", method), ("--md", md_out)],
                       args.force, "-o my-board/leaderboard.csv --md my-board/leaderboard.md", "bench leaderboard")
    board = build(args.runs, metrics=args.metric, rank_by=args.rank_by, seed=args.seed, test=args.test,
                  correction=args.correction, alpha=args.alpha)
    files = []
    if csv_out:
        files += [(csv_out, board.csv()), (wide, board.wide_csv()), (method, board.method_text())]
    if md_out:
        files.append((md_out, board.markdown()))
    if files:
        write_output_files(files, "bench leaderboard")
    if args.output == STDOUT:
        sys.stdout.write(board.csv())
    elif md_out is None:
        sys.stdout.write(board.markdown())
        if not csv_out:
            print("bench leaderboard: the headline table; every set and metric: -o FOLDER/leaderboard.csv writes the "
                  "long and wide CSV and the method", file=sys.stderr)
    return 0
