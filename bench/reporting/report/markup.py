"""Number formats, tables and the page frame shared by the HTML and Markdown reports.

A table is a list of columns ``(key, header, kind)`` (kind ``"text"`` or ``"num"``) and a list of
row dicts ``key -> str``; :func:`html_table` and :func:`md_table` render the same table, escaping
every cell (HTML entities; in Markdown :func:`bench.core.sheet.md_cell`: ``|``, newlines and ``< > &``). Why we write this ourselves rather
than use jinja2, pandas' Styler or ``to_markdown``: docs/architecture.md, "Report rendering".
"""
from __future__ import annotations

import base64
import html
import re
import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench.core.sheet import md_cell

Column = Tuple[str, str, str]  # (key, header, kind): kind "text" (no wrap), "num" (right, no wrap), "wrap"
Row = Dict[str, str]

SIG_WORSE = "\u25bc"  # a significant drop (worse than the baseline)
SIG_BETTER = "\u25b2"  # a significant gain


def finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def f4(x: Any, nd: int = 4) -> str:
    return f"{x:.{nd}f}" if finite(x) else "n/a"


def pval(x: Any) -> str:
    if not finite(x):
        return "n/a"
    return f"{x:.2e}" if x < 1e-3 else f"{x:.4f}"


def pct(x: Any, nd: int = 1) -> str:
    return f"{100 * x:.{nd}f}%" if finite(x) else "n/a"


def drop(x: Any, nd: int = 1) -> str:
    """A drop rate (or a change) in percent with its sign: "+5.7%" worse, "-1.2%" better, "0.0%"."""
    if not finite(x):
        return "n/a"
    if round(abs(100 * x), nd) == 0:
        return f"{0:.{nd}f}%"
    return f"{100 * x:+.{nd}f}%"


def interval(ci: Any, fmt: Callable[[Any], str] = f4) -> str:
    """``[lo, hi]`` on one line, or "" when either end is missing."""
    if not ci or len(ci) != 2 or not all(finite(v) for v in ci):
        return ""
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def with_ci(value: str, ci: Any, fmt: Callable[[Any], str] = f4, note: Any = None) -> str:
    """``value [lo, hi]``; ``note`` (an interval's "interval unreliable: ..." flag) follows the interval."""
    iv = interval(ci, fmt)
    out = f"{value} {iv}" if iv and value != "n/a" else value
    return f"{out} ({note})" if note and iv and value != "n/a" else out


def sig_mark(significant: Any, delta: Any) -> str:
    """The marker of a significant change: worse (delta < 0) or better; "" when not significant."""
    if not significant or not finite(delta) or delta == 0:
        return ""
    return f"{SIG_WORSE} worse" if delta < 0 else f"{SIG_BETTER} better"


# --------------------------------------------------------------------------- HTML

CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:20px;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}th,td{border:1px solid #ccc;padding:3px 5px}
th{background:#f2f2f2;text-align:center}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.wrap{min-width:240px}div.tw{overflow-x:auto;max-width:100%}tr.worse td{background:#fdecea}tr.better td{background:#eaf6ee}
td.worse{background:#fdecea;font-weight:600}td.better{background:#eaf6ee;font-weight:600}tr.base td{background:#f4f6fa}
.meta{color:#555;font-size:13px}ul.method{font-size:13px;color:#333}img{max-width:100%;display:block;margin:8px 0 24px}
.note{color:#555;font-size:13px}.legend{color:#444;font-size:12px;margin-top:-8px}
.warn{border-left:4px solid #d9822b;background:#fff6e8;padding:6px 12px;font-size:14px;margin:10px 0}
.headline{font-size:15px}h2{margin-top:28px;border-bottom:1px solid #ddd}"""


def esc(x: Any) -> str:
    return html.escape(str(x))


def html_table(cols: Sequence[Column], rows: Sequence[Row], row_class: Optional[Callable[[Row], str]] = None,
               cell_class: Optional[Callable[[Row, str], str]] = None) -> str:
    """A table in a box that scrolls sideways when the window is narrower than the table (a phone),
    so no column is ever cut; text cells (set labels) may wrap after ``[``, ``+`` and ``,``."""
    out = ["<div class=\"tw\"><table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for _, h, _ in cols)
           + "</tr></thead><tbody>"]
    for r in rows:
        rc = row_class(r) if row_class else ""
        cells = []
        for key, _, kind in cols:
            extra = cell_class(r, key) if cell_class else ""
            cls = " ".join(c for c in (kind, extra) if c)
            text = esc(r.get(key, ""))
            if kind == "text":
                text = _WRAP.sub(lambda m: m.group() + "<wbr>", text)
            cells.append(f"<td class=\"{cls}\">{text}</td>")
        out.append((f"<tr class=\"{rc}\">" if rc else "<tr>") + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


_WRAP = re.compile(r"[\[+,]")  # where a long set label such as BACKTRANS[cat+cat-spa+...,apertium] may wrap


def img(png_b64: Optional[str], alt: str) -> str:
    return f"<img alt=\"{esc(alt)}\" src=\"data:image/png;base64,{png_b64}\">" if png_b64 else ""


def png_file_b64(path: Any) -> Optional[str]:
    """A PNG file as base64 (None when it is not a PNG), so the page stays self-contained."""
    data = open(path, "rb").read()
    return base64.b64encode(data).decode("ascii") if data[:8] == b"\x89PNG\r\n\x1a\n" else None


def page(title: str, body: List[str]) -> str:
    head = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>", f"<h1>{esc(title)}</h1>"]
    return "\n".join(head + [b for b in body if b] + ["</body></html>"]) + "\n"


# --------------------------------------------------------------------------- Markdown


def md_table(cols: Sequence[Column], rows: Sequence[Row]) -> List[str]:
    lines = ["| " + " | ".join(md_cell(h) for _, h, _ in cols) + " |",
             "|" + "|".join("---:" if kind == "num" else "---" for _, _, kind in cols) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(md_cell(r.get(k, "")) for k, _, _ in cols) + " |")
    return lines
