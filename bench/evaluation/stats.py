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
  ``CI_METHODS``). Default ``"skew-t"``: the union of the ``"t"`` interval below and Hall's
  skewness-corrected t interval (``bench.evaluation.skew``), chosen by coverage where few queries
  change and the change is one-sided (``benchmarks/interval_coverage.py``). ``"t"``, chosen because it meets its nominal coverage at n = 10..100
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

# The statistics API in one import (``from bench.evaluation import stats as S``); the
# implementations live in paired.py (tests, effect sizes), intervals.py, correction.py,
# multiplicity.py (max-T, pseudo-values) and significance.py (the result file's statistics block).
from __future__ import annotations

from bench.core.seeding import rng_for
from bench.evaluation.paired import TESTS, ALTERNATIVES, EXACT_MAX_N, WILCOXON_EXACT_MAX_N, DEFAULT_RESAMPLES, RESAMPLE_CHUNK, TEST_DESCRIPTIONS, paired_arrays, finite_or_none, TestResult, mean_difference, cohen_dz, win_tie_loss, check_alternative, paired_ttest, paired_randomization_test, wilcoxon_test, paired_test, drop_rate_difference_test
from bench.evaluation.intervals import (
    CI_METHODS,
    DEFAULT_CI,
    DEFAULT_BOOTSTRAP,
    CI_DESCRIPTIONS,
    bootstrap_index_chunks,
    check_ci_args,
    t_mean_ci,
    t_drop_rate_ci,
    BootstrapCI,
    paired_bootstrap_ci,
    bootstrap_mean_ci,
    drop_rate,
    bootstrap_means,
    ranks_of,
    bootstrap_ranks,
    mean_ranks,
    wilson_ci,
)
from bench.evaluation.multiplicity import (
    MAXT_DESCRIPTION,
    MaxTResult,
    maxt_sign_flip,
    studentized_means,
    mean_pseudovalues,
    weighted_pseudovalues,
    drop_rate_pseudovalues,
)
from bench.evaluation.correction import CORRECTIONS, CORRECTION_DESCRIPTIONS, adjust_pvalues, family_size
from bench.evaluation.strata import macro_weights, weighted_sign_flip_test
from bench.evaluation.significance import (
    pair_statistics,
    paired_values,
    sidedness,
    statistics_header,
    variation_statistics,
    to_jsonable,
)

__all__ = [
    "rng_for",
    "TESTS",
    "ALTERNATIVES",
    "EXACT_MAX_N",
    "WILCOXON_EXACT_MAX_N",
    "DEFAULT_RESAMPLES",
    "RESAMPLE_CHUNK",
    "TEST_DESCRIPTIONS",
    "paired_arrays",
    "finite_or_none",
    "TestResult",
    "mean_difference",
    "cohen_dz",
    "win_tie_loss",
    "check_alternative",
    "paired_ttest",
    "paired_randomization_test",
    "weighted_sign_flip_test",
    "macro_weights",
    "wilcoxon_test",
    "paired_test",
    "drop_rate_difference_test",
    "CI_METHODS",
    "DEFAULT_CI",
    "DEFAULT_BOOTSTRAP",
    "CI_DESCRIPTIONS",
    "bootstrap_index_chunks",
    "check_ci_args",
    "t_mean_ci",
    "t_drop_rate_ci",
    "BootstrapCI",
    "paired_bootstrap_ci",
    "bootstrap_mean_ci",
    "drop_rate",
    "bootstrap_means",
    "ranks_of",
    "bootstrap_ranks",
    "mean_ranks",
    "wilson_ci",
    "MAXT_DESCRIPTION",
    "MaxTResult",
    "maxt_sign_flip",
    "studentized_means",
    "mean_pseudovalues",
    "weighted_pseudovalues",
    "drop_rate_pseudovalues",
    "CORRECTIONS",
    "CORRECTION_DESCRIPTIONS",
    "adjust_pvalues",
    "family_size",
    "pair_statistics",
    "paired_values",
    "sidedness",
    "statistics_header",
    "variation_statistics",
    "to_jsonable",
]
