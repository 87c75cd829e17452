"""Suite ``domain``: zero-shot transfer from a source dataset to a target dataset (DDR's setting).

``bench evaluate --suite domain --model CKPT --source SRC --dataset TGT`` evaluates, on TGT's
judged queries, four systems built from CKPT:

=================== ===========================================================================
system              what it is
=================== ===========================================================================
``zero-shot``       CKPT itself (the baseline every other system is tested against)
``DR``              CKPT fully fine-tuned on SRC's judged queries (recipe ``dr``: contrastive NLL)
``REM``             CKPT frozen + a Relevance Estimation Module (LoRA + Parallel Adapter, method
                    ``rem``) trained on SRC with the same loss
``REM+DAM``         the same REM weights attached, unchanged, to CKPT's backbone adapted to TGT's
                    corpus by masked language modelling (DDR's Domain Adaption Module); no TGT
                    labels are used
=================== ===========================================================================

Trained checkpoints are kept under ``<cache home>/checkpoints/<key>`` where the key hashes the
source model, the training data and every setting; a rerun (or another target for the same
source) reuses them instead of training again. The DAM depends on the target corpus only.

Result files follow the variations suite's layout: every system is a "set" evaluated on the same
queries (``per_query.csv`` column ``set``), with ``baseline: "zero-shot"``; the statistics block
compares each system with zero-shot (paired test, correction over the systems on one measure).
``drop_rate`` is (zero-shot - system) / zero-shot, so a gain is a negative drop.
"""
from __future__ import annotations

import dataclasses
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Optional, Sequence

from bench.data.model import Dataset
from bench.core.errors import BenchError
from bench.core.options import option
from bench.evaluation.measures import Measure
from bench.models.spec import ModelSpec
from bench.core.timing import Timer
from bench.results.suite import Suite
from bench.search.exact import TIE_BREAK
from bench.training.contrastive import TRAINING_OPTIONS
from bench.training.ddr import MLM_OPTIONS
from bench.tuning.config import TUNING_OPTIONS
from bench.core.io import atomic_write_json, canonical_json, sha256_hex
from bench.core.paths import cache_home
from bench.data.collections import load_dataset
from bench.encoding.executor import LocalExecutor
from bench.evaluation.measures import per_query
from bench.models.checkpoint import TRAINING_FILE, atomic_folder, read_training
from bench.models.loading import refuse_dense
from bench.models.spec import model_fingerprint, spec_from_folder
from bench.results.writer import per_query_csv, result_header, write_run
from bench.search.retriever import make_retriever
from bench.training.contrastive import train_config_from
from bench.training.ddr import adapt_backbone, mlm_config_from
from bench.training.recipes import RecipeConfig, train_recipe
from bench.tuning.adapters import TUNING_JSON, TUNING_WEIGHTS
from bench.tuning.config import TuningConfig, tuning_config_from

BASELINE = "zero-shot"
SYSTEMS = ("zero-shot", "DR", "REM", "REM+DAM")
DESCRIPTIONS = {
    "zero-shot": "the model as given, no training",
    "DR": "fully fine-tuned on the source queries (contrastive NLL)",
    "REM": "frozen backbone + Relevance Estimation Module (LoRA + Parallel Adapter) trained on the source",
    "REM+DAM": "the same REM on the backbone adapted to the target corpus by MLM (Domain Adaption Module)",
}


