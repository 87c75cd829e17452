"""Suite ``variations``: ORIGINAL plus the eight query-variation sets of RoDR (IJCAI 2022).

Every judged query is evaluated in every set. A query that a generator could not change keeps
its original text in that set and is counted as not applicable (``applied`` = 0), as in the
RoDR protocol. A generator that cannot run here (a missing resource) is listed with status
``missing`` and the reason, never skipped silently; VARIATIONS (AVG.) averages the sets that ran
and names them.
"""
from __future__ import annotations


from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

from bench.data.model import Dataset
from bench.core.errors import BenchError
from bench.core.options import name_list, option
from bench.evaluation import exact
from bench.evaluation.measures import Measure
from bench.models.spec import ModelSpec
from bench.core.timing import Timer
from bench.search.retriever import make_retriever
from bench.results.rundir import AVG, ORIGINAL
from bench.results.suite import Suite
from bench.search.exact import TIE_BREAK
from bench.core.progress import stage
from bench.encoding.executor import LocalExecutor
from bench.evaluation.measures import per_query
from bench.evaluation.stats import variation_statistics
from bench.reporting.tables import subsets_table, variations_table
from bench.results import applicability as AP
from bench.results.writer import per_query_csv, result_header, write_run
from bench.search.ann import IndexConfig
from bench.search.exact import trec_id_problem
from perturb import DEFAULT_PROTOCOL, GENERATORS, PAPER_ORDER, PROTOCOLS
from perturb.checks.labels import check_match, match_labels, read_label_files
from perturb.io.sets import VariationSet, check_set_names
from perturb.io.generation import generate_many, set_notes
from suites.variations.subsets import human_labels, label_column, subsets
from suites.variations.frozen import read_frozen
from suites.variations.protocol import protocol_report, run_protocol
from suites.variations.truncation import model_view, truncation_lines
from suites.variations import draws as DR


@dataclass
class VariationsConfig:
    seed: int = 0
    measures: Sequence[Measure] = ()
    top_k: int = 100
    generators: Optional[Sequence[str]] = None  # None: the paper's eight
    variations_dir: Optional[Path] = None  # evaluate frozen sets instead of generating
    write_runs: bool = False
    batch_size: int = 64
    cache_root: Optional[Path] = None
    progress: bool = True
    statistics: dict = field(default_factory=dict)  # options for bench.evaluation.stats (test, correction, ...)
    index: Optional[object] = None  # bench.search.ann.IndexConfig; None: exact (faiss.IndexFlatIP)
    shard_size: Optional[int] = None  # corpus shard size (None: bench.encoding.shards.DEFAULT_SHARD_SIZE)
    labels: Sequence[Path] = ()  # human validity label files (perturb.checks.labels): valid-only figures
    protocol: str = DEFAULT_PROTOCOL  # perturb.PROTOCOLS: "validated", or "rodr" (the paper's unconstrained operations)
    generation_seeds: Optional[Sequence[int]] = None  # None: one draw with the run seed (suites.variations.draws)
    depth: Optional[str] = None  # why top_k is not --top-k (bench.config.set_depth); recorded when set


def _original_set(qids: List[str], texts: List[str]):
    return VariationSet(name=ORIGINAL, label=ORIGINAL, config={}, seed=None, qids=list(qids), texts=list(texts),
                        applied=[False] * len(qids), details=[""] * len(qids))


def build_sets(dataset: Dataset, cfg: VariationsConfig, timer: Timer):
    """ORIGINAL plus the variation sets (generated, or read from ``cfg.variations_dir``)."""
    qids = dataset.judged_query_ids()
    texts = [dataset.queries[q].text for q in qids]
    sets = [_original_set(qids, texts)]
    notes: List[str] = []
    if cfg.variations_dir is not None:
        if cfg.protocol != DEFAULT_PROTOCOL:
            raise BenchError(f"--protocol {cfg.protocol} chooses the generators; frozen sets (--variations) carry "
                             f"their own protocol in their config. Remove one of the two options")
        if cfg.generation_seeds is not None:
            raise BenchError("--generation-seeds draws new sets; frozen sets (--variations) were drawn with the seed "
                             "their files record ('# seed:'). Remove one of the two options")
        frozen, notes = read_frozen(Path(cfg.variations_dir), qids, texts, cfg.generators, timer)
        return sets + frozen, notes
    names = list(cfg.generators) if cfg.generators is not None else list(PAPER_ORDER)
    items = list(zip(qids, texts))
    seeds = DR.effective_seeds(cfg.generation_seeds, cfg.seed) or [cfg.seed]
    @contextmanager
    def around(name, ahead, cached):
        note = " (its translations ran in the background while the sets above were made)" if ahead else ""
        what = f"generating {name}: {len(items)} queries{note}"
        if cached:
            what = f"{name}: {len(items)} queries from the variation cache"
        with timer(f"generate:{name}"), stage(what, cfg.progress):
            yield

    # BACKTRANS's round trips start first and overlap the other generators (generate_many)
    made = generate_many(names, items, seeds, protocol=cfg.protocol, around=around)
    for drawn in (made[n] for n in names):  # a name given twice stays twice, as before
        sets.append(drawn[0] if len(seeds) == 1 else DR.combine(drawn, seeds, texts))
    return sets, notes


