"""The leaderboard as Markdown that fits a GitHub page: headline columns only (variation runs:
the first metric's ORIGINAL, VARIATIONS (AVG.), its drop rate and the set with the largest drop;
few-shot runs: the headline), one table per kind, the method in a ``<details>`` block. Every
number and every set is in the CSVs (long and wide)."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from bench.results import applicability as AP
from bench.core.progress import count
from bench.results.rundir import AVG, ORIGINAL
from bench.core.sheet import md_cell as _esc


def _num(v: Optional[float], pct: bool = False) -> str:
    if v is None or not math.isfinite(v):
        return ""
    return f"{100 * v:.1f}%" if pct else f"{v:.4f}"


def _rank_cells(e: Dict[str, Any]) -> List[str]:
    if e.get("rank") is None:
        return ["", "", ""]
    interval = "" if e.get("rank_low") is None else f"{e['rank_low']}-{e['rank_high']}"
    tied = "" if e.get("tied") is None else ("yes" if e["tied"] else "no")
    return [str(e["rank"]), interval, tied]


def _value(e: Dict[str, Any], metric: str, set_name: str, key: str = "value") -> Optional[float]:
    for r in e["rows"]:
        if r["metric"] == metric and r["set"] == set_name:
            return r.get(key)
    return None


def _variation_table(entries: List[Dict[str, Any]], metric: str) -> List[str]:
    head = ["rank", "interval", "tied", "model", "group", "n", f"{metric} ORIGINAL", f"{metric} {AVG}",
            f"drop {AVG} (applied-only [95% CI])", "largest drop (set)"]
    out = ["| " + " | ".join(_esc(h) for h in head) + " |", "|---:|---|---|---|---|---:|---:|---:|---:|---|"]
    low: Dict[str, List[str]] = {}
    for e in entries:
        drops = [(r["drop_rate"], _set_cell(r)) for r in e["rows"] if r["metric"] == metric
                 and r["set"] not in (ORIGINAL, AVG, AP.APPLIED_AVG) and r.get("drop_rate") is not None]
        for r in e["rows"]:
            if r["metric"] == metric and r.get("low_applicability"):
                low.setdefault(f"{e['model']} ({e['group']})", []).append(
                    f"{r['set_label']} {AP.pct(r.get('applicability'))}")
        worst = max(drops, key=lambda x: x[0]) if drops else None
        cells = _rank_cells(e) + [e["model"], e["group"], "" if e.get("n_queries") is None else str(e["n_queries"]),
                                  _num(_value(e, metric, ORIGINAL)), _num(_value(e, metric, AVG)),
                                  _avg_cell(e, metric), f"{_num(worst[0], True)} ({worst[1]})" if worst else ""]
        out.append("| " + " | ".join(_esc(c) for c in cells) + " |")
    if low:
        out += ["", _esc(f"{AP.LOW_MARK} = applicability below {AP.LOW_APPLICABILITY:.0%} (share of judged queries "
                         "the generator changed; its drop rate over all queries is close to 0 by construction): "
                         + "; ".join(f"{k}: {', '.join(v)}" for k, v in low.items()))]
    return out


def _set_cell(r: Dict[str, Any]) -> str:
    """A set's label, with its applicability and the flag when it is low."""
    sd = ("" if r.get("drop_rate_draw_sd") is None
          else f", SD {100 * r['drop_rate_draw_sd']:.1f} pp over {count(r['n_draws'], 'draw')}")
    if r.get("low_applicability"):
        return f"{r['set_label']}, {AP.pct(r.get('applicability'))} applied {AP.LOW_MARK}{sd}"
    return f"{r['set_label']}{sd}"


def _avg_cell(e: Dict[str, Any], metric: str) -> str:
    """The paper's average drop, then the applied-only companion with its interval."""
    cell = _num(_value(e, metric, AVG, "drop_rate"), True)
    ao = _value(e, metric, AP.APPLIED_AVG, "drop_rate")
    if ao is None:
        return cell
    lo, hi = _value(e, metric, AP.APPLIED_AVG, "drop_rate_low"), _value(e, metric, AP.APPLIED_AVG, "drop_rate_high")
    ci = f" [{_num(lo, True)}, {_num(hi, True)}]" if lo is not None and hi is not None else ""
    return f"{cell} (applied-only {_num(ao, True)}{ci})"


def _fewshot_table(entries: List[Dict[str, Any]]) -> List[str]:
    head = ["rank", "interval", "tied", "model", "group", "headline", "zero-shot all", "K-shot all", "winning ratio all"]
    out = ["| " + " | ".join(head) + " |", "|---:|---|---|---|---|---|---:|---:|---:|"]
    for e in entries:
        on = e.get("ranked_on") or ""  # "<measure>/<method> K=<k> all"
        measure, _, setting = on.partition("/")
        setting = setting[:-len(" all")] if setting.endswith(" all") else setting
        zero = _value(e, measure, "zero-shot all")
        kshot = _value(e, measure, f"{setting} all")
        win = _value(e, "winning ratio", f"{setting} all")
        cells = _rank_cells(e) + [e["model"], e["group"], on or "(no headline)", _num(zero), _num(kshot),
                                  _num(win, True)]
        out.append("| " + " | ".join(_esc(c) for c in cells) + " |")
    return out


def markdown(board: Any) -> str:
    metric = board.metrics[0] if board.metrics else "?"
    var = [e for e in board.entries if not str(e["group"]).split("#")[0].endswith(":fewshot")]
    few = [e for e in board.entries if e not in var]
    out = ["### drbench leaderboard", "",
           f"Ranked per group of comparable runs by {var[0]['ranked_on'] if var else 'the few-shot headline'} "
           "(higher is better); interval = simultaneous rank confidence set from corrected pairwise tests; "
           "tied = not separable from a neighbour. Method below; every set and metric: the CSV files.", ""]
    if var:
        out += _variation_table(var, metric)
    if few:
        out += ["", "Few-shot (ranked by the headline: K-shot macro average over all classes)", ""]
        out += _fewshot_table(few)
    for n in board.notes:
        out += ["", f"note: {_esc(n)}"]
    out += ["", "<details><summary>Method</summary>", ""] + [f"- {_esc(m)}" for m in board.method] + ["", "</details>"]
    return "\n".join(out) + "\n"
