"""The systems of suite ``domain``: configuration, DDR's training order and its checkpoints, and the
deviations from DDR a run reports (``ddr_deviations``; the DDR table of ``docs/methods.md``)."""
from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence

from bench.core.errors import BenchError
from bench.core.io import atomic_write_json, canonical_json, sha256_hex
from bench.core.timing import Timer
from bench.data.model import Dataset
from bench.evaluation.measures import Measure
from bench.models.checkpoint import TRAINING_FILE, atomic_folder, read_training, reusable_training
from bench.models.spec import ModelSpec, model_fingerprint, spec_from_folder
from bench.training.ddr import adapt_backbone
from bench.training.mlm_head import HEAD_FILE
from bench.training.recipes import RecipeConfig, train_recipe
from bench.tuning.adapters import TUNING_JSON, TUNING_WEIGHTS
from bench.tuning.config import TuningConfig

BASELINE = "zero-shot"
SYSTEMS = ("zero-shot", "DR", "REM", "REM+DAM")
DESCRIPTIONS = {
    "zero-shot": "the model as given, no training",
    "DR": "fully fine-tuned on the source queries (contrastive NLL)",
    "REM": "Relevance Estimation Module (LoRA + Parallel Adapter) trained on the source with the source DAM "
           "frozen, evaluated on the source DAM (no target adaptation)",
    "REM+DAM": "the same REM on the target DAM (the source DAM adapted to the target corpus by MLM)",
}
#: DDR's claims tested as pairs (system, reference): REM+DAM beats DR and REM
PAIRS = (("REM+DAM", "DR"), ("REM+DAM", "REM"))


