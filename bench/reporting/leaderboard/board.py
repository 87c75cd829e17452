"""Leaderboard: runs ranked per group of comparable runs, written as a tidy long CSV, a wide CSV
with stable column names, a Markdown table of headline columns and a method block.

**Groups.** Runs are grouped per dataset name and suite layout, then by the gate's comparability
rule (:mod:`bench.reporting.comparability`: same suite, seed, dataset fingerprint and variation
sets with the same fingerprints; few-shot runs: the same plan). Only runs of one group are ranked
against each other. A dataset with several groups names them ``<dataset>``, ``<dataset>#2``, ...;
a note says why each further group is not comparable with the first (e.g. an 8-set run and a
2-set run: "set 'MISSPELL' is absent from ..."). Few-shot runs form their own groups
(``<dataset>:fewshot``). Two runs of one model in one group are refused.

**Ranking** (per group) by a score per query:

* variation runs: ``rank_by`` (default ``VARIATIONS (AVG.)``, the per-query mean over the
  variation sets, or ORIGINAL, or a set name) of the first metric;
* few-shot runs: the headline, the K-shot macro average over all classes of the headline method
  at the headline K (per-query values averaged over trials, then ``n w_q x_q`` with the plan's
  macro weights ``w``, whose mean is the headline).

Everything -- point rank, interval and ties -- comes from ONE set of pairwise decisions
(:func:`bench.reporting.leaderboard.ranking.pairwise_ranks`), on the queries shared by every ranked model of
the group (finite scores only):

* **Separation.** Every one of the k(k-1)/2 model pairs gets a paired test on the per-query
  scores (``test``, default the paired Student t-test; **two-sided**). The p-values of a group
  form ONE family, corrected with ``correction`` (default **Holm**, FWER) at level ``alpha``
  (0.05). Model j is *separably better* than model i when the corrected p < alpha AND
  mean(j) > mean(i).
* **Interval.** ``rank_low = 1 + #models separably better``, ``rank_high = k - #models separably
  worse``. With Holm the intervals are simultaneous 1 - alpha rank confidence sets (under the
  test's assumptions; with ``bh`` or ``none`` they are not).
* **Point rank.** ``rank = 1 + #models with a strictly higher mean``, clipped into the interval
  (it lies there already; the clip makes ``rank_low <= rank <= rank_high`` hold by construction).
* **Ties.** ``tied`` = true when the model is not separable from the model directly above or
  below it in table order.
* Without per-query tables on >= 2 shared queries for every model of a group (k > 1), ranks come
  from the point scores and ``rank_low``, ``rank_high`` and ``tied`` are empty (a note says so). A
  run without a score (a few-shot result without a headline) is listed unranked.

Deterministic: the t-test and Wilcoxon test have no randomness; the randomization test draws from
a stream keyed by (seed, group, metric, rank_by, model pair). Rows are sorted by group, rank,
score (descending), model name.

**Outputs.** ``csv()``: LONG, one row per model x dataset x set x metric
(:data:`bench.reporting.leaderboard.rows.LONG_COLUMNS`; numeric ``rank``, ``rank_low``,
``rank_high``; ``set`` is the set NAME, ``set_label`` its display label such as
``BACKTRANS[spa,apertium]``; few-shot sets are ``"<setting> <split>"``). ``wide_csv()``: one row
per model and group, columns ``<metric>/<set>`` and ``<metric>/<set>/drop`` whatever the number of
metrics. ``markdown()``: headline columns only, with the method in a ``<details>`` block.
``method_text()``: the method and notes (written beside the CSV). CSV cells go through
:func:`bench.reporting.csvsafe.csv_cell` (numbers stay numbers; text that a spreadsheet could read
as a formula is prefixed with ``'``).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import exact
from bench.core.errors import DataError
from bench.core.progress import count
from bench.evaluation import stats as S
from bench.results import applicability as AP
from bench.results.rundir import AVG, ORIGINAL, Run, load_run
from bench.results.suite import suite_of
from bench.reporting.leaderboard import rows as LR
from bench.reporting.comparability import comparable_groups
from bench.reporting.csvsafe import csv_text
from bench.reporting.leaderboard.md import markdown as _markdown
from bench.reporting.leaderboard.ranking import pairwise_ranks, rank_method
from bench.reporting.draws import long_columns

WIDE_DROP = (("drop", "drop_rate"), ("drop_low", "drop_rate_low"), ("drop_high", "drop_rate_high"),
             ("drop_draw_sd", "drop_rate_draw_sd"))  # the last: runs with several generation seeds only
ENTRY_COLUMNS = ("rank", "rank_low", "rank_high", "tied", "group", "dataset", "model", "suite", "n_queries",
                 "ranked_on")


def table_csv(columns: Sequence[str], rows: Sequence[Dict[str, Any]]) -> str:
    """CSV text of rows (dicts) under columns (the one CSV writer, :func:`bench.core.sheet.csv_text`)."""
    return csv_text(columns, ([r.get(c) for c in columns] for r in rows))


@dataclass
class Leaderboard:
    entries: List[Dict[str, Any]]  # one per model and group: ENTRY_COLUMNS + "rows" (its long rows)
    method: List[str]
    notes: List[str] = field(default_factory=list)
    metrics: List[str] = field(default_factory=list)

    def long_rows(self) -> List[Dict[str, Any]]:
        keep = ("rank", "rank_low", "rank_high", "tied", "group", "dataset", "model", "suite", "n_queries",
                "ranked_on", "model_fingerprint")
        return [{**{k: e.get(k) for k in keep}, **row} for e in self.entries for row in e["rows"]]

    def csv(self) -> str:
        rows = self.long_rows()
        return table_csv(long_columns(LR.LONG_COLUMNS, rows), rows)  # + draw columns for several draws only

    def wide_columns(self) -> List[str]:
        cols: List[str] = []
        for e in self.entries:
            for row in e["rows"]:
                cols.append(f"{row['metric']}/{row['set']}")
        drops = [f"{r['metric']}/{r['set']}/{k}" for e in self.entries for r in e["rows"]
                 for k, key in WIDE_DROP if r.get(key) is not None]
        shares = [f"applicability/{r['set']}" for e in self.entries for r in e["rows"]
                  if r.get("applicability") is not None]
        return (list(ENTRY_COLUMNS) + list(dict.fromkeys(cols)) + list(dict.fromkeys(drops))
                + list(dict.fromkeys(shares)) + ["model_fingerprint"])

    def wide_rows(self) -> List[Dict[str, Any]]:
        out = []
        for e in self.entries:
            w = {k: e.get(k) for k in ENTRY_COLUMNS + ("model_fingerprint",)}
            for row in e["rows"]:
                w[f"{row['metric']}/{row['set']}"] = row["value"]
                for k, key in WIDE_DROP:
                    if row.get(key) is not None:
                        w[f"{row['metric']}/{row['set']}/{k}"] = row[key]
                if row.get("applicability") is not None:
                    w[f"applicability/{row['set']}"] = row["applicability"]
            out.append(w)
        return out

    def wide_csv(self) -> str:
        return table_csv(self.wide_columns(), self.wide_rows())

    def markdown(self) -> str:
        return _markdown(self)

    def method_text(self) -> str:
        out = ["# drbench leaderboard: method", ""] + [f"- {m}" for m in self.method]
        out += ["", "## Columns (long CSV)", "", f"`{', '.join(LR.LONG_COLUMNS)}`: one row per model x dataset x set x "
                "metric; `drop_rate` = (M_ORIGINAL - M_set) / M_ORIGINAL; `applicability` = n_applied / n_evaluated "
                f"(a set below {AP.LOW_APPLICABILITY:.0%} has `low_applicability` true); `drop_rate_low`/`_high`: the "
                f"95% interval of {AP.APPLIED_AVG}; the wide CSV has one row per model and "
                "group with columns `<metric>/<set>`, `<metric>/<set>/drop` (`/drop_low`, `/drop_high`) and "
                "`applicability/<set>`."]
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"


def _group_names(runs: Sequence[Run], metric: Optional[str], notes: List[str], log) -> List[str]:
    """Group name of every run (module docstring); each note on a group apart is logged too."""
    names = [""] * len(runs)
    by: Dict[tuple, List[int]] = {}
    for i, r in enumerate(runs):
        by.setdefault((r.dataset_name, suite_of(r).layout), []).append(i)
    for (dataset, layout), idx in sorted(by.items()):
        base = dataset if layout == "sets" else f"{dataset}:{layout}"
        groups = comparable_groups([runs[i] for i in idx], metric if layout == "sets" else None)
        for gi, g in enumerate(groups, 1):
            name = base if gi == 1 else f"{base}#{gi}"
            for m in g.members:
                names[idx[m]] = name
            if gi > 1:
                notes.append(f"group {name} ({', '.join(runs[idx[m]].model_name for m in g.members)}) is ranked "
                             f"apart from group {base}: not comparable (the gate's rule): {g.reason}")
                log(notes[-1])  # on the console too, not only in the Markdown
    return names


def _rank(entries: List[Dict[str, Any]], series: List[Any], group: str, rank_key: str, notes: List[str],
          o: Dict[str, Any]) -> None:
    """Fill rank, rank_low, rank_high, tied and _score of the entries of one group."""
    point = np.array([np.nan if e["_point"] is None else e["_point"] for e in entries], dtype=float)
    scored = [i for i in range(len(entries)) if math.isfinite(point[i]) or series[i] is not None]
    for i in range(len(entries)):
        if i not in scored:
            entries[i].update(rank=None, rank_low=None, rank_high=None, tied=None, _score=None)
            notes.append(f"{group}: {entries[i]['model']} has no score ({entries[i]['ranked_on'] or 'no headline'}): "
                         "listed unranked")
    if not scored:
        return
    ser = [series[i] for i in scored]
    mat = None
    if all(s is not None for s in ser):
        common = set(ser[0].index).intersection(*[set(s.index) for s in ser[1:]])
        shared = [q for q in ser[0].index if q in common]
        if len(scored) > 1 and len(shared) < min(len(s) for s in ser):
            notes.append(f"{group}: ranks tested on the {len(shared)} queries shared by all models")
        mat = np.column_stack([s.loc[shared].to_numpy(float) for s in ser]) if shared else None
        if mat is not None:
            finite = np.all(np.isfinite(mat), axis=1)
            if len(scored) > 1 and not finite.all():
                notes.append(f"{group}: {int(np.sum(~finite))} shared queries with a non-finite score left out of the "
                             "rank tests")
            mat = mat[finite]
    if len(scored) == 1:
        sc = exact.mean(mat) if mat is not None and mat.size else float(point[scored[0]])
        entries[scored[0]].update(rank=1, rank_low=1, rank_high=1, tied=False, _score=sc)
    elif mat is not None and mat.shape[0] >= 2:
        pr = pairwise_ranks(mat, [entries[i]["model"] for i in scored], test=o["test"], correction=o["correction"],
                            alpha=o["alpha"], seed=o["seed"], n_resamples=o["n_resamples"], key=(group, rank_key))
        if o["test"] == "randomization" and 1.0 / (o["n_resamples"] + 1) >= o["alpha"] / max(pr.n_pairs, 1):
            notes.append(f"{group}: Monte Carlo randomization p-values cannot go below 1/(m+1) = "
                         f"{1 / (o['n_resamples'] + 1):.2g} >= alpha / {count(pr.n_pairs, 'pair')}: with a FWER "
                         "correction a "
                         "pair needing Monte Carlo may never be separable; raise n_resamples")
        for x, i in enumerate(scored):
            entries[i].update(rank=int(pr.rank[x]), rank_low=int(pr.rank_low[x]), rank_high=int(pr.rank_high[x]),
                              tied=bool(pr.tied[x]), _score=float(pr.means[x]))
    else:
        notes.append(f"{group}: no per-query tables on >= 2 shared queries for every model: ranks from point scores; "
                     "no rank intervals, no ties (nothing can be tested)")
        pts = point[scored]
        ranks = S.ranks_of(np.where(np.isfinite(pts), pts, -np.inf))
        for x, i in enumerate(scored):
            entries[i].update(rank=int(ranks[x]), rank_low=None, rank_high=None, tied=None, _score=float(pts[x]))


def _every_measure(runs: Sequence[Run]) -> List[str]:
    """The default measures: every measure of the first run that every run measured, in its order
    (the first ranks)."""
    shared = [m for m in runs[0].measures if all(m in r.measures for r in runs[1:])]
    return shared or list(runs[0].measures[:1])


def _check_options(test: str, correction: str, alpha: float) -> None:
    if test not in S.TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(S.TESTS)}")
    if correction not in S.CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(S.CORRECTIONS)}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")


def _with_rows(runs: List[Run], notes: List[str], log) -> List[Run]:
    """The runs that give leaderboard rows (variation sets or a few-shot summary); each other one is
    a note."""
    kept = []
    for r in runs:
        if suite_of(r).layout not in ("sets", "fewshot"):
            notes.append(f"{r.result_path}: suite {r.suite!r} (layout {suite_of(r).layout!r}) has no leaderboard rows: "
                         "skipped")
            log(notes[-1])
        elif suite_of(r).layout == "fewshot" and LR.fewshot_rows(r) is None:
            notes.append(f"{r.result_path}: few-shot result without numeric summary metrics: skipped")
            log(notes[-1])
        else:
            kept.append(r)
    if not kept:
        raise DataError("no run with leaderboard rows given")
    return kept


def _entry(r: Run, g: str, first: str, metrics: List[str], rank_by: str) -> Tuple[Dict[str, Any], Any]:
    """A run's board entry (its rows and the point it is ranked on) and its per-query ranking series."""
    if suite_of(r).layout == "fewshot":
        _, point, ranked_on = LR.headline(r)
        rows, ser = LR.fewshot_rows(r), LR.fewshot_series(r)
    else:
        ranked_on = f"{first}/{rank_by}"
        rows, ser = LR.variation_rows(r, metrics), LR.rank_series(r, rank_by, first)
        point = next((x["value"] for x in rows if x["metric"] == first and x["set"] == rank_by), None)
        if point is None and rank_by == AVG:
            point = r.metric(ORIGINAL, first)
    entry = {"group": g, "dataset": r.dataset_name, "model": r.model_name, "suite": r.suite,
             "n_queries": (r.result.get("dataset") or {}).get("n_queries"), "ranked_on": ranked_on,
             "model_fingerprint": r.model_fingerprint[:12], "rows": rows, "_point": point}
    return entry, ser


