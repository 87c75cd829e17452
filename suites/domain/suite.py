"""Suite ``domain``: zero-shot transfer from a source dataset to a target dataset (DDR's setting).

``bench evaluate --suite domain --model CKPT --source SRC --dataset TGT`` evaluates, on TGT's
judged queries, four systems built from CKPT:

=================== ===========================================================================
system              what it is
=================== ===========================================================================
``zero-shot``       CKPT itself (the baseline every other system is tested against)
``DR``              CKPT fully fine-tuned on SRC's judged queries (recipe ``dr``: contrastive NLL)
``REM``             a Relevance Estimation Module (LoRA + Parallel Adapter, method ``rem``)
                    trained on SRC with the same loss, on the frozen **source DAM** (CKPT's
                    backbone adapted to SRC's corpus by masked language modelling); evaluated on
                    that source DAM, i.e. without target adaptation
``REM+DAM``         the same REM weights attached, unchanged, to the **target DAM**: the source
                    DAM adapted further to TGT's corpus by MLM (sequential initialisation); no TGT
                    labels are used
=================== ===========================================================================

DDR's training order: (1) source DAM = MLM on SRC's corpus; (2) REM on the frozen source DAM;
(3) target DAM = MLM on TGT's corpus starting from the source DAM; REM + target DAM is evaluated.
Trained checkpoints are kept under ``<cache home>/checkpoints/<key>`` where the key hashes the
model a module starts from, the training data and every setting; a rerun (or another target for
the same source) reuses them instead of training again.

Besides every system against zero-shot, DDR's own claims are tested as pairs (``pairwise``):
REM+DAM vs DR and REM+DAM vs REM, the same paired test, corrected over the pairs of one measure
(a family of their own).

Result files follow the variations suite's layout: every system is a "set" evaluated on the same
queries (``per_query.csv`` column ``set``), with ``baseline: "zero-shot"``; the statistics block
compares each system with zero-shot (paired test, correction over the systems on one measure).
``drop_rate`` is (zero-shot - system) / zero-shot, so a gain is a negative drop.
"""
from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from bench.core.errors import BenchError
from bench.core.options import option
from bench.core.paths import checkpoint_home
from bench.core.timing import Timer
from bench.data.collections import load_dataset
from bench.data.model import Dataset
from bench.encoding.executor import LocalExecutor
from bench.evaluation.measures import per_query
from bench.models.checkpoint import read_training
from bench.models.loading import refuse_dense
from bench.models.spec import ModelSpec, spec_from_folder
from bench.results.suite import Suite
from bench.results.writer import per_query_csv, result_header, write_run
from bench.search.exact import TIE_BREAK
from bench.search.retriever import make_retriever
from bench.training.contrastive import TRAINING_OPTIONS, train_config_from
from bench.training.ddr import MLM_OPTIONS, mlm_config_from
from bench.tuning.config import TUNING_OPTIONS, TuningConfig, tuning_config_from
from suites.domain.systems import BASELINE, DESCRIPTIONS, PAIRS, SYSTEMS, DomainConfig, build_systems, ddr_deviations


