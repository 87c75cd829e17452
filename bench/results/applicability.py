"""Applicability of the variation sets: how many judged queries each generator
changed, the flag of a set whose drop rate rests on few changed queries, the counts of edit
types, and the applied-only companion of VARIATIONS (AVG.).

* ``applicability`` of a set = n_applied / n_evaluated (the share of judged queries it changed).
  A set below :data:`LOW_APPLICABILITY` is flagged wherever its drop rate is shown: its drop rate
  is close to 0 by construction (an unchanged query keeps its score), whatever the model.
* ``edit_types``: a generator's ``detail`` starts with its edit type (``ocr: ...``); the text
  before the first ``:`` is the type, a detail without ``:`` counts as its first word. Counted
  over the changed queries.
* The applied-only average: the mean over the variation sets of each set's applied-only drop
  rate (ORIGINAL and the set on the queries the set changed), with a skewness-widened t interval
  (``bench.evaluation.skew.skew_t_ci`` of the mean of the sets' ratios of means over the judged
  queries; measured by ``python -m benchmarks.interval_coverage``); ``interval="percentile"``
  gives the percentile bootstrap of earlier versions (the judged queries resampled once per
  replicate, jointly for every set; a replicate in which an averaged set has no changed query, or
  in which ORIGINAL sums to 0 on that set's resampled changed queries, is left out and counted in
  ``n_undefined``). A set with no changed query is left out of the average and named. When fewer
  than 10 judged queries changed (a value that differs from ORIGINAL's) in any averaged set,
  ``interval_note`` says "interval unreliable: k of n queries changed in any of the S sets"
  (the count the interval rests on, as a several-draws interval counts the queries changed in any
  draw; a set that changed no value, e.g. bm25's EXTRAPUNC, adds nothing uncertain and does not
  flag the average by itself: docs/statistics.md, "The flag").

Runs written before these figures existed are read with :func:`set_figures` and
:func:`applied_average_of`, which recompute them from ``per_query.csv`` (its ``applied``
column) and the run's ``variations/*.tsv`` (details), or give None ("n/a").
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.core.seeding import rng_for
from bench.core.progress import count
from bench.evaluation import exact
from bench.evaluation.intervals import bootstrap_index_chunks
from bench.evaluation.skew import AVERAGE_DROP_RATE, MIN_CHANGED, SHORTFALL, skew_t_ci

#: a variation set that changed fewer than this share of the judged queries is flagged
LOW_APPLICABILITY = 0.30
#: the marker beside a flagged set's drop rate (console, reports, leaderboard)
LOW_MARK = "!"
AVG_BOOTSTRAP = 1000
AVG_CONFIDENCE = 0.95
AVG_INTERVAL = "skew-t"  # "percentile": the bootstrap of earlier versions (still computable, for comparison)
APPLIED_AVG = "VARIATIONS (AVG.) applied-only"
DEFINITION = ("applicability = n_applied / n_evaluated, the share of judged queries the generator changed; a set "
              f"below {LOW_APPLICABILITY:.0%} is flagged ({LOW_MARK}): its drop rate over all queries is close to 0 by "
              "construction, as unchanged queries keep their scores")
AVG_DEFINITION = ("mean over the variation sets of each set's applied-only drop rate (ORIGINAL and the set on the "
                  "queries the set changed); sets with no changed query are left out and named")
AVG_METHOD = (f"skewness-widened t interval, {AVG_CONFIDENCE:.0%}: the union of the delta-method t interval and Hall's "
              "skewness-corrected t interval of the mean of the sets' applied-only drop rates, each a ratio of means "
              "over the judged queries (ORIGINAL and the set times the set's applied flag), from the influence values "
              "of every judged query; no resampling (B, seed and n_undefined are kept for the percentile bootstrap of "
              f"earlier versions); flagged 'interval unreliable' when fewer than {MIN_CHANGED} judged queries changed in any "
              f"averaged set; {SHORTFALL}")
PERCENTILE_METHOD = (f"percentile bootstrap, {AVG_CONFIDENCE:.0%}, B = {AVG_BOOTSTRAP}: the judged queries resampled with "
                     "replacement once per replicate, jointly for every set; every set's applied-only drop rate "
                     "recomputed on the resample; replicates in which an averaged set has no changed query, or ORIGINAL "
                     "sums to 0 on that set's resampled changed queries, are left out (n_undefined)")


def share(n_applied: Any, n_evaluated: Any) -> Optional[float]:
    """n_applied / n_evaluated, None when either is unknown or n_evaluated is 0."""
    if not isinstance(n_applied, int) or not isinstance(n_evaluated, int) or n_evaluated <= 0:
        return None
    return n_applied / n_evaluated


def is_low(value: Optional[float]) -> bool:
    return value is not None and value < LOW_APPLICABILITY


def pct(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def low_note(n_applied: Optional[int], value: Optional[float]) -> str:
    """The note of a flagged set."""
    return f"drop rate rests on {n_applied} changed queries ({pct(value)} of queries)"


def low_legend() -> str:
    return (f"{LOW_MARK} = applicability below {LOW_APPLICABILITY:.0%}: the set changed few queries, so its drop rate "
            "over all queries is close to 0 by construction (see the applied-only figures)")


def edit_type(detail: str) -> Optional[str]:
    """The edit type of a detail string (text before the first ':', else its first word)."""
    text = (detail or "").strip()
    if not text:
        return None
    head, colon, _ = text.partition(":")
    if colon and head.strip():
        return head.strip()
    return text.split()[0]


def count_edit_types(details: Sequence[str], applied: Sequence[Any]) -> Dict[str, int]:
    """{type: n} over the changed queries, in key order; a changed query without a detail is ``(none)``."""
    out: Dict[str, int] = {}
    for d, a in zip(details, applied):
        if a:
            t = edit_type(d) or "(none)"
            out[t] = out.get(t, 0) + 1
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- the applied-only average

def _set_drops(orig: np.ndarray, var: np.ndarray, mask: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Applied-only drop rate of one set in each resample (rows of ``idx``); NaN when undefined."""
    w = mask[idx]
    so = exact.row_sums(np.where(w, orig[idx], 0.0))
    sv = exact.row_sums(np.where(w, var[idx], 0.0))
    ok = np.any(w, axis=1) & (so != 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, (so - sv) / np.where(ok, so, 1.0), np.nan)