def check_trec_ids(dataset: Dataset) -> None:
    """Refuse, up front, ids that cannot be written to a TREC run file."""
    for kind, ids in (("query", dataset.judged_query_ids()), ("document", dataset.doc_ids())):
        for ident in ids:
            why = trec_id_problem(ident)
            if why:
                raise BenchError(f"{dataset.name}: {kind} id {ident!r} cannot be written to a TREC run file: {why}. "
                                 f"Rename the ids in the collection, or run without --trec-runs")


def _drop(orig: float, var: float) -> Optional[float]:
    return None if orig == 0 else (orig - var) / orig


def _set_entry(vs, cfg: VariationsConfig, outputs: dict, names: List[str], orig_metrics: dict, truncated: dict
               ) -> Tuple[dict, list]:
    """One set's entry of the result (its scores, drop rates, applicability, edit types) and its
    per-query rows (none for a set that could not be evaluated)."""
    source = getattr(vs, "source", "generated")
    if cfg.variations_dir is not None and vs.name != ORIGINAL and source == "generated":
        source = "frozen"  # read from --variations (generated by an earlier run)
    entry = {"name": vs.name, "label": vs.label, "status": vs.status, "source": source,
             "config": vs.config, "n_queries": len(vs.qids)}
    if vs.status != "ok":
        entry["reason"] = vs.reason
        return entry, []
    values = outputs[vs.name][1]
    metrics = {n: _mean(values[n].values()) for n in names}
    entry.update(fingerprint=getattr(vs, "made_fingerprint", None) or vs.fingerprint(), n_applied=int(sum(vs.applied)), n_evaluated=len(vs.qids),
                 metrics=metrics,
                 drop_rate=None if vs.name == ORIGINAL else {n: _drop(orig_metrics[n], metrics[n]) for n in names})
    if vs.name != ORIGINAL:
        entry.update(applicability=AP.share(entry["n_applied"], entry["n_evaluated"]),
                     edit_types=AP.count_edit_types(vs.details, vs.applied))
        entry.update(DR.entry_update(vs, outputs, ORIGINAL, names))  # several draws: edit types of all, "draws"
    too_long = getattr(vs, "too_long", None) or next((d.too_long for d in getattr(vs, "draws", ()) if d.too_long),
                                                     None)
    entry.update({"too_long": too_long} if too_long else {})
    entry.update({"truncated": truncated[vs.name]} if vs.name in truncated else {})
    rows = [(vs.name, q, int(vs.applied[i]), [values[n][q] for n in names]) for i, q in enumerate(vs.qids)]
    return entry, rows


def _summary(var_ok: list, outputs: dict, sets: list, ok_sets: list, names: List[str], orig_metrics: dict,
             seed: int) -> dict:
    """The average over the evaluated variation sets (empty when there is none)."""
    if not var_ok:
        return {}
    avg = {n: _mean(e["metrics"][n] for e in var_ok) for n in names}
    return {AVG: {"sets": [e["name"] for e in var_ok], "metrics": avg,
                  "drop_rate": {n: _drop(orig_metrics[n], avg[n]) for n in names},
                  "applied_only": _applied_average(outputs, sets[0].qids,
                                                   [vs for vs in ok_sets if vs.name != ORIGINAL], names, seed)}}