def _board_order(e):
    sc = e.get("_score")
    return (e["group"], e["rank"] if e.get("rank") is not None else 10 ** 9,
            -(sc if sc is not None and math.isfinite(sc) else -math.inf), e["model"])


def build(paths: Sequence[Any], *, metrics: Optional[Sequence[str]] = None, rank_by: str = AVG,
          seed: int = 0, log=None, test: str = "t-test",
          correction: str = "holm", alpha: float = 0.05, n_resamples: int = S.DEFAULT_RESAMPLES) -> Leaderboard:
    """The leaderboard of the given runs (see the module docstring). ``test`` is one of
    bench.evaluation.stats.TESTS, ``correction`` one of bench.evaluation.stats.CORRECTIONS."""
    log = log or (lambda msg: print(msg, file=sys.stderr))
    _check_options(test, correction, alpha)
    runs = [load_run(p, per_query=None) for p in paths]
    if not runs:
        raise DataError("no run given")
    variations = [r for r in runs if suite_of(r).layout == "sets"]
    metrics = list(metrics or _every_measure(variations or runs[:1]))
    first = metrics[0]
    for r in variations:
        for m in metrics:
            if m not in r.measures:
                raise DataError(f"metric {m!r} not measured (measures: {', '.join(r.measures)})", str(r.result_path),
                                fix="pick measured ones with --metric")
    notes: List[str] = []
    runs = _with_rows(runs, notes, log)
    groups = _group_names(runs, first, notes, log)
    entries: List[Dict[str, Any]] = []
    series: List[Any] = []
    seen: Dict[tuple, Run] = {}
    for r, g in zip(runs, groups):
        key = (r.model_name, g)
        if key in seen:
            raise DataError(f"two runs of model {key[0]!r} in group {g!r}: {seen[key].result_path} and {r.result_path}",
                            str(r.result_path), fix="pass one run per model and dataset")
        seen[key] = r
        entry, ser = _entry(r, g, first, metrics, rank_by)
        entries.append(entry)
        series.append(ser)
    opts = {"test": test, "correction": correction, "alpha": alpha, "seed": seed, "n_resamples": n_resamples}
    for g in sorted(set(groups)):
        idx = [i for i, x in enumerate(groups) if x == g]
        idx.sort(key=lambda i: entries[i]["model"])
        _rank([entries[i] for i in idx], [series[i] for i in idx], g, entries[idx[0]]["ranked_on"], notes, opts)
    entries.sort(key=_board_order)
    for e in entries:
        e.pop("_score", None)
        e.pop("_point", None)
    method = [rank_method(rank_by, first, test=test, correction=correction, alpha=alpha, seed=seed,
                          n_resamples=n_resamples),
              "groups: runs of one dataset are ranked together only when comparable by the gate's rule (same suite, "
              "seed, dataset fingerprint and variation sets with the same fingerprints; few-shot: the same plan); "
              "few-shot groups are ranked by the headline (K-shot macro average over all classes of the headline "
              "method and K, per-query values averaged over trials, macro-weighted)",
              "drop rate = (M_ORIGINAL - M_set) / M_ORIGINAL; VARIATIONS (AVG.) = unweighted mean over the variation "
              "sets with status ok",
              f"{AP.DEFINITION}; {AP.APPLIED_AVG} = {AP.AVG_DEFINITION}; its interval: {AP.AVG_METHOD}"]
    return Leaderboard(entries, method, notes, metrics)
