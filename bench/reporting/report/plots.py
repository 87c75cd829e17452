"""The report's figures (PNG, base64 for self-contained HTML): drop rates with intervals (forest plot), means with intervals, scatter of per-query values, training-loss curves."""
from __future__ import annotations
import base64
import io
import math
from typing import Dict, List, Optional
import numpy as np
from bench.results.rundir import Run
from bench.reporting import interval_words as IW
from bench.reporting.report import markup as M
from bench.reporting.report.data import ReportData


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


WORSE, BETTER, NEUTRAL = "#c0392b", "#2e8b57", "#555555"


def _style(significant: bool, delta: Optional[float]) -> str:
    if not significant or delta is None or not math.isfinite(delta) or delta == 0:
        return NEUTRAL
    return WORSE if delta < 0 else BETTER


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _bar(v: float, lo: float, hi: float):
    """The error bar of an interval around ``v``: its two arms, never negative (an interval of equal
    values can come back a rounding step on the wrong side of its point estimate)."""
    return [[max(v - lo, 0.0)], [max(hi - v, 0.0)]]


def plot_drop_forest(data: ReportData) -> Optional[str]:
    """Drop rate with its 95% interval per set (rows: the headline order, largest drop on top), one
    panel per measure; filled red = significant drop, filled green = significant gain, hollow grey
    = not significant. The x axis spans the intervals (and 0), so small differences stay visible."""
    if not data.statistics or not data.measures:
        return None
    order = [s for s in data.ordered() if s != data.baseline]
    if not order:
        return None
    plt = mpl_pyplot()
    k = len(data.measures)
    fig, axes = plt.subplots(1, k, figsize=(min(4.6 * k, 14.5) + 1.8, 0.42 * len(order) + 1.7), sharey=True,
                             squeeze=False)
    y = np.arange(len(order))[::-1]
    for ax, m in zip(axes[0], data.measures):
        xs = [0.0]
        for yi, s in zip(y, order):
            c = data.comparison(s, m) or {}
            v = c.get("drop_rate")
            if not _finite(v):
                continue
            lo, hi = (c.get("drop_rate_ci") or [None, None])[:2]
            lo = lo if _finite(lo) else v
            hi = hi if _finite(hi) else v
            color = _style(bool(c.get("significant")), c.get("delta"))
            ax.errorbar([100 * v], [yi], xerr=_bar(100 * v, 100 * lo, 100 * hi), fmt="o", color=color, ms=7,
                        mfc=color if color != NEUTRAL else "white", mew=1.5, capsize=3, lw=1.4)
            ax.annotate(M.drop(v), (100 * hi, yi), xytext=(5, 0), textcoords="offset points", va="center",
                        fontsize=9, color=color)
            xs += [100 * lo, 100 * hi]
        lo_x, hi_x = min(xs), max(xs)
        pad = 0.08 * (hi_x - lo_x or 1.0)
        ax.set_xlim(lo_x - pad, hi_x + 2.5 * pad)
        ax.axvline(0, color="black", lw=0.8)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(m, fontsize=11)
        ax.set_xlabel(f"drop rate vs {data.baseline} (%, + = worse)", fontsize=10)
        ax.tick_params(labelsize=9)
    axes[0][0].set_yticks(y)
    axes[0][0].set_yticklabels(list(order), fontsize=10)
    axes[0][0].set_ylim(-0.7, len(order) - 0.3)
    h = data.statistics["header"]
    fig.suptitle(f"Drop rate per set, 95% CI ({ci_name(data)}); red = significant drop, green = significant gain, "
                 f"hollow = not significant ({h['test']}, {h['correction']}, alpha {h['alpha']})", fontsize=10)
    fig.tight_layout()
    return png_base64(fig)


def plot_means(data: ReportData) -> Optional[str]:
    """Mean per set with its 95% interval, one panel per measure; the axis is zoomed to the data (it
    does not start at 0, so differences of a few points stay visible) and the baseline's mean is a
    dashed line."""
    order = data.ordered()
    panels = [m for m in data.measures if any(_finite(data.means[s][m]) for s in order)]
    if not order or not panels:
        return None
    plt = mpl_pyplot()
    k = len(panels)
    fig, axes = plt.subplots(1, k, figsize=(min(4.6 * k, 14.5) + 1.8, 0.42 * len(order) + 1.7), sharey=True,
                             squeeze=False)
    y = np.arange(len(order))[::-1]
    for ax, m in zip(axes[0], panels):
        for yi, s in zip(y, order):
            v = data.means[s][m]
            if not _finite(v):
                continue
            ci = data.mean_ci[s][m]
            err = _bar(v, ci[0], ci[1]) if ci and all(_finite(c) for c in ci) else None
            c = data.comparison(s, m) or {}
            color = "#4c72b0" if s == data.baseline else _style(bool(c.get("significant")), c.get("delta"))
            ax.errorbar([v], [yi], xerr=err, fmt="o", color=color, ms=6, capsize=3,
                        mfc=color if color != NEUTRAL else "white", mew=1.5)
        b = data.means.get(data.baseline, {}).get(m)
        if _finite(b):
            ax.axvline(b, color="#4c72b0", lw=1, ls="--")
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{m} (axis zoomed, not from 0)", fontsize=10)
        ax.set_xlabel(f"mean {m}", fontsize=10)
        ax.tick_params(labelsize=9)
    axes[0][0].set_yticks(y)
    axes[0][0].set_yticklabels(list(order), fontsize=10)
    fig.suptitle(f"Mean per set with 95% CI ({ci_name(data)}); dashed = {data.baseline}", fontsize=10)
    fig.tight_layout()
    return png_base64(fig)


def plot_scatter(data: ReportData) -> Optional[str]:
    if data.run.per_query is None or not data.scatter_metric or data.baseline not in data.sets:
        return None
    var = [s for s in data.ordered() if s != data.baseline]
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
        if not a.size:
            ax.set_title(f"{s}: no paired queries", fontsize=9)
            continue
        pts, counts = np.unique(np.column_stack([a, b]), axis=0, return_counts=True)
        below = pts[:, 1] < pts[:, 0]
        above = pts[:, 1] > pts[:, 0]
        same = ~(below | above)
        for mask, color, lab in ((below, "#c44e52", "worse"), (same, "#8c8c8c", "tie"), (above, "#55a868", "better")):
            if mask.any():
                ax.scatter(pts[mask, 0], pts[mask, 1], s=6 + 60 * np.sqrt(counts[mask] / counts.max()), c=color,
                           alpha=0.6, edgecolors="none", label=f"{lab} ({int(counts[mask].sum())})")
        lim = (float(max(a.max(), b.max(), 0.0)) or 1.0) * 1.05
        ax.plot([0, lim], [0, lim], color="black", lw=0.8)
        ax.set_xlim(-0.02 * lim, lim)
        ax.set_ylim(-0.02 * lim, lim)
        ax.set_xlabel(f"{data.baseline} {m}", fontsize=8)
        ax.set_ylabel(f"{s} {m}", fontsize=8)  # the set's short name: a long label would cross the panel above
        ax.set_title(f"{s}\nper query (n={a.size})", fontsize=9)
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
        for part, t in ((None, tr), ("source DAM", tr.get("source_backbone") or {}), ("DAM", tr.get("backbone") or {}),
                        ("REM", tr.get("rem") or {})):
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
    return IW.interval_label((data.statistics or {}).get("header"))
