"""The gate's statistics: build the checks from per-query arrays, test them one-sided against
their margins with a correlation-aware correction, and bound them for non-inferiority.
The contract is in docs/gate.md; the kernels in :mod:`bench.evaluation.multiplicity`.

Every check k has per-query pseudo-values ``x_k`` with ``mean(x_k) = g_k`` ("goodness": the
metric change, or minus the drop-rate change; negative = the candidate is worse) and a margin
``m_k`` (``--max-regression`` for metric checks, ``--max-drop-rate`` for drop-rate checks).

* FAIL test of check k: H0 ``g_k >= -m_k`` against H1 ``g_k < -m_k`` (a regression beyond the
  margin), one-sided, on ``x_k + m_k``.
* Non-inferiority of check k: the one-sided (1 - alpha) lower confidence bound
  ``mean(x_k) - t_{1-alpha, n-1} SD(x_k)/sqrt(n)`` is >= ``-m_k``.
"""
from __future__ import annotations

from dataclasses import dataclass

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import exact
from bench.evaluation import stats as S
from bench.results.rundir import AVG


@dataclass
class Check:
    kind: str  # "metric" or "drop-rate"
    set: str
    label: str
    n: int
    baseline: float  # metric mean (few-shot: macro average), or the baseline's drop rate
    candidate: float
    change: float  # candidate - baseline (metric: negative = worse; drop-rate: positive = worse)
    margin: float  # tolerated regression (metric points / drop-rate points)
    tier: str = "primary"  # "primary" or "secondary"
    in_family: bool = True  # False when every per-query difference is zero (or the check is undefined)
    test: str = ""
    p_value: float = float("nan")  # one-sided, H0: no regression beyond the margin
    p_corrected: float = float("nan")
    bound: float = float("nan")  # one-sided (1 - alpha) confidence bound of change on the worse side
    noninferior: bool = False  # bound within the margin
    regressed: bool = False  # a regression beyond the margin is shown (after correction)
    mde: Optional[float] = None  # primary checks: regression detectable at 80% power beyond the margin
    win: Optional[int] = None  # queries where the candidate beats the baseline (metric checks)
    tie: Optional[int] = None
    loss: Optional[int] = None
    d_z: Optional[float] = None
    note: str = ""

    @property
    def worse(self) -> bool:
        return self.change < 0 if self.kind == "metric" else self.change > 0

    @property
    def outcome(self) -> str:
        if self.regressed:
            return "REGRESSED"
        return "holds" if self.noninferior else "inconclusive"


ZERO_NOTE = "every per-query difference is zero: left the family (holds)"
UNCHANGED_NOTE = ("both runs equal ORIGINAL on every query (drop rate 0 in both, every pseudo-value 0): "
                  "left the family (holds)")


class CheckData:
    """A check's arrays: ``x`` pseudo-values (goodness), ``zero`` when the check has nothing to
    test (``zero_note`` says why): every per-query difference between the runs is zero, or, for a
    drop-rate check, both runs equal ORIGINAL on every query (both drop rates 0, every pseudo-value
    0); ``dr`` the four vectors of a drop-rate check (for its swap test)."""

    def __init__(self, x: np.ndarray, zero: bool, dr: Optional[Tuple[np.ndarray, ...]] = None,
                 zero_note: str = ZERO_NOTE):
        self.x, self.zero, self.dr, self.zero_note = x, zero, dr, zero_note


