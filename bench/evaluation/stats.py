"""Statistics for comparing per-query retrieval scores: paired tests, effect sizes, bootstrap
confidence intervals, multiple-comparison correction, win/tie/loss counts.

Everything here is a pure function of numpy arrays (inputs are never mutated) plus
:func:`variation_statistics`, which applies the kernels to a run's ``per_query.csv`` table
and returns the JSON-ready ``"statistics"`` block of ``result.json``.

Conventions (stated once, recorded in every output header):

* Pairs are ``(a_i, b_i)``, one per query; the per-query difference is ``d_i = b_i - a_i``
  (variation minus ORIGINAL; candidate minus baseline). ``delta = mean(d)``.
* Every test is **two-sided**. H0: the paired differences are centred on 0 (t-test: mean 0;
  randomization: signs of ``d_i`` exchangeable; Wilcoxon: distribution of ``d`` symmetric about 0).
* ``t-test``: paired Student t-test, ``t = mean(d) / (SD(d) / sqrt(n))`` with SD ddof=1,
  ``n - 1`` degrees of freedom (same as ``scipy.stats.ttest_rel``).
* ``randomization``: paired sign-flip test on ``mean(d)``. Exact (all ``2**n`` sign vectors,
  enumerated by meet-in-the-middle) when ``n <= EXACT_MAX_N`` (20); otherwise seeded Monte
  Carlo with ``m`` resamples (default 10000) and ``p = (b + 1) / (m + 1)`` where ``b`` counts
  resamples with ``|T*| >= |T|``. Deterministic for a given seed (pure numpy, fixed chunks; no
  threads, no BLAS).
* ``wilcoxon``: ``scipy.stats.wilcoxon(d, zero_method="wilcox", method="auto",
  correction=False)``: zero differences are DISCARDED before ranking (Wilcoxon's convention).
* Degenerate inputs: fewer than 2 pairs -> p = NaN (JSON null) with a note; all differences
  zero -> p = 1 for every test; t-test with SD(d) = 0 but mean(d) != 0 -> t = +-inf, p = 0.
* Effect size ``d_z = mean(d) / SD(d)`` with SD ddof=1 (NaN when undefined, inf when SD = 0).
* Bootstrap: paired percentile bootstrap, queries resampled with replacement *jointly* for
  both members of a pair (and for every model in a rank bootstrap), ``B`` = 1000 by default,
  95 % interval from the 2.5 / 97.5 percentiles (numpy "linear" interpolation) of the
  finite replicates.
* Multiple comparisons: Holm step-down (FWER, default), Benjamini-Hochberg step-up (FDR) or
  none, over the finite p-values of a family; NaN p-values stay NaN and are not counted.
* Win / tie / loss: per query, ``b > a`` / ``b == a`` / ``b < a`` (``|d| <= tie_tol`` is a tie,
  ``tie_tol`` = 0 by default: metric values are compared exactly).
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

TESTS = ("t-test", "randomization", "wilcoxon")
CORRECTIONS = ("holm", "bh", "none")
EXACT_MAX_N = 20  # randomization test: exact enumeration of 2**n sign vectors up to this n
DEFAULT_RESAMPLES = 10000  # Monte Carlo randomization resamples
DEFAULT_BOOTSTRAP = 1000
_CHUNK = 1000  # fixed chunk size of resampling loops (part of the determinism contract)

TEST_DESCRIPTIONS = {
    "t-test": "paired Student t-test on per-query differences (t = mean(d)/(SD(d)/sqrt(n)), SD ddof=1, "
    "df = n-1; as scipy.stats.ttest_rel)",
    "randomization": f"paired randomization (sign-flip) test on mean(d); exact enumeration of 2^n sign "
    f"vectors for n <= {EXACT_MAX_N}, otherwise seeded Monte Carlo with p = (b+1)/(m+1)",
    "wilcoxon": "Wilcoxon signed-rank test (scipy.stats.wilcoxon, zero_method='wilcox': zero differences "
    "discarded; method='auto'; no continuity correction)",
}
CORRECTION_DESCRIPTIONS = {
    "holm": "Holm step-down (controls the family-wise error rate)",
    "bh": "Benjamini-Hochberg step-up (controls the false discovery rate)",
    "none": "no correction (raw p-values)",
}


# --------------------------------------------------------------------------- seeding

def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """A numpy Generator derived from (seed, keys...) through SHA-256: a comparison's random
    stream does not depend on which other comparisons ran or in which order."""
    text = "\x1f".join([str(int(seed)), *[str(k) for k in keys]])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    words = np.frombuffer(digest, dtype="<u4").tolist()
    return np.random.default_rng(np.random.SeedSequence(words))


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
    pvalue: float  # two-sided; NaN when undefined (n < 2)
    n: int  # number of pairs
    method: str = ""  # e.g. "exact (2^12 sign vectors)", "monte-carlo (m=10000)"
    note: str = ""  # why a degenerate case was decided the way it was

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

def _degenerate(test: str, d: np.ndarray) -> Optional[TestResult]:
    if d.size < 2:
        return TestResult(test, float("nan"), float("nan"), int(d.size), "", f"n = {d.size} < 2 pairs: no test")
    if np.all(d == 0.0):
        return TestResult(test, 0.0 if test != "wilcoxon" else float("nan"), 1.0, int(d.size), "",
                          "all differences are zero: p = 1")
    return None


def paired_ttest(a: Any, b: Any) -> TestResult:
    """Two-sided paired t-test of mean(b - a) = 0 (values match scipy.stats.ttest_rel)."""
    from scipy import stats as st

    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("t-test", d)
    if deg is not None:
        return deg
    n = d.size
    m = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return TestResult("t-test", math.copysign(math.inf, m), 0.0, n, f"df={n - 1}",
                          "all differences equal and non-zero (SD = 0): t = +-inf, p = 0")
    t = m / (sd / math.sqrt(n))
    p = float(2.0 * st.t.sf(abs(t), n - 1))
    return TestResult("t-test", t, min(p, 1.0), n, f"df={n - 1}")


def _signed_subset_sums(x: np.ndarray) -> np.ndarray:
    """All 2**len(x) values of sum(s_i x_i) with s_i in {-1, +1}."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate([sums + v, sums - v])
    return sums


