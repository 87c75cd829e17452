"""Render one run as a self-contained HTML page (plots embedded as base64 PNG) or as Markdown
(for a PR comment or a CI step summary).

The statistics are recomputed from ``per_query.csv`` with :func:`bench.evaluation.stats.variation_statistics`;
by default with the settings recorded in the run's ``statistics`` header (test, correction,
seed, B, alpha) when present, so the report agrees with ``result.json``.
"""
from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from bench.evaluation import stats as S
from bench.results.rundir import AVG, ORIGINAL, Run, load_run


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


# --------------------------------------------------------------------------- formatting

def _f(x: Any, nd: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{nd}f}"


def _p(x: Any) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.2e}" if x < 1e-3 else f"{x:.4f}"


def _ci(ci: Any, nd: int = 4) -> str:
    if not ci or ci[0] is None or ci[1] is None or not all(math.isfinite(v) for v in ci):
        return "n/a"
    return f"[{ci[0]:.{nd}f}, {ci[1]:.{nd}f}]"


def _pct(x: Any) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def method_lines(data: ReportData) -> List[str]:
    if not data.statistics:
        return []
    h = data.statistics["header"]
    fam = ", ".join(f"{k}: {v}" for k, v in h["family_size"].items())
    b = h["bootstrap"]
    return [
        f"test: {h['test']} ({h['sidedness']}): {h['test_description']}",
        f"correction: {h['correction']}: {h['correction_description']}; family = {h['family']} (size {fam}); "
        f"alpha = {h['alpha']}",
        f"difference: {h['difference']}; drop rate = {h['drop_rate']}; effect size {h['effect_size']}",
        f"bootstrap: B = {b['B']}, {b['method']}, {int(100 * b['confidence'])}% intervals, {b['resampling']}; "
        f"seed = {h['seed']}",
        f"win/tie/loss: {h['win_tie_loss']}; degenerate cases: {h['degenerate']}",
    ]


def rows(data: ReportData, measure: str) -> List[Dict[str, str]]:
    """One row per set with formatted cells (shared by Markdown and HTML)."""
    out = []
    run = data.run
    avg = (run.result.get("summary") or {}).get(AVG) or {}
    for s in data.sets:
        e = run.set_entry(s) or {}
        c = ((data.statistics or {}).get("comparisons") or {}).get(s, {}).get(measure) if s != data.baseline else None
        r = {
            "set": s, "label": run.label(s), "n": str(e.get("n_evaluated", e.get("n_queries", ""))),
            "applied": str(e.get("n_applied", "")), "mean": _f(data.means[s][measure]),
            "ci": _ci(data.mean_ci[s][measure]),
            "delta": "", "delta_ci": "", "drop": "", "drop_ci": "", "p": "", "p_adj": "", "sig": "", "dz": "",
            "wtl": "",
        }
        if c:
            r.update(delta=f"{c['delta']:+.4f}" if c["delta"] is not None else "n/a", delta_ci=_ci(c["delta_ci"]),
                     drop=_pct(c["drop_rate"]),
                     drop_ci=(f"[{_pct(c['drop_rate_ci'][0])}, {_pct(c['drop_rate_ci'][1])}]"
                              if c["drop_rate_ci"][0] is not None else "n/a"),
                     p=_p(c["p_value"]), p_adj=_p(c["p_corrected"]), sig="yes" if c["significant"] else "no",
                     dz=_f(c["d_z"], 3), wtl=f"{c['win']}/{c['tie']}/{c['loss']}")
        elif s != data.baseline:
            dr = (e.get("drop_rate") or {}).get(measure)
            r.update(drop=_pct(dr) if isinstance(dr, (int, float)) else "n/a")
        out.append(r)
    if avg and avg.get("metrics"):
        dr = (avg.get("drop_rate") or {}).get(measure)
        out.append({"set": AVG, "label": AVG, "n": "", "applied": "", "mean": _f((avg["metrics"]).get(measure)),
                    "ci": "", "delta": "", "delta_ci": "", "drop": _pct(dr) if isinstance(dr, (int, float)) else "n/a",
                    "drop_ci": "", "p": "", "p_adj": "", "sig": "", "dz": "", "wtl": ""})
    return out


