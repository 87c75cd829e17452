"""Leaderboard: one row per model and dataset from run folders.

Columns (for each chosen metric; prefixed with the metric when several are chosen):
``ORIGINAL``, each variation set, ``VARIATIONS (AVG.)``, ``drop <set>`` and
``drop VARIATIONS (AVG.)`` (fractions in the CSV, percent in Markdown), and ``fewshot ...``
columns read generically from the numeric leaves of the ``summary`` of result files whose
suite is ``fewshot`` (their schema is not fixed yet; a file without a summary is skipped with
a message).

Ranking (per dataset) by ``rank_by`` (default ``VARIATIONS (AVG.)`` of the first metric, or
ORIGINAL when a run has no variation set), higher is better, on the queries shared by every
ranked model of the dataset (finite scores only). Everything -- point rank, interval and ties --
comes from ONE set of pairwise decisions, so the three are consistent by construction:

* **Separation.** Every one of the k(k-1)/2 model pairs gets a paired test on the per-query
  scores (``test``, default the paired Student t-test of :func:`bench.evaluation.stats.paired_test`;
  **two-sided**). The k(k-1)/2 p-values of a dataset form ONE family, corrected with
  ``correction`` (default **Holm** step-down, controlling the family-wise error rate) at level
  ``alpha`` (default 0.05). Model j is *separably better* than model i when the corrected p-value
  is < alpha AND mean(j) > mean(i) on the shared queries (a significant pair whose means are
  exactly equal separates nothing).
* **Interval.** ``rank_low = 1 + #models separably better``, ``rank_high = k - #models separably
  worse``; ``rank_interval`` is ``"rank_low-rank_high"``. With Holm (FWER <= alpha), no false
  separation is made with probability >= 1 - alpha (under the test's assumptions; errors in the
  *direction* of a true difference are controlled only approximately), and then every model's
  true rank (by population mean) lies in its interval: the intervals are *simultaneous*
  1 - alpha rank confidence sets (with ``correction="bh"`` or ``"none"`` they are not). The
  previous definition (2.5-97.5 percentiles of bootstrap ranks next to a point rank from
  uncorrected bootstrap intervals) could put the rank outside its own interval, and percentile
  intervals of ranks are unreliable when models are close.
* **Point rank.** ``rank = 1 + #models with a strictly higher mean score`` (equal means share a
  rank), clipped into ``[rank_low, rank_high]``. Because "separably better" requires a higher
  mean, the point rank always lies in the interval already; the clip only makes the invariant
  ``rank_low <= rank <= rank_high`` hold by construction.
* **Ties.** ``tied`` = ``yes`` when the model is NOT separable (at the stated test, correction and
  level) from a neighbour, i.e. the model ranked directly above or directly below it in the
  table's order; ``no`` otherwise (also for a lone model). Models sharing a rank number always
  tie (equal means are never separable), but a model can tie without sharing its rank number.
* Without per-query tables on >= 2 shared queries for every model of a dataset (k > 1), ranks come
  from the point scores and ``rank_interval``, ``rank_low``, ``rank_high`` and ``tied`` are
  empty (nothing can be tested; a note says so).

The method string (test, sidedness, correction, family, alpha, seed) is written in the header
(Markdown) and the ``rank_method`` column (CSV). Deterministic: the t-test and Wilcoxon test have
no randomness; the randomization test draws from a stream keyed by (seed, dataset, metric, set,
model pair). ``bootstrap`` is accepted for compatibility and no longer used by the ranking.
Rows are sorted by dataset, rank, score (descending), model name: a stable order.

CSV: numbers (including negative ones) are written as numbers. A text cell is prefixed with
``'`` (CSV / formula injection, OWASP; see :func:`csv_cell`) when it starts with ``= + - @``, with
``|`` or ``%`` (DDE / legacy formula starts, escaped by e.g. defusedcsv), with their fullwidth or
small compatibility forms (``＝ ＋ － ＠ ｜ ％``, ``﹦ ﹢ ﹣ ﹫ ﹪`` -- anything whose NFKC form starts
with one of those), with U+2212 MINUS SIGN, or with whitespace, a control or an invisible format
character (space, tab, CR, LF, NUL, NBSP, BOM, ...; these can hide a formula start). Text that is
a plain decimal number (``-0.5``, ``+3``, ``1e-3``) is left alone: a spreadsheet reads it as a
number, not a formula. Known limit: only the start of a cell is neutralised; a spreadsheet that
splits lines on another separator (``;`` in some locales) could start a cell in the middle of a
text value (OWASP's separator caveat). Quoting cannot prevent that (the quote would not open the
re-split cell), and the text comes from our own run files, so it is left as is.
"""
from __future__ import annotations