def _result(spec: ModelSpec, dataset: Dataset, cfg: VariationsConfig, retriever, approximation, sets: list,
            set_entries: list, var_ok: list, summary: dict, notes: list, names: List[str], gen_seeds) -> dict:
    """The result file's content, before statistics and subsets."""
    return {
        **result_header("variations", spec, dataset, cfg.seed),
        "measures": names,
        "retrieval": {"top_k": cfg.top_k, "index": retriever.index_name, "similarity": retriever.similarity,
                      "tie_break": TIE_BREAK, **retriever.index_record(cfg.top_k),
                      **({"depth": cfg.depth} if cfg.depth else {}),
                      **({"recall_vs_exact": approximation} if approximation is not None else {})},
        "protocol": run_protocol(sets[1:], cfg.protocol, cfg.variations_dir is not None),
        "sets": set_entries,
        "applicability": {"threshold": AP.LOW_APPLICABILITY, "definition": AP.DEFINITION,
                          "low_sets": [e["name"] for e in var_ok if AP.is_low(e["applicability"])]},
        "missing_sets": [e["name"] for e in set_entries if e["status"] != "ok"],
        "summary": summary,
        "notes": notes + (set_notes([vs.name for vs in sets[1:]], cfg.protocol) if cfg.variations_dir is None else []),
        "per_query_file": "per_query.csv",
        **({"generation_seeds": gen_seeds} if gen_seeds is not None else {}),
    }


def _write(out_dir: Path, spec: ModelSpec, cfg: VariationsConfig, timer: Timer, sets: list, as_made: dict,
           eval_sets: list, outputs: dict, result: dict, per_query_text: str, timings: dict) -> None:
    """The run folder: the variation sets as generated or read, the TREC runs (``--write-runs``), the result."""
    with timer("write"):
        from bench.core.io import safe_name
        from bench.results.writer import begin_run
        from bench.search.exact import write_trec_run
        from perturb.io.sets import set_file_name, write_tsv

        begin_run(out_dir, owned=("variations/*.tsv", "runs/*.trec"))
        for vs in (as_made[v.name] for v in sets):
            for w in (DR.written_sets(vs) if vs.status == "ok" and vs.name != ORIGINAL else ()):
                write_tsv(w, out_dir / "variations" / set_file_name(w.name))
        if cfg.write_runs:
            for vs in eval_sets:
                write_trec_run(outputs[vs.name][0], out_dir / "runs" / (set_file_name(vs.name)[:-4] + ".trec"),
                               f"drbench-{safe_name(spec.name, 'model')}")
        write_run(out_dir, result, per_query_text, timings)


def run(spec: ModelSpec, dataset: Dataset, cfg: VariationsConfig, out_dir: Optional[Path], executor=None) -> dict:
    """Evaluate ``spec`` on ``dataset``'s ORIGINAL queries and every variation set.

    Returns ``{"result": ..., "per_query": csv text, "timings": ..., "sets": [VariationSet]}``
    and writes the run folder when ``out_dir`` is given.
    """
    executor = executor or LocalExecutor()
    if cfg.write_runs and out_dir is not None:
        check_trec_ids(dataset)  # before any encoding: a bad id would only fail at the very end
    gen_seeds = DR.effective_seeds(cfg.generation_seeds, cfg.seed)
    if gen_seeds is not None and len(gen_seeds) > 1:
        DR.check_options(cfg)
    label_files = read_label_files(cfg.labels) if cfg.labels else None  # every row checked before any work
    timer = Timer()
    measures = list(cfg.measures)
    names = [m.name for m in measures]
    sets, notes = build_sets(dataset, cfg, timer)  # before the corpus is encoded: labels are matched to the sets
    check_set_names([(vs.name, vs.label, f"set {vs.name}") for vs in sets[1:]])
    as_made = {vs.name: vs for vs in sets}  # written to the run folder as generated / read
    sets, truncated = model_view(spec, sets, sets[0].texts)  # edits beyond the model's query length: not applied
    ok_sets = [vs for vs in sets if vs.status == "ok"]
    match = None
    if label_files is not None:
        match = match_labels(label_files, sets, skip=(ORIGINAL,))
        check_match(match, label_files, [vs.name for vs in ok_sets if vs.name != ORIGINAL])
        notes.extend(match.notes())
    with timer("load_model_and_corpus"):
        retriever = make_retriever(spec, dataset, timer, cache_root=cfg.cache_root, batch_size=cfg.batch_size,
                                   progress=cfg.progress, index=cfg.index, shard_size=cfg.shard_size,
                                   executor=executor)

    qrels = dataset.qrels  # what a unit needs (a remote executor ships the closure, not the corpus)
    top_k = cfg.top_k

    def evaluate(vs):
        run_ = retriever.search(vs.qids, vs.texts, top_k)
        with timer("measure"):
            values = per_query(measures, qrels, run_, vs.qids)
        return run_, values

    eval_sets = DR.evaluated_sets(ok_sets)  # a set drawn with several seeds: its draws
    retriever.prepare([t for vs in eval_sets for t in vs.texts])
    approximation = retriever.recall_vs_exact(sets[0].qids, sets[0].texts, cfg.top_k)
    outputs = dict(zip([vs.name for vs in eval_sets], executor.map(evaluate, eval_sets)))
    DR.add_combined(outputs, ok_sets, names)  # per-query means over the draws

    orig_metrics = {n: _mean(outputs[ORIGINAL][1][n].values()) for n in names}
    set_entries, rows = [], []
    for vs in sets:
        entry, set_rows = _set_entry(vs, cfg, outputs, names, orig_metrics, truncated)
        set_entries.append(entry)
        rows.extend(set_rows)
    rows.extend(DR.draw_rows(ok_sets, outputs, names))
    var_ok = [e for e in set_entries if e["status"] == "ok" and e["name"] != ORIGINAL]
    summary = _summary(var_ok, outputs, sets, ok_sets, names, orig_metrics, cfg.seed)
    result = _result(spec, dataset, cfg, retriever, approximation, sets, set_entries, var_ok, summary, notes, names,
                     gen_seeds)
    per_query_text = per_query_csv(rows, names, None if match is None else label_column(ok_sets, match))
    per_query_df = _per_query_frame(per_query_text) if cfg.statistics is not None else None  # parsed once
    if per_query_df is not None:
        with timer("statistics"):
            result["statistics"] = variation_statistics(per_query_df, [e["name"] for e in var_ok], names, seed=cfg.seed,
                                                        **cfg.statistics)
    with timer("subsets"):
        values = {vs.name: outputs[vs.name][1] for vs in ok_sets}
        result["subsets"] = subsets(ok_sets, values, names, ORIGINAL, per_query_df, cfg.seed, cfg.statistics, match)
        if match is not None:
            result["human_labels"] = human_labels(ok_sets, ORIGINAL, label_files, match)
    timings = {"seconds": {k: round(v, 4) for k, v in sorted(timer.seconds.items())},
               "encoding": retriever.stats(), "executor": executor.name}
    if out_dir is not None:
        _write(Path(out_dir), spec, cfg, timer, sets, as_made, eval_sets, outputs, result, per_query_text, timings)
    return {"result": result, "per_query": per_query_text, "timings": timings, "sets": sets}