def _exact_sign_flip_count(d: np.ndarray, thr: float) -> int:
    """Number of sign vectors s with |sum(s_i d_i)| >= thr (thr > 0), by meet-in-the-middle."""
    h = d.size // 2
    left = _signed_subset_sums(d[:h])
    right = np.sort(_signed_subset_sums(d[h:]))
    hi = right.size - np.searchsorted(right, thr - left, side="left")  # left + r >= thr
    lo = np.searchsorted(right, -thr - left, side="right")  # left + r <= -thr
    return int(np.sum(hi) + np.sum(lo))


def paired_randomization_test(a: Any, b: Any, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                              exact_max_n: int = EXACT_MAX_N, key: Sequence[str] = ()) -> TestResult:
    """Two-sided paired randomization (sign-flip) test of mean(b - a) = 0.

    Statistic T = mean(d). Exact for n <= exact_max_n: p = #{s : |T(s)| >= |T|} / 2**n (the
    identity sign vector counts). Otherwise Monte Carlo: m = n_resamples sign vectors drawn from
    a Generator derived from (seed, "randomization", *key), p = (b + 1) / (m + 1)."""
    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("randomization", d)
    if deg is not None:
        return deg
    n = d.size
    total = float(np.sum(d))
    t_obs = total / n
    thr = abs(total) - _tol(d)
    if thr <= 0:  # observed sum is 0 (within rounding): every resample is as extreme
        return TestResult("randomization", t_obs, 1.0, n, "", "observed mean difference is 0: p = 1")
    if n <= exact_max_n:
        count = _exact_sign_flip_count(d, thr)
        return TestResult("randomization", t_obs, min(1.0, count / float(2 ** n)), n,
                          f"exact (2^{n} sign vectors)")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    rng = rng_for(seed, "randomization", *key)
    b_count = 0
    done = 0
    while done < n_resamples:
        c = min(_CHUNK, n_resamples - done)
        signs = rng.integers(0, 2, size=(c, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        sums = np.sum(signs * d, axis=1)
        b_count += int(np.sum(np.abs(sums) >= thr))
        done += c
    p = (b_count + 1) / (n_resamples + 1)
    return TestResult("randomization", t_obs, p, n, f"monte-carlo (m={n_resamples}, seed={seed})")


def wilcoxon_test(a: Any, b: Any) -> TestResult:
    """Two-sided Wilcoxon signed-rank test on d = b - a (zero differences discarded)."""
    from scipy import stats as st

    a, b = _pair(a, b)
    d = b - a
    deg = _degenerate("wilcoxon", d)
    if deg is not None:
        return deg
    n_nonzero = int(np.sum(d != 0))
    res = st.wilcoxon(d, zero_method="wilcox", correction=False, alternative="two-sided", method="auto")
    note = f"{d.size - n_nonzero} zero differences discarded" if n_nonzero < d.size else ""
    return TestResult("wilcoxon", float(res.statistic), float(min(1.0, res.pvalue)), int(d.size),
                      f"scipy method=auto, n_nonzero={n_nonzero}", note)


def paired_test(a: Any, b: Any, test: str = "t-test", *, seed: int = 0, n_resamples: int = DEFAULT_RESAMPLES,
                key: Sequence[str] = ()) -> TestResult:
    """Dispatch to one of TESTS."""
    if test == "t-test":
        return paired_ttest(a, b)
    if test == "randomization":
        return paired_randomization_test(a, b, n_resamples=n_resamples, seed=seed, key=key)
    if test == "wilcoxon":
        return wilcoxon_test(a, b)
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


@dataclass(frozen=True)
class BootstrapCI:
    delta: Tuple[float, float]  # CI of mean(b) - mean(a)
    drop_rate: Tuple[float, float]  # CI of (mean(a) - mean(b)) / mean(a)
    B: int
    confidence: float
    n_undefined_drop: int = 0  # replicates with mean(a) = 0 (drop rate undefined, left out)


def paired_bootstrap_ci(a: Any, b: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                        key: Sequence[str] = ()) -> BootstrapCI:
    """Paired percentile bootstrap CIs of the delta mean(b) - mean(a) and the drop rate
    (mean(a) - mean(b)) / mean(a); the same resampled queries are used for a and b."""
    a, b = _pair(a, b)
    n = a.size
    if n == 0 or B < 1:
        nan2 = (float("nan"), float("nan"))
        return BootstrapCI(nan2, nan2, B, confidence)
    rng = rng_for(seed, "bootstrap", *key)
    ma = np.empty(B)
    mb = np.empty(B)
    i = 0
    for idx in bootstrap_index_chunks(n, B, rng):
        c = idx.shape[0]
        ma[i:i + c] = np.mean(a[idx], axis=1)
        mb[i:i + c] = np.mean(b[idx], axis=1)
        i += c
    delta = mb - ma
    with np.errstate(divide="ignore", invalid="ignore"):
        drop = np.where(ma != 0.0, (ma - mb) / np.where(ma != 0.0, ma, 1.0), np.nan)
    return BootstrapCI(_percentile_ci(delta, confidence), _percentile_ci(drop, confidence), B, confidence,
                       int(np.sum(ma == 0.0)))


def bootstrap_mean_ci(x: Any, *, B: int = DEFAULT_BOOTSTRAP, seed: int = 0, confidence: float = 0.95,
                      key: Sequence[str] = ()) -> Tuple[float, float]:
    """Percentile bootstrap CI of mean(x)."""
    x = np.array(x, dtype=np.float64, copy=True).ravel()
    if x.size == 0 or B < 1:
        return (float("nan"), float("nan"))
    rng = rng_for(seed, "bootstrap-mean", *key)
    reps = np.concatenate([np.mean(x[idx], axis=1) for idx in bootstrap_index_chunks(x.size, B, rng)])
    return _percentile_ci(reps, confidence)


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


def statistics_header(*, test: str, correction: str, seed: int, bootstrap: int, alpha: float,
                      family: str, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                      baseline: str = "ORIGINAL", other: str = "variation") -> Dict[str, Any]:
    """The description block every output prints: test, sidedness, correction, SD variant, B, seed.
    ``baseline`` / ``other`` name the two members of a pair (ORIGINAL vs a variation set; in the
    domain suite zero-shot vs a trained system)."""
    head: Dict[str, Any] = {
        "test": test,
        "test_description": TEST_DESCRIPTIONS[test],
        "sidedness": "two-sided",
        "correction": correction,
        "correction_description": CORRECTION_DESCRIPTIONS[correction],
        "family": family,
        "alpha": alpha,
        "seed": int(seed),
        "difference": f"d = {other} - {baseline} per query (delta = mean(d); negative = worse)",
        "drop_rate": f"(M_{baseline} - M_{other}) / M_{baseline} (null when M_{baseline} = 0)",
        "effect_size": "d_z = mean(d) / SD(d), SD with ddof=1",
        "bootstrap": {"B": int(bootstrap), "method": "percentile (numpy linear interpolation)",
                      "confidence": confidence, "resampling": "queries with replacement, jointly for both sets"},
        "win_tie_loss": f"per query: win = {other} > {baseline}, tie = equal, loss = {other} < {baseline}",
        "degenerate": "n < 2 -> p null; all differences zero -> p = 1",
    }
    if test == "randomization":
        head["randomization"] = {"exact_max_n": EXACT_MAX_N, "n_resamples": int(n_resamples),
                                 "p_value": "exact: b/2^n; monte carlo: (b+1)/(m+1)"}
    return head


def variation_statistics(per_query: Any, sets: List[str], measures: List[str], *, test: str = "t-test",
                         correction: str = "holm", seed: int = 0, bootstrap: int = DEFAULT_BOOTSTRAP,
                         alpha: float = 0.05, family: str = "per-measure", original: str = "ORIGINAL",
                         n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> Dict[str, Any]:
    """Paired statistics of every variation set x measure against ORIGINAL on the same queries.

    ``per_query`` is the long table of ``per_query.csv`` (columns ``set, qid, applied,
    <measures>``; qids as strings). ``sets`` are the variation sets (ORIGINAL, if listed, is
    skipped). ``family``: ``"per-measure"`` (default: the variation sets compared on one
    measure form one correction family) or ``"all"`` (every set x measure comparison is one
    family). Returns a JSON-serialisable dict (floats finite or None)::

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
            res = paired_test(a, b, test, seed=seed, n_resamples=n_resamples, key=key)
            ci = paired_bootstrap_ci(a, b, B=bootstrap, seed=seed, confidence=confidence, key=key)
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
                               n_resamples=n_resamples, confidence=confidence, baseline=original, other=other)
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
