"""Plain-text tables for the console."""
from __future__ import annotations

from typing import List


def _fmt(v, pct: bool = False) -> str:
    if v is None:
        return "-"
    return f"{100 * v:+.1f}%" if pct else f"{v:.4f}"


def variations_table(result: dict) -> str:
    """One row per set: measures, drop rates and applicability; missing sets with their reason."""
    names: List[str] = result["measures"]
    stats = (result.get("statistics") or {}).get("comparisons") or {}

    def mark(set_name: str, measure: str) -> str:
        c = (stats.get(set_name) or {}).get(measure) or {}
        return "*" if c.get("significant") else ""
    header = ["set", "applied"] + names + [f"drop {n}" for n in names]
    rows = []
    for e in result["sets"]:
        if e["status"] != "ok":
            continue
        applied = "-" if e["name"] == "ORIGINAL" else f"{e['n_applied']}/{e['n_queries']}"
        drops = e.get("drop_rate") or {}
        rows.append([e["label"], applied] + [_fmt(e["metrics"][n]) for n in names] +
                    [_fmt(drops.get(n), pct=True) + mark(e["name"], n) if e["name"] != "ORIGINAL" else "-"
                     for n in names])
    for key, s in (result.get("summary") or {}).items():
        rows.append([key, f"{len(s['sets'])} sets"] + [_fmt(s["metrics"][n]) for n in names] +
                    [_fmt(s["drop_rate"][n], pct=True) for n in names])
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [header] + rows]
    lines.insert(1, "-" * len(lines[0]))
    m = result["model"]["name"]
    d = result["dataset"]
    title = f"{m} on {d['name']} ({d['n_judged_queries']} queries, {d['n_docs']} docs), seed {result['seed']}"
    out = [title, ""] + lines
    missing = [e for e in result["sets"] if e["status"] != "ok"]
    if missing:
        out += ["", "Not run (missing resources):"]
        out += [f"  {e['name']}: {e.get('reason', '')}" for e in missing]
    drop_def = "drop = (M_orig - M_var) / M_orig; queries a generator could not change keep their original text."
    out += ["", drop_def]
    header_ = (result.get("statistics") or {}).get("header")
    if header_:
        out.append(f"* = significant at alpha {header_['alpha']}: {header_['sidedness']} {header_['test']} vs ORIGINAL "
                   f"on per-query values; {header_['correction']} correction within each family ({header_['family']}).")
    out += [f"note: {n}" for n in result.get("notes") or []]
    return "\n".join(out)


def _grid(header: List[str], rows: List[List[str]]) -> List[str]:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [header] + rows]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def _subset_rows(result: dict, block: dict, names: List[str]) -> List[List[str]]:
    comps = (block.get("statistics") or {}).get("comparisons") or {}
    rows = []
    for e in result["sets"]:
        s = (block.get("sets") or {}).get(e["name"])
        if s is None:
            continue
        row = [e["label"], str(s["n"])]
        for n in names:
            sig = "*" if ((comps.get(e["name"]) or {}).get(n) or {}).get("significant") else ""
            row += [_fmt(s["metrics_original"][n]), _fmt(s["metrics"][n]), _fmt(s["drop_rate"][n], pct=True) + sig]
        rows.append(row)
    return rows


def subsets_table(result: dict) -> str:
    """The extra tables of a variations run: applied-only figures, and with human labels the
    per-set valid rates and valid-only figures. Empty text for a result without them."""
    blocks = result.get("subsets") or {}
    if not blocks:
        return ""
    names: List[str] = result["measures"]
    header = ["set", "n"] + [c for n in names for c in (f"{n} orig", n, f"drop {n}")]
    out = ["Subsets (extra figures; the table above is the paper's protocol: every query, unchanged ones keep "
           "their text). n = the queries each row rests on."]
    titles = {"applied_only": "applied-only", "valid_only": "valid-only"}
    labels = result.get("human_labels")
    for kind, block in blocks.items():
        out += ["", f"{titles.get(kind, kind)}: {block.get('description', '')}"]
        if kind == "valid_only" and labels:
            out += _label_lines(result, labels)
            out.append("")
        out += _grid(header, _subset_rows(result, block, names))
    head = next((b["statistics"]["header"] for b in blocks.values() if b.get("statistics")), None)
    if head:
        out += ["", f"* = significant at alpha {head['alpha']}: {head['sidedness']} {head['test']} vs ORIGINAL on the "
                    f"same queries; {head['correction']} correction within each subset and measure."]
    return "\n".join(out)


def _label_lines(result: dict, labels: dict) -> List[str]:
    files = ", ".join(f"{f['file']} ({f['labelled']} labels)" for f in labels.get("files") or [])
    rows = []
    for e in result["sets"]:
        h = (labels.get("sets") or {}).get(e["name"])
        if h is None:
            continue
        ci = h.get("valid_rate_ci") or [None, None]
        rate = "-" if h["valid_rate"] is None else (f"{100 * h['valid_rate']:.1f}% "
                                                    f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]")
        rows.append([e["label"], str(h["n_applied"]), str(h["n_labelled"]), str(h["n_valid"]), str(h["n_unlabelled"]),
                     rate])
    head = ["set", "applied", "labelled", "valid", "unlabelled", "valid% [95% Wilson CI]"]
    return [f"human labels from {files}: share of this run's labelled pairs judged valid"] + _grid(head, rows)