def changed_in_any_set(original: np.ndarray, sets: Sequence[Tuple[np.ndarray, np.ndarray]]) -> int:
    """The count the applied-only average's flag rests on: judged queries whose value differs from
    ORIGINAL's in any of ``sets`` ((values, applied mask) each) where the set applied."""
    return int(np.sum(np.any([mask & (original != v) for v, mask in sets], axis=0)))


def _average_note(members: Sequence[tuple], n: int) -> Optional[str]:
    """The "interval unreliable" flag of the applied-only average (module docstring): ``members`` are
    (ORIGINAL, set values, applied mask, drop, name) of the averaged sets."""
    k = changed_in_any_set(members[0][0], [(v, mask) for _, v, mask, _, _ in members])
    if k >= MIN_CHANGED:
        return None
    where = f"in any of the {len(members)} sets" if len(members) > 1 else f"in {members[0][4]}"
    return f"interval unreliable: {k} of {n} queries changed {where}"


def applied_only_average(original: Mapping[str, Sequence[float]],
                         sets: Sequence[Tuple[str, Sequence[Any], Mapping[str, Sequence[float]]]],
                         measures: Sequence[str], seed: int, B: int = AVG_BOOTSTRAP,
                         confidence: float = AVG_CONFIDENCE, interval: str = AVG_INTERVAL) -> dict:
    """The ``summary[VARIATIONS (AVG.)].applied_only`` block.

    ``original``: measure -> ORIGINAL's per-query values; ``sets``: (name, applied flags, measure ->
    values), every array on the same queries in the same order. ``interval``: "skew-t" (default) or
    "percentile" (earlier versions)."""
    if interval not in ("skew-t", "percentile"):
        raise ValueError(f"unknown interval {interval!r}; choose skew-t or percentile")
    n = len(next(iter(original.values()))) if original else 0
    masks = {name: np.asarray(applied, dtype=bool) for name, applied, _ in sets}
    included = [name for name, _, _ in sets if masks[name].any()]
    excluded = {name: "no changed queries (n_applied = 0)" for name, _, _ in sets if not masks[name].any()}
    out: Dict[str, Any] = {"definition": AVG_DEFINITION, "method": AVG_METHOD if interval == "skew-t" else PERCENTILE_METHOD,
                           "interval": interval, "B": B, "confidence": confidence, "seed": seed, "sets": included,
                           "excluded": excluded, "drop_rate": {}, "drop_rate_ci": {}, "n_sets": {}, "n_undefined": {},
                           "interval_note": {}}
    by_measure: Dict[str, Dict[str, str]] = {}
    alpha = (1.0 - confidence) / 2.0
    for m in measures:
        o = np.asarray(original[m], dtype=np.float64)
        members = []
        for name, _, values in sets:
            if name not in included:
                continue
            v = np.asarray(values[m], dtype=np.float64)
            mask = masks[name]
            so, sv = exact.fsum(o[mask]), exact.fsum(v[mask])
            if so == 0.0 or not math.isfinite(so) or not math.isfinite(sv):
                by_measure.setdefault(m, {})[name] = "ORIGINAL scores 0 (or not finite) on its changed queries"
                continue
            members.append((o, v, mask, (so - sv) / so, name))
        out["n_sets"][m] = len(members)
        if not members or n == 0:
            out["drop_rate"][m], out["drop_rate_ci"][m], out["n_undefined"][m] = None, [None, None], 0
            out["interval_note"][m] = None
            continue
        out["drop_rate"][m] = exact.mean([x[3] for x in members])
        out["interval_note"][m] = _average_note(members, n)
        if interval == "skew-t":
            x = np.concatenate([np.c_[np.where(mask, o, 0.0), np.where(mask, v, 0.0)] for o, v, mask, _, _ in members],
                               axis=1)
            lo, hi = skew_t_ci(x, AVERAGE_DROP_RATE, confidence)
            out["n_undefined"][m] = 0
            out["drop_rate_ci"][m] = [lo, hi] if math.isfinite(lo) and math.isfinite(hi) else [None, None]
            continue
        reps = np.empty(B)
        i = 0
        for idx in bootstrap_index_chunks(n, B, rng_for(seed, "bootstrap-applied-only-average", m)):
            c = idx.shape[0]
            drops = [_set_drops(o, v, mask, idx) for o, v, mask, _, _ in members]
            reps[i:i + c] = sum(drops[1:], drops[0]) / len(drops)  # fixed order
            i += c
        good = reps[np.isfinite(reps)]
        out["n_undefined"][m] = int(B - good.size)
        if good.size:
            lo, hi = np.percentile(good, [100 * alpha, 100 * (1 - alpha)])
            out["drop_rate_ci"][m] = [float(lo), float(hi)]
        else:
            out["drop_rate_ci"][m] = [None, None]
    if by_measure:
        out["excluded_by_measure"] = by_measure
    return out


