"""Render one run as a self-contained HTML page (plots embedded as base64 PNG) or as Markdown
(for a PR comment or a CI step summary).

A run of layout ``"sets"`` (variations, domain) tells its headline first: which sets hurt most,
sorted by drop rate on the headline measure, with 95 % intervals and significance markers, the
small-n warning (:mod:`bench.reporting.report.power`) and the drop-rate figure; then one table per
measure, the other figures and the statistics. A ``"fewshot"`` run is rendered by
:mod:`bench.reporting.report.fewshot`.

The statistics are recomputed from ``per_query.csv`` with :func:`bench.evaluation.stats.variation_statistics`;
by default with the settings recorded in the run's ``statistics`` header (test, correction,
seed, B, alpha) when present, so the report agrees with ``result.json``.
"""
from __future__ import annotations

from typing import Any, List, Optional

from bench.core.errors import BenchError
from bench.core.progress import count
from bench.reporting.report import markup as M
from bench.reporting.report import applicability as RA
from bench.reporting import draws as RD
from bench.reporting import interval_words as IW
from bench.reporting.report import headline as RH
from bench.reporting.report.plots import plot_drop_forest, plot_loss_curves, plot_means, plot_scatter
from bench.reporting.report.fewshot import render_fewshot
from bench.reporting.report.power import RULE
from bench.reporting.report.data import ReportData, ReportOptions, build
from bench.reporting.tables import SUBSETS_INTRO, subset_tables, subsets_footer
from bench.results.rundir import AVG, load_run
from bench.results.suite import suite_of
from perturb import describe_protocol


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
        f"intervals: {b['method']}, {IW.confidence_percent(h)}% ({IW.interval_label(h)}, "
        + (f"B = {b['B']}, " if IW.uses_resampling(h) else "") + f"{b.get('resampling', 'resampled')}); "
        f"seed = {h['seed']}",
        f"win/tie/loss: {h['win_tie_loss']}; degenerate cases: {h['degenerate']}",
        RULE,
    ] + set_label_lines(data)


def set_label_lines(data: ReportData) -> List[str]:
    """The full label of each set whose label carries its configuration (BACKTRANS: pivot languages
    and translation engine); the tables name sets by their short names."""
    labels = [(s, data.run.label(s)) for s in data.sets if data.run.label(s) != s]
    if not labels:
        return []
    return ["sets by full label (the tables use the names before the brackets; BACKTRANS[pivots,engine]: the pivot "
            "language paths and the translation engine): " + "; ".join(f"{s} = {lab}" for s, lab in labels)]


# --------------------------------------------------------------------------- rows

def _mark(data: ReportData, s: str, m: str) -> str:
    c = data.comparison(s, m)
    return M.sig_mark(c.get("significant"), c.get("delta")) if c else ""


def headline_columns(data: ReportData) -> List[M.Column]:
    cols: List[M.Column] = [("label", "set", "text")] + ([("applied", "applied (applicability)", "num")]
                                                         if data.applicability else [])
    for m in data.measures:
        base = data.means.get(data.baseline, {}).get(m)
        cols.append((m, f"{m} drop [95% CI] ({data.baseline} {M.f4(base)})", "num"))
    return cols


def headline_rows(data: ReportData) -> List[M.Row]:
    """The non-baseline sets, largest drop on the headline measure first: drop [CI] and marker per measure."""
    out = []
    for s in [x for x in data.ordered() if x != data.baseline]:
        e = data.run.set_entry(s) or {}
        r: M.Row = {"set": s, "label": s, "applied": RA.applied_cell(data, s)}
        for m in data.measures:
            c = data.comparison(s, m)
            cell = M.with_ci(M.drop(data.drop(s, m)), c.get("drop_rate_ci") if c else None, M.drop) \
                + RA.unreliable_mark(c)
            mark = _mark(data, s, m)
            r[m] = RA.marked(data, s, f"{cell} {mark}" if mark else cell)
            r["_" + m] = "worse" if mark.endswith("worse") else "better" if mark else ""
        out.append(r)
    return out


DETAIL_COLUMNS: List[M.Column] = [
    ("label", "set", "text"), ("applied", "applied / n", "num"), ("mean", "mean [95% CI]", "num"),
    ("delta", "delta [95% CI]", "num"), ("drop", "drop rate [95% CI]", "num"), ("p", "p", "num"),
    ("p_adj", "p corrected", "num"), ("sig", "significant", "text"), ("dz", "d_z", "num"), ("wtl", "W/T/L", "num"),
    ("mde", "MDE", "num")]
