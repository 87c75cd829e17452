"""`bench gate`: exit 0 when the candidate holds against the baseline, 1 when it regressed,
2 when the runs cannot be compared or an input is bad. See bench/reporting/gate.py and docs/gate.md."""
from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    from bench.evaluation.stats import CORRECTIONS, DEFAULT_RESAMPLES, TESTS

    p.add_argument("--baseline", required=True, metavar="RUN", help="baseline run folder (or its result.json)")
    p.add_argument("--candidate", required=True, metavar="RUN", help="candidate run folder (or its result.json)")
    p.add_argument("--metric", default=None, help="measure to gate on (default: the baseline's first measure)")
    p.add_argument("--max-drop-rate", type=float, default=0.0, metavar="X",
                   help="tolerated increase of a drop rate, candidate minus baseline (default 0)")
    p.add_argument("--max-regression", type=float, default=0.0, metavar="D",
                   help="tolerated fall of the metric in any set, absolute points (default 0)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level after correction (default 0.05)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm", help="multiple-comparison correction (default holm)")
    p.add_argument("--require", choices=("both", "drop", "significance"), default="both",
                   help="a check regresses when beyond tolerance AND significant (both, default), or either alone")
    p.add_argument("--test", choices=TESTS, default="t-test", help="paired test of the metric checks (default t-test)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization tests (default 0)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="Monte Carlo resamples (default 10000)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="also write the Markdown verdict here (e.g. $GITHUB_STEP_SUMMARY; appended when it exists "
                        "and --append is given)")
    p.add_argument("--append", action="store_true", help="append to --output instead of replacing it")
    p.add_argument("--json", default=None, metavar="FILE", help="write the verdict as JSON")


def run(args: argparse.Namespace) -> int:
    from bench.core.errors import BenchError
    from bench.reporting.gate import GateOptions, run_gate
    from bench.core.io import atomic_write_json, atomic_write_text

    opts = GateOptions(metric=args.metric, max_drop_rate=args.max_drop_rate, max_regression=args.max_regression,
                       alpha=args.alpha, correction=args.correction, require=args.require, test=args.test,
                       seed=args.seed, n_resamples=args.resamples)
    try:
        opts.validate()
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    verdict = run_gate(args.baseline, args.candidate, opts)
    text = verdict.markdown()
    sys.stdout.write(text)
    if args.output:
        if args.append:
            with open(args.output, "a", encoding="utf-8") as fh:
                fh.write(text)
        else:
            atomic_write_text(args.output, text)
    if args.json:
        atomic_write_json(args.json, verdict.to_dict())
    return verdict.exit_code
