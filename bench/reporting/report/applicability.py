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


def low_lines(data: Any) -> List[str]:
    """One note per flagged set, after the legend of the flag."""
    low = [(s, f) for s, f in data.applicability.items() if f["low"]]
    if not low:
        return []
    return [AP.low_legend() + ":"] + [f"{data.run.label(s)}: {AP.low_note(f['n_applied'], f['applicability'])}"
                                      for s, f in low]


def average_row(data: Any, measure: str) -> Optional[dict]:
    """The detail table's row of the applied-only average (drop [CI]); None without it."""
    b = data.applied_average
    if not b:
        return None
    drop = M.with_ci(M.pct((b.get("drop_rate") or {}).get(measure)), (b.get("drop_rate_ci") or {}).get(measure), M.pct)
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
        tables.append((f"{data.run.label(s)}: {applied_cell(data, s)} queries changed", cols, body))
    if not tables:
        return None
    return ("Edit types", "the edit type of a changed query is its detail's text before the first ':' (a detail "
            "without ':' counts as its first word)", tables, "")