def build_checks(baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray], o: Any, *,
                 labels: Mapping[str, str], reference: str, drop_rate_checks: bool,
                 weights: Optional[np.ndarray] = None, primary: Optional[Sequence[str]] = None):
    """The checks (metric: every set, and VARIATIONS (AVG.) when there are >= 2 variation sets;
    drop-rate: every variation set and VARIATIONS (AVG.)) with their arrays. ``weights``
    (summing to 1) make every metric check a weighted (macro) mean. ``primary``: names of the
    primary metric checks (default: ``reference`` and VARIATIONS (AVG.), or the only variation
    set); every other check, drop rates included, is secondary."""
    sets = list(baseline)
    var_sets = [s for s in sets if s != reference] if drop_rate_checks else []
    b_ = {s: np.asarray(baseline[s], dtype=np.float64) for s in sets}
    c_ = {s: np.asarray(candidate[s], dtype=np.float64) for s in sets}
    metric_sets = list(sets)
    if len(var_sets) > 1:
        b_[AVG] = exact.mean_of_arrays([b_[s] for s in var_sets])
        c_[AVG] = exact.mean_of_arrays([c_[s] for s in var_sets])
        metric_sets.append(AVG)
    prim = set(primary) if primary is not None else {reference, AVG if len(var_sets) > 1 else sets[-1]}
    out: List[Tuple[Any, CheckData]] = []
    for s in metric_sets:
        b, c = b_[s], c_[s]
        if weights is None:
            x = S.mean_pseudovalues(b, c)
            mb, mc = exact.mean(b), exact.mean(c)
        else:
            x = S.weighted_pseudovalues(b, c, weights)
            mb, mc = exact.fsum(weights * b), exact.fsum(weights * c)
        w, t, l = S.win_tie_loss(b, c)
        chk = Check("metric", s, labels.get(s, s), int(b.size), mb, mc, mc - mb, o.max_regression,
                    tier="primary" if s in prim else "secondary", win=w, tie=t, loss=l, d_z=S.cohen_dz(b, c))
        out.append((chk, CheckData(x, bool(np.all(b == c)))))
    dr_sets = var_sets + ([AVG] if len(var_sets) > 1 else [])
    bo, co = b_[reference], c_[reference]
    for s in dr_sets:
        bv, cv = b_[s], c_[s]
        drb = S.drop_rate(exact.mean(bo), exact.mean(bv))
        drc = S.drop_rate(exact.mean(co), exact.mean(cv))
        chk = Check("drop-rate", s, labels.get(s, s), int(bo.size), drb, drc, drc - drb, o.max_drop_rate,
                    tier="secondary")
        identical = bool(np.all(bo == co) and np.all(bv == cv))
        # both runs equal ORIGINAL on every query (e.g. a set whose variations never change a
        # ranking): DR_b = DR_c = 0 and every pseudo-value is 0, so the check's null distribution is
        # a point mass at t = 0; kept in a max-T family it only raises the others' adjusted p
        unchanged = bool(np.all(bv == bo) and np.all(cv == co))
        out.append((chk, CheckData(S.drop_rate_pseudovalues(bo, bv, co, cv), identical or unchanged,
                                   (bo, bv, co, cv), ZERO_NOTE if identical else UNCHANGED_NOTE)))
    return out


def _t_bound(x: np.ndarray, alpha: float) -> float:
    """One-sided (1 - alpha) lower t bound of mean(x)."""
    from scipy import stats as st

    n = x.size
    if n < 2:
        return float("nan")
    sd = exact.sd(x)
    return exact.mean(x) - float(st.t.ppf(1 - alpha, n - 1)) * sd / math.sqrt(n)


def _raw_test(chk: Any, data: CheckData, o: Any) -> S.TestResult:
    """One-sided test of H0 "no regression beyond the margin" for holm / bh / none."""
    if chk.kind == "drop-rate" and o.max_drop_rate == 0 and data.dr is not None:
        return S.drop_rate_difference_test(*data.dr, n_resamples=o.n_resamples, seed=o.seed,
                                           key=("gate", chk.set), alternative="greater")
    y = data.x + chk.margin
    return S.paired_test(np.zeros_like(y), y, o.test, seed=o.seed, n_resamples=o.n_resamples,
                         key=("gate", chk.kind, chk.set), alternative="less")