COLUMNS = [("label", "set"), ("n", "n"), ("applied", "applied"), ("mean", "mean"), ("ci", "95% CI (bootstrap)"),
           ("delta", "delta vs baseline"), ("delta_ci", "delta 95% CI"), ("drop", "drop rate"),
           ("drop_ci", "drop-rate 95% CI"), ("p", "p"), ("p_adj", "p corrected"), ("sig", "significant"),
           ("dz", "d_z"), ("wtl", "W/T/L")]


def _md_cell(s: str) -> str:
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(data: ReportData) -> str:
    run = data.run
    lines = [f"## drbench report: {_md_cell(run.model_name)} on {_md_cell(run.dataset_name)}", ""]
    lines.append(f"suite `{run.suite}`, seed {run.seed}, dataset fingerprint `{run.dataset_fingerprint[:12]}`, "
                 f"model fingerprint `{run.model_fingerprint[:12]}`, drbench {run.result.get('drbench_version', '?')}")
    lines.append("")
    for m in method_lines(data):
        lines.append(f"- {_md_cell(m)}")
    if data.statistics:
        lines.append("")
    for measure in data.measures:
        lines.append(f"### {_md_cell(measure)}")
        lines.append("")
        lines.append("| " + " | ".join(h for _, h in COLUMNS) + " |")
        lines.append("|---|" + "---:|" * (len(COLUMNS) - 1))
        for r in rows(data, measure):
            lines.append("| " + " | ".join(_md_cell(r[k]) for k, _ in COLUMNS) + " |")
        lines.append("")
    for n in data.notes:
        lines.append(f"note: {_md_cell(n)}")
    if run.suite == "fewshot":
        lines += _fewshot_md(run)
    return "\n".join(lines).rstrip() + "\n"


def _fewshot_md(run: Run) -> List[str]:
    summ = run.result.get("summary")
    if not isinstance(summ, dict):
        return ["note: few-shot result without a summary: nothing to show"]
    out = ["", "### few-shot summary", "", "| key | value |", "|---|---:|"]
    for k, v in sorted(_flatten(summ).items()):
        out.append(f"| {_md_cell(k)} | {_f(v)} |")
    return out


def _flatten(d: Any, prefix: str = "") -> Dict[str, float]:
    out: Dict[str, float] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}{k}" if not prefix else f"{prefix} / {k}"))
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix] = float(d)
    return out


# --------------------------------------------------------------------------- plots

def _mpl():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    _mpl().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_metric_per_set(data: ReportData) -> str:
    plt = _mpl()
    k = len(data.measures)
    fig, axes = plt.subplots(1, k, figsize=(max(5.5, 1.1 * len(data.sets) + 2) * min(k, 2) / 1.3, 3.6), squeeze=False)
    for ax, measure in zip(axes[0], data.measures):
        labels = [data.run.label(s) for s in data.sets]
        vals = [data.means[s][measure] if data.means[s][measure] is not None else np.nan for s in data.sets]
        err_lo, err_hi = [], []
        for s, v in zip(data.sets, vals):
            ci = data.mean_ci[s][measure]
            if ci and all(c is not None and math.isfinite(c) for c in ci):
                err_lo.append(max(0.0, v - ci[0]))
                err_hi.append(max(0.0, ci[1] - v))
            else:
                err_lo.append(0.0)
                err_hi.append(0.0)
        colors = ["#4c72b0" if s == data.baseline else "#dd8452" for s in data.sets]
        x = np.arange(len(vals))
        ax.bar(x, vals, color=colors, yerr=[err_lo, err_hi], capsize=4, ecolor="black")
        for xi, v in zip(x, vals):
            if math.isfinite(v):
                ax.text(xi, v / 2, f"{v:.3f}", ha="center", va="center", color="white", fontsize=8)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(f"{measure} per set (95% bootstrap CI)", fontsize=10)
        ax.set_ylabel(measure)
        ax.set_ylim(0, max(1e-9, np.nanmax(np.array(vals, dtype=float) + np.array(err_hi))) * 1.12)
    fig.tight_layout()
    return _png(fig)


