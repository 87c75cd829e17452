"""Weights and tests over strata: a macro average over classes written as a weighted sum of
per-query values, and the sign-flip test of such a weighted statistic (the few-shot headline)."""
from __future__ import annotations

from typing import Any, List, Mapping, Sequence, Tuple

import numpy as np

from bench.evaluation import exact
from bench.evaluation.paired import (DEFAULT_RESAMPLES, EXACT_MAX_N, TestResult, check_alternative, degenerate_result,
                                     paired_arrays, sign_flip_null)


def weighted_sign_flip_test(d: Any, w: Any, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                            key: Sequence[str] = (), exact_max_n: int = EXACT_MAX_N,
                            alternative: str = "two-sided") -> TestResult:
    """Paired randomization (sign-flip) test of the WEIGHTED statistic ``T = sum_i w_i d_i``
    (with macro weights T is a macro-averaged difference: the few-shot suite's headline).
    H0: within each pair the two members are exchangeable, so each ``d_i`` keeps or flips its sign
    with probability 1/2, independently. Only the n' terms with ``w_i d_i != 0`` move; exact when
    n' <= exact_max_n, else seeded Monte Carlo from (seed, "weighted-sign-flip", *key) with
    p = (b+1)/(m+1). Degenerate: fewer than 2 pairs -> p NaN; every term zero -> p = 1."""
    check_alternative(alternative)
    d, w = paired_arrays(d, w)
    x_all = w * d
    deg = degenerate_result("randomization", x_all, alternative)
    if deg is not None:
        return deg
    x = x_all[x_all != 0.0]
    return sign_flip_null(x, exact.fsum(x_all), int(d.size), alternative, n_resamples=n_resamples,
                      exact_max_n=exact_max_n, rng_keys=("weighted-sign-flip", *key), seed=seed, zero_note="",
                      what="statistic")


def macro_weights(test_by_class: Mapping[str, Sequence[str]], classes: Sequence[str]) -> Tuple[List[str], np.ndarray]:
    """The split's test queries (class by class, in ``classes`` order) and their macro weights
    ``1 / (test queries of the query's class x classes with test queries)``: the weighted sum of
    per-query values equals the macro average over classes of the per-class means."""
    cs = [c for c in classes if test_by_class.get(c)]
    qids: List[str] = []
    w: List[float] = []
    for c in cs:
        qs = list(test_by_class[c])
        qids += qs
        w += [1.0 / (len(qs) * len(cs))] * len(qs)
    return qids, np.asarray(w, dtype=np.float64)
