"""Text that a spreadsheet would read as a formula (shared by the CSV writers of
:mod:`bench.reporting.csvsafe` and the TSV files of :mod:`perturb.checks.audit`).

A cell is at risk when its first character starts a formula (``= + - @ | %`` or U+2212, also after
NFKC normalisation, unless the whole text is a plain number) or is invisible (white space, a
control, format or private-use character) and could hide such a start.
"""
from __future__ import annotations

import re
import unicodedata

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
