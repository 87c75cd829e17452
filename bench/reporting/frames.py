"""The summary DataFrames of a run (``bench.load_run(folder).summary``), built from its result.json."""
from __future__ import annotations

from typing import Any, Dict, List

from bench.results.rundir import Run


def sets_frame(run: Run, pd: Any) -> Any:
    """The summary of a "sets" run (:attr:`bench.api.RunResult.summary`): one row per set, then the
    average rows, as a DataFrame indexed by set name."""
    from bench.results import applicability as AP
    from bench.results.rundir import AVG, ORIGINAL

    figures = AP.set_figures(run)
    ms = run.measures
    rows: List[Dict[str, Any]] = []
    for s in run.sets:
        row: Dict[str, Any] = {"set": s.get("name")}
        metrics, drops = s.get("metrics") or {}, s.get("drop_rate") or {}
        row.update({m: metrics.get(m) for m in ms})
        row.update({f"drop {m}": drops.get(m) for m in ms})
        f = figures.get(str(s.get("name"))) or {}
        reference = s.get("name") == ORIGINAL  # nothing is applied to the reference set: no count
        row["n_applied"] = None if reference else s.get("n_applied", f.get("n_applied"))
        row["n_evaluated"] = s.get("n_evaluated", f.get("n_evaluated"))
        row["applicability"] = f.get("applicability")
        row["low_applicability"] = f.get("low") if f else None
        row["status"] = s.get("status", "ok")
        rows.append(row)
    avg = (run.result.get("summary") or {}).get(AVG)
    if avg:
        rows.append({"set": AVG, **{m: (avg.get("metrics") or {}).get(m) for m in ms},
                     **{f"drop {m}": (avg.get("drop_rate") or {}).get(m) for m in ms}, "status": "ok"})
    ao = AP.applied_average_of(run)
    if ao:
        ci = ao.get("drop_rate_ci") or {}
        rows.append({"set": AP.APPLIED_AVG, **{f"drop {m}": (ao.get("drop_rate") or {}).get(m) for m in ms},
                     **{f"drop {m} low": (ci.get(m) or [None, None])[0] for m in ms},
                     **{f"drop {m} high": (ci.get(m) or [None, None])[1] for m in ms}, "status": "ok"})
    cols = (["set"] + ms + [f"drop {m}" for m in ms] + ["n_applied", "n_evaluated", "applicability",
                                                         "low_applicability", "status"]
            + ([c for m in ms for c in (f"drop {m} low", f"drop {m} high")] if ao else []))
    from bench.reporting.draws import summary_columns

    rows, cols = summary_columns(run, rows, cols, ms)  # several generation seeds: draw SD, interval, worst of N
    df = pd.DataFrame(rows, columns=cols).set_index("set")
    for c in ("n_applied", "n_evaluated"):
        df[c] = df[c].astype("Int64")  # counts stay integers beside the average rows' empty cells
    df.attrs["applied_only"] = ao
    return df


def fewshot_frame(result: Dict[str, Any], pd: Any) -> Any:
    """The summary of a few-shot run: the headline table (one row per class group), or the flat
    summary metrics when the result has no headline."""
    summary = result.get("summary") or {}
    head = summary.get("headline")
    if not isinstance(head, dict):  # no headline: the flat summary metrics
        metrics = summary.get("metrics") or {}
        return pd.DataFrame({"value": list(metrics.values())}, index=pd.Index(list(metrics), name="key"))
    k, measure = head.get("k"), head.get("measure")
    rows = []
    for group in ("all", "base", "novel"):
        ks = (head.get("k_shot") or {}).get(group) or {}
        rows.append({"group": group,
                     f"zero-shot {measure}": (head.get("zero_shot") or {}).get(group),
                     f"{head.get('method')} K={k} {measure}": ks.get("mean"), "SD": ks.get("sd"),
                     f"full-shot {measure}": (head.get("full_shot") or {}).get(group),
                     "winning ratio": (head.get("winning_ratio") or {}).get(group)})
    return pd.DataFrame(rows).set_index("group")