def run(spec: ModelSpec, dataset: Dataset, source: Dataset, cfg: DomainConfig, out_dir: Optional[Path],
        executor=None) -> dict:
    """Evaluate the systems on ``dataset`` (the target); returns ``{"result", "per_query", "timings"}``."""
    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"the domain suite trains dense encoders; {spec.name!r} is {spec.kind}")
    refuse_dense(spec, "the domain suite")
    if source.fingerprint() == dataset.fingerprint():
        raise BenchError("--source and --dataset are the same collection; the domain suite measures transfer")
    executor = executor or LocalExecutor()
    timer = Timer()
    folders = build_systems(spec, source, dataset, cfg, checkpoint_home(cfg.cache_root), timer)
    systems = [s for s in SYSTEMS if s in cfg.systems]
    qids = dataset.judged_query_ids()
    texts = [dataset.queries[q].text for q in qids]
    measures = list(cfg.measures)
    names = [m.name for m in measures]

    def evaluate(system: str):
        folder = folders[system]
        s_spec = spec
        if folder is not None:  # every system at the run's lengths: the systems differ in their weights only
            s_spec = dataclasses.replace(spec_from_folder(folder, name=f"{spec.name}:{system}"),
                                         max_query_length=spec.max_query_length,
                                         max_passage_length=spec.max_passage_length,
                                         length_sources=dict(spec.length_sources), device=spec.device,
                                         dtype=spec.dtype, backend=spec.backend)
        with timer(f"evaluate:{system}"):
            retriever = make_retriever(s_spec, dataset, timer, cache_root=cfg.cache_root, batch_size=cfg.batch_size,
                                       progress=cfg.progress)
            run_ = retriever.search(qids, texts, cfg.top_k)
            return per_query(measures, dataset.qrels, run_, qids)

    outputs = dict(zip(systems, executor.map(evaluate, systems)))
    records = {s: read_training(folders[s]) for s in systems if folders[s] is not None}
    entries, rows = _entries(systems, outputs, folders, records, qids, names)
    result = _result(spec, dataset, source, cfg, entries, folders, names)
    per_query_text = per_query_csv(rows, names)
    if cfg.statistics is not None and len(systems) > 1:
        with timer("statistics"):
            result.update(_statistics(per_query_text, systems, names, cfg))
    timings = {"seconds": {k: round(v, 4) for k, v in sorted(timer.seconds.items())}, "executor": executor.name,
               "training_seconds": {s: _seconds(rec) for s, rec in records.items()}}
    if out_dir is not None:
        from bench.results.writer import begin_run

        begin_run(Path(out_dir))
        write_run(Path(out_dir), result, per_query_text, timings)
    return {"result": result, "per_query": per_query_text, "timings": timings}


def _entries(systems: list, outputs: dict, folders: dict, records: dict, qids: list, names: list):
    """Each system's entry of the result (its scores, its drop against the zero-shot baseline, its
    training) and the per-query rows."""
    base = {n: _mean(outputs[BASELINE][n].values()) for n in names}
    entries, rows = [], []
    for s in systems:
        metrics = {n: _mean(outputs[s][n].values()) for n in names}
        rec = records.get(s)
        entry = {"name": s, "label": s, "status": "ok", "description": DESCRIPTIONS[s], "n_queries": len(qids),
                 "n_evaluated": len(qids), "n_applied": 0, "metrics": metrics,
                 "drop_rate": None if s == BASELINE else {n: (None if base[n] == 0 else (base[n] - metrics[n]) / base[n])
                                                          for n in names},
                 "checkpoint": folders[s].name if folders[s] is not None else None,
                 "training": _training_summary(rec)}
        entries.append(entry)
        for q in qids:
            rows.append((s, q, 0, [outputs[s][n][q] for n in names]))
    return entries, rows


def _statistics(per_query_text: str, systems: list, names: list, cfg: DomainConfig) -> dict:
    """The result's ``statistics`` (each system against the baseline) and ``pairwise`` (the pairs of
    :data:`PAIRS` that ran)."""
    import io

    import pandas as pd

    from bench.core.sheet import unsheet_columns
    from bench.evaluation.stats import pair_statistics, variation_statistics

    out = {}
    pairs = [(a, b) for a, b in PAIRS if a in systems and b in systems]
    df = unsheet_columns(pd.read_csv(io.StringIO(per_query_text), dtype={"set": str, "qid": str}), ("set", "qid"))
    out["statistics"] = variation_statistics(df, systems, names, seed=cfg.seed, original=BASELINE, **cfg.statistics)
    if pairs:
        out["pairwise"] = pair_statistics(df, pairs, names, seed=cfg.seed, **cfg.statistics)
    return out