def average_from_frame(df: Any, set_names: Sequence[str], measures: Sequence[str], original: str,
                       seed: int, B: int = AVG_BOOTSTRAP) -> Optional[dict]:
    """:func:`applied_only_average` from a per-query table (columns set, qid, applied, measures);
    None when ORIGINAL has no rows. A set's queries are aligned on ORIGINAL's by qid."""
    base = df[df["set"] == original]
    if base.empty:
        return None
    qids = list(base["qid"])
    orig = {m: base[m].to_numpy(dtype=np.float64) for m in measures}
    sets = []
    for s in set_names:
        sub = df[df["set"] == s].set_index("qid")
        if sub.empty:
            continue
        sub = sub.reindex(qids)
        applied = sub["applied"].fillna(0).to_numpy() != 0
        sets.append((s, applied, {m: sub[m].to_numpy(dtype=np.float64) for m in measures}))
    return applied_only_average(orig, sets, measures, seed, B)


# --------------------------------------------------------------------------- reading a run (older runs too)

def _tsv_details(folder: Path) -> Dict[str, Dict[str, int]]:
    """set name -> edit-type counts from a run folder's variations/*.tsv (empty when none)."""
    out: Dict[str, Dict[str, int]] = {}
    tsv_dir = Path(folder) / "variations"
    if not tsv_dir.is_dir():
        return out
    from perturb.io.sets import read_tsv

    for path in sorted(tsv_dir.glob("*.tsv")):
        try:
            vs = read_tsv(path)
        except Exception:  # an unreadable set leaves its edit types "n/a"; the report still renders
            continue
        out[vs.name] = count_edit_types(vs.details, vs.applied)
    return out


