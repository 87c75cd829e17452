"""The report's figures (PNG, base64 for self-contained HTML): metric per set, drop rates, scatter of per-query values, training-loss curves."""
from __future__ import annotations
import base64
import io
import math
from typing import Dict, List, Optional
import numpy as np
from bench.results.rundir import Run
from bench.reporting.reportdata import ReportData


def mpl_pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def png_base64(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    mpl_pyplot().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_metric_per_set(data: ReportData) -> str:
    plt = mpl_pyplot()
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
        ax.set_title(f"{measure} per set (95% CI: {ci_name(data)})", fontsize=10)
        ax.set_ylabel(measure)
        ax.set_ylim(0, max(1e-9, np.nanmax(np.array(vals, dtype=float) + np.array(err_hi))) * 1.12)
    fig.tight_layout()
    return png_base64(fig)


def plot_drop_rates(data: ReportData) -> Optional[str]:
    if not data.statistics or not data.statistics["sets"]:
        return None
    plt = mpl_pyplot()
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
    ax.set_title(f"drop rate (95% CI: {ci_name(data)}); * = significant, {h['test']} {h['sidedness']}, {h['correction']}",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return png_base64(fig)


def plot_scatter(data: ReportData) -> Optional[str]:
    if data.run.per_query is None or not data.scatter_metric or data.baseline not in data.sets:
        return None
    var = [s for s in data.sets if s != data.baseline]
    if not var:
        return None
    plt = mpl_pyplot()
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
    return png_base64(fig)


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
    plt = mpl_pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    for name, ys in curves.items():
        ax.plot(np.arange(1, len(ys) + 1), ys, label=name, linewidth=1.2)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_title("Training loss per step (as recorded in training.json)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return png_base64(fig)


def ci_name(data: ReportData) -> str:
    """The interval the run's statistics used (t, BCa or percentile bootstrap), for labels."""
    b = ((data.statistics or {}).get("header") or {}).get("bootstrap") or {}
    return {"t": "t interval", "bca": "BCa bootstrap", "percentile": "percentile bootstrap"}.get(
        b.get("interval", "percentile"), str(b.get("interval")))
