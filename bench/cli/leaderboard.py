"""`bench leaderboard RUN ... -o results/leaderboard.csv [--md FILE]`: runs ranked per group of
comparable runs, with rank intervals from corrected pairwise tests. With ``-o FILE.csv`` it writes
the long CSV there, the wide CSV to ``FILE.wide.csv`` and the method to ``FILE.method.md``. See
bench/reporting/leaderboard/board.py."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.core.io import atomic_write_text
from bench.reporting.leaderboard import build


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or result.json files); few-shot results too")
    p.add_argument("-o", "--output", default=None, metavar="CSV",
                   help="long CSV (one row per model x dataset x set x metric); also writes <stem>.wide.csv and "
                        "<stem>.method.md beside it (default: the long CSV to stdout)")
    p.add_argument("--md", nargs="?", const="-", default=None, metavar="FILE",
                   help="also write Markdown with the headline columns (to FILE, or stdout without FILE)")
    p.add_argument("--metric", action="append", default=None,
                   help="measure(s) to show; repeat for several (default: the first measure); the first ranks")
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
    board = build(args.runs, metrics=args.metric, rank_by=args.rank_by, seed=args.seed, test=args.test,
                  correction=args.correction, alpha=args.alpha)
    if args.output:
        wide, method = sidecars(args.output)
        atomic_write_text(args.output, board.csv())
        atomic_write_text(wide, board.wide_csv())
        atomic_write_text(method, board.method_text())
        print(f"wrote {args.output}, {wide}, {method}", file=sys.stderr)
    elif args.md != "-":
        sys.stdout.write(board.csv())
    if args.md:
        md = board.markdown()
        if args.md == "-":
            sys.stdout.write(md)
        else:
            atomic_write_text(args.md, md)
            print(f"wrote {args.md}", file=sys.stderr)
    return 0
