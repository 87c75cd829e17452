"""`bench compare RUN ...`: models x sets table of one metric with corrected significance
markers (vs each model's ORIGINAL and optionally vs a baseline run), win/tie/loss."""
from __future__ import annotations

import argparse
import sys
from bench.cli.options import read_metric
from bench.config import check_at_least_one
from bench.core.errors import BenchError
from bench.cli.outputs import add_force, check_replaceable, write_outputs
from bench.evaluation.stats import CORRECTIONS, TESTS
from bench.reporting.compare import compare


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or their result.json)")
    p.add_argument("--baseline", default=None, metavar="RUN", help="also test every run against this run, set by set")
    p.add_argument("--metric", default=None, help="measure (default: the first run's first measure)")
    p.add_argument("--test", choices=TESTS, default="t-test", help="paired test of each run against --baseline (default: t-test)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm", help="multiple-comparison correction (default: holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization test and of the drop-rate bootstrap")
    p.add_argument("--resamples", type=int, default=10000, metavar="B",
                   help="drop rate of comparable run pairs: bootstrap replicates and Monte Carlo swaps (default 10000)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the drop-rate interval (default 0.95)")
    p.add_argument("--drop-rate-output", default=None, metavar="CSV",
                   help="also write the drop-rate comparisons of comparable run pairs to this CSV")
    p.add_argument("--format", choices=("md", "csv"), default="md", help="md (Markdown, default) or csv")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write here instead of stdout")
    add_force(p)


def run(args: argparse.Namespace) -> int:
    check_at_least_one(args, "resamples")
    if not 0 < args.confidence < 1:
        raise BenchError("--confidence must be in (0, 1), e.g. 0.95")
    check_replaceable([args.output, args.drop_rate_output], args.force, "-o compare.md, --drop-rate-output drop_rate.csv")
    table = compare(args.runs, metric=read_metric(args.metric), baseline=args.baseline, test=args.test,
                    correction=args.correction, alpha=args.alpha, seed=args.seed, resamples=args.resamples,
                    confidence=args.confidence)
    text = table.markdown() if args.format == "md" else table.csv()
    files = []
    if args.output and args.output != "-":
        files.append((args.output, text))
    else:
        sys.stdout.write(text)
    if args.drop_rate_output:
        files.append((args.drop_rate_output, table.drop_rate_csv()))
    if files:
        write_outputs(files, "bench compare")
    return 0