def plot_drop_rates(data: ReportData) -> Optional[str]:
    if not data.statistics or not data.statistics["sets"]:
        return None
    plt = _mpl()
    var = data.statistics["sets"]
    k = len(data.measures)
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(var) * k / 1.5 + 2), 3.6))
    width = 0.8 / k
    x = np.arange(len(var))
    for j, measure in enumerate(data.measures):
        vals, lo, hi, sig = [], [], [], []
        for s in var:
            c = data.statistics["comparisons"][s][measure]
            v = c["drop_rate"] if c["drop_rate"] is not None else np.nan
            ci = c["drop_rate_ci"]
            vals.append(v)
            lo.append(max(0.0, v - ci[0]) if ci[0] is not None and math.isfinite(v) else 0.0)
            hi.append(max(0.0, ci[1] - v) if ci[1] is not None and math.isfinite(v) else 0.0)
            sig.append(c["significant"])
        pos = x - 0.4 + width * (j + 0.5)
        ax.bar(pos, 100 * np.array(vals), width, yerr=[100 * np.array(lo), 100 * np.array(hi)], capsize=3,
               label=measure)
        for p, v, h, sg in zip(pos, vals, hi, sig):
            if sg and math.isfinite(v):
                ax.text(p, 100 * (v + h) + 0.5 if v >= 0 else 100 * (v - h) - 2.5, "*", ha="center", fontsize=12)
    ax.axhline(0, color="black", lw=0.8)
    lo_y, hi_y = ax.get_ylim()
    ax.set_ylim(min(lo_y, 0.0), hi_y + 0.12 * (hi_y - min(lo_y, 0.0)))
    ax.set_xticks(x)
    ax.set_xticklabels([data.run.label(s) for s in var], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"drop rate vs {data.baseline} (%)")
    h = data.statistics["header"]
    ax.set_title(f"drop rate (95% bootstrap CI); * = significant, {h['test']} {h['sidedness']}, {h['correction']}",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def plot_scatter(data: ReportData) -> Optional[str]:
    if data.run.per_query is None or not data.scatter_metric or data.baseline not in data.sets:
        return None
    var = [s for s in data.sets if s != data.baseline]
    if not var:
        return None
    plt = _mpl()
    m = data.scatter_metric
    cols = min(3, len(var))
    nrows = int(math.ceil(len(var) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 3.5 * nrows), squeeze=False)
    orig = data.run.values(data.baseline, m)
    for ax, s in zip(axes.ravel(), var):
        v = data.run.values(s, m)
        common = [q for q in orig.index if q in v.index]
        a = orig.loc[common].to_numpy(dtype=float)
        b = v.loc[common].to_numpy(dtype=float)
        ok = np.isfinite(a) & np.isfinite(b)
        a, b = a[ok], b[ok]
        pts, counts = np.unique(np.column_stack([a, b]), axis=0, return_counts=True)
        below = pts[:, 1] < pts[:, 0]
        above = pts[:, 1] > pts[:, 0]
        same = ~(below | above)
        for mask, color, lab in ((below, "#c44e52", "variation worse"), (same, "#8c8c8c", "tie"),
                                 (above, "#55a868", "variation better")):
            if mask.any():
                ax.scatter(pts[mask, 0], pts[mask, 1], s=6 + 60 * np.sqrt(counts[mask] / counts.max()), c=color,
                           alpha=0.6, edgecolors="none", label=f"{lab} ({int(counts[mask].sum())})")
        lim = max(1e-9, float(max(a.max(initial=0), b.max(initial=0)))) * 1.05
        ax.plot([0, lim], [0, lim], color="black", lw=0.8)
        ax.set_xlim(-0.02 * lim, lim)
        ax.set_ylim(-0.02 * lim, lim)
        ax.set_xlabel(f"{data.baseline} {m}", fontsize=8)
        ax.set_ylabel(f"{data.run.label(s)} {m}", fontsize=8)
        ax.set_title(f"{data.run.label(s)}: per query (n={a.size})", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    for ax in axes.ravel()[len(var):]:
        ax.axis("off")
    fig.suptitle(f"{m}: {data.baseline} vs other set per query (marker area ~ number of queries)", fontsize=10)
    fig.tight_layout()
    return _png(fig)


# --------------------------------------------------------------------------- HTML

CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}td.nw{white-space:nowrap}tr.sig td{background:#fff3f0}
.meta{color:#555;font-size:13px}ul.method{font-size:13px;color:#333}img{max-width:100%;display:block;margin:8px 0 24px}
.note{color:#8a4b00;font-size:13px}"""


def loss_curves(run: Run) -> Dict[str, List[float]]:
    """Per-step training losses recorded in a result: the evaluated checkpoint's own training
    (``model.training``) and, in the domain suite, every trained system's."""
    curves: Dict[str, List[float]] = {}
    own = (run.result.get("model") or {}).get("training") or {}
    if own.get("loss_curve"):
        curves[f"{run.model_name} ({own.get('recipe') or own.get('kind')})"] = own["loss_curve"]
    for e in run.sets:
        tr = e.get("training") or {}
        for part, t in ((None, tr), ("DAM", tr.get("backbone") or {}), ("REM", tr.get("rem") or {})):
            if t.get("loss_curve"):
                curves[e["name"] if part is None else f"{e['name']}: {part}"] = t["loss_curve"]
    return curves


def plot_loss_curves(data: ReportData) -> Optional[str]:
    curves = loss_curves(data.run)
    if not curves:
        return None
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    for name, ys in curves.items():
        ax.plot(np.arange(1, len(ys) + 1), ys, label=name, linewidth=1.2)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_title("Training loss per step (as recorded in training.json)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


def _td_class(key: str) -> str:
    if key == "label":
        return ""
    return " class=\"num\"" if key in ("ci", "delta_ci", "drop_ci") else " class=\"num nw\""


def render_html(data: ReportData, plots: bool = True) -> str:
    run = data.run
    e = html.escape
    title = f"drbench report: {run.model_name} on {run.dataset_name}"
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>{e(title)}</title><style>{CSS}</style></head><body>", f"<h1>{e(title)}</h1>"]
    ds = run.result.get("dataset") or {}
    parts.append(
        f"<p class=\"meta\">suite <b>{e(run.suite)}</b>, seed {e(str(run.seed))}, dataset {e(run.dataset_name)} "
        f"({e(str(ds.get('split', '')))}, {e(str(ds.get('n_queries', '?')))} queries, fingerprint "
        f"<code>{e(run.dataset_fingerprint[:12])}</code>), model fingerprint <code>{e(run.model_fingerprint[:12])}</code>, "
        f"drbench {e(str(run.result.get('drbench_version', '?')))}</p>")
    ml = method_lines(data)
    if ml:
        parts.append("<h2>Method</h2><ul class=\"method\">" + "".join(f"<li>{e(m)}</li>" for m in ml) + "</ul>")
    for measure in data.measures:
        parts.append(f"<h2>{e(measure)}</h2><table><thead><tr>"
                     + "".join(f"<th>{e(h)}</th>" for _, h in COLUMNS) + "</tr></thead><tbody>")
        for r in rows(data, measure):
            cls = " class=\"sig\"" if r["sig"] == "yes" else ""
            parts.append(f"<tr{cls}>" + "".join(
                f"<td{_td_class(k)}>{e(r[k])}</td>" for k, _ in COLUMNS) + "</tr>")
        parts.append("</tbody></table>")
    if plots and data.measures and data.sets:
        parts.append("<h2>Plots</h2>")
        for name, fn in (("metric per set", plot_metric_per_set), ("drop rates", plot_drop_rates),
                         ("per-query scatter", plot_scatter), ("training loss", plot_loss_curves)):
            png = fn(data)
            if png:
                parts.append(f"<img alt=\"{e(name)}\" src=\"data:image/png;base64,{png}\">")
    for n in data.notes:
        parts.append(f"<p class=\"note\">note: {e(n)}</p>")
    if run.suite == "fewshot":
        parts.append("<pre>" + e("\n".join(_fewshot_md(run))) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def report(path: Any, fmt: str = "html", options: Optional[ReportOptions] = None, plots: bool = True) -> str:
    run = load_run(path, per_query=None)
    data = build(run, options)
    return render_markdown(data) if fmt == "md" else render_html(data, plots=plots)
