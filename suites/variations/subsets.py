"""The variations suite's subset figures: a drop rate measures robustness only where
the variation changed the query and kept its meaning.

The headline numbers stay the paper's (every judged query in every set; a query the generator
could not change keeps its text). Beside them, per variation set:

* ``applied_only`` (always): the queries the generator changed; ORIGINAL restricted to the same
  queries. Metrics, drop rate and the paired test on those queries only.
* ``valid_only`` (with ``--labels``): the changed queries that a human label judged valid (the
  variation keeps the information need). Queries labelled not valid and changed queries without
  a label are left out, so these figures rest on the labelled queries only.
* ``human_labels`` (with ``--labels``): per set, labelled pairs of this run, the share judged
  valid and its Wilson 95% interval.

The paired tests are the run's own (``bench.evaluation.stats.variation_statistics``, same test,
correction and seed); each subset is its own correction family per measure.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from bench.evaluation.intervals import drop_rate, wilson_ci
from bench.evaluation.stats import variation_statistics
from bench.evaluation.paired import finite_or_none
from perturb.checks.labels import LabelFile, LabelMatch

APPLIED_ONLY = "applied_only"
VALID_ONLY = "valid_only"
DESCRIPTIONS = {
    APPLIED_ONLY: "the queries the generator changed (applied = 1), ORIGINAL on the same queries; queries it left "
                  "unchanged are not counted",
    VALID_ONLY: "the changed queries a human label judged valid (the variation keeps the information need), ORIGINAL "
                "on the same queries; queries labelled not valid and changed queries without a label are not counted",
}
WILSON = "Wilson score interval, 95%, two-sided (bench.evaluation.intervals.wilson_ci)"


def subset_qids(vs, kind: str, labelled: Optional[Dict[str, bool]] = None) -> List[str]:
    """The query ids of ``vs`` in subset ``kind``, in the set's order."""
    applied = [q for q, a in zip(vs.qids, vs.applied) if a]
    if kind == APPLIED_ONLY:
        return applied
    labelled = labelled or {}
    return [q for q in applied if labelled.get(q) is True]


def _mean(values: Sequence[float]) -> Optional[float]:
    return float(sum(values) / len(values)) if values else None


def subset_entry(orig: Dict[str, Dict[str, float]], var: Dict[str, Dict[str, float]], qids: Sequence[str],
                 names: Sequence[str]) -> dict:
    """Means of ORIGINAL and the set on ``qids`` and the drop rate, per measure (null when n = 0)."""
    mo = {m: _mean([orig[m][q] for q in qids]) for m in names}
    mv = {m: _mean([var[m][q] for q in qids]) for m in names}
    drops = {m: (None if mo[m] is None or mv[m] is None else finite_or_none(drop_rate(mo[m], mv[m]))) for m in names}
    return {"n": len(qids), "metrics_original": mo, "metrics": mv, "drop_rate": drops}


def human_validity(vs, labelled: Dict[str, bool]) -> dict:
    """Labelled pairs of one set, the share judged valid and its Wilson interval."""
    n_applied = int(sum(vs.applied))
    n_lab = len(labelled)
    n_valid = sum(1 for v in labelled.values() if v)
    lo, hi = wilson_ci(n_valid, n_lab)
    return {"n_applied": n_applied, "n_labelled": n_lab, "n_valid": n_valid, "n_invalid": n_lab - n_valid,
            "n_unlabelled": n_applied - n_lab, "valid_rate": n_valid / n_lab if n_lab else None,
            "valid_rate_ci": [finite_or_none(lo), finite_or_none(hi)]}


def label_column(sets, match: LabelMatch) -> Dict[str, Dict[str, str]]:
    """set -> qid -> "1" / "0" for labelled queries (the per-query table's ``label`` column)."""
    return {vs.name: {q: "1" if v else "0" for q, v in match.by_set.get(vs.name, {}).items()} for vs in sets}


def _statistics(df, members: Dict[str, List[str]], original: str, names: List[str],
                seed: int, options: Optional[dict]) -> Optional[dict]:
    """The run's paired statistics on the subset: ORIGINAL and each set restricted to its queries
    (``df``: the run's per-query table, None when the run computes no statistics)."""
    if df is None or options is None:
        return None
    keep = df["set"] == original
    for s, qids in members.items():
        keep |= (df["set"] == s) & df["qid"].isin(set(qids))
    sets = [s for s, qids in members.items() if qids]
    if not sets:
        return None
    return variation_statistics(df[keep].reset_index(drop=True), sets, names, seed=seed, **options)


def subsets(ok_sets, values: Dict[str, Dict[str, Dict[str, float]]], names: List[str], original: str,
            per_query, seed: int, statistics: Optional[dict], match: Optional[LabelMatch]) -> dict:
    """The ``subsets`` block of result.json: applied-only always, valid-only when labels were given."""
    var_sets = [vs for vs in ok_sets if vs.name != original]
    kinds = [APPLIED_ONLY] + ([VALID_ONLY] if match is not None else [])
    out = {}
    for kind in kinds:
        members = {vs.name: subset_qids(vs, kind, match.by_set.get(vs.name) if match else None) for vs in var_sets}
        entries = {vs.name: subset_entry(values[original], values[vs.name], members[vs.name], names)
                   for vs in var_sets}
        out[kind] = {"description": DESCRIPTIONS[kind], "sets": entries,
                     "statistics": _statistics(per_query, members, original, names, seed, statistics)}
    return out


def human_labels(ok_sets, original: str, files: Sequence[LabelFile], match: LabelMatch) -> dict:
    """The ``human_labels`` block of result.json."""
    return {"files": [f.describe() for f in files], "interval": WILSON,
            "sets": {vs.name: human_validity(vs, match.by_set.get(vs.name, {})) for vs in ok_sets
                     if vs.name != original},
            "unused": dict(match.unused), "unknown_sets": list(match.unknown_sets)}