def _result(spec: ModelSpec, dataset: Dataset, source: Dataset, cfg: DomainConfig, entries: list, folders: dict,
            names: list) -> dict:
    """The result file's content, before statistics."""
    return {
        **result_header("domain", spec, dataset, cfg.seed),
        "source_dataset": source.describe(),
        "baseline": BASELINE,
        "measures": names,
        "retrieval": {"top_k": cfg.top_k, "similarity": spec.similarity, "tie_break": TIE_BREAK,
                      **({"depth": cfg.depth} if cfg.depth else {})},
        "sets": entries,
        "missing_sets": [],
        "settings": {"train": asdict(cfg.train), "rem_lr": cfg.rem_lr, "mlm": asdict(cfg.mlm),
                     "rem": (cfg.tuning if cfg.tuning is not None else _default_tuning()).for_method("rem")},
        "notes": ["drop_rate = (zero-shot - system) / zero-shot: a gain is a negative drop",
                  "DR and REM are trained on every judged source query; REM+DAM uses no target labels",
                  "hard negatives are mined by the model each system trains from: DR's by the model (--model), "
                  "REM's by the source DAM (the backbone REM is trained on), each from its own ranking of the "
                  "source corpus",
                  f"scores: the model's similarity ({spec.similarity}"
                  + (f", divided by {cfg.train.temperature if cfg.train.temperature is not None else 0.05:g} in "
                     f"training" if spec.similarity == "cos" else "") + ") for training and retrieval, for every system"],
        "deviations": ddr_deviations(spec, cfg, read_training(folders["DAM-source"]) if "DAM-source" in folders
                                     else None),
        "per_query_file": "per_query.csv",
    }


def _training_summary(rec: Optional[dict]) -> Optional[dict]:
    """Parameter counts, steps, time and the loss curve of a system's training (for REM+DAM: the
    target DAM, the REM and the source DAM; for a DAM also its MLM head, warm-up and probe losses)."""
    if not rec:
        return None
    if rec.get("kind") == "ddr":
        out = {"backbone": _training_summary(rec.get("backbone")), "rem": _training_summary(rec.get("rem"))}
        if rec.get("source_backbone"):
            out["source_backbone"] = _training_summary(rec["source_backbone"])
        return out
    log = rec.get("log") or {}
    out = {"kind": rec.get("kind"), "recipe": rec.get("recipe"), "method": (rec.get("method") or {}).get("name"),
           "parameters": rec.get("parameters"), "steps": log.get("steps"),
           "loss_curve": [round(d["loss"], 6) for d in log.get("losses", [])]}
    if rec.get("kind") == "ddr-dam":
        warm = rec.get("head_warmup") or {}
        out.update(role=rec.get("role"), mlm_head=rec.get("mlm_head"), init=rec.get("init"),
                   mlm_loss=rec.get("mlm_loss"),
                   head_warmup={"steps": warm.get("steps"), "stopped": warm.get("stopped"),
                                "target": warm.get("target")})
    return out


def _default_tuning():
    return TuningConfig()


def _seconds(rec: Optional[dict]):
    """Training wall time of a checkpoint (kept in timings.json: result.json holds no times)."""
    if not rec:
        return None
    if rec.get("kind") == "ddr":
        return {"backbone": _seconds(rec.get("backbone")), "rem": _seconds(rec.get("rem"))}
    return (rec.get("log") or {}).get("seconds")


def _mean(values) -> float:
    vals = list(values)
    return float(sum(vals) / len(vals)) if vals else 0.0


# --------------------------------------------------------------------------------------------
# command line


#: Options of ``bench evaluate --suite domain`` (the training options are the few-shot ones).
DOMAIN_OPTIONS = (
    option('--source', default=None, help='domain suite: the source dataset DR and REM train on (the target is --dataset)'),
    option('--source-split', default=None, help='qrels split of the source (default: test)'),
    option('--systems', default=','.join(SYSTEMS), help=f"comma-separated subset of {', '.join(SYSTEMS)}"),
    option('--rem-lr', type=float, default=None, help="learning rate of REM (default: the rem method's)"),
    *MLM_OPTIONS,
)


@dataclass
class DomainSetup:
    """The typed config of a domain run: the systems' config and the source dataset to train on."""

    config: DomainConfig
    source: str
    source_split: Optional[str] = None


def config_from_args(args, measures) -> DomainSetup:
    import sys

    if not args.source:
        raise BenchError("--suite domain needs --source (the dataset to train on; --dataset is the target)")
    cfg = DomainConfig(seed=args.seed, measures=measures, top_k=args.top_k, depth=getattr(args, "depth_note", None),
                       systems=[s.strip() for s in args.systems.split(",") if s.strip()],
                       train=train_config_from(args), rem_lr=args.rem_lr,
                       tuning=tuning_config_from(args),
                       mlm=mlm_config_from(args),
                       batch_size=args.batch_size, progress=not args.no_progress,
                       statistics={"test": args.test, "correction": args.correction},
                       notify=lambda line: print(f"bench: {line}", file=sys.stderr))
    return DomainSetup(cfg, args.source, args.source_split)


