"""`bench report RUN -o report.html`: one self-contained HTML page (plots embedded) or, with
`--format md`, Markdown for a PR comment / CI step summary. See bench/reporting/report/render.py."""
from __future__ import annotations

import argparse
import sys
from bench.cli.outputs import STDOUT, add_force, check_output_files, write_output_files
from bench.evaluation.stats import CORRECTIONS, TESTS
from bench.reporting.report import ReportOptions, report
from bench.results.rundir import _resolve
from bench.cli.options import read_metric


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="run folder (or its result.json)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="output file (default: RUN/report.html for html, stdout for md; '-' = stdout)")
    p.add_argument("--format", choices=("html", "md"), default="html", help="html (default) or md (Markdown)")
    p.add_argument("--metric", default=None, help="measure of the per-query scatter plots (default: first)")
    p.add_argument("--test", choices=TESTS, default=None,
                   help="paired test (default: as recorded in the run's statistics, else t-test)")
    p.add_argument("--correction", choices=CORRECTIONS, default=None, help="default: as recorded, else holm")
    p.add_argument("--seed", type=int, default=None, help="bootstrap / randomization seed (default: as recorded)")
    p.add_argument("--bootstrap", type=int, default=None, metavar="B", help="bootstrap resamples (default: as recorded, else 1000)")
    p.add_argument("--alpha", type=float, default=None, help="significance level (default: as recorded, else 0.05)")
    p.add_argument("--no-plots", action="store_true", help="HTML without plots (no matplotlib needed)")
    add_force(p)


def run(args: argparse.Namespace) -> int:
    out = args.output
    if out is None and args.format == "html":
        out = str(_resolve(args.run) / "report.html")
    check_output_files([("-o", out)], args.force, "-o my-report.html", "bench report")
    opts = ReportOptions(test=args.test, correction=args.correction, seed=args.seed, bootstrap=args.bootstrap,
                         alpha=args.alpha, metric=read_metric(args.metric))
    text = report(args.run, args.format, opts, plots=not args.no_plots)
    if out in (None, STDOUT):
        sys.stdout.write(text)
    else:
        write_output_files([(out, text)], "bench report")
    return 0
