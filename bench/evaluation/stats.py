"""Statistics for comparing per-query retrieval scores: paired tests, effect sizes, confidence
intervals, multiple-comparison correction, win/tie/loss counts.

Everything here is a pure function of numpy arrays (inputs are never mutated) plus
:func:`variation_statistics`, which applies the kernels to a run's ``per_query.csv`` table
and returns the JSON-ready ``"statistics"`` block of ``result.json``.

Conventions (stated once, recorded in every output header; details in docs/statistics.md):

* Pairs are ``(a_i, b_i)``, one per query; the per-query difference is ``d_i = b_i - a_i``
  (variation minus ORIGINAL; candidate minus baseline). ``delta = mean(d)``.
* Tests are **two-sided** by default; every test takes ``alternative`` = ``"two-sided"``,
  ``"less"`` (H1: d located below 0, b worse than a) or ``"greater"`` (H1: above 0), and the
  header's ``sidedness`` says which. H0: the paired differences are centred on 0 (t-test: mean
  0; randomization: signs of ``d_i`` exchangeable; Wilcoxon: distribution of ``d`` symmetric
  about 0).
* ``t-test``: paired Student t-test, ``t = mean(d) / (SD(d) / sqrt(n))`` with SD ddof=1,
  ``n - 1`` degrees of freedom (same as ``scipy.stats.ttest_rel``).
* ``randomization``: paired sign-flip test on ``mean(d)``. Zero differences are unchanged by a
  sign flip, so only the ``n'`` NON-ZERO differences are flipped (p does not depend on the
  number of zeros). Exact (all ``2**n'`` sign vectors, enumerated by meet-in-the-middle,
  ``p = b / 2**n'``) when ``n' <= EXACT_MAX_N`` (20); otherwise seeded Monte Carlo with ``m``
  resamples (default 10000) and ``p = (b + 1) / (m + 1)``, ``b`` counting resamples as or more
  extreme (``|T*| >= |T|`` two-sided; ``T* >= T`` / ``T* <= T`` one-sided, up to a rounding
  tolerance). Deterministic for a given seed (pure numpy, fixed chunks; no threads, no BLAS).
* ``wilcoxon``: signed-rank test; zero differences are DISCARDED before ranking (Wilcoxon's
  "wilcox" convention: adding zeros never changes p), ties get mid-ranks. Exact conditional
  p-value (all ``2**n'`` sign assignments of the observed mid-ranks, an integer DP over doubled
  ranks) for ``n' <= WILCOXON_EXACT_MAX_N`` (50) non-zero differences; beyond, the normal
  approximation with the tie-corrected variance and no continuity correction (as scipy's
  ``method="asymptotic", correction=False``). ``TestResult.method`` / ``note`` say which.
* Degenerate inputs: fewer than 2 pairs -> p = NaN (JSON null) with a note; all differences
  zero -> p = 1 for every test and alternative; t-test with SD(d) = 0 but mean(d) != 0 ->
  t = +-inf, p = 0 (one-sided: 0 or 1 by the sign).
* Effect size ``d_z = mean(d) / SD(d)`` with SD ddof=1 (NaN when undefined, inf when SD = 0).
* Confidence intervals (two-sided, central, 95 % by default; ``interval`` = one of
  ``CI_METHODS``). Default ``"t"``, chosen because it meets its nominal coverage at n = 10..100
  on normal and on zero-heavy IR-like data where the bootstrap intervals do not (measured by
  ``benchmarks/ci_coverage.py``): delta and means by the Student t interval
  ``mean +- t_{n-1} SD / sqrt(n)`` (SD ddof=1), the drop rate (a ratio of means) by the
  delta-method t interval on ``log(M_b / M_a)`` mapped back to ``1 - M_b / M_a``. No resampling
  (B and seed unused). ``"bca"``: paired BCa bootstrap (queries resampled with replacement
  *jointly* for both members of a pair, ``B`` = 1000 by default, jackknife acceleration; as
  ``scipy.stats.bootstrap(method="BCa")``); ``"percentile"``: the paired percentile bootstrap
  of earlier versions. Both bootstrap intervals are byte-deterministic for a given seed. n < 2
  -> NaN; all values (differences) equal to x -> [x, x]. ``bootstrap_means`` /
  ``bootstrap_ranks`` (leaderboard) resample queries jointly for every model.
* Multiple comparisons: Holm step-down (FWER, default), Benjamini-Hochberg step-up (FDR) or
  none, over the finite p-values of a family; NaN p-values stay NaN and are not counted.
* Win / tie / loss: per query, ``b > a`` / ``b == a`` / ``b < a`` (``|d| <= tie_tol`` is a tie,
  ``tie_tol`` = 0 by default: metric values are compared exactly).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from bench.core.seeding import rng_for

TESTS = ("t-test", "randomization", "wilcoxon")
CORRECTIONS = ("holm", "bh", "none")
ALTERNATIVES = ("two-sided", "less", "greater")  # about the location of d = b - a
EXACT_MAX_N = 20  # randomization test: exact enumeration of 2**n' sign vectors up to n' non-zero differences
WILCOXON_EXACT_MAX_N = 50  # Wilcoxon: exact conditional distribution up to n' non-zero differences
CI_METHODS = ("t", "bca", "percentile")  # confidence intervals of means, mean differences and drop rates
DEFAULT_CI = "t"
DEFAULT_RESAMPLES = 10000  # Monte Carlo randomization resamples
DEFAULT_BOOTSTRAP = 1000
_CHUNK = 1000  # fixed chunk size of resampling loops (part of the determinism contract)

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
CI_DESCRIPTIONS = {
    "t": "Student t interval: delta = mean(d) +- t_{n-1} SD(d)/sqrt(n) (SD ddof=1); drop rate by the delta-method "
    "t interval on log(M_other/M_baseline), mapped back (linear delta method when the ratio is <= 0); no resampling",
    "bca": "paired BCa bootstrap (bias-corrected and accelerated, jackknife acceleration; numpy linear "
    "interpolation of the replicates)",
    "percentile": "paired percentile bootstrap (2.5/97.5 percentiles, numpy linear interpolation)",
}
CORRECTION_DESCRIPTIONS = {
    "holm": "Holm step-down (controls the family-wise error rate)",
    "bh": "Benjamini-Hochberg step-up (controls the false discovery rate)",
    "none": "no correction (raw p-values)",
}


# --------------------------------------------------------------------------- seeding

# --------------------------------------------------------------------------- helpers

def _pair(a: Any, b: Any) -> Tuple[np.ndarray, np.ndarray]:
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
    return 1e-9 * float(np.sum(np.abs(d))) + 1e-300


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
    a, b = _pair(a, b)
    return float(np.mean(b - a)) if a.size else float("nan")


def cohen_dz(a: Any, b: Any) -> float:
    """Standardized paired effect d_z = mean(d) / SD(d), SD with ddof=1, d = b - a.

    NaN for n < 2 or when all differences are zero; +-inf when SD = 0 but mean != 0."""
    a, b = _pair(a, b)
    d = b - a
    if d.size < 2:
        return float("nan")
    m = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return float("nan") if m == 0.0 else math.copysign(math.inf, m)
    return m / sd


def win_tie_loss(a: Any, b: Any, tie_tol: float = 0.0) -> Tuple[int, int, int]:
    """Counts of queries where b > a (win), |b - a| <= tie_tol (tie), b < a (loss)."""
    a, b = _pair(a, b)
    d = b - a
    tie = np.abs(d) <= tie_tol
    return int(np.sum((d > 0) & ~tie)), int(np.sum(tie)), int(np.sum((d < 0) & ~tie))


# --------------------------------------------------------------------------- paired tests

def _check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; choose one of {', '.join(ALTERNATIVES)}")
    return alternative


def _degenerate(test: str, d: np.ndarray, alternative: str = "two-sided") -> Optional[TestResult]:
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

    _check_alternative(alternative)
    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("t-test", d, alternative)
    if deg is not None:
        return deg
    n = d.size
    m = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
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


def _sign_flip(x: np.ndarray, t_obs: float, n: int, alternative: str, *, n_resamples: int, exact_max_n: int,
               rng_keys: Sequence[str], seed: int, zero_note: str, what: str) -> TestResult:
    """The sign-flip null of ``sum(x)`` over the non-zero terms ``x`` (shared by the plain and the
    weighted randomization tests). ``t_obs`` is the statistic reported (mean or weighted sum)."""
    k = x.size
    total = float(np.sum(x))
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
        c = min(_CHUNK, n_resamples - done)
        signs = rng.integers(0, 2, size=(c, k), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        sums = np.sum(signs * x, axis=1)
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
    _check_alternative(alternative)
    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("randomization", d, alternative)
    if deg is not None:
        return deg
    n = d.size
    nz = d[d != 0.0]
    zero_note = f"{n - nz.size} zero differences contribute nothing to sign flips" if n > nz.size else ""
    return _sign_flip(nz, float(np.sum(d)) / n, n, alternative, n_resamples=n_resamples, exact_max_n=exact_max_n,
                      rng_keys=("randomization", *key), seed=seed, zero_note=zero_note, what="mean difference")


def weighted_sign_flip_test(d: Any, w: Any, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                            key: Sequence[str] = (), exact_max_n: int = EXACT_MAX_N,
                            alternative: str = "two-sided") -> TestResult:
    """Paired randomization (sign-flip) test of the WEIGHTED statistic ``T = sum_i w_i d_i``
    (with macro weights T is a macro-averaged difference: the few-shot suite's headline).
    H0: within each pair the two members are exchangeable, so each ``d_i`` keeps or flips its sign
    with probability 1/2, independently. Only the n' terms with ``w_i d_i != 0`` move; exact when
    n' <= exact_max_n, else seeded Monte Carlo from (seed, "weighted-sign-flip", *key) with
    p = (b+1)/(m+1). Degenerate: fewer than 2 pairs -> p NaN; every term zero -> p = 1."""
    _check_alternative(alternative)
    d = np.array(d, dtype=np.float64, copy=True).ravel()
    w = np.array(w, dtype=np.float64, copy=True).ravel()
    if d.shape != w.shape:
        raise ValueError(f"d and w must have the same length, got {d.size} and {w.size}")
    if not (np.all(np.isfinite(d)) and np.all(np.isfinite(w))):
        raise ValueError("d or w contains NaN or infinite values")
    x_all = w * d
    deg = _degenerate("randomization", x_all, alternative)
    if deg is not None:
        return deg
    x = x_all[x_all != 0.0]
    return _sign_flip(x, float(np.sum(x_all)), int(d.size), alternative, n_resamples=n_resamples,
                      exact_max_n=exact_max_n, rng_keys=("weighted-sign-flip", *key), seed=seed, zero_note="",
                      what="statistic")


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

    _check_alternative(alternative)
    if not 1 <= exact_max_n <= 62:
        raise ValueError("exact_max_n must be in 1..62 (int64 counts of 2^n' sign vectors)")
    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("wilcoxon", d, alternative)
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
        var = k * (k + 1) * (2 * k + 1) / 24.0 - float(np.sum(tie_counts.astype(np.float64) ** 3 - tie_counts)) / 48.0
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


# --------------------------------------------------------------------------- bootstrap

def bootstrap_index_chunks(n: int, B: int, rng: np.random.Generator) -> Iterable[np.ndarray]:
    """Yield (c, n) arrays of query indices drawn with replacement, B rows in total, fixed chunks."""
    done = 0
    while done < B:
        c = min(_CHUNK, B - done)
        yield rng.integers(0, n, size=(c, n))
        done += c


def _percentile_ci(reps: np.ndarray, confidence: float) -> Tuple[float, float]:
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return (float("nan"), float("nan"))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(reps, [100 * alpha, 100 * (1 - alpha)])
    return (float(lo), float(hi))


def _check_ci_args(confidence: float, interval: str) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if interval not in CI_METHODS:
        raise ValueError(f"unknown interval {interval!r}; choose one of {', '.join(CI_METHODS)}")


def _t_quantile(confidence: float, n: int) -> float:
    from scipy import stats as st

    return float(st.t.ppf(1.0 - (1.0 - confidence) / 2.0, n - 1))


def t_mean_ci(x: Any, confidence: float = 0.95) -> Tuple[float, float]:
    """Student t interval of the mean: mean(x) +- t_{n-1, 1-alpha/2} SD(x) / sqrt(n), SD ddof=1.
    n < 2 -> NaN; all values equal to v -> [v, v]."""
    x = np.array(x, dtype=np.float64, copy=True).ravel()
    n = x.size
    if n < 2 or not np.all(np.isfinite(x)):
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    m = float(np.mean(x))
    half = _t_quantile(confidence, n) * float(np.std(x, ddof=1)) / math.sqrt(n)
    return (m - half, m + half)


def t_drop_rate_ci(a: Any, b: Any, confidence: float = 0.95) -> Tuple[float, float]:
    """Delta-method t interval of the drop rate R = 1 - rho, rho = M_b / M_a (ratio of means of
    paired samples). When rho > 0 the interval is built on log(rho), whose delta-method SE is
    SD(b_i / M_b - a_i / M_a) / sqrt(n) (SD ddof=1), and mapped back:
    [1 - rho exp(q se), 1 - rho exp(-q se)] with q = t_{n-1, 1-alpha/2} (so the upper end never
    exceeds 1). When rho <= 0 (e.g. every b is 0): the linear delta method, R +- q SD(u)/sqrt(n)
    with u_i = (a_i - b_i - R a_i) / M_a. n < 2 or M_a = 0 -> NaN."""
    a, b = _pair(a, b)
    n = a.size
    nan2 = (float("nan"), float("nan"))
    if n < 2:
        return nan2
    ma, mb = float(np.mean(a)), float(np.mean(b))
    if ma == 0.0:
        return nan2
    q = _t_quantile(confidence, n)
    rho = mb / ma
    if rho > 0.0:
        se = float(np.std(b / mb - a / ma, ddof=1)) / math.sqrt(n)
        if se == 0.0:
            return (1.0 - rho, 1.0 - rho)
        with np.errstate(over="ignore"):
            return (float(1.0 - rho * np.exp(q * se)), float(1.0 - rho * np.exp(-q * se)))
    r = 1.0 - rho
    half = q * float(np.std((a - b - r * a) / ma, ddof=1)) / math.sqrt(n)
    return (r - half, r + half)


def _bca_ci(theta: float, reps: np.ndarray, jack: np.ndarray, confidence: float) -> Tuple[float, float]:
    """BCa interval (Efron 1987; as ``scipy.stats.bootstrap(method="BCa")``) of the statistic
    theta from its bootstrap replicates ``reps`` and its jackknife (leave-one-query-out) values
    ``jack``: z0 = Phi^-1(share of replicates below theta, ties counting one half; replicates
    within 1e-10 x max(|theta|, range) of theta are ties, so rounding cannot decide), acceleration
    a = sum(u^3) / (6 sum(u^2)^1.5) with u = mean(jack) - jack; the interval is the
    Phi(z0 + (z0 + z)/(1 - a (z0 + z))) percentiles (numpy linear interpolation) of the
    replicates for z = -+z_{1-alpha/2}.

    Guards (no warnings): non-finite replicates are left out; a non-finite jackknife value sets
    a = 0; the share is clipped to [0.5/B, 1 - 0.5/B] so z0 is finite; a (numerically) constant
    set of replicates gives [theta, theta]; undefined theta -> NaN."""
    from scipy import special

    nan2 = (float("nan"), float("nan"))
    if not math.isfinite(theta):
        return nan2
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return nan2
    lo_r, hi_r = float(np.min(reps)), float(np.max(reps))
    if hi_r - lo_r <= 64 * np.finfo(np.float64).eps * max(abs(lo_r), abs(hi_r), abs(theta)):
        return (float(theta), float(theta))
    B = reps.size
    tie = 1e-10 * max(abs(theta), hi_r - lo_r)  # mathematically equal replicates differ by rounding only
    share = (np.count_nonzero(reps < theta - tie) + 0.5 * np.count_nonzero(np.abs(reps - theta) <= tie)) / B
    share = min(max(share, 0.5 / B), 1.0 - 0.5 / B)
    z0 = float(special.ndtri(share))
    acc = 0.0
    if jack.size >= 2 and np.all(np.isfinite(jack)):
        u = float(np.mean(jack)) - jack
        ss = float(np.sum(u * u))
        if ss > 0.0:
            acc = float(np.sum(u * u * u)) / (6.0 * ss ** 1.5)
    zq = float(-special.ndtri((1.0 - confidence) / 2.0))
    probs = []
    for z in (-zq, zq):
        w = z0 + z
        den = 1.0 - acc * w
        probs.append(float(special.ndtr(z0 + w / den)) if den > 0.0 else (1.0 if w > 0 else 0.0))
    lo, hi = np.percentile(reps, [100.0 * probs[0], 100.0 * probs[1]])
    return (float(lo), float(hi))


def _boot_ci(theta: float, reps: np.ndarray, jack: np.ndarray, confidence: float, interval: str) -> Tuple[float, float]:
    if interval == "percentile":
        return _percentile_ci(reps, confidence)
    return _bca_ci(theta, reps, jack, confidence)


@dataclass(frozen=True)
class BootstrapCI:
    delta: Tuple[float, float]  # CI of mean(b) - mean(a)
    drop_rate: Tuple[float, float]  # CI of (mean(a) - mean(b)) / mean(a)
    B: int
    confidence: float
    n_undefined_drop: int = 0  # bootstrap replicates with mean(a) = 0 (drop rate undefined, left out)
    interval: str = DEFAULT_CI  # one of CI_METHODS


def paired_bootstrap_ci(a: Any, b: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                        key: Sequence[str] = (), interval: str = DEFAULT_CI) -> BootstrapCI:
    """Confidence intervals of the delta mean(b) - mean(a) = mean(d) and of the drop rate
    (mean(a) - mean(b)) / mean(a) (a ratio of means) of paired samples.

    ``interval`` (one of CI_METHODS):

    * "t" (default; chosen by coverage, see docs/statistics.md): delta by the Student t interval
      of mean(d) (:func:`t_mean_ci`), drop rate by the delta-method t interval on the log ratio of
      means (:func:`t_drop_rate_ci`). No resampling: B and seed are not used.
    * "bca": paired BCa bootstrap (queries resampled with replacement jointly for a and b; B
      replicates from a Generator derived from (seed, "bootstrap", *key) in fixed chunks, so
      byte-deterministic for a given seed; jackknife acceleration; :func:`_bca_ci`).
    * "percentile": the paired percentile bootstrap of earlier versions (same replicates).

    Degenerate: n = 0 or B < 1 -> NaN; n = 1 -> NaN ("percentile": the single value); all
    differences equal to v -> delta [v, v]; mean(a) = 0 -> drop rate NaN."""
    _check_ci_args(confidence, interval)
    a, b = _pair(a, b)
    n = a.size
    nan2 = (float("nan"), float("nan"))
    if n == 0 or B < 1:
        return BootstrapCI(nan2, nan2, B, confidence, 0, interval)
    d = b - a
    if interval == "t":
        return BootstrapCI(t_mean_ci(d, confidence), t_drop_rate_ci(a, b, confidence), B, confidence, 0, interval)
    rng = rng_for(seed, "bootstrap", *key)
    ma = np.empty(B)
    mb = np.empty(B)
    md = np.empty(B)
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        ma[i:i + c] = np.mean(a[idx], axis=1)
        mb[i:i + c] = np.mean(b[idx], axis=1)
        md[i:i + c] = np.mean(d[idx], axis=1)
        i += c
    with np.errstate(divide="ignore", invalid="ignore"):
        drop = np.where(ma != 0.0, (ma - mb) / np.where(ma != 0.0, ma, 1.0), np.nan)
        mean_a, mean_b = float(np.mean(a)), float(np.mean(b))
        theta_dr = (mean_a - mean_b) / mean_a if mean_a != 0.0 else float("nan")
        if n >= 2:
            jd = (np.sum(d) - d) / (n - 1)
            ja = (np.sum(a) - a) / (n - 1)
            jb = (np.sum(b) - b) / (n - 1)
            jdr = np.where(ja != 0.0, (ja - jb) / np.where(ja != 0.0, ja, 1.0), np.nan)
    n_undef = int(np.sum(ma == 0.0))
    if interval == "percentile":
        return BootstrapCI(_percentile_ci(md, confidence), _percentile_ci(drop, confidence), B, confidence,
                           n_undef, interval)
    if n < 2:
        return BootstrapCI(nan2, nan2, B, confidence, n_undef, interval)
    if np.all(d == d[0]):
        delta_ci = (float(d[0]), float(d[0]))
    else:
        delta_ci = _bca_ci(float(np.mean(d)), md, jd, confidence)
    return BootstrapCI(delta_ci, _bca_ci(theta_dr, drop, jdr, confidence), B, confidence, n_undef, interval)


def bootstrap_mean_ci(x: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                      key: Sequence[str] = (), interval: str = DEFAULT_CI) -> Tuple[float, float]:
    """Confidence interval of mean(x): "t" (default) the Student t interval (:func:`t_mean_ci`;
    B and seed unused), "bca" / "percentile" a bootstrap interval (Generator derived from
    (seed, "bootstrap-mean", *key)). n < 2 -> NaN ("percentile": [x, x]); all equal -> [x, x]."""
    _check_ci_args(confidence, interval)
    x = np.array(x, dtype=np.float64, copy=True).ravel()
    n = x.size
    if n == 0 or B < 1:
        return (float("nan"), float("nan"))
    if interval == "t":
        return t_mean_ci(x, confidence)
    rng = rng_for(seed, "bootstrap-mean", *key)
    reps = np.concatenate([np.mean(x[idx], axis=1) for idx in bootstrap_index_chunks(n, B, rng)])
    if interval == "percentile":
        return _percentile_ci(reps, confidence)
    if n < 2:
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    return _bca_ci(float(np.mean(x)), reps, (np.sum(x) - x) / (n - 1), confidence)


def drop_rate(mean_a: float, mean_b: float) -> float:
    """(M_a - M_b) / M_a; NaN when M_a is 0."""
    return (mean_a - mean_b) / mean_a if mean_a != 0 else float("nan")


def bootstrap_means(scores: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, key: Sequence[str] = ()) -> np.ndarray:
    """Means of k models in B bootstrap replicates; ``scores`` is (n_queries, k) on a SHARED
    query set and queries are resampled jointly across models. Returns a (B, k) array."""
    s = np.array(scores, dtype=np.float64, copy=True)
    if s.ndim != 2:
        raise ValueError("scores must be a (n_queries, n_models) array")
    n, k = s.shape
    rng = rng_for(seed, "bootstrap-rank", *key)
    out = np.empty((B, k))
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        out[i:i + c] = np.mean(s[idx], axis=1)  # (c, k)
        i += c
    return out


def ranks_of(means: Any, higher_is_better: bool = True) -> np.ndarray:
    """Ranks along the last axis: 1 + number of models strictly better (ties share the best rank)."""
    m = np.array(means, dtype=np.float64, copy=True)
    if not higher_is_better:
        m = -m
    return 1 + np.sum(m[..., None, :] > m[..., :, None], axis=-1)


def bootstrap_ranks(scores: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, key: Sequence[str] = (),
                    higher_is_better: bool = True) -> np.ndarray:
    """Ranks (1 = best, ties share the best rank) of k models in B bootstrap replicates
    (queries resampled jointly across models). Returns a (B, k) int array."""
    return ranks_of(bootstrap_means(scores, B=B, seed=seed, key=key), higher_is_better)


def mean_ranks(scores_mean: Any, higher_is_better: bool = True) -> np.ndarray:
    """Point ranks (1 = best; ties share the best rank) of a vector of scores."""
    return ranks_of(scores_mean, higher_is_better)


# --------------------------------------------------------------------------- drop-rate difference test

def drop_rate_difference_test(base_orig: Any, base_var: Any, cand_orig: Any, cand_var: Any, *,
                              n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                              key: Sequence[str] = ()) -> TestResult:
    """Two-sided paired randomization test of H0: baseline and candidate are exchangeable per query,
    with statistic T = DR_cand - DR_base, DR = (mean(orig) - mean(var)) / mean(orig).

    Each resample swaps, per query, the candidate's (orig, var) pair with the baseline's pair
    (all four vectors are paired on the same queries). Seeded Monte Carlo, p = (b+1)/(m+1)
    with b = #{|T*| >= |T|}. Degenerate: n < 2 -> NaN; identical runs -> p = 1."""
    bo, bv = _pair(base_orig, base_var)
    co, cv = _pair(cand_orig, cand_var)
    if bo.shape != co.shape:
        raise ValueError("baseline and candidate must be paired on the same queries")
    n = bo.size
    if n < 2:
        return TestResult("drop-rate randomization", float("nan"), float("nan"), n, "", f"n = {n} < 2 pairs: no test")
    sums = np.array([bo.sum(), bv.sum(), co.sum(), cv.sum()])

    def stat(s_bo, s_bv, s_co, s_cv):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (s_co - s_cv) / s_co - (s_bo - s_bv) / s_bo

    t_obs = float(stat(*sums))
    if not math.isfinite(t_obs):
        return TestResult("drop-rate randomization", float("nan"), float("nan"), n, "",
                          "an ORIGINAL mean is 0: drop rate undefined")
    if np.array_equal(bo, co) and np.array_equal(bv, cv):
        return TestResult("drop-rate randomization", t_obs, 1.0, n, "", "identical values in both runs: p = 1")
    do = co - bo  # swapping query q moves do_q from candidate to baseline
    dv = cv - bv
    scale = float(np.sum(np.abs(do)) + np.sum(np.abs(dv))) / max(abs(sums[0]), abs(sums[2]), 1e-300)
    thr = abs(t_obs) - (1e-9 * scale + 1e-300)
    if thr <= 0:
        return TestResult("drop-rate randomization", t_obs, 1.0, n, "", "observed difference is 0: p = 1")
    rng = rng_for(seed, "drop-rate-randomization", *key)
    b_count = 0
    done = 0
    while done < n_resamples:
        c = min(_CHUNK, n_resamples - done)
        swap = rng.integers(0, 2, size=(c, n), dtype=np.int8).astype(np.float64)
        mo = np.sum(swap * do, axis=1)
        mv = np.sum(swap * dv, axis=1)
        t = stat(sums[0] + mo, sums[1] + mv, sums[2] - mo, sums[3] - mv)
        b_count += int(np.sum(np.abs(t) >= thr))  # NaN (zero mean) never counts
        done += c
    return TestResult("drop-rate randomization", t_obs, (b_count + 1) / (n_resamples + 1), n,
                      f"monte-carlo (m={n_resamples}, seed={seed})")


# --------------------------------------------------------------------------- variation statistics

def _per_set_values(per_query: Any, set_name: str, measure: str) -> Any:
    """Series qid -> value of one set and measure (pandas)."""
    sub = per_query[per_query["set"] == set_name]
    if sub.empty:
        return None
    if sub["qid"].duplicated().any():
        dup = sub.loc[sub["qid"].duplicated(), "qid"].iloc[0]
        from bench.core.errors import DataError

        raise DataError(f"query id {dup!r} appears twice in set {set_name!r} of the per-query table")
    return sub.set_index("qid")[measure].astype(np.float64)


def paired_values(per_query: Any, set_a: str, set_b: str, measure: str) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Values of measure for the queries present (and finite) in both sets, in set_a's row order."""
    sa = _per_set_values(per_query, set_a, measure)
    sb = _per_set_values(per_query, set_b, measure)
    if sa is None or sb is None:
        from bench.core.errors import DataError

        missing = set_a if sa is None else set_b
        raise DataError(f"set {missing!r} has no rows in the per-query table")
    common = [q for q in sa.index if q in sb.index]
    a = sa.loc[common].to_numpy(dtype=np.float64)
    b = sb.loc[common].to_numpy(dtype=np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    qids = [q for q, k in zip(common, ok) if k]
    return a[ok], b[ok], qids


def sidedness(alternative: str = "two-sided", baseline: str = "ORIGINAL", other: str = "variation") -> str:
    """Human-readable sidedness of ``alternative`` ("two-sided" stays exactly that string)."""
    _check_alternative(alternative)
    if alternative == "two-sided":
        return "two-sided"
    if alternative == "less":
        return f"one-sided (less: H1 mean(d) < 0, {other} worse than {baseline})"
    return f"one-sided (greater: H1 mean(d) > 0, {other} better than {baseline})"


def statistics_header(*, test: str, correction: str, seed: int, bootstrap: int, alpha: float,
                      family: str, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                      baseline: str = "ORIGINAL", other: str = "variation", alternative: str = "two-sided",
                      interval: str = DEFAULT_CI) -> Dict[str, Any]:
    """The description block every output prints: test, sidedness, correction, SD variant, the
    confidence interval (and B when it is a bootstrap), seed. ``baseline`` / ``other`` name the
    two members of a pair (ORIGINAL vs a variation set; in the domain suite zero-shot vs a
    trained system). ``alternative`` sets the sidedness of the tests; ``interval`` names the
    confidence interval of delta / drop rate (always two-sided central, at ``confidence``)."""
    _check_ci_args(confidence, interval)
    head: Dict[str, Any] = {
        "test": test,
        "test_description": TEST_DESCRIPTIONS[test],
        "sidedness": sidedness(alternative, baseline, other),
        "alternative": alternative,
        "correction": correction,
        "correction_description": CORRECTION_DESCRIPTIONS[correction],
        "family": family,
        "alpha": alpha,
        "seed": int(seed),
        "difference": f"d = {other} - {baseline} per query (delta = mean(d); negative = worse)",
        "drop_rate": f"(M_{baseline} - M_{other}) / M_{baseline} (null when M_{baseline} = 0)",
        "effect_size": "d_z = mean(d) / SD(d), SD with ddof=1",
        "bootstrap": {"B": int(bootstrap), "interval": interval, "method": CI_DESCRIPTIONS[interval],
                      "confidence": confidence, "sidedness": "two-sided (central) interval",
                      "resampling": ("none: B and seed are not used by this interval" if interval == "t"
                                     else "queries with replacement, jointly for both sets")},
        "win_tie_loss": f"per query: win = {other} > {baseline}, tie = equal, loss = {other} < {baseline}",
        "degenerate": "n < 2 -> p and intervals null; all differences zero -> p = 1",
    }
    if test == "randomization":
        head["randomization"] = {"exact_max_n": EXACT_MAX_N, "n_resamples": int(n_resamples),
                                 "p_value": "over the n' non-zero differences: exact (n' <= exact_max_n): b/2^n'; "
                                            "monte carlo: (b+1)/(m+1)"}
    if test == "wilcoxon":
        head["wilcoxon"] = {"exact_max_n": WILCOXON_EXACT_MAX_N, "zero_method": "wilcox (zero differences discarded)",
                            "p_value": "exact conditional over the 2^n' sign vectors of the mid-ranks for n' <= "
                                       "exact_max_n; normal approximation (tie-corrected, no continuity correction) "
                                       "beyond"}
    return head


def variation_statistics(per_query: Any, sets: List[str], measures: List[str], *, test: str = "t-test",
                         correction: str = "holm", seed: int = 0, bootstrap: int = DEFAULT_BOOTSTRAP,
                         alpha: float = 0.05, family: str = "per-measure", original: str = "ORIGINAL",
                         n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                         alternative: str = "two-sided", interval: str = DEFAULT_CI) -> Dict[str, Any]:
    """Paired statistics of every variation set x measure against ORIGINAL on the same queries.

    ``per_query`` is the long table of ``per_query.csv`` (columns ``set, qid, applied,
    <measures>``; qids as strings). ``sets`` are the variation sets (ORIGINAL, if listed, is
    skipped). ``family``: ``"per-measure"`` (default: the variation sets compared on one
    measure form one correction family) or ``"all"`` (every set x measure comparison is one
    family). ``alternative`` ("two-sided", "less", "greater") is passed to the test;
    ``interval`` (CI_METHODS) chooses the confidence intervals of delta and drop rate.
    Returns a JSON-serialisable dict (floats finite or None)::

        {"header": {...test, sidedness, correction, family, family_size, alpha, seed, B...},
         "sets": [...], "measures": [...],
         "comparisons": {SET: {MEASURE: {"n", "n_applied", "mean_original", "mean_variation",
             "delta", "delta_ci", "drop_rate", "drop_rate_ci", "statistic", "p_value",
             "p_corrected", "significant", "d_z", "win", "tie", "loss", "method", "note"}}}}
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}")
    if family not in ("per-measure", "all"):
        raise ValueError("family must be 'per-measure' or 'all'")
    _check_alternative(alternative)
    _check_ci_args(confidence, interval)
    var_sets = [s for s in sets if s != original]
    missing_cols = [m for m in measures if m not in per_query.columns]
    if missing_cols:
        from bench.core.errors import DataError

        raise DataError(f"per-query table has no column(s) {', '.join(missing_cols)}")

    comps: Dict[str, Dict[str, Dict[str, Any]]] = {}
    raw: Dict[Tuple[str, str], float] = {}
    for s in var_sets:
        comps[s] = {}
        for m in measures:
            a, b, qids = paired_values(per_query, original, s, m)
            key = (s, m)
            res = paired_test(a, b, test, seed=seed, n_resamples=n_resamples, key=key, alternative=alternative)
            ci = paired_bootstrap_ci(a, b, B=bootstrap, seed=seed, confidence=confidence, key=key, interval=interval)
            w, t, l = win_tie_loss(a, b) if a.size else (0, 0, 0)
            mo = float(np.mean(a)) if a.size else float("nan")
            mv = float(np.mean(b)) if b.size else float("nan")
            applied = None
            if "applied" in per_query.columns:
                sub = per_query[(per_query["set"] == s) & per_query["qid"].isin(qids)]
                applied = int(np.sum(np.asarray(sub["applied"], dtype=np.float64) == 1))
            raw[key] = res.pvalue
            comps[s][m] = {
                "n": int(a.size),
                "n_applied": applied,
                "mean_original": mo,
                "mean_variation": mv,
                "delta": mv - mo,
                "delta_ci": list(ci.delta),
                "drop_rate": drop_rate(mo, mv) if a.size else float("nan"),
                "drop_rate_ci": list(ci.drop_rate),
                "statistic": res.statistic,
                "p_value": res.pvalue,
                "d_z": cohen_dz(a, b),
                "win": w, "tie": t, "loss": l,
                "method": res.method,
                "note": res.note,
            }

    families: Dict[str, List[Tuple[str, str]]]
    if family == "all":
        families = {"all": [(s, m) for s in var_sets for m in measures]}
    else:
        families = {m: [(s, m) for s in var_sets] for m in measures}
    sizes: Dict[str, int] = {}
    for fam, keys in families.items():
        adj = adjust_pvalues([raw[k] for k in keys], correction)
        sizes[fam] = family_size([raw[k] for k in keys])
        for k, p in zip(keys, adj):
            c = comps[k[0]][k[1]]
            c["p_corrected"] = float(p)
            c["significant"] = bool(np.isfinite(p) and p < alpha)

    other = "variation" if original == "ORIGINAL" else "system"
    header = statistics_header(test=test, correction=correction, seed=seed, bootstrap=bootstrap, alpha=alpha,
                               family=(f"per measure: the {other} sets vs {original} on one measure"
                                       if family == "per-measure" else f"all {other} set x measure comparisons"),
                               n_resamples=n_resamples, confidence=confidence, baseline=original, other=other,
                               alternative=alternative, interval=interval)
    header["family_size"] = sizes
    out = {"header": header, "sets": var_sets, "measures": list(measures), "comparisons": comps}
    return to_jsonable(out)


def to_jsonable(obj: Any) -> Any:
    """Recursively convert numpy scalars/arrays and tuples; non-finite floats become None."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return finite_or_none(obj)
    return obj