def evaluate(setup: DomainSetup, spec: ModelSpec, dataset: Dataset, out_dir: Path, executor) -> dict:
    import sys

    source = load_dataset(setup.source, setup.source_split)
    cfg = setup.config
    print(f"bench: {spec.name}, source {source.name} -> target {dataset.name}, suite domain, systems "
          f"{', '.join(cfg.systems)}, seed {cfg.seed}", file=sys.stderr)
    return run(spec, dataset, source, cfg, out_dir, executor=executor)


def render(out: dict, out_dir: Path, wall: Optional[float] = None) -> str:
    lines = [domain_table(out["result"])]
    lines += [f"deviation from DDR: {line}" for line in out["result"].get("deviations", [])]
    return "".join(line + "\n" for line in lines)


def domain_table(result: dict) -> str:
    """Systems x measures, with the change vs zero-shot and the corrected significance marker."""
    names = result["measures"]
    st = result.get("statistics") or {}
    comps = st.get("comparisons", {})
    lines = [f"{'system':<10} " + " ".join(f"{n:>18}" for n in names) + "  trainable params"]
    for e in result["sets"]:
        cells = []
        for n in names:
            v = e["metrics"][n]
            c = comps.get(e["name"], {}).get(n)
            if c is None:
                cells.append(f"{v:>18.4f}")
            else:
                star = "*" if c.get("significant") else " "
                cells.append(f"{v:.4f} ({c['delta']:+.4f}){star}".rjust(18))
        tr = e.get("training") or {}
        par = tr.get("parameters") or (tr.get("rem") or {}).get("parameters")
        share = f"{par['trainable']:,} ({100 * par['trainable_share']:.2f}%)" if par else "-"
        lines.append(f"{e['name']:<10} " + " ".join(cells) + f"  {share}")
    h = st.get("header")
    if h:
        lines.append(f"* = significant vs zero-shot: {h['test']} ({h['sidedness']}), {h['correction']} correction "
                     f"over the systems of a measure, alpha {h['alpha']}")
    pw = result.get("pairwise") or {}
    if pw.get("pairs"):
        lines += ["", "DDR's claims, paired on the same queries (delta = system - reference, corrected p):",
                  f"{'pair':<18} " + " ".join(f"{n:>22}" for n in names)]
        for e in pw["pairs"]:
            cells = []
            for n in names:
                c = pw["comparisons"][e["name"]][n]
                p_ = c.get("p_corrected")
                star = "*" if c.get("significant") else " "
                cells.append((f"{c['delta']:+.4f} (p {p_:.3g}){star}" if p_ is not None
                              else f"{c['delta']:+.4f} (p -) ").rjust(22))
            lines.append(f"{e['name']:<18} " + " ".join(cells))
        ph = pw["header"]
        lines.append(f"* = significant: {ph['test']} ({ph['sidedness']}), {ph['correction']} correction over the "
                     f"{len(pw['pairs'])} pairs of a measure (a family of its own), alpha {ph['alpha']}")
    return "\n".join(lines)


class DomainSuite(Suite):
    name = "domain"
    description = "zero-shot domain transfer: zero-shot, DR, REM and REM+DAM (DDR) on a target collection"
    options = (*DOMAIN_OPTIONS, *TRAINING_OPTIONS, *TUNING_OPTIONS)
    shared = frozenset({"top_k", "test", "correction"})
    layout = "sets"
    reference = "zero-shot"
    gated = False
    reason_not_gated = ("the gate compares variations or fewshot runs; compare domain runs with `bench compare` or "
                        "`bench report`")

    def config_from_args(self, values, measures) -> DomainSetup:
        return config_from_args(values, measures)

    def evaluate(self, config: DomainSetup, spec, dataset, out_dir, executor) -> dict:
        return evaluate(config, spec, dataset, out_dir, executor)

    def render(self, outcome: dict, out_dir, seconds=None) -> str:
        return render(outcome, out_dir, seconds)


SUITE = DomainSuite()