DETAIL_LEGEND = ("delta = mean of (set - {b}) per query; W/T/L = queries where the set wins / ties / loses against {b};"
                 " MDE = smallest mean change the test detects with 80% power (small-n rule, Statistics)")


def rows(data: ReportData, measure: str) -> List[M.Row]:
    """One row per set, largest drop on ``measure`` first (baseline on top, the average last)."""
    out = []
    for s in data.ordered(measure):
        e = data.run.set_entry(s) or {}
        c = data.comparison(s, measure) if s != data.baseline else None
        n = e.get("n_evaluated", e.get("n_queries", ""))
        r: M.Row = {"set": s, "label": s, "n": str(n),
                    "applied": RA.applied_cell(data, s) or str(n),
                    "mean": M.with_ci(M.f4(data.means[s][measure]), data.mean_ci[s][measure]), "cls": ""}
        if s == data.baseline:
            r["cls"] = "base"
        elif c:
            mark = _mark(data, s, measure)
            r.update(delta=M.with_ci(f"{c['delta']:+.4f}" if M.finite(c["delta"]) else "n/a", c["delta_ci"]),
                     drop=RA.marked(data, s, M.with_ci(M.drop(c["drop_rate"]), c["drop_rate_ci"], M.drop)
                                    + RA.unreliable_mark(c)),
                     p=M.pval(c["p_value"]), p_adj=M.pval(c["p_corrected"]),
                     sig=f"yes {mark}" if c["significant"] else "no", dz=M.f4(c["d_z"], 3),
                     wtl=f"{c['win']}/{c['tie']}/{c['loss']}", mde=M.f4((data.mde.get(s) or {}).get(measure)),
                     cls=mark.split()[-1] if mark else "")
        else:
            r["drop"] = RA.marked(data, s, M.drop(data.drop(s, measure)))
        out.append(r)
    avg = (data.run.result.get("summary") or {}).get(AVG) or {}
    if avg.get("metrics"):
        dr = (avg.get("drop_rate") or {}).get(measure)
        out.append({"set": AVG, "label": AVG, "mean": M.f4(avg["metrics"].get(measure)), "drop": M.drop(dr), "cls": ""})
    extra = RA.average_row(data, measure)
    return out + ([extra] if extra else [])


def summary_lines(data: ReportData) -> List[str]:
    """The headline in short sentences (:mod:`bench.reporting.report.headline`)."""
    return RH.headline_lines(data)


LEGEND = ("drop = (M_baseline - M_set) / M_baseline: + = worse, - = better than the baseline; sorted by drop on {m}, "
          "largest first; {w} worse / {b} better = significant after correction; [..] = 95% per-comparison "
          "interval (see below); ! and \u2020: see the notes below the table")


# --------------------------------------------------------------------------- subsets

def _subset_blocks(result: dict) -> List[Any]:
    """(title, columns, rows) of the extra tables of a run with subset figures (applied-only; with
    human labels the valid rates and valid-only figures), in the markup table model."""
    out = []
    for title, header, body in subset_tables(result):
        cols = [(f"c{i}", h, "text" if i == 0 else "num") for i, h in enumerate(header)]
        out.append((title, cols, [{f"c{i}": c for i, c in enumerate(r)} for r in body]))
    return out


def _subsets_section(result: dict) -> Any:
    blocks = _subset_blocks(result)
    return ("Subsets", SUBSETS_INTRO, blocks, subsets_footer(result)) if blocks else None


def _section_md(section: Any) -> List[str]:
    """An extra section (heading, intro, tables of (title or None, columns, rows), footer) in Markdown."""
    if section is None:
        return []
    heading, intro, tables, foot = section
    out = [f"### {heading}", "", M.md_cell(intro), ""]
    for title, cols, body in tables:
        out += ([f"**{M.md_cell(title)}**", ""] if title else []) + M.md_table(cols, body) + [""]
    return out + ([M.md_cell(foot), ""] if foot else [])


