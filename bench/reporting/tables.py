"""Plain-text tables for the console."""
from __future__ import annotations

from typing import List, Tuple

from bench.results import applicability as AP
from bench.core.progress import count


def _fmt(v, pct: bool = False) -> str:
    if v is None:
        return "-"
    return f"{100 * v:+.1f}%" if pct else f"{v:.4f}"


#: the console's width: tables and their notes fit it
WIDTH = 100


def wrapped(lines: List[str], width: int = WIDTH) -> List[str]:
    """Prose lines wrapped at ``width`` (a continuation indented by two spaces more than its line)."""
    import textwrap

    out = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line, width, subsequent_indent=indent + "  ", break_long_words=False,
                             break_on_hyphens=False) or [line]
    return out


def _set_rows(result: dict, names: List[str], stats: dict) -> Tuple[List[List[str]], List[str]]:
    """(table rows of the sets, notes of the flagged sets); sets by name, their labels in the footer."""
    def mark(set_name: str, measure: str) -> str:
        c = (stats.get(set_name) or {}).get(measure) or {}
        return "*" if c.get("significant") else ""

    rows, flagged = [], []
    for e in result["sets"]:
        if e["status"] != "ok":
            continue
        drops = e.get("drop_rate") or {}
        if e["name"] == "ORIGINAL":
            rows.append([e["name"], "-"] + [_fmt(e["metrics"][n]) for n in names] + ["-"] * len(names))
            continue
        share = _share(e)
        low = AP.LOW_MARK if AP.is_low(share) else ""
        if low:
            flagged.append(f"  {e['name']}: {AP.low_note(e.get('n_applied'), share)}")
        rows.append([e["name"], f"{e.get('n_applied', '?')}/{e['n_queries']} {AP.pct(share)}{low}"] +
                    [_fmt(e["metrics"][n]) for n in names] +
                    [_fmt(drops.get(n), pct=True) + mark(e["name"], n) + low for n in names])
    return rows, flagged


def _average_rows(result: dict, names: List[str]) -> List[List[str]]:
    rows = []
    for key, s in (result.get("summary") or {}).items():
        rows.append([key, count(len(s['sets']), "set")] + [_fmt(s["metrics"][n]) for n in names] +
                    [_fmt(s["drop_rate"][n], pct=True) for n in names])
        ao = s.get("applied_only")
        if ao:  # its interval: in the notes (AP.average_line), which keeps the table narrow
            rows.append(["  applied-only", count(len(ao.get('sets') or []), "set")] + [""] * len(names) +
                        [_fmt((ao.get("drop_rate") or {}).get(n), pct=True) for n in names])
    return rows


def variations_table(result: dict) -> str:
    """One row per set: applicability, measures and drop rates (a low-applicability set flagged);
    the average and its applied-only companion; missing sets with their reason. Fits
    :data:`WIDTH` columns for the default measures."""
    names: List[str] = result["measures"]
    stats = (result.get("statistics") or {}).get("comparisons") or {}
    header = ["set", "applied"] + names + [f"drop {n}" for n in names]
    rows, flagged = _set_rows(result, names, stats)
    lines = grid(header, rows + _average_rows(result, names))
    m = result["model"]["name"]
    d = result["dataset"]
    title = f"{m} on {d['name']} ({d['n_judged_queries']} queries, {d['n_docs']} docs), seed {result['seed']}"
    out = [title, ""] + lines
    missing = [e for e in result["sets"] if e["status"] != "ok"]
    if missing:
        out += ["", "Not run (missing resources):"]
        out += [f"  {e['name']}: {e.get('reason', '')}" for e in missing]
    return "\n".join(out + wrapped([""] + _table_notes(result, names, flagged)))


def _table_notes(result: dict, names: List[str], flagged: List[str]) -> List[str]:
    """The notes under the console table: definitions, flags, labels, the test, training."""
    m = result["model"]["name"]
    out = ["drop = (M_orig - M_var) / M_orig (+ = worse); queries a generator could not change keep their original "
           "text. applied = changed / judged queries, and their share. applied-only: the average of the sets' drop "
           "rates over their changed queries only.",
           f"{AP.low_legend()}:" if flagged else f"(a set below {AP.LOW_APPLICABILITY:.0%} applicability would be "
                                                 f"flagged {AP.LOW_MARK})"] + flagged
    labels = [f"{e['name']} = {e['label']}" for e in result["sets"] if e.get("label") and e["label"] != e["name"]]
    if labels:
        out.append("sets by full label: " + "; ".join(labels))
    for s in (result.get("summary") or {}).values():
        out += AP.average_line(s.get("applied_only"), names)
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
    return out


