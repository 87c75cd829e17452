"""The applicability figures of a variations report: each set's share of changed
queries beside its drop rate, the flag and note of a set below the threshold, the applied-only
companion of VARIATIONS (AVG.) and the edit types of MISSPELL (figures:
:mod:`bench.results.applicability`; a run written before them is recomputed or shown "n/a")."""
from __future__ import annotations

from typing import Any, List, Optional

from bench.reporting.report import markup as M
from bench.core.progress import count
from bench.results import applicability as AP

#: the sets whose edit types the report tabulates
EDIT_TYPE_SETS = ("MISSPELL",)


def applied_cell(data: Any, s: str) -> str:
    """"84/884 (9.5%) !": changed / evaluated queries, the applicability, the flag."""
    f = data.applicability.get(s)
    if f is None:
        return ""
    if f["n_applied"] is None:
        return "n/a"
    mark = f" {AP.LOW_MARK}" if f["low"] else ""
    return f"{f['n_applied']}/{f['n_evaluated']} ({AP.pct(f['applicability'])}){mark}"


def marked(data: Any, s: str, cell: str) -> str:
    """A drop-rate cell with the flag of a low-applicability set."""
    return f"{cell} {AP.LOW_MARK}" if data.low(s) and cell else cell


#: the mark of a drop-rate interval resting on too few queries whose score changed
UNRELIABLE_MARK = "\u2020"


def unreliable_mark(c: Any) -> str:
    """" †" after an interval flagged unreliable (too few queries whose score changed), else ""."""
    return f" {UNRELIABLE_MARK}" if str((c or {}).get("interval_note") or "").startswith("interval unreliable") else ""


def _score_changes(data: Any, s: str) -> List[str]:
    """"2 (MRR@10)" per measure whose interval is flagged unreliable."""
    out = []
    for m in data.measures:
        c = data.comparison(s, m) or {}
        if unreliable_mark(c):
            out.append(f"{c.get('n_changed', '?')} ({m})")
    return out


def set_sentence(data: Any, s: str) -> str:
    """One sentence on a set's two counts: the queries the generator changed (applicability, the !
    flag) and, of those, the queries whose score changed (the interval's reliability, the † flag);
    "" when neither flag applies."""
    from bench.evaluation.skew import MIN_CHANGED

    f = data.applicability.get(s) or {}
    changes = _score_changes(data, s)
    if not f.get("low") and not changes:
        return ""
    n_app, n = f.get("n_applied"), f.get("n_evaluated")
    text = f"{s}: the generator changed {n_app} of {n} queries (applicability {AP.pct(f.get('applicability'))}"
    text += (f", below {AP.LOW_APPLICABILITY:.0%}: {AP.LOW_MARK}, so its drop rate over all queries is close to 0 "
             f"by construction)" if f.get("low") else ")")
    if changes:
        text += (f"; of those, the retrieval score changed on only {', '.join(changes)}: fewer than {MIN_CHANGED}, "
                 f"so those intervals ({UNRELIABLE_MARK}) are unreliable")
    return text + "."


def low_lines(data: Any) -> List[str]:
    """The legend of the flags, then one sentence per flagged set (:func:`set_sentence`)."""
    lines = [set_sentence(data, s) for s in data.applicability if s != data.baseline]
    lines = [x for x in lines if x]
    if not lines:
        return []
    return [f"{AP.LOW_MARK} = few queries changed by the generator; {UNRELIABLE_MARK} = few queries whose score "
            f"changed (see the applied-only figures):"] + lines


def average_row(data: Any, measure: str) -> Optional[dict]:
    """The detail table's row of the applied-only average (drop [CI]); None without it."""
    b = data.applied_average
    if not b:
        return None
    drop = M.with_ci(M.drop((b.get("drop_rate") or {}).get(measure)), (b.get("drop_rate_ci") or {}).get(measure), M.drop)
    return {"set": AP.APPLIED_AVG, "label": AP.APPLIED_AVG, "applied": count(len(b.get('sets') or []), "set"),
            "mean": "", "drop": drop, "cls": ""}


def average_lines(data: Any) -> List[str]:
    return AP.average_line(data.applied_average, data.measures)


def edit_types_section(data: Any) -> Any:
    """(heading, intro, tables, footer) of the edit-type counts of MISSPELL; None without them."""
    tables = []
    for s in EDIT_TYPE_SETS:
        f = data.applicability.get(s)
        if f is None:
            continue
        types = f.get("edit_types")
        cols = [("type", "edit type", "text"), ("n", "changed queries", "num"), ("share", "share of changed", "num")]
        if not types:
            body = [{"type": "n/a (no edit types recorded: neither result.json nor variations/*.tsv has them)",
                     "n": "", "share": ""}]
        else:
            total = sum(types.values())
            body = [{"type": t, "n": str(k), "share": AP.pct(k / total if total else None)} for t, k in types.items()]
        tables.append((f"{s}: {applied_cell(data, s)} queries changed", cols, body))
    if not tables:
        return None
    return ("Edit types", "the edit type of a changed query is its detail's text before the first ':' (a detail "
            "without ':' counts as its first word)", tables, "")