def _section_html(section: Any) -> List[str]:
    if section is None:
        return []
    heading, intro, tables, foot = section
    out = [f"<h2>{M.esc(heading)}</h2>", f"<p class=\"meta\">{M.esc(intro)}</p>"]
    for title, cols, body in tables:
        out += ([f"<h3>{M.esc(title)}</h3>"] if title else []) + [M.html_table(cols, body)]
    return out + ([f"<p class=\"legend\">{M.esc(foot)}</p>"] if foot else [])


# --------------------------------------------------------------------------- named pairs (domain: DDR's claims)

def _pair_block(result: dict) -> Any:
    """(intro, columns, rows, footer) of a run's ``pairwise`` comparisons, or None."""
    pw = result.get("pairwise") or {}
    if not pw.get("pairs"):
        return None
    measures = list(pw.get("measures") or result.get("measures") or [])
    cols = [("pair", "pair", "text")] + [(m, f"{m}: delta [95% CI], p corrected", "num") for m in measures]
    rows_ = []
    for e in pw["pairs"]:
        row = {"pair": e["name"]}
        for m in measures:
            c = pw["comparisons"][e["name"]].get(m) or {}
            mark = M.sig_mark(c.get("significant"), c.get("delta"))
            row[m] = f"{M.with_ci(M.f4(c.get('delta')), c.get('delta_ci'))}, p {M.pval(c.get('p_corrected'))} {mark}".rstrip()
        rows_.append(row)
    h = pw.get("header") or {}
    foot = (f"delta = system - reference on the same queries; {h.get('test', '?')} ({h.get('sidedness', '?')}), "
            f"{h.get('correction', '?')} correction over the {count(len(pw['pairs']), 'pair')} of a measure "
            "(a family of its "
            f"own, separate from the comparisons with {result.get('reference') or 'the baseline'}), alpha {h.get('alpha', '?')}")
    return "The paper's claims, as paired comparisons:", cols, rows_, foot


def _pairs_section(result: dict) -> Any:
    block = _pair_block(result)
    if block is None:
        return None
    intro, cols, body, foot = block
    return "Pairs", intro, [(None, cols, body)], foot


def _pairs_md(result: dict) -> List[str]:
    return _section_md(_pairs_section(result))


def _pairs_html(result: dict) -> List[str]:
    return _section_html(_pairs_section(result))


# --------------------------------------------------------------------------- Markdown

def detail_columns(data: ReportData) -> List[M.Column]:
    return [c if c[0] != "applied" or data.applicability else ("applied", "n", "num") for c in DETAIL_COLUMNS]


def render_markdown(data: ReportData) -> str:
    run = data.run
    lines = [f"## drbench report: {M.md_cell(run.model_name)} on {M.md_cell(run.dataset_name)}", ""]
    lines.append(f"suite `{run.suite}`, seed {run.seed}, dataset fingerprint `{run.dataset_fingerprint[:12]}`, "
                 f"model fingerprint `{run.model_fingerprint[:12]}`, drbench {run.result.get('drbench_version', '?')}")
    if run.result.get("protocol"):
        lines += ["", M.md_cell(describe_protocol(str(run.result["protocol"])))]
    lines += ["", "### Headline", ""]
    lines += [f"- {M.md_cell(x)}" for x in summary_lines(data)]
    lines.append("")
    for w in data.warnings:
        lines += [f"> **small-n warning:** {M.md_cell(w)}", ""]
    lines += M.md_table(headline_columns(data), headline_rows(data))
    lines += ["", M.md_cell(LEGEND.format(m=data.headline, w=M.SIG_WORSE, b=M.SIG_BETTER)), ""]
    lines += [f"{M.md_cell(x)}  " for x in RH.interval_footnote(data)] + [""]
    low = RA.low_lines(data)
    if low:
        lines += [f"> **few changes:** {M.md_cell(low[0])}"] + [f"> - {M.md_cell(x)}" for x in low[1:]] + [""]
    for measure in data.measures:
        lines += [f"### {M.md_cell(measure)}", ""]
        lines += M.md_table(detail_columns(data), rows(data, measure))
        lines.append("")
    lines += [M.md_cell(DETAIL_LEGEND.format(b=data.baseline)), ""]
    lines += _pairs_md(run.result)
    lines += _section_md(_subsets_section(run.result))
    lines += _section_md(RA.edit_types_section(data))
    lines += _section_md(RD.draws_section(run.result))
    ml = method_lines(data)
    if ml:
        lines += ["### Statistics", ""] + [f"- {M.md_cell(x)}" for x in ml] + [""]
    for n in data.notes:
        lines.append(f"note: {M.md_cell(n)}")
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- HTML

