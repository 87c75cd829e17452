"""`bench evaluate --model CKPT --suite variations [--dataset D] [--seed N] [--metrics ...] [--out DIR]`"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.evaluation.measures import DEFAULT_MEASURES


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
    p.add_argument("--queries", type=Path, default=None, help="evaluate only the query ids listed in this file (one "
                                                              "per line), e.g. a checkpoint's heldout_queries.txt")
    p.add_argument("--trec-runs", action="store_true", help="also write TREC run files")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--executor", default="local",
                   help="where corpus shards and independent work units run: local (default) or ray "
                        '(pip install "drbench[ray]")')
    p.add_argument("--address", default=None,
                   help="with --executor ray: auto (the cluster of `ray start --head` here), HOST:PORT or "
                        "ray://HOST:PORT (default: start a local Ray instance)")
    p.add_argument("--shard-size", type=int, default=None,
                   help="documents per corpus shard: the unit of encoding, caching, resuming and retrying "
                        "(default: 50000; a smaller corpus is one shard)")
    ix = p.add_argument_group("index options (dense models; an approximate index is recorded in result.json with "
                              "its measured recall against exact search)")
    ix.add_argument("--index", default="flat", choices=["flat", "ivf", "hnsw"],
                    help="flat: exact inner product (default); ivf: faiss IndexIVFFlat; hnsw: faiss IndexHNSWFlat")
    ix.add_argument("--nlist", type=int, default=None,
                    help="IVF lists (default: round(4*sqrt(N)) capped at N//39 for N documents)")
    ix.add_argument("--nprobe", type=int, default=32, help="IVF lists visited per query (default: 32, at most nlist)")
    ix.add_argument("--hnsw-m", type=int, default=32, help="HNSW neighbours per node, M (default: 32)")
    ix.add_argument("--ef-search", type=int, default=128,
                    help="HNSW efSearch (default: 128; at least top-k + 16 is used)")
    ix.add_argument("--recall-queries", type=int, default=1000,
                    help="ORIGINAL queries whose approximate top-k is compared with exact search (all when fewer; "
                         "else a seeded sample; default: 1000)")
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
    from suites.domain import add_arguments as add_domain_arguments

    add_domain_arguments(p.add_argument_group("domain suite options (training options as for fewshot)"))
    g = p.add_argument_group("model overrides (for folders without a sentence-transformers config)")
    g.add_argument("--pooling", choices=["mean", "cls"])
    g.add_argument("--similarity", choices=["dot", "cos"])
    g.add_argument("--query-prefix")
    g.add_argument("--passage-prefix")
    g.add_argument("--max-query-length", type=int)
    g.add_argument("--max-passage-length", type=int)


def _slug(s: str) -> str:
    from bench.core.io import safe_name

    return safe_name(Path(s).name if ("/" in s or "\\" in s) else s)


def run(args) -> int:
    from bench.data.collections import load_dataset
    from bench.core.errors import BenchError
    from bench.encoding.executor import make_executor
    from bench.evaluation.measures import parse_measures
    from bench.models.spec import resolve_model
    from suites import SUITES

    suite = SUITES.canonical(args.suite)
    if args.top_k < 1:
        raise BenchError("--top-k must be at least 1")
    measures = parse_measures(args.metrics)
    spec = resolve_model(args.model).with_overrides(
        pooling=args.pooling, similarity=args.similarity, query_prefix=args.query_prefix,
        passage_prefix=args.passage_prefix, max_query_length=args.max_query_length,
        max_passage_length=args.max_passage_length)
    index = _index_config(args)
    if suite != "variations" and (index.approximate or args.shard_size is not None):
        raise BenchError(f"--index and --shard-size apply to the variations suite (suite {suite} searches with "
                         f"the exact index over the default shards)")
    if args.shard_size is not None:
        from bench.encoding.shards import check_shard_size

        check_shard_size(args.shard_size)
    executor = make_executor(args.executor, args.address)  # a bad --executor / --address fails before loading
    try:
        dataset = load_dataset(args.dataset, args.split)
        if args.queries is not None:
            from bench.data.collections import restrict_queries

            dataset = restrict_queries(dataset, args.queries)
        out = args.out or Path("runs") / f"{_slug(spec.name)}__{_slug(dataset.name)}__{suite}__s{args.seed}"
        return _run_suite(args, suite, spec, dataset, measures, index, executor, out)
    finally:
        shutdown = getattr(executor, "shutdown", None)
        if shutdown is not None:
            shutdown()


def _index_config(args):
    from bench.core.errors import BenchError
    from bench.search.ann import IndexConfig

    defaults = {"nlist": None, "nprobe": 32, "hnsw_m": 32, "ef_search": 128}
    if args.index == "flat":
        changed = [f"--{k.replace('_', '-')}" for k, v in defaults.items() if getattr(args, k) != v]
        if changed:
            raise BenchError(f"{', '.join(changed)} configure an approximate index; add --index ivf or --index hnsw")
    return IndexConfig(kind=args.index, nlist=args.nlist, nprobe=args.nprobe, hnsw_m=args.hnsw_m,
                       ef_search=args.ef_search, seed=args.seed, recall_queries=args.recall_queries)


def approximation_line(result: dict) -> str:
    """The console line of an approximate index: what it was and how close to exact it came."""
    r = result.get("retrieval", {})
    rec = r.get("recall_vs_exact")
    if not rec:
        return ""
    params = ", ".join(f"{k}={v}" for k, v in r.get("index_params", {}).items()
                       if k not in ("kind", "nlist_source", "nprobe_clamped", "train_seed"))
    recalls = ", ".join(f"{k} {v:.4f}" for k, v in rec.items() if k.startswith("recall@"))
    return (f"approximate index {r['index']} ({params}): {recalls} against exact search on {rec['queries']}. "
            f"The metrics above are those of the approximate index.")


def _run_suite(args, suite, spec, dataset, measures, index, executor, out) -> int:
    from bench.core.errors import BenchError
    from suites import SUITES

    if suite == "variations":
        from perturb import GENERATORS
        from suites.variations import VariationsConfig, run as run_suite

        gens = None
        if args.generators:
            gens = [GENERATORS.canonical(g.strip()) for g in args.generators.split(",") if g.strip()]
        cfg = VariationsConfig(seed=args.seed, measures=measures, top_k=args.top_k, generators=gens,
                               variations_dir=args.variations, write_runs=args.trec_runs, batch_size=args.batch_size,
                               progress=not args.no_progress,
                               statistics={"test": args.test, "correction": args.correction},
                               index=index, shard_size=args.shard_size)
        print(f"bench: {spec.name} on {dataset.name} ({len(dataset.corpus)} docs, "
              f"{len(dataset.judged_query_ids())} judged queries), suite {suite}, seed {args.seed}", file=sys.stderr)
        out_ = run_suite(spec, dataset, cfg, out, executor=executor)
        from bench.reporting.tables import variations_table

        print(variations_table(out_["result"]))
        line = approximation_line(out_["result"])
        if line:
            print(f"\n{line}")
        print(f"\nresult: {out / 'result.json'}  per-query: {out / 'per_query.csv'}")
        return 0
    if suite == "fewshot":
        from suites.fewshot import run_from_args

        return run_from_args(args, spec, dataset, out, executor)
    if suite == "domain":
        from suites.domain import run_from_args

        return run_from_args(args, spec, dataset, out, executor, measures)
    SUITES.get(suite)  # resolves or raises
    raise BenchError(f"suite {suite!r} is registered but has no command-line runner yet")
