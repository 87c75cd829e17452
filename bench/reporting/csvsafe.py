"""CSV cells safe to open in a spreadsheet: numbers stay numbers, text that a spreadsheet would read as a formula is neutralised with a leading apostrophe."""
from __future__ import annotations
import math
import numbers
from typing import Any
import numpy as np

from bench.core.sheet import formula_risk


def _dangerous_text(text: str) -> bool:
    """Whether a spreadsheet could read text as a formula (see :func:`bench.core.sheet.formula_risk`)."""
    return formula_risk(text)


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