def run_family(members: List[Tuple[Any, CheckData]], o: Any, name: str) -> Dict[str, Any]:
    """Test one family (checks that left it are skipped): sets p_value / p_corrected / test of
    each member; returns {"size", "critical"} (critical: the t-scale value a check's statistic must
    fall below to be rejected on its own, for the power computation)."""
    from scipy import stats as st

    live = [(c, d) for c, d in members if c.in_family]
    if not live:
        return {"size": 0, "critical": float("nan")}
    n = live[0][0].n
    if o.correction == "maxt":
        y = np.vstack([d.x + c.margin for c, d in live])
        res = S.maxt_sign_flip(y, alternative="less", n_resamples=o.n_resamples, seed=o.seed, key=("gate", name))
        for (c, _), p, pa in zip(live, res.p_raw, res.p_adjusted):
            c.test, c.p_value, c.p_corrected = "studentized sign-flip", float(p), float(pa)
        return {"size": len(live), "critical": res.critical_value(o.alpha)}
    raw = []
    for c, d in live:
        r = _raw_test(c, d, o)
        c.test, c.p_value = (r.test if c.kind == "metric" or r.test != "drop-rate randomization"
                             else "swap randomization"), float(r.pvalue)
        if r.note and not c.note:
            c.note = r.note
        raw.append(c.p_value)
    for (c, _), pa in zip(live, S.adjust_pvalues(raw, o.correction)):
        c.p_corrected = float(pa)
    k = S.family_size(raw)
    level = o.alpha if o.correction == "none" else o.alpha / max(k, 1)  # Holm's (and BH's) first step
    return {"size": k, "critical": float(st.t.ppf(level, n - 1)) if n > 1 else float("nan")}


def decide(pairs: List[Tuple[Any, CheckData]], o: Any) -> Dict[str, Any]:
    """Fill every check (in_family, bound, noninferior, p-values, regressed) and return the
    verdict's status with the family sizes and critical values."""
    for c, d in pairs:
        defined = c.n >= 2 and bool(np.all(np.isfinite(d.x)))
        c.in_family = defined and not d.zero
        sign = 1.0 if c.kind == "metric" else -1.0  # display orientation from goodness
        if d.zero:
            c.bound, c.noninferior = 0.0, True
            c.note = c.note or d.zero_note
        elif not defined:
            c.bound, c.noninferior = float("nan"), False
            c.note = c.note or ("fewer than 2 queries" if c.n < 2 else "drop rate undefined (an ORIGINAL mean is 0)")
        else:
            lo = _t_bound(d.x, o.alpha)
            c.bound = sign * lo
            c.noninferior = bool(lo >= -c.margin - 1e-12)
    if o.family == "all":
        info = {"all": run_family(pairs, o, "all")}
        for c, _ in pairs:
            c.regressed = _rejected(c, o)
        deciding = [c for c, _ in pairs]
    else:
        primary = [p for p in pairs if p[0].tier == "primary"]
        secondary = [p for p in pairs if p[0].tier != "primary"]
        info = {"primary": run_family(primary, o, "primary")}
        live = [c for c, _ in primary if c.in_family]
        for c in live:
            c.regressed = _rejected(c, o)
        # serial gatekeeping: the secondary family is tested only when every live primary check is rejected
        gate_open = all(c.regressed for c in live)
        info["secondary"] = run_family(secondary, o, "secondary")
        info["secondary"]["tested"] = gate_open
        floor = max((c.p_corrected for c in live), default=0.0)
        for c, _ in secondary:
            if not c.in_family:
                continue
            if gate_open:
                c.p_corrected = max(c.p_corrected, floor)
                c.regressed = _rejected(c, o)
            else:
                c.p_corrected = float("nan")
                c.note = c.note or "not tested: the primary family did not reject every primary check"
        deciding = [c for c, _ in primary] if live else [c for c, _ in pairs]
    if any(c.regressed for c in deciding):
        status = "FAIL"
    elif all(c.noninferior for c in deciding):
        status = "PASS"
    else:
        status = "INCONCLUSIVE"
    return {"status": status, "families": info}


def _rejected(c: Any, o: Any) -> bool:
    return bool(c.in_family and math.isfinite(c.p_corrected) and c.p_corrected < o.alpha)