@dataclass
class DomainConfig:
    seed: int = 0
    measures: Sequence[Measure] = ()
    top_k: int = 100
    systems: Sequence[str] = SYSTEMS
    train: object = None  # bench.training.contrastive.TrainConfig for DR and REM
    rem_lr: Optional[float] = None  # None: the rem method's default learning rate
    mlm: object = None  # bench.training.ddr.MLMConfig
    tuning: Optional[object] = None  # bench.tuning.config.TuningConfig for REM (None: defaults)
    batch_size: int = 64
    cache_root: Optional[Path] = None
    progress: bool = True
    statistics: Optional[dict] = field(default_factory=dict)

    def validate(self) -> "DomainConfig":
        unknown = [s for s in self.systems if s not in SYSTEMS]
        if unknown:
            raise BenchError(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
        if BASELINE not in self.systems:
            raise BenchError("the systems must include zero-shot (the baseline of every test)")
        return self


def _checkpoint_home(cache_root: Optional[Path]) -> Path:
    return Path(cache_root).parent / "checkpoints" if cache_root else cache_home() / "checkpoints"


def _complete(folder: Path) -> bool:
    rec = read_training(folder) if folder.is_dir() else None
    return bool(rec and rec.get("complete"))


def _train_system(kind: str, spec: ModelSpec, source: Dataset, cfg: DomainConfig, home: Path, timer: Timer,
                  name: Optional[str] = None) -> Path:
    import copy


    train = copy.deepcopy(cfg.train)
    method = "full-tune" if kind == "DR" else "rem"
    if kind == "REM" and cfg.rem_lr is not None:
        train.lr = cfg.rem_lr

    tuning = cfg.tuning if cfg.tuning is not None else TuningConfig()
    rc = RecipeConfig(recipe="dr", method=method, seed=cfg.seed, train=train, tuning=tuning)
    key = sha256_hex("domain-system-v1", kind, model_fingerprint(spec), source.fingerprint(),
                     canonical_json({"method": method, "train": asdict(train), "seed": cfg.seed,
                                     "tuning": tuning.for_method(method)}))[:24]
    folder = home / (name or f"{kind.lower()}-{key}")
    if not _complete(folder):
        with timer(f"train:{kind}"):
            train_recipe(spec, source, rc, folder, train_dataset=source, cache_root=cfg.cache_root,
                         batch_size=cfg.batch_size, progress=cfg.progress)
    return folder


def _adapt(spec: ModelSpec, target: Dataset, cfg: DomainConfig, home: Path, timer: Timer,
           name: Optional[str] = None) -> Path:
    texts = [target.corpus[d].full_text() for d in target.doc_ids()]
    corpus_fp = sha256_hex("corpus", *texts)
    key = sha256_hex("domain-dam-v1", model_fingerprint(spec), corpus_fp, canonical_json(asdict(cfg.mlm)),
                     str(cfg.seed))[:24]
    folder = home / (name or f"dam-{key}")
    if not _complete(folder):
        with timer("adapt:DAM"):
            adapt_backbone(spec, texts, cfg.mlm, folder, seed=cfg.seed, corpus_fingerprint=corpus_fp,
                           progress=cfg.progress)
    return folder


def attach_rem(dam: Path, rem: Path, out: Path) -> Path:
    """A checkpoint = the adapted backbone ``dam`` + the REM files of ``rem`` (copied unchanged)."""
    if _complete(out):
        return out
    with atomic_folder(out) as tmp:
        for p in dam.iterdir():
            if p.is_file() and p.name != TRAINING_FILE:
                shutil.copy2(p, tmp / p.name)
        for name in (TUNING_JSON, TUNING_WEIGHTS):
            shutil.copy2(rem / name, tmp / name)
        atomic_write_json(tmp / TRAINING_FILE, {"kind": "ddr", "complete": True,
                                                "backbone": read_training(dam), "rem": read_training(rem)})
    return out


def build_systems(spec: ModelSpec, source: Dataset, target: Dataset, cfg: DomainConfig, home: Path, timer: Timer,
                  names: Optional[Dict[str, str]] = None) -> Dict[str, Optional[Path]]:
    """Checkpoint folders of ``cfg.systems`` (None for zero-shot), trained where missing.
    ``names``: folder names per system (and "DAM") under ``home``; default content-keyed names."""
    names = names or {}
    folders: Dict[str, Optional[Path]] = {BASELINE: None}
    for kind in ("DR", "REM"):
        if kind in cfg.systems or (kind == "REM" and "REM+DAM" in cfg.systems):
            folders[kind] = _train_system(kind, spec, source, cfg, home, timer, names.get(kind))
    if "REM+DAM" in cfg.systems:
        dam = _adapt(spec, target, cfg, home, timer, names.get("DAM"))
        folders["DAM"] = dam
        both = names.get("REM+DAM") or f"rem+dam-{dam.name[4:]}-{folders['REM'].name[4:]}"
        folders["REM+DAM"] = attach_rem(dam, folders["REM"], home / both)
    return folders


def run(spec: ModelSpec, dataset: Dataset, source: Dataset, cfg: DomainConfig, out_dir: Optional[Path],
        executor=None) -> dict:
    """Evaluate the systems on ``dataset`` (the target); returns ``{"result", "per_query", "timings"}``."""
    import io

    import pandas as pd


    cfg.validate()
    if spec.kind != "dense":
        raise BenchError(f"the domain suite trains dense encoders; {spec.name!r} is {spec.kind}")
    refuse_dense(spec, "the domain suite")
    if source.fingerprint() == dataset.fingerprint():
        raise BenchError("--source and --dataset are the same collection; the domain suite measures transfer")
    executor = executor or LocalExecutor()
    timer = Timer()
    folders = build_systems(spec, source, dataset, cfg, _checkpoint_home(cfg.cache_root), timer)
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
                                         length_sources=dict(spec.length_sources))
        with timer(f"evaluate:{system}"):
            retriever = make_retriever(s_spec, dataset, timer, cache_root=cfg.cache_root, batch_size=cfg.batch_size,
                                       progress=cfg.progress)
            run_ = retriever.search(qids, texts, cfg.top_k)
            return per_query(measures, dataset.qrels, run_, qids)

    outputs = dict(zip(systems, executor.map(evaluate, systems)))
    records = {s: read_training(folders[s]) for s in systems if folders[s] is not None}
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
    result = {
        **result_header("domain", spec, dataset, cfg.seed),
        "source_dataset": source.describe(),
        "baseline": BASELINE,
        "measures": names,
        "retrieval": {"top_k": cfg.top_k, "similarity": spec.similarity, "tie_break": TIE_BREAK},
        "sets": entries,
        "missing_sets": [],
        "settings": {"train": asdict(cfg.train), "rem_lr": cfg.rem_lr, "mlm": asdict(cfg.mlm),
                     "rem": (cfg.tuning if cfg.tuning is not None else _default_tuning()).for_method("rem")},
        "notes": ["drop_rate = (zero-shot - system) / zero-shot: a gain is a negative drop",
                  "DR and REM are trained on every judged source query; REM+DAM uses no target labels"],
        "per_query_file": "per_query.csv",
    }
    per_query_text = per_query_csv(rows, names)
    if cfg.statistics is not None and len(systems) > 1:
        from bench.evaluation.stats import variation_statistics

        with timer("statistics"):
            df = pd.read_csv(io.StringIO(per_query_text), dtype={"set": str, "qid": str})
            st = variation_statistics(df, systems, names, seed=cfg.seed, original=BASELINE, **cfg.statistics)
            result["statistics"] = st
    timings = {"seconds": {k: round(v, 4) for k, v in sorted(timer.seconds.items())}, "executor": executor.name,
               "training_seconds": {s: _seconds(rec) for s, rec in records.items()}}
    if out_dir is not None:
        from bench.results.writer import begin_run

        begin_run(Path(out_dir))
        write_run(Path(out_dir), result, per_query_text, timings)
    return {"result": result, "per_query": per_query_text, "timings": timings}


