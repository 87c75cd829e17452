"""Paired tests of per-query scores (t-test, randomization, Wilcoxon, the drop-rate randomization
test), effect sizes and win/tie/loss counts: pure functions of numpy arrays.
Conventions: :mod:`bench.evaluation.stats`."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from bench.core.seeding import rng_for
from bench.evaluation import exact

TESTS = ("t-test", "randomization", "wilcoxon")
ALTERNATIVES = ("two-sided", "less", "greater")  # about the location of d = b - a
EXACT_MAX_N = 20  # randomization test: exact enumeration of 2**n' sign vectors up to n' non-zero differences
WILCOXON_EXACT_MAX_N = 50  # Wilcoxon: exact conditional distribution up to n' non-zero differences
DEFAULT_RESAMPLES = 10000  # Monte Carlo randomization resamples
RESAMPLE_CHUNK = 1000  # fixed chunk size of resampling loops (part of the determinism contract)

TEST_DESCRIPTIONS = {
    "t-test": "paired Student t-test on per-query differences (t = mean(d)/(SD(d)/sqrt(n)), SD ddof=1, "
    "df = n-1; as scipy.stats.ttest_rel)",
    "randomization": f"paired randomization (sign-flip) test on mean(d); zero differences contribute nothing; "
    f"exact enumeration of the 2^n' sign vectors of the n' non-zero differences for n' <= {EXACT_MAX_N}, "
    f"otherwise seeded Monte Carlo with p = (b+1)/(m+1)",
    "wilcoxon": f"Wilcoxon signed-rank test (zero differences discarded, 'wilcox'; mid-ranks for ties); exact "
    f"conditional p over the 2^n' sign vectors of the mid-ranks for n' <= {WILCOXON_EXACT_MAX_N} non-zero "
    f"differences, otherwise normal approximation with tie-corrected variance, no continuity correction",
}


# --------------------------------------------------------------------------- helpers

def differences(test: str, a: Any, b: Any, alternative: str) -> Tuple[np.ndarray, Optional[TestResult]]:
    """d = b - a of a paired test, and the test's result when the data are degenerate (else None)."""
    check_alternative(alternative)
    a, b = paired_arrays(a, b)
    d = b - a
    return d, degenerate_result(test, d, alternative)


