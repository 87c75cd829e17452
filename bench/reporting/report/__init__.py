"""``bench report``: one run as a self-contained HTML page or as Markdown (what a ``"sets"``
report shows, in order: :mod:`bench.reporting.report.render`).

- ``markup``: number formats, the table model with its HTML and Markdown renderers, the page frame;
- ``power``: the small-n rule (MDE of the paired test; the gate's rule, :mod:`bench.reporting.gate.power`);
- ``data``: :class:`ReportOptions` and :class:`ReportData`, what a report shows, gathered from a run folder;
- ``applicability``: each set's share of changed queries, the low-applicability flags, MISSPELL's edit types;
- ``headline``: the headline of a sets report in short sentences, and the footnote on corrections;
- ``plots``: the figures (PNG, base64);
- ``fewshot``: the whole report of a ``"fewshot"`` run;
- ``render``: :func:`report` and the ``"sets"`` page (:func:`render_markdown`, :func:`render_html`).
"""
from bench.reporting.report.data import ReportData, ReportOptions, build
from bench.reporting.report.fewshot import render_fewshot
from bench.reporting.report.render import render_html, render_markdown, report

__all__ = ["ReportData", "ReportOptions", "build", "render_fewshot", "render_html", "render_markdown", "report"]
