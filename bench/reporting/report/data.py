"""What a report shows, gathered from a run folder: the options, the per-set rows and the statistics (rendering: bench.reporting.report, figures: bench.reporting.report.plots)."""
from __future__ import annotations
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional
import numpy as np
from bench.core.errors import DataError
from bench.evaluation import exact
from bench.evaluation import stats as S
from bench.reporting.report.power import mde_table, power_warnings
from bench.results import applicability as AP
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
    order: Dict[str, List[str]] = field(default_factory=dict)  # measure -> other sets, largest drop first
    mde: Dict[str, Dict[str, Optional[float]]] = field(default_factory=dict)  # set -> measure -> MDE
    warnings: List[str] = field(default_factory=list)  # small-n warnings (bench.reporting.report.power)
    applicability: Dict[str, dict] = field(default_factory=dict)  # variation set -> figures (bench.results.applicability)
    applied_average: Optional[Dict[str, Any]] = None  # the applied-only companion of VARIATIONS (AVG.)

    def low(self, s: str) -> str:
        """The low-applicability marker of set ``s`` ("" when it is not flagged)."""
        return AP.LOW_MARK if (self.applicability.get(s) or {}).get("low") else ""

    @property
    def headline(self) -> Optional[str]:
        """The measure the headline is sorted by (``--metric``, else the first measure)."""
        return self.scatter_metric

    def comparison(self, s: str, measure: str) -> Optional[Dict[str, Any]]:
        return ((self.statistics or {}).get("comparisons") or {}).get(s, {}).get(measure)

    def drop(self, s: str, measure: str) -> Optional[float]:
        """Drop rate of set ``s`` vs the baseline: from the statistics, else from the result file."""
        c = self.comparison(s, measure)
        v = c.get("drop_rate") if c else ((self.run.set_entry(s) or {}).get("drop_rate") or {}).get(measure)
        return float(v) if isinstance(v, (int, float)) and np.isfinite(v) else None

    def ordered(self, measure: Optional[str] = None) -> List[str]:
        """The baseline, then the other sets by drop on ``measure`` (default: the headline measure)."""
        m = measure or self.headline
        rest = self.order.get(m or "", [s for s in self.sets if s != self.baseline])
        return ([self.baseline] if self.baseline in self.sets else []) + rest


def _settings(run: Run, o: ReportOptions) -> Dict[str, Any]:
    stored = ((run.result.get("statistics") or {}).get("header") or {})
    boot = stored.get("bootstrap") or {}
    return {
        "test": o.test or stored.get("test") or "t-test",
        "correction": o.correction or stored.get("correction") or "holm",
        "seed": o.seed if o.seed is not None else int(stored.get("seed", run.seed if isinstance(run.seed, int) else 0)),
        "bootstrap": o.bootstrap if o.bootstrap is not None else int(boot.get("B", S.DEFAULT_BOOTSTRAP)),
        "alpha": o.alpha if o.alpha is not None else float(stored.get("alpha", 0.05)),
        # the interval the run recorded (files without statistics: the default), so the report's
        # intervals and their words (bench.reporting.interval_words) are the run's
        "interval": str(boot.get("interval") or S.DEFAULT_CI) if boot.get("interval", S.DEFAULT_CI) in S.CI_METHODS
        else S.DEFAULT_CI,
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
                mean_ci[s][m] = S.bootstrap_mean_ci(x, B=cfg["bootstrap"], seed=cfg["seed"], key=("mean", m),
                                                     interval=cfg["interval"])
                means[s][m] = exact.mean(x) if x.size else None
        var = [s for s in sets if s != base]
        if var:
            stats = S.variation_statistics(run.per_query, var, measures, original=base, **cfg)
    elif run.per_query is None:
        notes.append("no per-query table (per_query.csv): confidence intervals, tests and scatter plots are omitted")
    else:
        notes.append(f"the baseline set {base!r} was not evaluated: no paired statistics")
    metric = o.metric or (measures[0] if measures else None)
    if metric and metric not in measures:
        raise DataError(f"metric {metric!r} not measured (measures: {', '.join(measures)})", str(run.result_path),
                        fix=f"pass --metric with one of {', '.join(measures)}")
    missing = [s for s in run.sets if s.get("status", "ok") != "ok"]
    for s in missing:
        notes.append(f"set {s.get('name')} was not evaluated ({s.get('status')}): {s.get('reason', '')}")
    data = ReportData(run, measures, sets, means, mean_ci, stats, metric, notes, base)
    if base == ORIGINAL:  # variations: a domain run compares systems, nothing is "applied"
        data.applicability = AP.set_figures(run)
        data.applied_average = AP.applied_average_of(run)
    others = [s for s in sets if s != base]
    for m in measures:  # largest drop first; sets without a drop rate last, in result order
        data.order[m] = sorted(others, key=lambda s: (data.drop(s, m) is None, -(data.drop(s, m) or 0.0)))
    if stats is not None and others:
        data.mde = mde_table(run.per_query, base, others, measures, stats)
        data.warnings = power_warnings(data.mde, stats, others, measures, label=run.label)
    return data