def paired_arrays(a: Any, b: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Copies of a and b as float64 1-d arrays of equal length (inputs are never mutated)."""
    a = np.array(a, dtype=np.float64, copy=True).ravel()
    b = np.array(b, dtype=np.float64, copy=True).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same length, got {a.size} and {b.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("paired samples contain NaN or infinite values; drop those queries first")
    return a, b


def _tol(d: np.ndarray) -> float:
    """Tolerance for 'as extreme as observed': rounding of sums of +-d_i differs by order."""
    return 1e-9 * exact.fsum(np.abs(d)) + 1e-300


def finite_or_none(x: Any) -> Optional[float]:
    """float(x) when finite, else None (JSON has no NaN / inf)."""
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


@dataclass(frozen=True)
class TestResult:
    """Outcome of one paired test."""

    test: str
    statistic: float  # t, mean(d), or Wilcoxon W; NaN when undefined
    pvalue: float  # for ``alternative``; NaN when undefined (n < 2)
    n: int  # number of pairs (zero differences included)
    method: str = ""  # e.g. "exact (2^12 sign vectors of the 12 non-zero differences)", "monte-carlo (m=10000, ...)"
    note: str = ""  # why a degenerate case was decided the way it was; discarded zeros, ties
    alternative: str = "two-sided"  # "two-sided" | "less" (H1: mean(d) < 0) | "greater" (H1: mean(d) > 0)

    __test__ = False  # not a pytest test class


# --------------------------------------------------------------------------- effect sizes

def mean_difference(a: Any, b: Any) -> float:
    """mean(b - a)."""
    a, b = paired_arrays(a, b)
    return exact.mean(b - a)


def cohen_dz(a: Any, b: Any) -> float:
    """Standardized paired effect d_z = mean(d) / SD(d), SD with ddof=1, d = b - a.

    NaN for n < 2 or when all differences are zero; +-inf when SD = 0 but mean != 0."""
    a, b = paired_arrays(a, b)
    d = b - a
    if d.size < 2:
        return float("nan")
    m = exact.mean(d)
    sd = exact.sd(d)
    if sd == 0.0:
        return float("nan") if m == 0.0 else math.copysign(math.inf, m)
    return m / sd


def win_tie_loss(a: Any, b: Any, tie_tol: float = 0.0) -> Tuple[int, int, int]:
    """Counts of queries where b > a (win), |b - a| <= tie_tol (tie), b < a (loss)."""
    a, b = paired_arrays(a, b)
    d = b - a
    tie = np.abs(d) <= tie_tol
    return int(np.sum((d > 0) & ~tie)), int(np.sum(tie)), int(np.sum((d < 0) & ~tie))


# --------------------------------------------------------------------------- paired tests

def check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; choose one of {', '.join(ALTERNATIVES)}")
    return alternative


def degenerate_result(test: str, d: np.ndarray, alternative: str = "two-sided") -> Optional[TestResult]:
    if d.size < 2:
        return TestResult(test, float("nan"), float("nan"), int(d.size), "", f"n = {d.size} < 2 pairs: no test",
                          alternative)
    if np.all(d == 0.0):
        return TestResult(test, 0.0 if test != "wilcoxon" else float("nan"), 1.0, int(d.size), "",
                          "all differences are zero: p = 1", alternative)
    return None


def paired_ttest(a: Any, b: Any, *, alternative: str = "two-sided") -> TestResult:
    """Paired Student t-test of mean(b - a) = 0 (values match ``scipy.stats.ttest_rel(b, a,
    alternative=...)``). ``alternative``: "two-sided", "less" (H1: mean(d) < 0, b worse than a)
    or "greater" (H1: mean(d) > 0)."""
    from scipy import stats as st

    d, deg = differences("t-test", a, b, alternative)
    if deg is not None:
        return deg
    n = d.size
    m = exact.mean(d)
    sd = exact.sd(d)
    if sd == 0.0:
        t = math.copysign(math.inf, m)
        if alternative == "two-sided":
            p = 0.0
        else:
            p = 0.0 if (m > 0) == (alternative == "greater") else 1.0
        return TestResult("t-test", t, p, n, f"df={n - 1}",
                          f"all differences equal and non-zero (SD = 0): t = {t}, p = {p:g}", alternative)
    t = m / (sd / math.sqrt(n))
    if alternative == "two-sided":
        p = float(2.0 * st.t.sf(abs(t), n - 1))
    elif alternative == "greater":
        p = float(st.t.sf(t, n - 1))
    else:
        p = float(st.t.cdf(t, n - 1))
    return TestResult("t-test", t, min(p, 1.0), n, f"df={n - 1}", "", alternative)


def _signed_subset_sums(x: np.ndarray) -> np.ndarray:
    """All 2**len(x) values of sum(s_i x_i) with s_i in {-1, +1}."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate([sums + v, sums - v])
    return sums


def _exact_sign_flip_count(d: np.ndarray, hi: Optional[float], lo: Optional[float]) -> int:
    """Number of the 2**len(d) sign vectors s with sum(s_i d_i) >= hi (if hi is not None) plus the
    number with sum(s_i d_i) <= lo (if lo is not None); meet-in-the-middle over two halves."""
    h = d.size // 2
    left = _signed_subset_sums(d[:h])
    right = np.sort(_signed_subset_sums(d[h:]))
    count = 0
    if hi is not None:  # left + r >= hi
        count += int(np.sum(right.size - np.searchsorted(right, hi - left, side="left")))
    if lo is not None:  # left + r <= lo
        count += int(np.sum(np.searchsorted(right, lo - left, side="right")))
    return count


def sign_flip_null(x: np.ndarray, t_obs: float, n: int, alternative: str, *, n_resamples: int, exact_max_n: int,
               rng_keys: Sequence[str], seed: int, zero_note: str, what: str) -> TestResult:
    """The sign-flip null of ``sum(x)`` over the non-zero terms ``x`` (shared by the plain and the
    weighted randomization tests). ``t_obs`` is the statistic reported (mean or weighted sum)."""
    k = x.size
    total = exact.fsum(x)
    tol = _tol(x)
    if alternative == "two-sided":
        thr = abs(total) - tol
        if thr <= 0:  # observed sum is 0 (within rounding): every resample is as extreme
            return TestResult("randomization", t_obs, 1.0, n, "",
                              "; ".join(v for v in (f"observed {what} is 0: p = 1", zero_note) if v), alternative)
        hi, lo = thr, -thr
    elif alternative == "greater":
        hi, lo = total - tol, None
    else:
        hi, lo = None, total + tol
    if k <= exact_max_n:
        count = _exact_sign_flip_count(x, hi, lo)
        return TestResult("randomization", t_obs, min(1.0, count / float(2 ** k)), n,
                          f"exact (2^{k} sign vectors of the {k} non-zero differences)", zero_note, alternative)
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    rng = rng_for(seed, *rng_keys)
    b_count = 0
    done = 0
    while done < n_resamples:
        c = min(RESAMPLE_CHUNK, n_resamples - done)
        signs = rng.integers(0, 2, size=(c, k), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        sums = exact.row_sums(signs * x)
        hit = np.zeros(c, dtype=bool)
        if hi is not None:
            hit |= sums >= hi
        if lo is not None:
            hit |= sums <= lo
        b_count += int(np.sum(hit))
        done += c
    p = (b_count + 1) / (n_resamples + 1)
    return TestResult("randomization", t_obs, p, n,
                      f"monte-carlo (m={n_resamples}, seed={seed}; {k} non-zero differences > exact_max_n="
                      f"{exact_max_n})", zero_note, alternative)


def paired_randomization_test(a: Any, b: Any, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                              exact_max_n: int = EXACT_MAX_N, key: Sequence[str] = (),
                              alternative: str = "two-sided") -> TestResult:
    """Paired randomization (sign-flip) test of mean(b - a) = 0.

    Statistic T = mean(d) over all n pairs. Zero differences are unchanged by a sign flip, so
    the null distribution is generated by the n' NON-ZERO differences only (p does not depend on
    how many zero differences there are). Exact for n' <= exact_max_n: p = #{s : T(s) as or more
    extreme than T} / 2**n' (the identity sign vector counts; "more extreme" is |T(s)| >= |T|
    two-sided, T(s) >= T for "greater", T(s) <= T for "less", up to a rounding tolerance).
    Otherwise Monte Carlo: m = n_resamples sign vectors of the n' non-zero differences drawn from
    a Generator derived from (seed, "randomization", *key), p = (b + 1) / (m + 1)."""
    d, deg = differences("randomization", a, b, alternative)
    if deg is not None:
        return deg
    n = d.size
    nz = d[d != 0.0]
    zero_note = f"{n - nz.size} zero differences contribute nothing to sign flips" if n > nz.size else ""
    return sign_flip_null(nz, exact.fsum(d) / n, n, alternative, n_resamples=n_resamples, exact_max_n=exact_max_n,
                      rng_keys=("randomization", *key), seed=seed, zero_note=zero_note, what="mean difference")


def _signed_rank_null_counts(r2: np.ndarray) -> np.ndarray:
    """counts[s] = number of the 2**len(r2) subsets of the (integer, doubled mid-) ranks r2 whose
    sum is s, s = 0..sum(r2): the exact conditional null distribution of 2 W+ (int64 DP)."""
    total = int(np.sum(r2))
    counts = np.zeros(total + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for r in r2.tolist():
        counts[r:top + r + 1] = counts[r:top + r + 1] + counts[:top + 1]  # RHS is evaluated first
        top += r
    return counts


def wilcoxon_test(a: Any, b: Any, *, alternative: str = "two-sided",
                  exact_max_n: int = WILCOXON_EXACT_MAX_N) -> TestResult:
    """Wilcoxon signed-rank test on d = b - a.

    Zero differences are discarded (Wilcoxon's "wilcox" convention), so adding zero differences
    never changes the result. The n' non-zero |d| are ranked with mid-ranks for ties; W+ is the
    rank sum of the positive differences. For n' <= exact_max_n the p-value comes from the EXACT
    conditional null distribution (all 2**n' sign assignments of the observed mid-ranks, by a DP
    over doubled ranks, which are integers); beyond, the normal approximation with the
    tie-corrected variance n'(n'+1)(2n'+1)/24 - sum(t^3 - t)/48 and no continuity correction
    (as ``scipy.stats.wilcoxon(method="asymptotic", correction=False)``). Two-sided p counts sign
    assignments with |W+ - E W+| >= observed; "greater" W+ >= observed; "less" W+ <= observed.
    statistic: min(W+, W-) for two-sided, W+ for one-sided alternatives (scipy's convention)."""
    from scipy import stats as st

    check_alternative(alternative)
    if not 1 <= exact_max_n <= 62:
        raise ValueError("exact_max_n must be in 1..62 (int64 counts of 2^n' sign vectors)")
    d, deg = differences("wilcoxon", a, b, alternative)
    if deg is not None:
        return deg
    n = d.size
    nz = d[d != 0.0]
    k = nz.size
    notes = []
    if k < n:
        notes.append(f"{n - k} zero differences discarded")
    absd = np.abs(nz)
    ranks = st.rankdata(absd, method="average")
    r2 = np.rint(2.0 * ranks).astype(np.int64)  # doubled mid-ranks are integers
    pos = nz > 0
    s2 = int(np.sum(r2[pos]))  # 2 W+
    total2 = int(np.sum(r2))  # 2 (W+ + W-) = n'(n'+1)
    w_plus = s2 / 2.0
    w_minus = (total2 - s2) / 2.0
    statistic = min(w_plus, w_minus) if alternative == "two-sided" else w_plus
    _, tie_counts = np.unique(absd, return_counts=True)
    if np.any(tie_counts > 1):
        notes.append(f"{int(np.sum(tie_counts[tie_counts > 1]))} tied |d| values share mid-ranks")
    if k <= exact_max_n:
        counts = _signed_rank_null_counts(r2)
        sums = np.arange(total2 + 1)
        if alternative == "greater":
            hit = sums >= s2
        elif alternative == "less":
            hit = sums <= s2
        else:
            hit = np.abs(2 * sums - total2) >= abs(2 * s2 - total2)
        count = int(np.sum(counts[hit]))
        p = min(1.0, count / 2 ** k)  # Python ints: correctly rounded
        method = f"exact conditional (n_nonzero={k}, 2^{k} sign vectors of the mid-ranks)"
    else:
        mean = k * (k + 1) / 4.0
        var = k * (k + 1) * (2 * k + 1) / 24.0 - float(sum(int(t) ** 3 - int(t) for t in tie_counts)) / 48.0
        z = (w_plus - mean) / math.sqrt(var)
        if alternative == "greater":
            p = float(st.norm.sf(z))
        elif alternative == "less":
            p = float(st.norm.cdf(z))
        else:
            p = float(min(1.0, 2.0 * st.norm.sf(abs(z))))
        method = (f"normal approximation (n_nonzero={k} > {exact_max_n}; tie-corrected variance, "
                  f"no continuity correction)")
    return TestResult("wilcoxon", float(statistic), float(p), int(n), method, "; ".join(notes), alternative)


def paired_test(a: Any, b: Any, test: str = "t-test", *, seed: int = 0, n_resamples: int = DEFAULT_RESAMPLES,
                key: Sequence[str] = (), alternative: str = "two-sided") -> TestResult:
    """Dispatch to one of TESTS (``alternative``: "two-sided", "less" or "greater", about mean(b - a))."""
    if test == "t-test":
        return paired_ttest(a, b, alternative=alternative)
    if test == "randomization":
        return paired_randomization_test(a, b, n_resamples=n_resamples, seed=seed, key=key, alternative=alternative)
    if test == "wilcoxon":
        return wilcoxon_test(a, b, alternative=alternative)
    raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")


# --------------------------------------------------------------------------- drop-rate difference test

def drop_rate_difference_test(base_orig: Any, base_var: Any, cand_orig: Any, cand_var: Any, *,
                              n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                              key: Sequence[str] = (), alternative: str = "two-sided") -> TestResult:
    """Paired randomization test of H0: baseline and candidate are exchangeable per query, with
    statistic T = DR_cand - DR_base, DR = (mean(orig) - mean(var)) / mean(orig).

    Each resample swaps, per query, the candidate's (orig, var) pair with the baseline's pair
    (all four vectors are paired on the same queries). Seeded Monte Carlo, p = (b+1)/(m+1)
    with b = #{|T*| >= |T|} (two-sided), #{T* >= T} (``alternative="greater"``: H1 the
    candidate's drop rate is higher, i.e. the candidate is less robust) or #{T* <= T} ("less").
    Degenerate: n < 2 -> NaN; identical runs or T = 0 -> p = 1."""
    check_alternative(alternative)
    bo, bv = paired_arrays(base_orig, base_var)
    co, cv = paired_arrays(cand_orig, cand_var)
    if bo.shape != co.shape:
        raise ValueError("baseline and candidate must be paired on the same queries")
    n = bo.size
    if n < 2:
        return TestResult("drop-rate randomization", float("nan"), float("nan"), n, "", f"n = {n} < 2 pairs: no test",
                          alternative)
    sums = np.array([exact.fsum(bo), exact.fsum(bv), exact.fsum(co), exact.fsum(cv)])

    def stat(s_bo, s_bv, s_co, s_cv):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (s_co - s_cv) / s_co - (s_bo - s_bv) / s_bo

    t_obs = float(stat(*sums))
    if not math.isfinite(t_obs):
        return TestResult("drop-rate randomization", float("nan"), float("nan"), n, "",
                          "an ORIGINAL mean is 0: drop rate undefined", alternative)
    if np.array_equal(bo, co) and np.array_equal(bv, cv):
        return TestResult("drop-rate randomization", t_obs, 1.0, n, "", "identical values in both runs: p = 1",
                          alternative)
    do = co - bo  # swapping query q moves do_q from candidate to baseline
    dv = cv - bv
    scale = (exact.fsum(np.abs(do)) + exact.fsum(np.abs(dv))) / max(abs(sums[0]), abs(sums[2]), 1e-300)
    tol = 1e-9 * scale + 1e-300
    thr = abs(t_obs) - tol
    if thr <= 0:
        return TestResult("drop-rate randomization", t_obs, 1.0, n, "", "observed difference is 0: p = 1",
                          alternative)
    rng = rng_for(seed, "drop-rate-randomization", *key)
    b_count = 0
    done = 0
    while done < n_resamples:
        c = min(RESAMPLE_CHUNK, n_resamples - done)
        swap = rng.integers(0, 2, size=(c, n), dtype=np.int8).astype(np.float64)
        mo = exact.row_sums(swap * do)
        mv = exact.row_sums(swap * dv)
        t = stat(sums[0] + mo, sums[1] + mv, sums[2] - mo, sums[3] - mv)
        if alternative == "two-sided":
            hit = np.abs(t) >= thr
        elif alternative == "greater":
            hit = t >= t_obs - tol
        else:
            hit = t <= t_obs + tol
        b_count += int(np.sum(hit))  # NaN (zero mean) never counts
        done += c
    return TestResult("drop-rate randomization", t_obs, (b_count + 1) / (n_resamples + 1), n,
                      f"monte-carlo (m={n_resamples}, seed={seed})", "", alternative)


