"""`bench gate`: exit 0 PASS (non-inferiority shown), 1 FAIL (a regression beyond the margins is
shown), 2 when the runs cannot be compared or an input is bad; INCONCLUSIVE (neither shown) exits
0 with a loud warning, 1 with --strict. See bench/reporting/gate/verdict.py and docs/gate.md."""
from __future__ import annotations

import argparse
import os
import sys
from bench.core.errors import BenchError
from bench.cli.outputs import add_force, append_output_file, check_output_files, write_output_files
from bench.core.io import canonical_json
from bench.evaluation.stats import DEFAULT_RESAMPLES, TESTS
from bench.reporting.gate import CORRECTIONS, FAMILIES, GateOptions, run_gate
from bench.cli.options import read_metric


EXIT_CODES = ("exit codes: 0 PASS (non-inferiority shown), or INCONCLUSIVE (neither non-inferiority nor a "
              "regression shown; a warning is printed) without --strict; 1 FAIL (a regression beyond the margins "
              "shown), or INCONCLUSIVE with --strict; 2 the runs cannot be compared (other queries, sets, "
              "protocol, depth or generation seeds) or an input or option is bad. docs/gate.md has the rules.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EXIT_CODES
    p.add_argument("--baseline", required=True, metavar="RUN", help="baseline run folder (or its result.json)")
    p.add_argument("--candidate", required=True, metavar="RUN", help="candidate run folder (or its result.json)")
    p.add_argument("--metric", default=None, help="measure to gate on (default: the baseline's first measure)")
    p.add_argument("--max-drop-rate", type=float, default=0.0, metavar="X",
                   help="margin: tolerated increase of a drop rate, candidate minus baseline (default 0)")
    p.add_argument("--max-regression", type=float, default=0.0, metavar="D",
                   help="margin: tolerated fall of the metric in any set, absolute points (default 0)")
    p.add_argument("--alpha", type=float, default=0.05, help="family-wise error rate / 1 - confidence (default 0.05)")
    p.add_argument("--correction", choices=CORRECTIONS, default="maxt",
                   help="multiple-comparison correction (default maxt: Westfall-Young max-T, correlation-aware)")
    p.add_argument("--family", choices=FAMILIES, default="hierarchy",
                   help="hierarchy (default): ORIGINAL and VARIATIONS (AVG.) decide, the sets localise; "
                        "all: every check decides")
    p.add_argument("--test", choices=TESTS, default="t-test",
                   help="per-check test with --correction holm/bh/none (default t-test)")
    p.add_argument("--strict", action="store_true", help="exit 1 on an INCONCLUSIVE verdict (default: 0, warning)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization tests (default 0)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="Monte Carlo resamples (default 10000)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="also write the Markdown verdict here (e.g. $GITHUB_STEP_SUMMARY; appended when it exists "
                        "and --append is given)")
    p.add_argument("--append", action="store_true", help="append to --output instead of replacing it")
    p.add_argument("--json", default=None, metavar="FILE", help="write the verdict as JSON")
    add_force(p)


def run(args: argparse.Namespace) -> int:
    opts = GateOptions(metric=read_metric(args.metric), max_drop_rate=args.max_drop_rate, max_regression=args.max_regression,
                       alpha=args.alpha, correction=args.correction, family=args.family, test=args.test,
                       seed=args.seed, n_resamples=args.resamples, strict=args.strict)
    try:
        opts.validate()
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    fix = "-o verdict.md, --json verdict.json, or --append"
    check_output_files([("-o", args.output), ("--json", args.json)], args.force, fix, "bench gate",
                       appended=("-o",) if args.append else ())
    verdict = run_gate(args.baseline, args.candidate, opts)
    text = verdict.markdown()
    sys.stdout.write(text)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in verdict.annotations():
            sys.stdout.write(line + "\n")
    if verdict.status == "INCONCLUSIVE":
        sys.stderr.write("bench gate: WARNING: INCONCLUSIVE - no regression beyond the margins is shown, but neither "
                         "is non-inferiority; this is not evidence that the candidate holds"
                         + (" (exit 1: --strict)" if args.strict else " (exit 0; --strict makes it 1)") + "\n")
    # the low-power warnings are in the verdict above (stdout), once: not repeated here
    files = []
    if args.output:
        if args.append:
            append_output_file(args.output, text, "bench gate")
        else:
            files.append((args.output, text))
    if args.json:
        files.append((args.json, canonical_json(verdict.to_dict())))
    if files:
        write_output_files(files, "bench gate")
    return verdict.exit_code
