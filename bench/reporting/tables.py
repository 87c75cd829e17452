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
    tr = result["model"].get("training") or {}
    if tr.get("case"):
        w = tr.get("weights") or {}
        out.append(f"model trained by {tr.get('recipe')} ({tr['case']}), weights "
                   + " / ".join(f"{w.get(k, 0):g}" for k in ("w_nll", "w_query", "w_passage")))
    out += [f"deviation from the paper (training of {m}): {d}" for d in tr.get("deviations") or []]
    return "\n".join(out)
