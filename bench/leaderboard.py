"""Leaderboard: one row per model and dataset from run folders.

Columns (for each chosen metric; prefixed with the metric when several are chosen):
``ORIGINAL``, each variation set, ``VARIATIONS (AVG.)``, ``drop <set>`` and
``drop VARIATIONS (AVG.)`` (fractions in the CSV, percent in Markdown), and ``fewshot ...``
columns read generically from the numeric leaves of the ``summary`` of result files whose
suite is ``fewshot`` (their schema is not fixed yet; a file without a summary is skipped with
a message).

Ranking (per dataset) by ``rank_by`` (default ``VARIATIONS (AVG.)`` of the first metric, or
ORIGINAL when a run has no variation set), higher is better. With per-query tables on a
shared query set (the queries common to every ranked model of the dataset), B bootstrap
replicates resample queries jointly across models; ``rank_interval`` is the 2.5-97.5 percentile
range of each model's replicate ranks, and ``rank`` = 1 + the number of models that are
*separably better* (their paired bootstrap 95 % interval of the score difference lies above
0, uncorrected). Models that cannot be separated therefore share a rank ("tied").
Rows are sorted by dataset, rank, score (descending), model name: a stable order.

CSV cells that are text and start with ``= + - @`` or a tab / carriage return are prefixed
with ``'`` (formula injection); numbers, including negative ones, are written as numbers.
"""
from __future__ import annotations

import csv
import io
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench import stats as S
from bench.errors import DataError
from bench.rundir import AVG, ORIGINAL, Run, load_run

_DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(x: Any) -> Any:
    """A value safe to put in a CSV cell: numbers stay numbers; dangerous text is quoted with '."""
    if x is None:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return repr(float(x)) if math.isfinite(x) else ""
    text = str(x)
    if text.startswith(_DANGEROUS):
        return "'" + text
    return text


@dataclass
class Leaderboard:
    columns: List[str]
    rows: List[Dict[str, Any]]
    header: List[str]
    notes: List[str] = field(default_factory=list)

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([csv_cell(c) for c in self.columns])
        for r in self.rows:
            w.writerow([csv_cell(r.get(c)) for c in self.columns])
        return buf.getvalue()

    def markdown(self) -> str:
        def fmt(col: str, v: Any) -> str:
            if v is None:
                return ""
            if isinstance(v, float):
                if not math.isfinite(v):
                    return ""
                return f"{100 * v:.1f}%" if col.startswith("drop ") or " drop " in col else f"{v:.4f}"
            return str(v).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

        out = ["### drbench leaderboard", ""] + [f"- {h}" for h in self.header] + [""]
        cols = [c for c in self.columns if c != "rank_method"]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |")
        out.append("|" + "|".join("---:" if c not in ("model", "dataset", "rank_interval") else "---" for c in cols) + "|")
        for r in self.rows:
            out.append("| " + " | ".join(fmt(c, r.get(c)) for c in cols) + " |")
        for n in self.notes:
            out += ["", f"note: {n}"]
        return "\n".join(out) + "\n"


def _flatten(d: Any, prefix: str = "") -> Dict[str, float]:
    out: Dict[str, float] = {}
    if isinstance(d, dict):
        for k in d:  # keep the file's key order
            out.update(_flatten(d[k], f"{prefix} / {k}" if prefix else str(k)))
    elif isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d):
        out[prefix] = float(d)
    return out


def _fewshot_columns(run: Run, metrics: Sequence[str]) -> Optional[Dict[str, float]]:
    summ = run.result.get("summary")
    if not isinstance(summ, dict) or not summ:
        return None
    leaves = _flatten(summ)
    keep = {k: v for k, v in leaves.items() if k.rsplit(" / ", 1)[-1] in metrics}
    chosen = keep or leaves
    return {f"fewshot {k}": v for k, v in chosen.items()} if chosen else None


