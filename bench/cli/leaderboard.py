"""`bench leaderboard RUN ... -o results/leaderboard.csv [--md FILE]`: one row per model and
dataset with rank intervals from corrected pairwise tests. See bench/reporting/leaderboard.py."""
from __future__ import annotations

import argparse
import sys
from bench.core.io import atomic_write_text
from bench.reporting.leaderboard import build


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or result.json files); few-shot results too")
    p.add_argument("-o", "--output", default=None, metavar="CSV", help="CSV file (default: stdout)")
    p.add_argument("--md", nargs="?", const="-", default=None, metavar="FILE",
                   help="also write Markdown (to FILE, or stdout without FILE)")
    p.add_argument("--metric", action="append", default=None,
                   help="measure(s) to show; repeat for several (default: the first measure)")
    p.add_argument("--rank-by", default="VARIATIONS (AVG.)",
                   help="set whose first-metric score ranks the models (default: VARIATIONS (AVG.); or ORIGINAL)")
    p.add_argument("--test", default="t-test", choices=["t-test", "randomization", "wilcoxon"],
                   help="paired test that separates two models (two-sided; default t-test)")
    p.add_argument("--correction", default="holm", choices=["holm", "bh", "none"],
                   help="correction over the k(k-1)/2 model pairs of a dataset (default holm: simultaneous intervals)")
    p.add_argument("--alpha", type=float, default=0.05, help="level of the pairwise separations (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization test's resamples")


def run(args: argparse.Namespace) -> int:
    board = build(args.runs, metrics=args.metric, rank_by=args.rank_by, seed=args.seed, test=args.test,
                  correction=args.correction, alpha=args.alpha)
    text = board.csv()
    if args.output:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    elif args.md != "-":
        sys.stdout.write(text)
    if args.md:
        md = board.markdown()
        if args.md == "-":
            sys.stdout.write(md)
        else:
            atomic_write_text(args.md, md)
            print(f"wrote {args.md}", file=sys.stderr)
    return 0
