"""`bench compare RUN ...`: models x sets table of one metric with corrected significance
markers (vs each model's ORIGINAL and optionally vs a baseline run), win/tie/loss."""
from __future__ import annotations

import argparse
import sys
from bench.core.io import atomic_write_text
from bench.evaluation.stats import CORRECTIONS, TESTS
from bench.reporting.compare import compare


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or their result.json)")
    p.add_argument("--baseline", default=None, metavar="RUN", help="also test every run against this run, set by set")
    p.add_argument("--metric", default=None, help="measure (default: the first run's first measure)")
    p.add_argument("--test", choices=TESTS, default="t-test")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization test")
    p.add_argument("--format", choices=("md", "csv"), default="md")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    table = compare(args.runs, metric=args.metric, baseline=args.baseline, test=args.test,
                    correction=args.correction, alpha=args.alpha, seed=args.seed)
    text = table.markdown() if args.format == "md" else table.csv()
    if args.output:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
