"""Render one run as a self-contained HTML page (plots embedded as base64 PNG) or as Markdown
(for a PR comment or a CI step summary).

The statistics are recomputed from ``per_query.csv`` with :func:`bench.evaluation.stats.variation_statistics`;
by default with the settings recorded in the run's ``statistics`` header (test, correction,
seed, B, alpha) when present, so the report agrees with ``result.json``.
"""
from __future__ import annotations

import html
import math
from typing import Any, Dict, List, Optional


from bench.results.rundir import AVG, Run, load_run, numeric_leaves
from bench.results.suite import suite_of
from bench.reporting.plots import plot_drop_rates, plot_loss_curves, plot_metric_per_set, plot_scatter
from bench.reporting.reportdata import ReportData, ReportOptions, build
from bench.reporting.tables import SUBSETS_INTRO, subset_tables, subsets_footer


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
        f"intervals: {b['method']}, {int(100 * b['confidence'])}% ({b.get('interval', 'percentile')}, B = {b['B']}, "
        f"{b['resampling']}); "
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


COLUMNS = [("label", "set"), ("n", "n"), ("applied", "applied"), ("mean", "mean"), ("ci", "95% CI"),
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
    lines += _subsets_md(run.result)
    for n in data.notes:
        lines.append(f"note: {_md_cell(n)}")
    if suite_of(run).layout == "fewshot":
        lines += _fewshot_md(run)
    return "\n".join(lines).rstrip() + "\n"


def _subsets_md(result: Dict[str, Any]) -> List[str]:
    """The extra tables of a run with subset figures (applied-only; valid-only with human labels)."""
    tables = subset_tables(result)
    if not tables:
        return []
    out = ["### subsets", "", _md_cell(SUBSETS_INTRO), ""]
    for title, header, rows_ in tables:
        out += [f"**{_md_cell(title)}**", "", "| " + " | ".join(_md_cell(h) for h in header) + " |",
                "|---|" + "---:|" * (len(header) - 1)]
        out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows_]
        out.append("")
    foot = subsets_footer(result)
    return out + ([_md_cell(foot), ""] if foot else [])


def _subsets_html(result: Dict[str, Any]) -> List[str]:
    e = html.escape
    tables = subset_tables(result)
    if not tables:
        return []
    out = [f"<h2>Subsets</h2><p class=\"meta\">{e(SUBSETS_INTRO)}</p>"]
    for title, header, rows_ in tables:
        out.append(f"<h3>{e(title)}</h3><table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header)
                   + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td{_td_class('label' if i == 0 else 'n')}>{e(c)}</td>" for i, c in enumerate(r))
                + "</tr>" for r in rows_]
        out.append("</tbody></table>")
    foot = subsets_footer(result)
    return out + ([f"<p class=\"meta\">{e(foot)}</p>"] if foot else [])


def _fewshot_md(run: Run) -> List[str]:
    summ = run.result.get("summary")
    if not isinstance(summ, dict):
        return ["note: few-shot result without a summary: nothing to show"]
    out = ["", "### few-shot summary", "", "| key | value |", "|---|---:|"]
    for k, v in sorted(numeric_leaves(summ).items()):
        out.append(f"| {_md_cell(k)} | {_f(v)} |")
    return out


# --------------------------------------------------------------------------- plots


# --------------------------------------------------------------------------- HTML

CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}td.nw{white-space:nowrap}tr.sig td{background:#fff3f0}
.meta{color:#555;font-size:13px}ul.method{font-size:13px;color:#333}img{max-width:100%;display:block;margin:8px 0 24px}
.note{color:#8a4b00;font-size:13px}"""


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
    parts += _subsets_html(run.result)
    for n in data.notes:
        parts.append(f"<p class=\"note\">note: {e(n)}</p>")
    if suite_of(run).layout == "fewshot":
        parts.append("<pre>" + e("\n".join(_fewshot_md(run))) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def report(path: Any, fmt: str = "html", options: Optional[ReportOptions] = None, plots: bool = True) -> str:
    run = load_run(path, per_query=None)
    data = build(run, options)
    return render_markdown(data) if fmt == "md" else render_html(data, plots=plots)