def _meta(data: ReportData) -> str:
    run = data.run
    e = M.esc
    ds = run.result.get("dataset") or {}
    return (f"<p class=\"meta\">suite <b>{e(run.suite)}</b>, seed {e(run.seed)}, dataset {e(run.dataset_name)} "
            f"({e(ds.get('split', ''))}, {e(ds.get('n_queries', '?'))} queries, fingerprint "
            f"<code>{e(run.dataset_fingerprint[:12])}</code>), model fingerprint <code>{e(run.model_fingerprint[:12])}"
            f"</code>, drbench {e(run.result.get('drbench_version', '?'))}</p>"
            + (f"<p class=\"meta\">{e(describe_protocol(str(run.result['protocol'])))}</p>"
               if run.result.get("protocol") else ""))


def render_html(data: ReportData, plots: bool = True) -> str:
    e = M.esc
    body = [_meta(data), "<h2>Headline</h2>"]
    body.append("<ul class=\"headline\">" + "".join(f"<li>{e(x)}</li>" for x in summary_lines(data)) + "</ul>")
    body += [f"<div class=\"warn\"><b>small-n warning:</b> {e(w)}</div>" for w in data.warnings]
    body.append(M.html_table(headline_columns(data), headline_rows(data),
                             cell_class=lambda r, k: r.get("_" + k, "")))
    body.append(f"<p class=\"legend\">{e(LEGEND.format(m=data.headline, w=M.SIG_WORSE, b=M.SIG_BETTER))}</p>")
    body += [f"<p class=\"legend\">{e(x)}</p>" for x in RH.interval_footnote(data)]
    low = RA.low_lines(data)
    if low:
        body.append(f"<div class=\"warn\"><b>few changes:</b> {e(low[0])}<ul>"
                    + "".join(f"<li>{e(x)}</li>" for x in low[1:]) + "</ul></div>")
    if plots and data.sets:
        body.append(M.img(plot_drop_forest(data), "drop rates"))
    body.append("<h2>Per measure</h2>")
    for measure in data.measures:
        body.append(f"<h3>{e(measure)}</h3>")
        body.append(M.html_table(detail_columns(data), rows(data, measure), row_class=lambda r: r.get("cls", "")))
    body.append(f"<p class=\"legend\">{e(DETAIL_LEGEND.format(b=data.baseline))}</p>")
    body += _pairs_html(data.run.result)
    body += _section_html(_subsets_section(data.run.result))
    body += _section_html(RA.edit_types_section(data))
    body += _section_html(RD.draws_section(data.run.result))
    if plots and data.measures and data.sets:
        body.append("<h2>Plots</h2>")
        for name, fn in (("mean per set", plot_means), ("per-query scatter", plot_scatter),
                         ("training loss", plot_loss_curves)):
            body.append(M.img(fn(data), name))
    ml = method_lines(data)
    if ml:
        body.append("<h2>Statistics</h2><ul class=\"method\">" + "".join(f"<li>{e(m)}</li>" for m in ml) + "</ul>")
    body += [f"<p class=\"note\">note: {e(n)}</p>" for n in data.notes]
    run = data.run
    return M.page(f"drbench report: {run.model_name} on {run.dataset_name}", body)


def report(path: Any, fmt: str = "html", options: Optional[ReportOptions] = None, plots: bool = True) -> str:
    run = load_run(path, per_query=None)
    if suite_of(run).layout == "fewshot":
        o = options or ReportOptions()
        given = [f"--{k}" for k in ("test", "correction", "seed", "bootstrap", "alpha", "metric")
                 if getattr(o, k) is not None]
        if given:
            raise BenchError(f"{run.result_path}: {', '.join(given)} apply to runs compared set by set; a few-shot "
                             f"report shows the tests recorded in result.json (rerun `bench evaluate --suite fewshot` "
                             f"with other settings instead). Fix: drop {', '.join(given)}.")
        return render_fewshot(run, fmt, plots=plots)
    data = build(run, options)
    return render_markdown(data) if fmt == "md" else render_html(data, plots=plots)