def _applied_average(outputs, qids: List[str], var_sets, names: List[str], seed: int) -> dict:
    """The applied-only companion of VARIATIONS (AVG.) (bench.results.applicability), on ORIGINAL's queries."""
    base = outputs[ORIGINAL][1]
    orig = {n: [base[n][q] for q in qids] for n in names}
    sets = []
    for vs in var_sets:
        flags = dict(zip(vs.qids, vs.applied))
        values = outputs[vs.name][1]
        sets.append((vs.name, [bool(flags.get(q)) for q in qids], {n: [values[n][q] for q in qids] for n in names}))
    return AP.applied_only_average(orig, sets, names, seed)


def _per_query_frame(per_query_text: str):
    """The per-query table as the statistics read it (ids and labels as text)."""
    import io

    import pandas as pd

    from bench.core.sheet import unsheet_columns

    return unsheet_columns(pd.read_csv(io.StringIO(per_query_text), dtype={"set": str, "qid": str, "label": str}),
                           ("set", "qid", "label"))


def _mean(values) -> float:
    vals = list(values)
    return exact.mean(vals) if vals else 0.0


VARIATIONS_OPTIONS = (
    option("--protocol", default=DEFAULT_PROTOCOL, choices=list(PROTOCOLS),
           help="validated: the validated operations (default); rodr: the paper's unconstrained TextFlint / "
                "TextAttack operations, to compare with RoDR's tables (same set names, other fingerprints: a gate "
                "never compares the two)"),
    option("--generation-seeds", default=None, metavar="SEEDS",
           help="draw every variation set once per generation seed: a list (0,1,2,3,4) or a range (0-4). Adds per "
                "set the drop rate of each draw, their mean and SD, a 95%% interval over queries and draws and the "
                "worst of N; the paired tests use the per-query means over draws (default: the run seed alone)"),
    option("--generators", type=name_list, default=None,
           help="comma-separated subset of the variation sets (default: all eight; with --variations: the sets of "
                "that folder to evaluate, by name, default all of them)"),
    option("--variations", type=Path, default=None,
           help="evaluate frozen variation sets from this folder (written by `bench perturb` or imported)"),
    option("--trec-runs", action="store_true", help="also write TREC run files"),
    option("--labels", action="append", default=None, metavar="FILE[,FILE]",
           help="human validity labels: the audit_sample.tsv of `bench perturb --audit N` with its 'valid' column "
                "filled (1/0), or a Penha et al. CSV; repeat or separate with commas. Adds per-set human-valid "
                "rates (Wilson 95%% CI) and metrics, drop rates and tests on the valid-only queries"),
    option("--shard-size", type=int, default=None,
           help="documents per corpus shard: the unit of encoding, caching, resuming and retrying (default: 50000; "
                "a smaller corpus is one shard)"),
    option("--index", default="flat", choices=["flat", "ivf", "hnsw"],
           help="flat: exact inner product (default); ivf: faiss IndexIVFFlat; hnsw: faiss IndexHNSWFlat (an "
                "approximate index is recorded in result.json with its measured recall against exact search)"),
    option("--nlist", type=int, default=None, help="IVF lists (default: round(4*sqrt(N)) capped at N//39 for N documents)"),
    option("--nprobe", type=int, default=32, help="IVF lists visited per query (default: 32, at most nlist)"),
    option("--hnsw-m", type=int, default=32, help="HNSW neighbours per node, M (default: 32)"),
    option("--ef-search", type=int, default=128, help="HNSW efSearch (default: 128; at least top-k + 16 is used)"),
    option("--recall-queries", type=int, default=1000,
           help="ORIGINAL queries whose approximate top-k is compared with exact search (all when fewer; else a "
                "seeded sample; default: 1000)"),
)
_INDEX_DEFAULTS = {"nlist": None, "nprobe": 32, "hnsw_m": 32, "ef_search": 128}


