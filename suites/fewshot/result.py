"""Pieces of the few-shot result file: the per-query table and the summary (headline numbers)."""
from __future__ import annotations

from typing import Mapping, Optional

from bench.core.sheet import csv_text
from suites.fewshot.config import FewShotConfig
from suites.fewshot.metrics import BASIC, CHECKPOINT, FULL, MEASURE, SPLITS, ZERO
from suites.fewshot.sampler import FewShotPlan

REFERENCE_SETS = (ZERO, CHECKPOINT)  # sets of no method: the zero-shot reference and the raw checkpoint


def per_query_rows(hits: Mapping[str, Mapping[str, float]], plan: FewShotPlan):
    """(rows, set order): one row per set x test query (set, method, setting, k, trial, qid, class,
    split, value)."""
    split_of = {c: plan.classes.split_of(c) for c in plan.queries.test}
    rows, order = [], []
    for set_name, h in hits.items():
        order.append(set_name)
        parts = set_name.split("/")
        method = "" if set_name in REFERENCE_SETS else parts[0]
        setting = set_name if set_name in REFERENCE_SETS else parts[1]
        k = setting[2:] if setting.startswith("K=") else ("0" if setting in REFERENCE_SETS else "")
        trial = parts[2].split("=")[1] if len(parts) > 2 else ""
        for c in sorted(plan.queries.test):
            for q in plan.queries.test[c]:
                rows.append((set_name, method, setting, k, trial, q, c, split_of[c], h[q]))
    return rows, order


def per_query_csv(rows) -> str:
    # the run-folder layout (set, qid, applied, measures; every column after qid numeric):
    # applied = 0 (query texts are never changed here), k = K (0 for zero-shot and the checkpoint,
    # nan for full-shot), trial = 1..n (nan outside K-shot). Class membership: result.json plan.test_queries
    # (the one CSV writer, bench.core.sheet.csv_text)
    return csv_text(["set", "qid", "applied", MEASURE, "k", "trial"],
                    ([set_name, q, 0, repr(float(value)), k if k != "" else "nan", trial if trial != "" else "nan"]
                     for set_name, method, setting, k, trial, q, c, split, value in rows))


def summary(zero: dict, checkpoint: Optional[dict], methods_out: dict, plan: FewShotPlan, cfg: FewShotConfig) -> dict:
    """Headline numbers for leaderboards: flat ``metrics`` (name -> value) plus the headline setting
    (the first method at the smallest K that ran). ``zero`` is the reference (basic-learned model
    when basic learning ran); ``checkpoint`` the raw checkpoint when it is a separate reference."""
    metrics = {f"{ZERO} {s} {MEASURE}": zero[s] for s in SPLITS}
    if checkpoint is not None:
        metrics.update({f"{CHECKPOINT} {s} {MEASURE}": checkpoint[s] for s in SPLITS})
    for m, mo in methods_out.items():
        if BASIC in mo:
            for s in SPLITS:
                metrics[f"{m} {BASIC} {s} {MEASURE}"] = mo[BASIC][s]
        for k, e in mo["k"].items():
            for s in SPLITS:
                metrics[f"{m} K={k} {s} {MEASURE}"] = e[s]["mean"]
                metrics[f"{m} K={k} {s} {MEASURE} SD"] = e[s]["sd"]
                metrics[f"{m} K={k} {s} winning ratio"] = e["winning_ratio"][s]
        if FULL in mo:
            for s in SPLITS:
                metrics[f"{m} {FULL} {s} {MEASURE}"] = mo[FULL][s]
    head: dict = {"measure": MEASURE, "reference": ZERO,
                  "zero_shot_model": "basic-learned" if checkpoint is not None else "checkpoint",
                  "zero_shot": {s: zero[s] for s in SPLITS}}
    if checkpoint is not None:
        head["checkpoint"] = {s: checkpoint[s] for s in SPLITS}
    if plan.ks:
        m = cfg.methods[0]
        k = str(plan.ks[0])
        e = methods_out[m]["k"][k]
        novel = e["novel"]["mean"]
        head.update(method=m, k=int(k),
                    k_shot={s: {"mean": e[s]["mean"], "sd": e[s]["sd"]} for s in SPLITS},
                    winning_ratio=e["winning_ratio"],
                    delta_novel=(novel - zero["novel"]) if novel is not None and zero["novel"] is not None else None)
        if checkpoint is not None:
            head["delta_novel_vs_checkpoint"] = (novel - checkpoint["novel"]
                                                 if novel is not None and checkpoint["novel"] is not None else None)
        if FULL in methods_out[m]:
            head["full_shot"] = {s: methods_out[m][FULL][s] for s in SPLITS}
    return {"headline": head, "metrics": metrics}
