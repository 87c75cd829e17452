"""What the consumers show of a run drawn with several generation seeds (``--generation-seeds``;
figures: :mod:`bench.evaluation.draws`, layout: :mod:`suites.variations.draws`).

* report: a "Generation draws" section, per measure a table with each set's strip of N drop
  rates, their mean and SD, the 95 % interval over queries and draws, the worst of N and the share
  of the drop rate's variance that comes from the draw;
* compare and the gate: a note naming the draws (the values and tests are the per-query means
  over the draws) and the rule (runs are comparable only when both drew the sets with the same
  seed list: :func:`seeds_of`, checked in :mod:`bench.reporting.comparability`);
* leaderboard: per set, the SD of the drop rate over draws and the interval over queries and draws.

A run with one draw has no ``draws`` entries and gets nothing from here: its outputs are unchanged.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from bench.core.progress import count

PAIRED_ON = "per-query means over the draws"
RULE = ("runs drawn with several generation seeds are comparable only when both drew the variation sets with the same "
        "seed list (and so the same set fingerprints)")


def seeds_of(result: dict) -> List[int]:
    """The generation seeds of a run (a run without the key: its run seed alone)."""
    seeds = result.get("generation_seeds")
    return list(seeds) if seeds else [result.get("seed")]


def is_multi(result: dict) -> bool:
    return len(seeds_of(result)) > 1


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{round(100 * x, 1) + 0.0:+.1f}%"


def _entry(e: dict, m: str) -> Optional[dict]:
    return ((e.get("draws") or {}).get("measures") or {}).get(m)


def draws_section(result: dict) -> Any:
    """(heading, intro, tables, footer) of the report's draws section, or None for a one-draw run."""
    if not is_multi(result):
        return None
    seeds = seeds_of(result)
    g = len(seeds)
    cols = [("set", "set", "text"), ("strip", f"drop rate per draw (seeds {','.join(map(str, seeds))})", "text"),
            ("mean", "mean", "num"), ("sd", "SD over draws", "num"), ("ci", "95% CI (queries and draws)", "num"),
            ("worst", f"worst of {g}: mean", "num"), ("wdrop", f"worst of {g}: drop [95% CI]", "num"),
            ("share", "draw share of variance: 1 draw / this run", "num")]
    tables = []
    for m in result.get("measures") or []:
        body = []
        for e in result.get("sets", []):
            d = _entry(e, m)
            if not d:
                continue
            lo, hi = d["drop_rate_ci"]
            wlo, whi = d["worst_drop_rate_ci"]
            c = d.get("components") or {}
            s1, sg = c.get("draw_share_1"), c.get("draw_share_G")
            body.append({"set": e.get("label") or e["name"], "strip": " ".join(_pct(x) for x in d["drop_rates"]),
                         "mean": _pct(d["drop_rate_mean"]),
                         "sd": "-" if d["drop_rate_sd"] is None else f"{100 * d['drop_rate_sd']:.1f} pp",
                         "ci": f"[{_pct(lo)}, {_pct(hi)}]" + (f" ({d['interval_note']})" if d.get("interval_note") else ""),
                         "worst": f"{d['worst_metric']:.4f}",
                         "wdrop": f"{_pct(d['worst_drop_rate'])} [{_pct(wlo)}, {_pct(whi)}]",
                         "share": "-" if s1 is None or sg is None else f"{100 * s1:.0f}% / {100 * sg:.0f}%"})
        if body:
            tables.append((m, cols, body))
    if not tables:
        return None
    intro = (f"Every variation set was drawn {g} times, once per generation seed. The headline figures of a set are "
             f"the means over the draws; its paired tests use the {PAIRED_ON}.")
    foot = ("95% CI: variance-components t interval (draws nested in queries: the delta-method t interval on the "
            "per-query means over draws, which carry both the query and the draw variance). Worst of N: per query the "
            "lowest value over the draws, then the mean; it grows with N. Draw share: the part of the drop rate's "
            "sampling variance that comes from the draw, with one draw per query and with this run's draws. Rule: " + RULE + ".")
    return "Generation draws", intro, tables, foot


def draws_note(run: Any) -> List[str]:
    """One note for compare / the gate about a run with several draws ([] for one draw)."""
    r = run.result
    if not is_multi(r):
        return []
    seeds = seeds_of(r)
    return [f"{getattr(run, 'display', None) or run.folder}: variation sets drawn with generation seeds "
            f"{','.join(map(str, seeds))} ({count(len(seeds), 'draw')}); values and paired tests use the "
            f"{PAIRED_ON}; {RULE}"]


def compare_notes(runs: Sequence[Any]) -> List[str]:
    out: List[str] = []
    for r in runs:
        out.extend(draws_note(r))
    return out


def leaderboard_extras(run: Any, set_name: str, metric: str) -> Dict[str, Any]:
    """Long-row cells of a set drawn several times: draw SD of its drop rate, number of draws and the
    interval over queries and draws ({} for one draw)."""
    e = run.set_entry(set_name) or {}
    d = _entry(e, metric)
    if not d:
        return {}
    lo, hi = d["drop_rate_ci"]
    return {"drop_rate_draw_sd": d["drop_rate_sd"], "n_draws": (e.get("draws") or {}).get("n_draws"),
            "drop_rate_low": lo, "drop_rate_high": hi}


#: long-CSV columns added when (and only when) a leaderboard holds a run with several draws
EXTRA_LONG = ("drop_rate_draw_sd", "n_draws")


def long_columns(base: Sequence[str], rows: Sequence[Dict[str, Any]]) -> List[str]:
    extra = [c for c in EXTRA_LONG if any(r.get(c) is not None for r in rows)]
    return list(base) + extra


def summary_columns(run: Any, rows: List[Dict[str, Any]], cols: List[str], measures: Sequence[str]):
    """The Python API's ``summary`` of a run with several draws: per measure ``drop M draw SD``,
    ``drop M draws low`` / ``high`` (95 % interval over queries and draws), ``worst M`` (mean of the
    per-query worst of N) and ``worst drop M``, and ``n_draws``. One draw: rows and cols unchanged."""
    if not is_multi(run.result):
        return rows, cols
    new = [c.replace(" M", f" {m}") for m in measures for c in ("drop M draw SD", "drop M draws low", "drop M draws high",
                                                                 "worst M", "worst drop M")] + ["n_draws"]
    for row in rows:
        e = run.set_entry(str(row.get("set"))) or {}
        for m in measures:
            d = _entry(e, m)
            if d:
                row.update({f"drop {m} draw SD": d["drop_rate_sd"], f"drop {m} draws low": d["drop_rate_ci"][0],
                            f"drop {m} draws high": d["drop_rate_ci"][1], f"worst {m}": d["worst_metric"],
                            f"worst drop {m}": d["worst_drop_rate"]})
        if e.get("draws"):
            row["n_draws"] = e["draws"].get("n_draws")
    return rows, list(cols) + new
