"""`bench evaluate --model CKPT --suite variations [--dataset D] [--seed N] [--metrics ...] [--out DIR]`"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.measures import DEFAULT_MEASURES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="minilm-l6", help="registered model name or a local HF / sentence-transformers folder "
                                                          "(default: minilm-l6)")
    p.add_argument("--suite", default="variations", help="suite name (default: variations)")
    p.add_argument("--dataset", default="chatterbot", help="registered dataset, BEIR/MS MARCO folder, irds:ID or "
                                                           "trec:corpus=..,topics=..,qrels=.. (default: chatterbot)")
    p.add_argument("--split", default=None, help="qrels split (default: test; dev for MS MARCO folders)")
    p.add_argument("--seed", type=int, default=0, help="run seed (default: 0)")
    p.add_argument("--metrics", default=" ".join(DEFAULT_MEASURES),
                   help=f'measures in ir_measures syntax (default: "{" ".join(DEFAULT_MEASURES)}")')
    p.add_argument("--top-k", type=int, default=100, help="documents retrieved per query (default: 100)")
    p.add_argument("--generators", default=None, help="comma-separated subset of the variation sets (default: all eight)")
    p.add_argument("--variations", type=Path, default=None, help="evaluate frozen variation sets from this folder "
                                                                   "(written by `bench perturb` or imported)")
    p.add_argument("--out", type=Path, default=None, help="run folder (default: runs/<model>__<dataset>__<suite>__s<seed>)")
    p.add_argument("--trec-runs", action="store_true", help="also write TREC run files")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--executor", default="local", help="executor for independent work units (default: local)")
    p.add_argument("--test", default="t-test", choices=["t-test", "randomization", "wilcoxon"],
                   help="paired two-sided test of each variation set vs ORIGINAL (default: t-test, as RoDR)")
    p.add_argument("--correction", default="holm", choices=["holm", "bh", "none"],
                   help="multiple-comparison correction across the sets of a measure (default: holm)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    fs = p.add_argument_group("fewshot suite options")
    try:
        from suites.fewshot import add_arguments as add_fewshot_arguments
    except ImportError:
        pass
    else:
        add_fewshot_arguments(fs)
    g = p.add_argument_group("model overrides (for folders without a sentence-transformers config)")
    g.add_argument("--pooling", choices=["mean", "cls"])
    g.add_argument("--similarity", choices=["dot", "cos"])
    g.add_argument("--query-prefix")
    g.add_argument("--passage-prefix")
    g.add_argument("--max-query-length", type=int)
    g.add_argument("--max-passage-length", type=int)


def _slug(s: str) -> str:
    from bench.io import safe_name

    return safe_name(Path(s).name if ("/" in s or "\\" in s) else s)


def run(args) -> int:
    from bench.data import load_dataset
    from bench.errors import BenchError
    from bench.executor import EXECUTORS
    from bench.measures import parse_measures
    from bench.models import resolve_model
    from suites import SUITES

    suite = SUITES.canonical(args.suite)
    if args.top_k < 1:
        raise BenchError("--top-k must be at least 1")
    measures = parse_measures(args.metrics)
    spec = resolve_model(args.model).with_overrides(
        pooling=args.pooling, similarity=args.similarity, query_prefix=args.query_prefix,
        passage_prefix=args.passage_prefix, max_query_length=args.max_query_length,
        max_passage_length=args.max_passage_length)
    dataset = load_dataset(args.dataset, args.split)
    executor = EXECUTORS.get(args.executor)()
    out = args.out or Path("runs") / f"{_slug(spec.name)}__{_slug(dataset.name)}__{suite}__s{args.seed}"
    if suite == "variations":
        from perturb import GENERATORS
        from suites.variations import VariationsConfig, run as run_suite

        gens = None
        if args.generators:
            gens = [GENERATORS.canonical(g.strip()) for g in args.generators.split(",") if g.strip()]
        cfg = VariationsConfig(seed=args.seed, measures=measures, top_k=args.top_k, generators=gens,
                               variations_dir=args.variations, write_runs=args.trec_runs, batch_size=args.batch_size,
                               progress=not args.no_progress,
                               statistics={"test": args.test, "correction": args.correction})
        print(f"bench: {spec.name} on {dataset.name} ({len(dataset.corpus)} docs, "
              f"{len(dataset.judged_query_ids())} judged queries), suite {suite}, seed {args.seed}", file=sys.stderr)
        out_ = run_suite(spec, dataset, cfg, out, executor=executor)
        from bench.tables import variations_table

        print(variations_table(out_["result"]))
        print(f"\nresult: {out / 'result.json'}  per-query: {out / 'per_query.csv'}")
        return 0
    if suite == "fewshot":
        from suites.fewshot import run_from_args

        return run_from_args(args, spec, dataset, out, executor)
    SUITES.get(suite)  # resolves or raises
    raise BenchError(f"suite {suite!r} is registered but has no command-line runner yet")