@dataclass
class DomainConfig:
    seed: int = 0
    measures: Sequence[Measure] = ()
    top_k: int = 100
    depth: Optional[str] = None  # why top_k is not --top-k (bench.config.set_depth); recorded when set
    systems: Sequence[str] = SYSTEMS
    train: object = None  # bench.training.contrastive.TrainConfig for DR and REM
    rem_lr: Optional[float] = None  # None: the rem method's default learning rate
    mlm: object = None  # bench.training.ddr.MLMConfig
    tuning: Optional[object] = None  # bench.tuning.config.TuningConfig for REM (None: defaults)
    batch_size: int = 64
    cache_root: Optional[Path] = None
    progress: bool = True
    statistics: Optional[dict] = field(default_factory=dict)
    notify: Optional[Callable[[str], None]] = None  # console notes of the training (None: silent)

    def validate(self) -> "DomainConfig":
        unknown = [s for s in self.systems if s not in SYSTEMS]
        if unknown:
            raise BenchError(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
        if BASELINE not in self.systems:
            raise BenchError("the systems must include zero-shot (the baseline of every test)")
        return self


def _complete(folder: Path) -> bool:
    """A complete checkpoint whose files are those drbench wrote (else it is trained again)."""
    return reusable_training(folder, "adapt") is not None


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


def _adapt(spec: ModelSpec, corpus_of: Dataset, cfg: DomainConfig, home: Path, timer: Timer,
           name: Optional[str] = None, role: str = "target") -> Path:
    """The DAM of ``corpus_of``'s corpus started from ``spec`` (source DAM: the model; target DAM:
    the source DAM), trained unless a finished one with the same key exists."""
    import dataclasses

    texts = [corpus_of.corpus[d].full_text() for d in corpus_of.doc_ids()]
    corpus_fp = sha256_hex("corpus", *texts)
    mlm = cfg.mlm
    if role == "target" and mlm.target_lr is not None:  # the target DAM's own rate
        mlm = dataclasses.replace(mlm, lr=mlm.target_lr)
    keyed = {k: v for k, v in asdict(mlm).items() if k != "target_lr"}  # the settings this DAM trains with
    key = sha256_hex("domain-dam-v2", model_fingerprint(spec), corpus_fp, canonical_json(keyed),
                     str(cfg.seed))[:24]
    folder = home / (name or f"dam-{key}")
    if not _complete(folder):
        with timer("adapt:DAM" if role == "target" else "adapt:DAM-source"):
            adapt_backbone(spec, texts, mlm, folder, seed=cfg.seed, corpus_fingerprint=corpus_fp,
                           progress=cfg.progress, role=role, notify=cfg.notify)
    return folder


def attach_rem(dam: Path, rem: Path, out: Path, source_dam: Optional[Path] = None) -> Path:
    """A checkpoint = the adapted backbone ``dam`` + the REM files of ``rem`` (copied unchanged)."""
    if _complete(out):
        return out
    with atomic_folder(out) as tmp:
        for p in dam.iterdir():
            if p.is_file() and p.name not in (TRAINING_FILE, HEAD_FILE):
                shutil.copy2(p, tmp / p.name)
        for name in (TUNING_JSON, TUNING_WEIGHTS):
            shutil.copy2(rem / name, tmp / name)
        rec = {"kind": "ddr", "complete": True, "backbone": read_training(dam), "rem": read_training(rem)}
        if source_dam is not None:
            rec["source_backbone"] = read_training(source_dam)
        atomic_write_json(tmp / TRAINING_FILE, rec)
    return out


def build_systems(spec: ModelSpec, source: Dataset, target: Dataset, cfg: DomainConfig, home: Path, timer: Timer,
                  names: Optional[Dict[str, str]] = None) -> Dict[str, Optional[Path]]:
    """Checkpoint folders of ``cfg.systems`` (None for zero-shot), trained where missing.
    ``names``: folder names per system (and "DAM") under ``home``; default content-keyed names."""
    names = names or {}
    folders: Dict[str, Optional[Path]] = {BASELINE: None}
    if "DR" in cfg.systems:
        folders["DR"] = _train_system("DR", spec, source, cfg, home, timer, names.get("DR"))
    if "REM" in cfg.systems or "REM+DAM" in cfg.systems:
        # DDR step 1: the source DAM; step 2: REM on it, frozen
        src_dam = _adapt(spec, source, cfg, home, timer, names.get("DAM-source"), role="source")
        folders["DAM-source"] = src_dam
        src_spec = spec_from_folder(src_dam, name=f"{spec.name}:DAM-source")
        folders["REM"] = _train_system("REM", src_spec, source, cfg, home, timer, names.get("REM"))
    if "REM+DAM" in cfg.systems:
        # DDR step 3: the target DAM, started from the source DAM (sequential initialisation)
        dam = _adapt(src_spec, target, cfg, home, timer, names.get("DAM"), role="target")
        folders["DAM"] = dam
        both = names.get("REM+DAM") or f"rem+dam-{dam.name[4:]}-{folders['REM'].name[4:]}"
        folders["REM+DAM"] = attach_rem(dam, folders["REM"], home / both, source_dam=src_dam)
    return folders


#: Where drbench departs from DDR (Zhan et al., 2022); ids match the DDR table of docs/methods.md.
DEVIATION_TEXT = {
    "DDR-1": "training budget: each DAM {mlm_epochs} epoch(s) of MLM (linear decay), the source DAM at lr {mlm_lr}, "
             "the target DAM at lr {target_lr} ({target_note}); DR {epochs} epoch(s) at lr {dr_lr}, REM {epochs} "
             "epoch(s) at lr {rem_lr}, both batch {batch} with {negs} hard negative(s) per query; DDR's released "
             "commands train the source DAM 100k steps at 5e-5, a target DAM 50k steps at 2e-5 (a smaller rate "
             "than the source DAM's; constant rate after warm-up), REM 5 epochs at 2e-5, batch 128 with 3 hard "
             "negatives per query, and the paper's DR baseline at 1e-5",
    "DDR-2": "the model has no pretrained MLM head: a head is initialised from the seed and warmed up alone "
             "(backbone frozen) before the source DAM's MLM training ({warm})",
    "DDR-3": "REM size: LoRA rank {rank}, parallel adapter width hidden / {pa} on a {hidden}-wide backbone (DDR: "
             "rank 192 and width 768 / 4 on BERT-base)",
    "DDR-4": "DR and REM start from {model}, {what} (DDR: from the pretrained language model, BERT-base)",
    "DDR-5": "scores: DR and REM train on the {similarity} of query and passage vectors divided by a temperature of "
             "{temperature}, and every system retrieves by the {similarity} (DDR: the inner product, temperature 1)",
}
SIMILARITY_WORDS = {"cos": "cosine similarity", "dot": "inner product"}


def ddr_deviations(spec: ModelSpec, cfg: DomainConfig, source_dam: Optional[dict]) -> list:
    """The deviations from DDR active in this run (``DDR-n: ...``), printed on the console too.
    ``source_dam``: the source DAM's training record (None when no DDR system was trained)."""
    import json

    if not any(s != BASELINE for s in cfg.systems):
        return []
    if not any(s in cfg.systems for s in ("REM", "REM+DAM")):  # DR only: its start and its scoring
        return _start_and_scoring(spec, cfg)
    from bench.tuning.config import DEFAULT_LR

    out = []

    tr, mlm = cfg.train, cfg.mlm
    target_note = ("--mlm-target-lr" if mlm.target_lr is not None
                   else "the source DAM's rate: one MLM rate for both DAMs")
    rem_lr = cfg.rem_lr if cfg.rem_lr is not None else (tr.lr if tr.lr is not None else DEFAULT_LR["rem"])
    out.append("DDR-1: " + DEVIATION_TEXT["DDR-1"].format(
        mlm_epochs=mlm.epochs, mlm_lr=f"{mlm.lr:g}", target_lr=f"{(mlm.target_lr or mlm.lr):g}", target_note=target_note,
        epochs=tr.epochs, dr_lr=f"{(tr.lr if tr.lr is not None else DEFAULT_LR['full-tune']):g}",
        rem_lr=f"{rem_lr:g}", batch=tr.batch_size, negs=tr.hard_negatives))
    if source_dam and str(source_dam.get("mlm_head", "")).startswith("initialised"):
        warm = source_dam.get("head_warmup") or {}
        loss = source_dam.get("mlm_loss") or {}
        detail = (f"{warm.get('steps')} warm-up steps, {warm.get('stopped')}; probe MLM loss initial "
                  f"{_fmt(loss.get('initial'))}, after warm-up {_fmt(loss.get('after_warmup'))}, after MLM "
                  f"{_fmt(loss.get('final'))}; ln V = {_fmt(loss.get('ln_vocab'))}")
        out.append("DDR-2: " + DEVIATION_TEXT["DDR-2"].format(warm=detail))
    tuning = (cfg.tuning if cfg.tuning is not None else TuningConfig()).for_method("rem")
    hidden = json.loads((spec.resolve_path() / "config.json").read_text(encoding="utf-8")).get("hidden_size")
    rank = tuning.get("rem_lora_r") or (max(1, hidden // 4) if hidden else None)
    pa = tuning.get("rem_adapter_reduction")
    if (rank, hidden, pa) != (192, 768, 4):
        out.append("DDR-3: " + DEVIATION_TEXT["DDR-3"].format(rank=rank, pa=pa, hidden=hidden))
    return out + _start_and_scoring(spec, cfg)


def _start_and_scoring(spec: ModelSpec, cfg: DomainConfig) -> list:
    """``DDR-4`` (the model DR and REM start from) and, unless the run scores as DDR does (inner
    product, temperature 1), ``DDR-5``."""
    what = ("a sentence-transformers retriever, already fine-tuned for retrieval"
            if (spec.resolve_path() / "modules.json").exists() else "not checked to be a plain pretrained language model")
    out = ["DDR-4: " + DEVIATION_TEXT["DDR-4"].format(model=spec.name, what=what)]
    temperature = cfg.train.resolved("full-tune", spec.similarity)["temperature"]
    if spec.similarity != "dot" or temperature != 1.0:
        out.append("DDR-5: " + DEVIATION_TEXT["DDR-5"].format(
            similarity=SIMILARITY_WORDS.get(spec.similarity, spec.similarity), temperature=f"{temperature:g}"))
    return out


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.3f}"


