"""Power in the verdict: for each primary check, the smallest regression the gate detects with
80 % power given the observed variance and the number of queries, and a warning when the gate
is too coarse for its margin.

``mde = (|c| + z_power) * SE`` with ``SE = SD(x)/sqrt(n)`` of the check's pseudo-values and ``c``
the critical value of the check's family on the t scale (max-T: the single-step alpha-quantile
of the family's null minimum, so the correlation between checks is counted; Holm / BH: the
Bonferroni first step ``t_{n-1}(alpha/K)``; none: ``t_{n-1}(alpha)``). A true change of
``-(margin + mde)`` makes the gate FAIL with about 80 % power; when ``mde > margin`` the gate
cannot resolve its own margin (a regression of the margin's size usually goes unnoticed, and an
unchanged candidate is often INCONCLUSIVE), and the verdict says so.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import numpy as np

from bench.evaluation import exact

DEFAULT_POWER = 0.8


def minimum_detectable(x: np.ndarray, critical: float, power: float = DEFAULT_POWER) -> float:
    """(|critical| + z_power) * SD(x)/sqrt(n); NaN when undefined."""
    from scipy import stats as st

    x = np.asarray(x, dtype=np.float64)
    if x.size < 2 or not np.all(np.isfinite(x)) or not math.isfinite(critical):
        return float("nan")
    se = exact.sd(x) / math.sqrt(x.size)
    return (abs(critical) + float(st.norm.ppf(power))) * se


def add_power(pairs: List[Tuple[Any, Any]], families: Dict[str, Dict[str, Any]], o: Any, metric: str) -> List[str]:
    """Set ``mde`` on the primary checks (every check with ``family="all"``); return the warnings."""
    warnings = []
    for c, d in pairs:
        if c.tier != "primary" or not c.in_family:
            continue
        fam = families.get("all" if o.family == "all" else "primary", {})
        c.mde = minimum_detectable(d.x, fam.get("critical", float("nan")), DEFAULT_POWER)
        if not math.isfinite(c.mde) or c.mde <= c.margin:
            continue
        if c.kind == "metric":
            rel = f" ({100 * (c.margin + c.mde) / c.baseline:.1f}% of the baseline {c.baseline:.4f})" if c.baseline else ""
            what = f"drops of {metric} on {c.label} larger than {c.margin + c.mde:.4f}{rel}"
        else:
            what = f"drop-rate increases on {c.label} larger than {c.margin + c.mde:.4f}"
        flag = "--max-regression" if c.kind == "metric" else "--max-drop-rate"
        tail = (f"with margin 0 only a candidate that is at least as good beyond the noise can PASS; set {flag} to "
                f"the largest regression you accept" if c.margin == 0 else
                f"its resolution {c.mde:.4f} exceeds the margin {c.margin:g}, so an unchanged candidate is often "
                f"INCONCLUSIVE (more queries or a wider margin help)")
        warnings.append(f"low power: with {c.n} queries this gate can only detect {what} at "
                        f"{100 * DEFAULT_POWER:.0f}% power; {tail}")
    return warnings
