"""CSV cells safe to open in a spreadsheet: numbers stay numbers, text that a spreadsheet would read as a formula is neutralised with a leading apostrophe."""
from __future__ import annotations
import math
import numbers
import re
import unicodedata
from typing import Any
import numpy as np


_FORMULA_START = frozenset("=+-@|%\u2212")  # after NFKC; U+2212 MINUS SIGN has no compatibility form


_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _dangerous_text(text: str) -> bool:
    """Whether a spreadsheet could read text as a formula (or hide a formula start behind
    invisible leading characters). See the module docstring for the rule."""
    if not text:
        return False
    c = text[0]
    if c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Zs", "Zl", "Zp"):
        return True
    if c in _FORMULA_START or unicodedata.normalize("NFKC", c)[:1] in _FORMULA_START:
        return _NUMBER.fullmatch(text) is None
    return False


def csv_cell(x: Any) -> Any:
    """A value safe to put in a CSV cell: numbers stay numbers (an int stays an int; a float
    becomes its shortest repr, non-finite ones an empty cell); text that a spreadsheet could
    read as a formula is prefixed with ``'``; booleans become ``true`` / ``false``."""
    if x is None:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        f = float(x)
        return repr(f) if math.isfinite(f) else ""
    text = str(x)
    if _dangerous_text(text):
        return "'" + text
    return text
