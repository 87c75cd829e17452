"""Models x sets table of one metric with significance markers after correction.

For each run (row), every variation set is compared with that run's ORIGINAL on the same
queries (paired test, two-sided; family = the run's variation sets on the metric, corrected
with Holm by default): ``▼`` significantly lower, ``▲`` significantly higher.
With ``baseline``, every set of every other run is also compared with the same set of the
baseline run (paired on the same queries; the runs must be comparable as for the gate;
family = the run's sets): ``†`` significantly lower than the baseline, ``‡`` higher.
Win / tie / loss counts are per query (variation vs ORIGINAL, and run vs baseline).

Comparability (the gate's rule, :mod:`bench.reporting.comparability`): the runs are grouped into
mutually comparable runs; with more than one group every row names its group and a note says why
each group differs from the first (its VARIATIONS (AVG.) averages other sets, or other queries).
For every pair of runs in the same group, the drop rate of VARIATIONS (AVG.) is compared
(:mod:`bench.reporting.compare.droprate`: the skewness-widened t interval, computed without
resampling, and the two-sided swap randomization test, Monte Carlo with ``resamples`` swaps beyond
20 differing queries).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from bench.evaluation import exact
from bench.evaluation import stats as S
from bench.evaluation.droprate import DEFAULT_BOOTSTRAP_B
from bench.core.errors import DataError
from bench.results.rundir import AVG, ORIGINAL, Run, load_run
from bench.results.suite import suite_of
from bench.reporting.csvsafe import csv_text
from bench.reporting.compare import droprate as DR
from bench.reporting.draws import compare_notes
from bench.reporting.comparability import COMPARE_BASELINE_ROLES, check_compatible, comparable_groups, paired_arrays
from bench.core.sheet import md_cell as _md


@dataclass
class Cell:
    mean: Optional[float]
    vs_original: Optional[Dict[str, Any]] = None  # p, p_corrected, significant, delta, win, tie, loss
    vs_baseline: Optional[Dict[str, Any]] = None

    def marker(self) -> str:
        m = ""
        o = self.vs_original
        if o and o["significant"]:
            m += "▼" if o["delta"] < 0 else "▲"
        b = self.vs_baseline
        if b and b["significant"]:
            m += "†" if b["delta"] < 0 else "‡"
        return m


@dataclass
class CompareTable:
    metric: str
    sets: List[str]
    rows: List[str]  # row labels
    cells: List[Dict[str, Cell]]
    avg: List[Optional[float]]
    options: Dict[str, Any]
    baseline: Optional[str] = None
    notes: List[str] = field(default_factory=list)
    groups: List[int] = field(default_factory=list)  # comparability group (1-based) of each row
    drop_rates: List[Dict[str, Any]] = field(default_factory=list)  # droprate.COLUMNS records

    def legend(self) -> List[str]:
        o = self.options
        lines = [
            f"metric {self.metric}; test: {S.TEST_DESCRIPTIONS[o['test']]}; two-sided; alpha = {o['alpha']}",
            f"correction: {S.CORRECTION_DESCRIPTIONS[o['correction']]}; family vs ORIGINAL = one run's variation "
            "sets on the metric" + ("; family vs baseline = one run's sets" if self.baseline else ""),
            "▼ / ▲: significantly lower / higher than the same model's ORIGINAL (after correction)",
            f"d_z SD ddof=1; W/T/L = queries where the variation (or the run) scores higher / equal / lower; "
            f"seed = {o['seed']}",
        ]
        if self.baseline:
            lines.append(f"† / ‡: significantly lower / higher than the baseline run `{self.baseline}` on the same set")
        return lines

    def markdown(self) -> str:
        esc = _md
        head = ["model"] + self.sets + [AVG]
        out = [f"### drbench compare: {esc(self.metric)}", ""]
        out += [f"- {esc(l)}" for l in self.legend()]
        out += ["", "| " + " | ".join(esc(h) for h in head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        for label, cells, avg in zip(self.rows, self.cells, self.avg):
            vals = []
            for s in self.sets:
                c = cells.get(s)
                vals.append("" if c is None or c.mean is None else f"{c.mean:.4f}{c.marker()}")
            vals.append("" if avg is None else f"{avg:.4f}")
            out.append("| " + " | ".join([esc(label)] + vals) + " |")
        out += ["", "W/T/L vs ORIGINAL" + (" (and vs baseline)" if self.baseline else ""), ""]
        out += ["| " + " | ".join(esc(h) for h in ["model"] + self.sets) + " |", "|---|" + "---:|" * len(self.sets)]
        for label, cells in zip(self.rows, self.cells):
            vals = []
            for s in self.sets:
                c = cells.get(s)
                t = ""
                if c and c.vs_original:
                    o = c.vs_original
                    t = f"{o['win']}/{o['tie']}/{o['loss']}"
                if c and c.vs_baseline:
                    b = c.vs_baseline
                    t += (" " if t else "") + f"(vs base {b['win']}/{b['tie']}/{b['loss']})"
                vals.append(t)
            out.append("| " + " | ".join([esc(label)] + vals) + " |")
        out += DR.markdown(self.drop_rates, self.metric, self.options["correction"], self.options["alpha"])
        for n in self.notes:
            out += ["", f"note: {esc(n)}"]
        return "\n".join(out) + "\n"

    def drop_rate_csv(self) -> str:
        return DR.to_csv(self.drop_rates)

    def records(self) -> List[Dict[str, Any]]:
        """Long records (one per model x set) for CSV / JSON."""
        recs = []
        for label, cells, grp in zip(self.rows, self.cells, self.groups or [1] * len(self.rows)):
            for s in self.sets:
                c = cells.get(s)
                if c is None:
                    continue
                o = c.vs_original or {}
                b = c.vs_baseline or {}
                recs.append({
                    "model": label, "group": grp, "set": s, "metric": self.metric, "mean": c.mean, "marker": c.marker(),
                    "delta_vs_original": o.get("delta"), "p_vs_original": o.get("p_value"),
                    "p_corrected_vs_original": o.get("p_corrected"), "significant_vs_original": o.get("significant"),
                    "d_z_vs_original": o.get("d_z"), "win": o.get("win"), "tie": o.get("tie"), "loss": o.get("loss"),
                    "delta_vs_baseline": b.get("delta"), "p_vs_baseline": b.get("p_value"),
                    "p_corrected_vs_baseline": b.get("p_corrected"), "significant_vs_baseline": b.get("significant"),
                    "win_vs_baseline": b.get("win"), "tie_vs_baseline": b.get("tie"), "loss_vs_baseline": b.get("loss"),
                    "test": self.options["test"], "sidedness": "two-sided", "correction": self.options["correction"],
                    "alpha": self.options["alpha"],
                })
        return recs

    def csv(self) -> str:
        recs = self.records()
        cols = list(recs[0]) if recs else ["model", "set"]
        return csv_text(cols, ([r[c] for c in cols] for r in recs))


def _pair_stats(a: np.ndarray, b: np.ndarray, test: str, seed: int, key: Sequence[str]) -> Dict[str, Any]:
    r = S.paired_test(a, b, test, seed=seed, key=key)
    w, t, l = S.win_tie_loss(a, b)
    return {"p_value": r.pvalue, "delta": exact.mean(b) - exact.mean(a) if a.size else float("nan"),
            "d_z": S.cohen_dz(a, b), "win": w, "tie": t, "loss": l, "n": int(a.size)}


def _correct(items: List[Dict[str, Any]], correction: str, alpha: float) -> None:
    adj = S.adjust_pvalues([d["p_value"] for d in items], correction)
    for d, p in zip(items, adj):
        d["p_corrected"] = float(p)
        d["significant"] = bool(math.isfinite(p) and p < alpha)


def _row_label(run: Run, all_runs: Sequence[Run]) -> str:
    label = run.model_name
    if len({r.dataset_name for r in all_runs}) > 1:
        label += f" ({run.dataset_name})"
    same = [r for r in all_runs if r.model_name == run.model_name and r.dataset_name == run.dataset_name]
    if len(same) > 1:
        label += f" [{run.folder.name}]"
    return label


def compare(paths: Sequence[Any], *, metric: Optional[str] = None, baseline: Any = None, test: str = "t-test",
            correction: str = "holm", alpha: float = 0.05, seed: int = 0, resamples: int = DEFAULT_BOOTSTRAP_B,
            confidence: float = 0.95) -> CompareTable:
    if test not in S.TESTS or correction not in S.CORRECTIONS:
        raise ValueError("unknown test or correction")
    if resamples < 1 or not 0 < confidence < 1:
        raise ValueError("resamples must be >= 1 and confidence in (0, 1)")
    runs = [load_run(p, per_query=True) for p in paths]
    for r in runs:
        if suite_of(r).layout != "sets":
            raise DataError(f"compare reads runs whose sets are compared with a reference; suite {r.suite!r} lays its "
                            f"result out as {suite_of(r).layout!r}", str(r.result_path))
    base = load_run(baseline, per_query=True) if baseline is not None else None
    metric = metric or runs[0].measures[0]
    for r in runs + ([base] if base else []):
        if metric not in r.measures:
            raise DataError(f"metric {metric!r} not measured (measures: {', '.join(r.measures)})", str(r.result_path))
    sets: List[str] = []
    for r in runs:
        for s in r.ok_sets:
            if s not in sets:
                sets.append(s)
    if ORIGINAL in sets:
        sets = [ORIGINAL] + [s for s in sets if s != ORIGINAL]
    all_cells: List[Dict[str, Cell]] = []
    avgs: List[Optional[float]] = []
    notes: List[str] = []
    for r in runs:
        cells: Dict[str, Cell] = {}
        orig = r.values(ORIGINAL, metric) if ORIGINAL in r.ok_sets else None
        fam: List[Dict[str, Any]] = []
        for s in r.ok_sets:
            v = r.values(s, metric).to_numpy(dtype=np.float64)
            cell = Cell(exact.mean(v[~np.isnan(v)]) if v.size else None)
            if s != ORIGINAL and orig is not None:
                from bench.results.rundir import paired

                a, b, _ = paired(r, ORIGINAL, r, s, metric)
                cell.vs_original = _pair_stats(a, b, test, seed, ("compare", s))
                fam.append(cell.vs_original)
            cells[s] = cell
        _correct(fam, correction, alpha)
        if base is not None and base.folder.resolve() != r.folder.resolve():
            shared = check_compatible(base, r, metric, COMPARE_BASELINE_ROLES)
            bd, cd, n2 = paired_arrays(base, r, shared, metric, COMPARE_BASELINE_ROLES)
            notes.extend(n2)
            famb = []
            for s in shared:
                cells[s].vs_baseline = _pair_stats(bd[s], cd[s], test, seed, ("compare-baseline", s))
                famb.append(cells[s].vs_baseline)
            _correct(famb, correction, alpha)
        avg = ((r.result.get("summary") or {}).get(AVG) or {}).get("metrics", {}).get(metric)
        if avg is None:
            var = [cells[s].mean for s in r.variation_sets if cells[s].mean is not None]
            avg = exact.mean(var) if var else None
        all_cells.append(cells)
        avgs.append(avg)
    labels = [_row_label(r, runs) for r in runs]
    groups = comparable_groups(runs, metric)
    row_group = [0] * len(runs)
    for gi, g in enumerate(groups, 1):
        for i in g.members:
            row_group[i] = gi
    if len(groups) > 1:
        labels = [f"{lab} [group {row_group[i]}]" for i, lab in enumerate(labels)]
        for gi, g in enumerate(groups[1:], 2):
            notes.append(f"group {gi} ({', '.join(runs[i].display for i in g.members)}) is not comparable with group 1 "
                         f"(the rule bench gate applies too): {g.reason}. Its {AVG} is not comparable either; drop rates are compared "
                         "only within a group")
    drops, n3 = DR.drop_rate_pairs(runs, labels, groups, metric, B=resamples, n_resamples=resamples, seed=seed,
                                   confidence=confidence, correction=correction, alpha=alpha)
    notes.extend(n3)
    notes.extend(compare_notes(runs))  # runs drawn with several generation seeds
    return CompareTable(metric, sets, labels, all_cells, avgs,
                        {"test": test, "correction": correction, "alpha": alpha, "seed": seed,
                         "resamples": resamples, "confidence": confidence},
                        str(base.folder) if base else None, notes, row_group, drops)
