"""Machine-independent reductions for every statistic drbench reports.

numpy's reductions and transcendental ufuncs are not bit-stable across CPUs: ``x @ g`` and
``np.dot`` go through the BLAS kernel the CPU selects (``OPENBLAS_CORETYPE`` changes it), and
``np.exp`` / ``np.log`` / ``np.cbrt`` take SIMD code paths (AVX-512 or not) that round the last
digit differently. A figure written to ``result.json`` must not depend on which machine computed
it, so statistics reduce through the functions here:

* sums are exactly rounded (:func:`math.fsum`): the result is the float nearest the true sum,
  whatever the order or the machine;
* row-wise sums of resampling matrices (one value per resample) are accumulated column by column
  in a fixed order with element-wise IEEE adds, which every SIMD width rounds identically;
* ``exp`` / ``log`` / ``cbrt`` of scalars come from :mod:`math` (the C library), never from numpy's
  SIMD loops.

Element-wise ``+ - * /`` and ``sqrt`` are correctly rounded by IEEE 754 on every CPU and need no
wrapper. Counts (sums of booleans or integers) are exact already.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

Array = np.ndarray


def _flat(x: Any) -> Array:
    return np.asarray(x, dtype=np.float64).ravel()


def fsum(x: Any) -> float:
    """The exactly rounded sum of the values of ``x`` (any shape)."""
    return math.fsum(_flat(x).tolist())


def mean(x: Any) -> float:
    """The mean of the values of ``x`` from their exactly rounded sum; NaN when empty."""
    v = _flat(x)
    return math.fsum(v.tolist()) / v.size if v.size else float("nan")


def var(x: Any, ddof: int = 1) -> float:
    """Two-pass variance (exactly rounded sums) with ``ddof``; NaN when ``n <= ddof``."""
    v = _flat(x)
    if v.size <= ddof:
        return float("nan")
    dev = v - mean(v)
    return math.fsum((dev * dev).tolist()) / (v.size - ddof)


def sd(x: Any, ddof: int = 1) -> float:
    """Standard deviation, :func:`var` with ``ddof`` (1: the sample SD)."""
    return math.sqrt(var(x, ddof))


def column_means(x: Any) -> Array:
    """Mean of each column of a 2-D array (n, k), each from its exactly rounded sum."""
    a = np.asarray(x, dtype=np.float64)
    a = a[:, None] if a.ndim == 1 else a
    return np.array([math.fsum(a[:, j].tolist()) / a.shape[0] for j in range(a.shape[1])], dtype=np.float64)


def column_sums(x: Any) -> Array:
    """Exactly rounded sum of each column of a 2-D array."""
    a = np.asarray(x, dtype=np.float64)
    a = a[:, None] if a.ndim == 1 else a
    return np.array([math.fsum(a[:, j].tolist()) for j in range(a.shape[1])], dtype=np.float64)


def weighted_columns(x: Any, w: Any) -> Array:
    """``sum_j x[:, j] * w[j]`` per row, accumulated over j in a fixed order (no BLAS)."""
    a = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64).ravel()
    out = a[:, 0] * w[0]
    for j in range(1, a.shape[1]):
        out = out + a[:, j] * w[j]
    return out


def row_sums(x: Any) -> Array:
    """Sum of each row of a 2-D array (resamples x items), accumulated over the columns in a fixed
    order with element-wise adds: the same bits on every CPU (no pairwise SIMD reduction)."""
    a = np.asarray(x, dtype=np.float64)
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        out += a[:, j]
    return out


def row_means(x: Any) -> Array:
    """:func:`row_sums` divided by the number of columns."""
    a = np.asarray(x)
    return row_sums(a) / a.shape[1]


def exp(x: float) -> float:
    """``e**x`` of a scalar from the C library (inf on overflow, as numpy)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def log(x: float) -> float:
    """Natural log of a scalar from the C library (-inf at 0, NaN below, as numpy)."""
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def cbrt(x: float) -> float:
    """Real cube root of a scalar."""
    return math.copysign(abs(x) ** (1.0 / 3.0), x) if not hasattr(math, "cbrt") else math.cbrt(x)


def mean_of_arrays(arrays: Any) -> Array:
    """Element-wise mean of equally shaped arrays, added in the given order (element-wise IEEE adds)."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    total = arrays[0].copy()
    for a in arrays[1:]:
        total += a
    return total / len(arrays)