def _rank_scores(run: Run, rank_by: str, metric: str) -> Optional[Any]:
    """pandas Series qid -> per-query score used for ranking, or None without a per-query table."""
    if run.per_query is None:
        return None
    if rank_by == AVG:
        var = run.variation_sets
        if not var:
            return run.values(ORIGINAL, metric)
        frame = np.column_stack([run.values(s, metric).loc[run.values(ORIGINAL, metric).index].to_numpy(float)
                                 for s in var])
        import pandas as pd

        return pd.Series(frame.mean(axis=1), index=run.values(ORIGINAL, metric).index)
    if rank_by not in run.ok_sets:
        return None
    return run.values(rank_by, metric)


def build(paths: Sequence[Any], *, metrics: Optional[Sequence[str]] = None, rank_by: str = AVG,
          bootstrap: int = S.DEFAULT_BOOTSTRAP, seed: int = 0, log=None) -> Leaderboard:
    log = log or (lambda msg: print(msg, file=sys.stderr))
    runs = [load_run(p, per_query=None) for p in paths]
    variations = [r for r in runs if r.suite != "fewshot"]
    fewshot = [r for r in runs if r.suite == "fewshot"]
    if not variations and not fewshot:
        raise DataError("no run given")
    metrics = list(metrics or (variations[0].measures[:1] if variations else fewshot[0].measures[:1]))
    notes: List[str] = []
    multi = len(metrics) > 1

    def col(metric: str, name: str) -> str:
        return f"{metric} {name}" if multi else name

    # one row per (model, dataset)
    rows: Dict[Tuple[str, str], Dict[str, Any]] = {}
    runs_by_key: Dict[Tuple[str, str], Run] = {}
    set_cols: List[Tuple[str, str]] = []  # (set name, label) in first-seen order
    for r in variations:
        key = (r.model_name, r.dataset_name)
        if key in runs_by_key:
            raise DataError(f"two runs of model {key[0]!r} on dataset {key[1]!r}: {runs_by_key[key].result_path} and "
                            f"{r.result_path}", str(r.result_path), fix="pass one run per model and dataset")
        runs_by_key[key] = r
        for m in metrics:
            if m not in r.measures:
                raise DataError(f"metric {m!r} not measured (measures: {', '.join(r.measures)})", str(r.result_path))
        for s in r.variation_sets:
            if s not in [c[0] for c in set_cols]:
                set_cols.append((s, r.label(s)))
        row: Dict[str, Any] = {"model": r.model_name, "dataset": r.dataset_name,
                               "n_queries": (r.result.get("dataset") or {}).get("n_queries"),
                               "model_fingerprint": r.model_fingerprint[:12]}
        avg = (r.result.get("summary") or {}).get(AVG) or {}
        for m in metrics:
            row[col(m, ORIGINAL)] = r.metric(ORIGINAL, m)
            for s in r.variation_sets:
                label = r.label(s)
                row[col(m, label)] = r.metric(s, m)
                dr = ((r.set_entry(s) or {}).get("drop_rate") or {}).get(m)
                row[col(m, f"drop {label}")] = float(dr) if isinstance(dr, (int, float)) else None
            am = (avg.get("metrics") or {}).get(m)
            ad = (avg.get("drop_rate") or {}).get(m)
            row[col(m, AVG)] = float(am) if isinstance(am, (int, float)) else None
            row[col(m, f"drop {AVG}")] = float(ad) if isinstance(ad, (int, float)) else None
        rows[key] = row
    fs_cols: List[str] = []
    for r in fewshot:
        cols = _fewshot_columns(r, metrics)
        if cols is None:
            msg = f"{r.result_path}: few-shot result without numeric summary metrics: skipped"
            notes.append(msg)
            log(msg)
            continue
        key = (r.model_name, r.dataset_name)
        row = rows.setdefault(key, {"model": r.model_name, "dataset": r.dataset_name,
                                    "model_fingerprint": r.model_fingerprint[:12]})
        for c, v in cols.items():
            if c in row:
                raise DataError(f"few-shot column {c!r} given twice for model {key[0]!r} on {key[1]!r}",
                                str(r.result_path))
            row[c] = v
            if c not in fs_cols:
                fs_cols.append(c)

    # ranks per dataset
    first = metrics[0]
    for dataset in sorted({k[1] for k in rows}):
        keys = sorted(k for k in rows if k[1] == dataset and k in runs_by_key)
        if not keys:
            continue
        score_col = col(first, rank_by if rank_by == AVG or rank_by == ORIGINAL else
                        runs_by_key[keys[0]].label(rank_by))
        point = []
        for k in keys:
            v = rows[k].get(score_col)
            if v is None and rank_by == AVG:
                v = rows[k].get(col(first, ORIGINAL))
            point.append(np.nan if v is None else float(v))
        point_arr = np.array(point)
        series = [_rank_scores(runs_by_key[k], rank_by, first) for k in keys]
        shared = None
        if all(s is not None for s in series):
            common = set(series[0].index)
            for s in series[1:]:
                common &= set(s.index)
            shared = [q for q in series[0].index if q in common]
            if len(keys) > 1 and len(shared) < min(len(s) for s in series):
                notes.append(f"{dataset}: rank bootstrap on the {len(shared)} queries shared by all models")
        if shared and len(shared) >= 2 and bootstrap > 0:
            mat = np.column_stack([s.loc[shared].to_numpy(float) for s in series])
            ok = np.all(np.isfinite(mat), axis=1)
            mat = mat[ok]
            means = S.bootstrap_means(mat, B=bootstrap, seed=seed, key=(dataset, first, rank_by))
            reps = S.ranks_of(means)
            lo = np.floor(np.percentile(reps, 2.5, axis=0)).astype(int)
            hi = np.ceil(np.percentile(reps, 97.5, axis=0)).astype(int)
            k = len(keys)
            better = np.zeros(k, dtype=int)
            for i in range(k):
                for j in range(k):
                    if i != j and np.percentile(means[:, j] - means[:, i], 2.5) > 0:
                        better[i] += 1
            shared_point = mat.mean(axis=0)
            for idx, key in enumerate(keys):
                rows[key]["rank"] = int(1 + better[idx])
                rows[key]["rank_interval"] = f"{lo[idx]}-{hi[idx]}"
                rows[key]["_score"] = float(shared_point[idx])
        else:
            if len(keys) > 1:
                notes.append(f"{dataset}: no shared per-query tables: ranks from point scores, no intervals")
            pr = S.ranks_of(np.where(np.isfinite(point_arr), point_arr, -np.inf))
            for idx, key in enumerate(keys):
                rows[key]["rank"] = int(pr[idx])
                rows[key]["rank_interval"] = None
                rows[key]["_score"] = float(point_arr[idx])
        tied = {}
        for key in keys:
            tied.setdefault(rows[key]["rank"], []).append(key)
        for key in keys:
            rows[key]["tied"] = "yes" if len(tied[rows[key]["rank"]]) > 1 else "no"

    method = (f"rank by {rank_by} {first} (higher is better), per dataset; bootstrap B={bootstrap}, seed={seed}, "
              "queries resampled jointly across models on their shared query set; rank_interval = 2.5-97.5 "
              "percentiles of bootstrap ranks; rank = 1 + number of models separably better (paired bootstrap 95% "
              "percentile interval of the score difference above 0, uncorrected); tied = shares its rank")
    for r in rows.values():
        r["rank_method"] = method

    def sort_key(item):
        key, r = item
        sc = r.get("_score")
        return (key[1], r.get("rank", 10 ** 9), -(sc if sc is not None and math.isfinite(sc) else -math.inf), key[0])

    ordered = [r for _, r in sorted(rows.items(), key=sort_key)]
    columns = ["rank", "rank_interval", "tied", "model", "dataset", "n_queries"]
    for m in metrics:
        columns.append(col(m, ORIGINAL))
        columns += [col(m, label) for _, label in set_cols]
        columns.append(col(m, AVG))
        columns += [col(m, f"drop {label}") for _, label in set_cols]
        columns.append(col(m, f"drop {AVG}"))
    columns += fs_cols + ["model_fingerprint", "rank_method"]
    columns = list(dict.fromkeys(columns))
    for r in ordered:
        r.pop("_score", None)
    header = [method, "drop rate = (M_ORIGINAL - M_set) / M_ORIGINAL; VARIATIONS (AVG.) = unweighted mean over the "
              "variation sets with status ok"]
    if fs_cols:
        header.append("few-shot columns: numeric leaves of the summary of suite 'fewshot' result files")
    return Leaderboard(columns, ordered, header, notes)