def _training_summary(rec: Optional[dict]) -> Optional[dict]:
    """Parameter counts, steps, time and the loss curve of a system's training (DAM and REM for REM+DAM)."""
    if not rec:
        return None
    if rec.get("kind") == "ddr":
        return {"backbone": _training_summary(rec.get("backbone")), "rem": _training_summary(rec.get("rem"))}
    log = rec.get("log") or {}
    return {"kind": rec.get("kind"), "recipe": rec.get("recipe"), "method": (rec.get("method") or {}).get("name"),
            "parameters": rec.get("parameters"), "steps": log.get("steps"),
            "loss_curve": [round(d["loss"], 6) for d in log.get("losses", [])]}


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


def run_cli(args, spec: ModelSpec, dataset: Dataset, out_dir: Path, executor, measures) -> int:
    import sys
    import time


    if not args.source:
        raise BenchError("--suite domain needs --source (the dataset to train on; --dataset is the target)")
    source = load_dataset(args.source, args.source_split)
    cfg = DomainConfig(seed=args.seed, measures=measures, top_k=args.top_k,
                       systems=[s.strip() for s in args.systems.split(",") if s.strip()],
                       train=train_config_from(args), rem_lr=args.rem_lr,
                       tuning=tuning_config_from(args),
                       mlm=mlm_config_from(args),
                       batch_size=args.batch_size, progress=not args.no_progress,
                       statistics={"test": args.test, "correction": args.correction})
    t0 = time.perf_counter()
    print(f"bench: {spec.name}, source {source.name} -> target {dataset.name}, suite domain, systems "
          f"{', '.join(cfg.systems)}, seed {cfg.seed}", file=sys.stderr)
    out = run(spec, dataset, source, cfg, out_dir, executor=executor)
    print(domain_table(out["result"]))
    print(f"\nwall time {time.perf_counter() - t0:.0f} s")
    print(f"result: {Path(out_dir) / 'result.json'}  per-query: {Path(out_dir) / 'per_query.csv'}")
    return 0


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

    def run(self, values, spec, dataset, measures, out_dir, executor) -> int:
        return run_cli(values, spec, dataset, out_dir, executor, measures)


SUITE = DomainSuite()