def label_paths(values: Optional[Sequence[str]]) -> List[Path]:
    """The files of ``--labels`` (repeated, or comma-separated; a path that exists is kept whole)."""
    out: List[Path] = []
    for v in values or ():
        parts = [v] if Path(v).is_file() else [x.strip() for x in str(v).split(",") if x.strip()]
        out.extend(Path(x) for x in parts)
    return out


def index_config(args):
    """The index of the run from the parsed options (approximate-index options need --index ivf/hnsw)."""
    if args.index == "flat":
        changed = [f"--{k.replace('_', '-')}" for k, v in _INDEX_DEFAULTS.items() if getattr(args, k) != v]
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


class VariationsSuite(Suite):
    name = "variations"
    description = "RoDR's eight query-variation sets: metrics, drop rates and paired tests against ORIGINAL"
    options = VARIATIONS_OPTIONS
    shared = frozenset({"top_k", "test", "correction"})
    layout = "sets"
    reference = ORIGINAL
    gated = True
    takes_objects = True  # a model object (bench.evaluate(model=obj)) is encoded by its own methods

    def config_from_args(self, values, measures) -> VariationsConfig:
        index = index_config(values)
        if values.shard_size is not None:
            from bench.encoding.shards import check_shard_size

            check_shard_size(values.shard_size)
        gens = None
        if values.generators is not None:  # with --variations: the sets of the folder to evaluate (chosen_sets)
            names = [g.strip() for g in name_list(values.generators).split(",") if g.strip()]
            gens = names if values.variations is not None else [GENERATORS.canonical(g) for g in names]
        return VariationsConfig(seed=values.seed, measures=measures, top_k=values.top_k, generators=gens,
                                variations_dir=values.variations, write_runs=values.trec_runs,
                                batch_size=values.batch_size, progress=not values.no_progress,
                                statistics={"test": values.test, "correction": values.correction},
                                index=index, shard_size=values.shard_size, labels=label_paths(values.labels),
                                protocol=values.protocol, generation_seeds=DR.parse_seeds(values.generation_seeds),
                                depth=getattr(values, "depth_note", None))

    def evaluate(self, config: VariationsConfig, spec, dataset, out_dir, executor) -> dict:
        import sys

        print(f"bench: {spec.name} on {dataset.name} ({len(dataset.corpus)} docs, "
              f"{len(dataset.judged_query_ids())} judged queries), suite {self.name}, seed {config.seed}",
              file=sys.stderr)
        return run(spec, dataset, config, out_dir, executor=executor)

    def render(self, outcome: dict, out_dir, seconds=None) -> str:
        result = outcome["result"]
        parts = [protocol_report(result, outcome["sets"]), variations_table(result), f"\n{subsets_table(result)}"]
        parts += [f"truncation: {line}" for line in truncation_lines(result)]
        strip = DR.draw_strip(result)
        if strip:
            parts.append("\n" + "\n".join(strip))
        line = approximation_line(result)
        if line:
            parts.append(f"\n{line}")
        return "".join(p + "\n" for p in parts)  # bench evaluate names the run folder's files once it is in place


SUITE = VariationsSuite()