def grid(header: List[str], rows: List[List[str]]) -> List[str]:
    """Console table lines: the first column left-aligned, the others right-aligned, a rule under
    the header."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [header] + rows]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def _share(e: dict):
    """A set entry's applicability (computed from its counts in a run written before the key)."""
    v = e.get("applicability")
    return AP.share(e.get("n_applied"), e.get("n_evaluated", e.get("n_queries"))) if v is None else v


def _subset_rows(result: dict, block: dict, names: List[str]) -> List[List[str]]:
    comps = (block.get("statistics") or {}).get("comparisons") or {}
    rows = []
    for e in result["sets"]:
        s = (block.get("sets") or {}).get(e["name"])
        if s is None:
            continue
        row = [e["name"], str(s["n"])]
        low = AP.LOW_MARK if AP.is_low(_share(e)) else ""
        for n in names:
            sig = "*" if ((comps.get(e["name"]) or {}).get(n) or {}).get("significant") else ""
            row += [_fmt(s["metrics_original"][n]), _fmt(s["metrics"][n]),
                    _fmt(s["drop_rate"][n], pct=True) + sig + low]
        rows.append(row)
    return rows


SUBSETS_INTRO = ("Subsets (extra figures; the headline table keeps the paper's protocol: every query, unchanged ones "
                 "keep their text). n = the queries each row rests on.")


#: the short header of the console's subset tables, explained under them
SHORT_HEADER_NOTE = "orig = ORIGINAL on the same queries; drop = the drop rate of the measure to its left"


def subset_tables(result: dict, short: bool = False) -> List[Tuple[str, List[str], List[List[str]]]]:
    """(title, header, rows) of each extra table of a variations run: applied-only figures, and with
    human labels the per-set valid rates and the valid-only figures. Empty for a run without them.
    ``short``: the console's header (``orig``, the measure, ``drop``; :data:`SHORT_HEADER_NOTE`)."""
    blocks = result.get("subsets") or {}
    names: List[str] = result["measures"]
    header = ["set", "n"] + [c for n in names for c in (("orig", n, "drop") if short else
                                                        (f"{n} orig", n, f"drop {n}"))]
    titles = {"applied_only": "applied-only", "valid_only": "valid-only"}
    labels = result.get("human_labels")
    out = []
    for kind, block in blocks.items():
        if kind == "valid_only" and labels:
            out.append(_label_table(result, labels))
        out.append((f"{titles.get(kind, kind)}: {block.get('description', '')}", header,
                    _subset_rows(result, block, names)))
    return out


def subsets_footer(result: dict) -> str:
    blocks = result.get("subsets") or {}
    head = next((b["statistics"]["header"] for b in blocks.values() if b.get("statistics")), None)
    low = _low_footer(result) if blocks else ""
    if not head:
        return low
    return (f"* = significant at alpha {head['alpha']}: {head['sidedness']} {head['test']} vs ORIGINAL on the same "
            f"queries; {head['correction']} correction within each subset and measure." + (f" {low}" if low else ""))


def subsets_table(result: dict) -> str:
    """The extra tables (:func:`subset_tables`) as console text; empty text for a run without them."""
    tables = subset_tables(result, short=True)
    if not tables:
        return ""
    out = wrapped([SUBSETS_INTRO])
    for title, header, rows in tables:
        out += [""] + wrapped([title]) + grid(header, rows)
    foot = subsets_footer(result)
    return "\n".join(out + wrapped([""] + [SHORT_HEADER_NOTE + "."] + ([foot] if foot else [])))


def _low_footer(result: dict) -> str:
    low = [e for e in result["sets"] if e.get("status") == "ok" and e["name"] != "ORIGINAL" and AP.is_low(_share(e))]
    return (f"{AP.LOW_MARK} = applicability below {AP.LOW_APPLICABILITY:.0%}: "
            + "; ".join(f"{e['name']}: {AP.low_note(e.get('n_applied'), _share(e))}" for e in low)) if low else ""


def _label_table(result: dict, labels: dict) -> Tuple[str, List[str], List[List[str]]]:
    files = ", ".join(f"{f['file']} ({f['labelled']} labels)" for f in labels.get("files") or [])
    rows = []
    for e in result["sets"]:
        h = (labels.get("sets") or {}).get(e["name"])
        if h is None:
            continue
        ci = h.get("valid_rate_ci") or [None, None]
        rate = "-" if h["valid_rate"] is None else (f"{100 * h['valid_rate']:.1f}% "
                                                    f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]")
        rows.append([e["name"], str(h["n_applied"]), str(h["n_labelled"]), str(h["n_valid"]), str(h["n_unlabelled"]),
                     rate])
    head = ["set", "applied", "labelled", "valid", "unlabelled", "valid% [95% Wilson CI]"]
    return (f"human labels from {files}: the share of this run's labelled pairs judged valid", head, rows)
