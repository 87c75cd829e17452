"""Text that a spreadsheet would read as a formula, and the one CSV writer (:func:`csv_text`) of
every CSV file drbench writes for people to open (per_query.csv, applicability.csv, the
leaderboard, compare, audit and human-validity tables); the TSV sample of
:mod:`perturb.checks.audit` uses the same rule (:func:`sheet_text`). Also the one Markdown escape
(:func:`md_cell`) of every Markdown table and line that shows a name.

A cell is at risk when its first character starts a formula (``= + - @ | %`` or U+2212, also after
NFKC normalisation, unless the whole text is a plain number) or is invisible (white space, a
control, format or private-use character) and could hide such a start.
"""
from __future__ import annotations

import csv
import io
import math
import numbers
import re
import unicodedata
from typing import Any, Iterable, Sequence

FORMULA_START = frozenset("=+-@|%\u2212")  # after NFKC; U+2212 MINUS SIGN has no compatibility form
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def formula_risk(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula (or hide a formula start behind
    invisible leading characters)."""
    if not text:
        return False
    c = text[0]
    if c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Zs", "Zl", "Zp"):
        return True
    if c in FORMULA_START or unicodedata.normalize("NFKC", c)[:1] in FORMULA_START:
        return _NUMBER.fullmatch(text) is None
    return False


def sheet_text(text: str) -> str:
    """``text`` made safe for a spreadsheet, reversibly: a text at risk, or one that already starts
    with ``'``, gets one leading ``'`` (which :func:`unsheet_text` removes)."""
    return "'" + text if (formula_risk(text) or text.startswith("'")) else text


def unsheet_text(text: str) -> str:
    """The inverse of :func:`sheet_text`."""
    return text[1:] if text.startswith("'") else text


def unsheet_columns(df, columns: Iterable[str]):
    """``df`` (a pandas DataFrame read from a file of :func:`csv_text`) with the text ``columns`` it
    has read back exactly (:func:`unsheet_text`); returns ``df``."""
    for c in columns:
        if c in df.columns:
            df[c] = df[c].map(lambda v: unsheet_text(v) if isinstance(v, str) else v)
    return df


def csv_cell(x: Any) -> Any:
    """A value safe to put in a CSV cell: numbers stay numbers (an int stays an int; a float
    becomes its shortest repr, non-finite ones an empty cell); booleans become ``true`` / ``false``;
    text goes through :func:`sheet_text` (a formula start, or a leading ``'``, gets one ``'`` more,
    which :func:`unsheet_text` removes when the file is read back)."""
    if x is None:
        return ""
    if isinstance(x, bool) or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool_", "bool")):
        return "true" if x else "false"
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        f = float(x)
        return repr(f) if math.isfinite(f) else ""
    return sheet_text(str(x))


def csv_text(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    """The one CSV writer: ``header`` and ``rows`` as CSV text (``\n`` line ends, minimal quoting),
    every cell through :func:`csv_cell`. Text a caller formats itself (e.g. ``repr`` of a float,
    ``"nan"``) is a cell like any other: a plain number is never escaped."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(c) for c in header])
    for row in rows:
        w.writerow([csv_cell(c) for c in row])
    return buf.getvalue()


#: a ``<`` that could open an HTML tag or comment, and a ``&`` that could start an entity
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY_START = re.compile(r"&(?=[A-Za-z#])")


def md_cell(s: Any) -> str:
    """``s`` as text of a Markdown table cell or line: ``\\`` and ``|`` escaped, line breaks as spaces,
    and a ``<`` that could open an HTML tag (``<img``, ``</``, ``<!``) or a ``&`` that could start an
    entity written as an entity, so a name such as ``<img onerror=...>`` shows as text where Markdown
    renders HTML (GitHub); ``p <= 0.05`` is left as it is."""
    text = _TAG_START.sub("&lt;", _ENTITY_START.sub("&amp;", str(s)))
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