def set_figures(run: Any) -> Dict[str, dict]:
    """Variation set name -> {n_applied, n_evaluated, applicability, low, edit_types, from}: the
    run's own figures, else recomputed from per_query.csv / variations/*.tsv ("from" says which),
    else None values (shown as "n/a")."""
    reference = str(run.result.get("baseline") or "ORIGINAL")
    if reference != "ORIGINAL":  # the domain suite compares systems on the same queries: nothing is applied
        return {}
    pq = getattr(run, "per_query", None)
    tsv: Optional[Dict[str, Dict[str, int]]] = None
    out: Dict[str, dict] = {}
    for e in run.sets:
        name = str(e.get("name"))
        if name == reference or e.get("status", "ok") != "ok":
            continue
        n_app, n_eval = e.get("n_applied"), e.get("n_evaluated", e.get("n_queries"))
        source = "result.json"
        if not isinstance(n_app, int) and pq is not None:
            rows = pq[pq["set"] == name]
            if not rows.empty:
                n_app, n_eval, source = int((rows["applied"] != 0).sum()), int(len(rows)), "per_query.csv"
        value = e.get("applicability")
        if not isinstance(value, (int, float)):
            value = share(n_app, n_eval)
        types = e.get("edit_types")
        if types is None:
            tsv = _tsv_details(run.folder) if tsv is None else tsv
            types = tsv.get(name)
        out[name] = {"n_applied": n_app if isinstance(n_app, int) else None,
                     "n_evaluated": n_eval if isinstance(n_eval, int) else None, "applicability": value,
                     "low": is_low(value), "edit_types": types, "from": source}
    return out


def applied_average_of(run: Any) -> Optional[dict]:
    """The run's applied-only average, else recomputed from its per-query table (None without)."""
    avg = (run.result.get("summary") or {}).get("VARIATIONS (AVG.)") or {}
    if avg.get("applied_only"):
        return avg["applied_only"]
    pq = getattr(run, "per_query", None)
    names = [s for s in run.ok_sets if s != "ORIGINAL"]
    if pq is None or not names or not avg:
        return None
    seed = run.seed if isinstance(run.seed, int) else 0
    block = average_from_frame(pq, names, run.measures, "ORIGINAL", seed)
    if block is not None:
        block["recomputed"] = "from per_query.csv (the run was written before this figure existed)"
    return block


def average_line(block: Optional[dict], measures: Sequence[str]) -> List[str]:
    """The applied-only average in words (console and reports)."""
    if not block:
        return []
    parts = []
    for m in measures:
        v = (block.get("drop_rate") or {}).get(m)
        lo, hi = ((block.get("drop_rate_ci") or {}).get(m) or [None, None])
        ci = f" [{100 * lo:+.1f}%, {100 * hi:+.1f}%]" if lo is not None and hi is not None else ""
        parts.append(f"{m} {'n/a' if v is None else f'{100 * v:+.1f}%'}{ci}")
    excl = block.get("excluded") or {}
    n_sets = count(len(block.get('sets') or []), 'set')
    lines = [f"{APPLIED_AVG} (mean of the sets' applied-only drop rates over {n_sets}, "
             f"{int(100 * block.get('confidence', AVG_CONFIDENCE))}% interval): " + "; ".join(parts)]
    if excl:
        lines.append("  left out: " + ", ".join(f"{k} ({v})" for k, v in excl.items()))
    for m, d in (block.get("excluded_by_measure") or {}).items():
        lines.append(f"  left out on {m}: " + ", ".join(f"{k} ({v})" for k, v in d.items()))
    und = {m: (block.get("n_undefined") or {}).get(m) for m in measures if (block.get("n_undefined") or {}).get(m)}
    kind = block.get("interval", "percentile")  # a block without the key was written by the percentile bootstrap
    if kind == "skew-t":
        lines.append("  interval: skewness-widened t (the union of the delta-method t interval and Hall's skewness-"
                     "corrected t interval), from every judged query" + (f"; {block['recomputed']}"
                                                                         if block.get("recomputed") else ""))
    else:
        lines.append(f"  interval: {kind} bootstrap, B = {block.get('B')}, queries "
                     "resampled once per replicate, every set's applied-only drop rate recomputed"
                     + (("; replicates left out (an averaged set with no changed query, or ORIGINAL scoring 0 on them, "
                         "in the resample): "
                         + ", ".join(f"{m} {k}" for m, k in und.items())) if und else "")
                     + (f"; {block['recomputed']}" if block.get("recomputed") else ""))
    for m in measures:
        note = (block.get("interval_note") or {}).get(m)
        if note:
            lines.append(f"  {m}: {note}")
    return lines
