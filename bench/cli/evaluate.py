"""`bench evaluate --model CKPT --suite SUITE [--dataset D] [--seed N] [--metrics ...] [--out DIR]`

Every registered suite (bench.results.suite.SUITES) adds its own option group; an option of
another suite, or a shared option the chosen suite does not honour, is refused when it was set.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Dict, List, Tuple

from bench.cli.options import EVALUATE_RUNTIME, add_options, check_at_least_one, check_label, slug
from bench.encoding import runtime
from bench.core.errors import BenchError
from bench.core.io import safe_name
from bench.core.options import Option, option
from bench.evaluation.measures import DEFAULT_MEASURES
from bench.results.suite import SUITES, suite_named
from bench.core.paths import check_cache_home, check_writable_folder
from bench.data.collections import load_dataset
from bench.encoding.executor import make_executor
from bench.evaluation.measures import canonical_measures, parse_measures, trec_eval_notes
from bench.models.spec import resolve_model

COMMON = (
    option("--model", default="minilm-l6",
           help="registered model name or a local HF / sentence-transformers folder (default: minilm-l6)"),
    option("--name", default=None, help="label of the model in the result, reports and the default run folder "
                                        "(default: the registered name, or the model folder's last component)"),
    option("--dataset", default="chatterbot", help="registered dataset, BEIR/MS MARCO folder, irds:ID or "
                                                   "trec:corpus=..,topics=..,qrels=.. (default: chatterbot)"),
    option("--split", default=None, help="qrels split (default: test; dev for MS MARCO folders)"),
    option("--seed", type=int, default=0, help="run seed (default: 0)"),
    option("--metrics", default=" ".join(DEFAULT_MEASURES),
           help=f'measures, trec_eval-equal (default: "{" ".join(DEFAULT_MEASURES)}")'),
    option("--out", type=Path, default=None, help="run folder (default: runs/<model>__<dataset>__<suite>__s<seed>, "
                                                  "plus __h<hash> when options that change the result are set)"),
    option("--queries", type=Path, default=None, help="evaluate only the query ids listed in this file (one per "
                                                      "line), e.g. a checkpoint's heldout_queries.txt"),
    option("--batch-size", type=int, default=64, help="encoding batch size (default: 64)"),
    option("--executor", default="local", help="where corpus shards and independent work units run: local "
                                               '(default) or ray (pip install "drbench[ray]")'),
    option("--address", default=None, help="with --executor ray: auto, HOST:PORT or ray://HOST:PORT (default: "
                                            "start a local Ray instance)"),
    option("--no-progress", action="store_true",
           help="hide progress bars (plain lines outside a terminal) and status lines"),
) + EVALUATE_RUNTIME
#: options several suites share; each suite says which it honours (Suite.shared)
SHARED = (
    option("--top-k", type=int, default=100, help="documents retrieved per query (default: 100)"),
    option("--test", default="t-test", choices=["t-test", "randomization", "wilcoxon"],
           help="paired test of each set against the suite's reference (default: t-test, as RoDR)"),
    option("--correction", default="holm", choices=["holm", "bh", "none"],
           help="multiple-comparison correction across the sets of a measure (default: holm)"),
)
MODEL_OVERRIDES = (
    option("--pooling", choices=["mean", "cls"]),
    option("--similarity", choices=["dot", "cos"]),
    option("--query-prefix"),
    option("--passage-prefix"),
    option("--max-query-length", type=int),
    option("--max-passage-length", type=int),
)


def _suites() -> list:
    return [suite_named(n) for n in SUITES.names()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    names = SUITES.names()
    p.add_argument("--suite", default="variations", help=f"suite: {', '.join(names)} (default: variations)")
    taken = {"suite"}
    add_options(p, COMMON, taken)
    add_options(p.add_argument_group("options shared by several suites"), SHARED, taken)
    for suite in _suites():
        g = p.add_argument_group(f"--suite {suite.name}: {suite.description}")
        add_options(g, suite.options, taken)
    add_options(p.add_argument_group("model overrides (for folders without a sentence-transformers config)"),
                MODEL_OVERRIDES, taken)


def refuse_foreign_options(args, suite) -> None:
    """Options that belong to other suites (or shared options the suite ignores) must not be set."""
    suites = _suites()
    own = {o.dest for o in suite.options} | set(suite.shared)
    owners: Dict[str, List[str]] = {}  # dest -> the suites that take it
    defaults = {}  # dest -> (flag, default)
    for other in suites:
        for o in other.options:
            owners.setdefault(o.dest, []).append(other.name)
            defaults[o.dest] = (o.flags[0], o.default)
    for o in SHARED:
        owners[o.dest] = owners.get(o.dest, []) + [s.name for s in suites if o.dest in s.shared]
        defaults[o.dest] = (o.flags[0], o.default)
    wrong = []
    for dest, (flag, default) in sorted(defaults.items()):
        if dest not in own and getattr(args, dest, default) != default:
            users = sorted(set(owners.get(dest, [])))
            wrong.append(f"{flag} (applies to {', '.join('--suite ' + u for u in users) or 'no suite'})")
    if wrong:
        raise BenchError(f"option(s) not used by --suite {suite.name}: {'; '.join(wrong)}. Remove them, or pick the "
                         f"suite they belong to")


class _Parser(argparse.ArgumentParser):
    """Raises BenchError instead of printing usage and exiting (for the Python API)."""

    def error(self, message: str):
        raise BenchError(message)


def namespace(**values) -> argparse.Namespace:
    """The options of ``bench evaluate`` from Python values (``bench.evaluate(**values)``), parsed
    and checked by the same parser as the command line. Keys are option dests (``top_k``); a list
    is given as its comma-separated text; ``None`` keeps the default; a flag takes True / False."""
    import difflib

    parser = _Parser(prog="bench.evaluate", add_help=False)
    add_arguments(parser)
    declared = {"suite": option("--suite")}
    for o in COMMON + SHARED + MODEL_OVERRIDES + tuple(o for s in _suites() for o in s.options):
        declared.setdefault(o.dest, o)
    argv: List[str] = []
    for key, value in values.items():
        dest = key.replace("-", "_")
        if dest not in declared:
            close = difflib.get_close_matches(dest, list(declared), n=1)
            raise BenchError(f"unknown option {key!r}" + (f"; did you mean {close[0]!r}?" if close else "") +
                             f" (options: {', '.join(sorted(declared))})")
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


#: options that do not change the numbers of a run (they are left out of the default folder's hash)
NOT_IN_RESULT = frozenset({"out", "executor", "address", "no_progress", "trec_runs", "shard_size", "no_plots",
                           "device"})  # metrics compare across devices (bench.encoding.runtime.COMPARABILITY)


def changed_options(args, suite) -> List[Tuple[Option, object]]:
    """The options that can change the result and differ from their defaults, with their values
    (``--metrics`` in its canonical spelling), in flag order: what the default folder's hash covers
    and what the "another model" command repeats."""
    changed = {}
    for o in COMMON + SHARED + MODEL_OVERRIDES + tuple(suite.options):
        if o.dest in NOT_IN_RESULT or o.dest in ("model", "name", "dataset", "seed"):
            continue
        value = getattr(args, o.dest, o.default)
        if o.dest == "metrics":
            value = canonical_measures(value)
            if value == canonical_measures(o.default):
                continue
        if value != o.default:
            changed.setdefault(o.flags[0], (o, value))
    return [changed[flag] for flag in sorted(changed)]


def default_out(args, suite, model_label: str, dataset_name: str) -> Tuple[Path, List[str]]:
    """The default run folder ``runs/<model>__<dataset>__<suite>__s<seed>`` and, when options that
    can change the result differ from their defaults, ``__h<8 hex>``: the SHA-256 of those options'
    ``--flag=value`` texts (sorted; values as given, except ``--metrics``: its canonical spelling,
    :func:`bench.evaluation.measures.canonical_measures`, so ``mrr@10`` and ``MRR@10`` are one run).
    Returns the folder and those texts (a hash key, not a command line: the commands printed for
    the user are built by :func:`bench.cli.next_steps.option_argv`)."""
    import hashlib

    changed = sorted({f"{o.flags[0]}={value}" for o, value in changed_options(args, suite)})
    name = f"{model_label}__{slug(dataset_name)}__{suite.name}__s{args.seed}"
    if changed:
        name += "__h" + hashlib.sha256("\x1f".join(changed).encode("utf-8")).hexdigest()[:8]
    return Path("runs") / name, changed


def _refuse_other_dataset(out: Path, dataset) -> None:
    """A default run folder holding a run of another dataset with the same name is not overwritten."""
    import json

    try:
        old = json.loads((out / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    had = str((old.get("dataset") or {}).get("fingerprint", ""))
    now = str(dataset.fingerprint())
    if had and now and had != now:
        raise BenchError(f"run folder {out} holds a run of another dataset named {dataset.name!r} (fingerprint "
                         f"{had[:12]}..., this one {now[:12]}...); not overwritten. Fix: give --out a new folder")


def run(args) -> int:
    import time

    from bench.cli.next_steps import duration, next_steps

    t0 = time.perf_counter()
    code, out = execute(args)
    print(f"\ntotal time {duration(time.perf_counter() - t0)} (bench evaluate, start to end)")
    if code == 0:
        suite = suite_named(SUITES.canonical(args.suite))
        print("\n".join(next_steps(out, args, suite.name, bool(getattr(suite, "gated", False)),
                                   changed_options(args, suite))))
    return code


def execute(args) -> Tuple[int, Path]:
    """Run the chosen suite; the exit code and the run folder."""
    suite = suite_named(SUITES.canonical(args.suite))
    refuse_foreign_options(args, suite)
    check_at_least_one(args, "top_k", "batch_size")
    measures = parse_measures(args.metrics)
    for note in trec_eval_notes(args.metrics):
        print(f"bench: --metrics {note}", file=sys.stderr)
    from bench.cli.next_steps import check_dataset
    from bench.data.collections import DATASETS

    from bench.data.objects import dataset_from_object, is_dataset_object
    from bench.models.objects import is_encoder_object, object_spec

    if not is_dataset_object(args.dataset):
        check_dataset(args.dataset, DATASETS.names())  # before any model or data is loaded
    if is_encoder_object(args.model):
        if not getattr(suite, "takes_objects", False):
            raise BenchError(f"--suite {suite.name} trains or loads the model's weights; a model object can be "
                             f"evaluated by --suite variations. Fix: give a model folder, or suite='variations'")
        for flag, value, default in (("device", args.device, "auto"), ("dtype", args.dtype, None),
                                     ("backend", args.backend, "torch"), ("executor", args.executor, "local")):
            if value not in (default, None):
                raise BenchError(f"{flag}={value!r} applies to model folders; a model object runs where it is. "
                                 f"Fix: remove {flag}=")
        spec = object_spec(args.model, name=None if args.name is None else check_label(args.name),
                           revision=getattr(args, "revision", None), similarity=args.similarity,
                           batch_size=args.batch_size)
    else:
        spec = resolve_model(args.model)
    spec = spec.with_overrides(
        pooling=args.pooling, similarity=args.similarity, query_prefix=args.query_prefix,
        passage_prefix=args.passage_prefix, max_query_length=args.max_query_length,
        max_passage_length=args.max_passage_length)
    if args.name is not None:
        spec = dataclasses.replace(spec, name=check_label(args.name))
    if not is_encoder_object(args.model):
        spec = runtime.apply(spec, args.device, args.dtype, args.backend)
    print(spec.describe(), file=sys.stderr)
    if spec.kind == "dense" and runtime.record(spec) is not None:
        print(runtime.describe(spec), file=sys.stderr)
    out_fix = "give --out a new or writable folder"
    if args.out is not None:
        check_writable_folder(args.out, "--out", out_fix)
    if spec.kind == "dense":
        check_cache_home()
    executor = make_executor(args.executor, args.address)  # a bad --executor / --address fails before loading
    try:
        if is_dataset_object(args.dataset):
            dataset = dataset_from_object(args.dataset, getattr(args, "dataset_name", None), args.split or "test")
        else:
            dataset = load_dataset(args.dataset, args.split)
        if args.queries is not None:
            from bench.data.collections import restrict_queries

            dataset = restrict_queries(dataset, args.queries)
        out = args.out
        if out is None:  # an explicit --out was checked before any work
            label = safe_name(spec.name, "model") if args.name is not None else slug(spec.name)
            out, changed = default_out(args, suite, label, dataset.name)
            check_writable_folder(out, "--out", out_fix)
            _refuse_other_dataset(out, dataset)
            if changed:
                print(f"run folder {out} (options that change the result: {' '.join(changed)})", file=sys.stderr)
        from bench.encoding.objects import scratch_root

        with scratch_root(spec) as scratch:  # an unnamed model object: its vectors for this run only
            if scratch is not None:
                spec = dataclasses.replace(spec, scratch=str(scratch))
            return int(suite.run(args, spec, dataset, measures, out, executor) or 0), Path(out)
    finally:
        shutdown = getattr(executor, "shutdown", None)
        if shutdown is not None:
            shutdown()
