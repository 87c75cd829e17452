"""What a report shows, gathered from a run folder: the options, the per-set rows and the statistics (rendering: bench.reporting.report, figures: bench.reporting.plots)."""
from __future__ import annotations
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional
import numpy as np
from bench.evaluation import stats as S
from bench.results.rundir import ORIGINAL, Run


@dataclass
class ReportOptions:
    test: Optional[str] = None  # None: from the run's statistics header, else "t-test"
    correction: Optional[str] = None
    seed: Optional[int] = None
    bootstrap: Optional[int] = None
    alpha: Optional[float] = None
    metric: Optional[str] = None  # measure of the scatter plots (default: first measure)


@dataclass
class ReportData:
    run: Run
    measures: List[str]
    sets: List[str]  # ok sets, ORIGINAL first
    means: Dict[str, Dict[str, Optional[float]]]  # set -> measure -> mean
    mean_ci: Dict[str, Dict[str, Any]]  # set -> measure -> (lo, hi) or None
    statistics: Optional[Dict[str, Any]]  # variation_statistics output or None (no per-query table)
    scatter_metric: Optional[str]
    notes: List[str] = field(default_factory=list)
    baseline: str = ORIGINAL  # the set every other set is compared with (domain suite: "zero-shot")


def _settings(run: Run, o: ReportOptions) -> Dict[str, Any]:
    stored = ((run.result.get("statistics") or {}).get("header") or {})
    boot = stored.get("bootstrap") or {}
    return {
        "test": o.test or stored.get("test") or "t-test",
        "correction": o.correction or stored.get("correction") or "holm",
        "seed": o.seed if o.seed is not None else int(stored.get("seed", run.seed if isinstance(run.seed, int) else 0)),
        "bootstrap": o.bootstrap if o.bootstrap is not None else int(boot.get("B", S.DEFAULT_BOOTSTRAP)),
        "alpha": o.alpha if o.alpha is not None else float(stored.get("alpha", 0.05)),
    }


def build(run: Run, options: Optional[ReportOptions] = None) -> ReportData:
    o = options or ReportOptions()
    measures = run.measures
    sets = run.ok_sets
    base = str(run.result.get("baseline") or ORIGINAL)
    if base in sets:
        sets = [base] + [s for s in sets if s != base]
    means = {s: {m: run.metric(s, m) for m in measures} for s in sets}
    mean_ci: Dict[str, Dict[str, Any]] = {s: {m: None for m in measures} for s in sets}
    stats = None
    notes: List[str] = []
    cfg = _settings(run, o)
    if run.per_query is not None and base in sets:
        for s in sets:
            for m in measures:
                x = run.values(s, m).to_numpy(dtype=np.float64)
                x = x[np.isfinite(x)]
                mean_ci[s][m] = S.bootstrap_mean_ci(x, B=cfg["bootstrap"], seed=cfg["seed"], key=("mean", m))
                means[s][m] = float(np.mean(x)) if x.size else None
        var = [s for s in sets if s != base]
        if var:
            stats = S.variation_statistics(run.per_query, var, measures, original=base, **cfg)
    else:
        notes.append("no per-query table (per_query.csv): confidence intervals, tests and scatter plots are omitted")
    metric = o.metric or (measures[0] if measures else None)
    if metric and metric not in measures:
        from bench.core.errors import DataError

        raise DataError(f"metric {metric!r} not measured (measures: {', '.join(measures)})", str(run.result_path))
    missing = [s for s in run.sets if s.get("status", "ok") != "ok"]
    for s in missing:
        notes.append(f"set {s.get('name')} was not evaluated ({s.get('status')}): {s.get('reason', '')}")
    return ReportData(run, measures, sets, means, mean_ci, stats, metric, notes, base)
