"""Multiple-comparison corrections over one family of p-values (Holm, Benjamini-Hochberg, none)."""
from __future__ import annotations

from typing import Any

import numpy as np

CORRECTIONS = ("holm", "bh", "none")

CORRECTION_DESCRIPTIONS = {
    "holm": "Holm step-down (controls the family-wise error rate)",
    "bh": "Benjamini-Hochberg step-up (controls the false discovery rate)",
    "none": "no correction (raw p-values)",
}


# --------------------------------------------------------------------------- multiple comparisons

def adjust_pvalues(pvalues: Any, method: str = "holm") -> np.ndarray:
    """Adjusted p-values over one family (order preserved). NaN entries stay NaN and are not
    counted in the family size. Adjusted p-values are clipped to [0, 1]."""
    p = np.array(pvalues, dtype=np.float64, copy=True).ravel()
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    out = np.full_like(p, np.nan)
    ok = np.isfinite(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        out[ok] = np.clip(q, 0.0, 1.0)
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    ranks = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate((m - ranks + 1) * sorted_p)
    else:  # bh
        adj = np.minimum.accumulate((m / ranks * sorted_p)[::-1])[::-1]
    adj = np.clip(adj, 0.0, 1.0)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


def family_size(pvalues: Any) -> int:
    return int(np.sum(np.isfinite(np.asarray(pvalues, dtype=np.float64))))


