"""The report's small-n rule: can the paired test see effects of the size the run shows?

For each set and measure the report computes the minimum detectable effect (MDE) of the paired
test, the rule of the gate (:func:`bench.reporting.gate.power.minimum_detectable`) applied to a
report's family::

    MDE = (|c| + z_0.80) * SD(d) / sqrt(n),   c = t_{n-1} quantile at 1 - alpha / (2 m)

with ``d`` the per-query differences (set - baseline), ``n`` their number and ``m`` the size of
the correction family (``m = 1`` without correction): Bonferroni's level, which is the strictest
step of Holm and of Benjamini-Hochberg. One-sided tests use ``1 - alpha / m``. For the
randomization and Wilcoxon tests this is the t-test's approximation.

A measure gets a warning when the MDE of the set with the largest change (|delta|) is larger
than that change: even the biggest effect the run shows is below what the test can resolve with
80 % power, so "not significant" says little about the other sets either.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from bench.evaluation import stats as S
from bench.reporting.gate import DEFAULT_POWER, minimum_detectable

RULE = ("small-n rule: MDE = (t_{n-1}(1 - alpha/(2m)) + z_0.80) x SD(d)/sqrt(n), the smallest mean change of "
        "the paired test with 80% power at the Bonferroni level alpha/m (m = correction family size; the "
        "strictest step of Holm and BH; a t-test approximation for the other tests); a measure is flagged when "
        "the MDE of the set with the largest change exceeds that change")


def critical_value(n: int, alpha: float, m: int, two_sided: bool = True) -> float:
    """The t_{n-1} quantile the rule uses; NaN when n < 2."""
    from scipy import stats as st

    if n < 2 or not (0 < alpha < 1):
        return float("nan")
    level = alpha / max(1, int(m))
    return float(st.t.ppf(1 - (level / 2 if two_sided else level), n - 1))


def family_of(header: Dict[str, Any], measure: str) -> int:
    """Size of the correction family a comparison on ``measure`` belongs to (1 without correction)."""
    if str(header.get("correction", "none")) == "none":
        return 1
    sizes = header.get("family_size") or {}
    m = sizes.get(measure, sizes.get("all"))
    return int(m) if isinstance(m, (int, float)) and m >= 1 else 1


def mde_table(per_query: Any, baseline: str, sets: List[str], measures: List[str],
              statistics: Dict[str, Any]) -> Dict[str, Dict[str, Optional[float]]]:
    """set -> measure -> MDE (None when undefined: fewer than 2 pairs)."""
    h = statistics.get("header") or {}
    alpha = float(h.get("alpha", 0.05))
    two = str(h.get("alternative", "two-sided")) == "two-sided"
    out: Dict[str, Dict[str, Optional[float]]] = {}
    for s in sets:
        out[s] = {}
        for m in measures:
            a, b, _ = S.paired_values(per_query, baseline, s, m)
            c = critical_value(a.size, alpha, family_of(h, m), two)
            v = minimum_detectable(b - a, c, DEFAULT_POWER) if a.size >= 2 else float("nan")
            out[s][m] = v if math.isfinite(v) else None
    return out


def largest_change(statistics: Dict[str, Any], sets: List[str], measure: str) -> Optional[Tuple[str, float]]:
    """(set, |delta|) of the set with the largest absolute change on ``measure``."""
    best: Optional[Tuple[str, float]] = None
    for s in sets:
        d = ((statistics.get("comparisons") or {}).get(s) or {}).get(measure, {}).get("delta")
        if isinstance(d, (int, float)) and math.isfinite(d) and (best is None or abs(d) > best[1]):
            best = (s, abs(float(d)))
    return best


def power_warnings(mde: Dict[str, Dict[str, Optional[float]]], statistics: Dict[str, Any], sets: List[str],
                   measures: List[str], label: Any = str) -> List[str]:
    """One warning per measure where the largest change is below its MDE."""
    h = statistics.get("header") or {}
    out = []
    for m in measures:
        big = largest_change(statistics, sets, m)
        if big is None or big[1] == 0:
            continue
        s, size = big
        v = (mde.get(s) or {}).get(m)
        if v is None or v <= size:
            continue
        n = ((statistics.get("comparisons") or {}).get(s) or {}).get(m, {}).get("n")
        fam = family_of(h, m)
        test = {"t-test": "paired t-test", "randomization": "randomization test", "wilcoxon": "Wilcoxon test"}.get(
            str(h.get("test")), f"{h.get('test')} test")
        out.append(f"{m}: with n = {n} queries the {test} (alpha {h.get('alpha', 0.05)}"
                   f"{'/' + str(fam) if fam > 1 else ''}, {100 * DEFAULT_POWER:.0f}% power) can only detect mean "
                   f"changes of at least {v:.4f}; the largest change seen is {size:.4f} ({label(s)}). A "
                   f"non-significant row here does not show that a set is harmless: more queries are needed.")
    return out