import csv
import io
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import stats as S
from bench.core.errors import DataError
from bench.results.rundir import AVG, ORIGINAL, Run, load_run, numeric_leaves
from bench.results.suite import suite_of
from bench.reporting.ranking import pairwise_ranks, rank_method
from bench.reporting.csvsafe import csv_cell


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
        cols = [c for c in self.columns if c not in ("rank_method", "rank_low", "rank_high")]  # in rank_interval
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |")
        out.append("|" + "|".join("---:" if c not in ("model", "dataset", "rank_interval") else "---" for c in cols) + "|")
        for r in self.rows:
            out.append("| " + " | ".join(fmt(c, r.get(c)) for c in cols) + " |")
        for n in self.notes:
            out += ["", f"note: {n}"]
        return "\n".join(out) + "\n"


def _fewshot_columns(run: Run, metrics: Sequence[str]) -> Optional[Dict[str, float]]:
    summ = run.result.get("summary")
    if not isinstance(summ, dict) or not summ:
        return None
    leaves = {k: v for k, v in numeric_leaves(summ).items() if math.isfinite(v)}
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
          seed: int = 0, log=None, test: str = "t-test",
          correction: str = "holm", alpha: float = 0.05, n_resamples: int = S.DEFAULT_RESAMPLES) -> Leaderboard:
    """The leaderboard of the given runs (see the module docstring for the ranking). Rank intervals
    come from the corrected pairwise tests: ``test`` is one of bench.evaluation.stats.TESTS, ``correction``
    one of bench.evaluation.stats.CORRECTIONS, at level ``alpha``."""
    log = log or (lambda msg: print(msg, file=sys.stderr))
    if test not in S.TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(S.TESTS)}")
    if correction not in S.CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(S.CORRECTIONS)}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    runs = [load_run(p, per_query=None) for p in paths]
    variations = [r for r in runs if suite_of(r).layout == "sets"]
    fewshot = [r for r in runs if suite_of(r).layout == "fewshot"]
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
                notes.append(f"{dataset}: ranks tested on the {len(shared)} queries shared by all models")
        mat = None
        if shared:
            mat = np.column_stack([s.loc[shared].to_numpy(float) for s in series])
            finite = np.all(np.isfinite(mat), axis=1)
            if len(keys) > 1 and not finite.all():
                notes.append(f"{dataset}: {int(np.sum(~finite))} shared queries with a non-finite score left out of "
                             "the rank tests")
            mat = mat[finite]
        if len(keys) == 1:
            sc = float(mat.mean()) if mat is not None and mat.size else float(point_arr[0])
            rows[keys[0]].update({"rank": 1, "rank_low": 1, "rank_high": 1, "rank_interval": "1-1", "tied": "no",
                                  "_score": sc})
        elif mat is not None and mat.shape[0] >= 2:
            pr = pairwise_ranks(mat, [k[0] for k in keys], test=test, correction=correction, alpha=alpha, seed=seed,
                                n_resamples=n_resamples, key=(dataset, first, rank_by))
            if test == "randomization" and 1.0 / (n_resamples + 1) >= alpha / max(pr.n_pairs, 1):
                notes.append(f"{dataset}: Monte Carlo randomization p-values cannot go below 1/(m+1) = "
                             f"{1 / (n_resamples + 1):.2g} >= alpha / {pr.n_pairs} pairs: with a FWER correction a "
                             "pair needing Monte Carlo may never be separable; raise n_resamples")
            for idx, key in enumerate(keys):
                lo, hi = int(pr.rank_low[idx]), int(pr.rank_high[idx])
                rows[key].update({"rank": int(pr.rank[idx]), "rank_low": lo, "rank_high": hi,
                                  "rank_interval": f"{lo}-{hi}", "tied": "yes" if pr.tied[idx] else "no",
                                  "_score": float(pr.means[idx])})
        else:
            notes.append(f"{dataset}: no per-query tables on >= 2 shared queries for every model: ranks from point "
                         "scores; no rank intervals, no ties (nothing can be tested)")
            pr_point = S.ranks_of(np.where(np.isfinite(point_arr), point_arr, -np.inf))
            for idx, key in enumerate(keys):
                rows[key].update({"rank": int(pr_point[idx]), "rank_low": None, "rank_high": None,
                                  "rank_interval": None, "tied": None, "_score": float(point_arr[idx])})

    method = rank_method(rank_by, first, test=test, correction=correction, alpha=alpha, seed=seed,
                         n_resamples=n_resamples)
    for r in rows.values():
        r["rank_method"] = method

    def sort_key(item):
        key, r = item
        sc = r.get("_score")
        return (key[1], r.get("rank", 10 ** 9), -(sc if sc is not None and math.isfinite(sc) else -math.inf), key[0])

    ordered = [r for _, r in sorted(rows.items(), key=sort_key)]
    columns = ["rank", "rank_interval", "rank_low", "rank_high", "tied", "model", "dataset", "n_queries"]
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
