"""Same inputs, same bytes on any CPU: the statistics do not depend on the BLAS kernel, the SIMD
level, the thread count or the order of the queries.

The end-to-end test runs one evaluation three times in fresh processes: under the default kernels,
under ``OPENBLAS_CORETYPE=Prescott`` (OpenBLAS's oldest x86-64 kernels) and with numpy's AVX-512
code paths switched off (``NPY_DISABLE_CPU_FEATURES``) and one BLAS thread, and compares
``result.json`` and ``per_query.csv`` byte for byte. Before the statistics reduced through
:mod:`bench.evaluation.exact` the second run moved 16 interval endpoints and the third 32.
"""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.evaluation import exact
from bench.evaluation.skew import AVERAGE_DROP_RATE, DROP_RATE, DROP_RATE_DIFFERENCE, MEAN, hall_ci, skew_t_ci

ROOT = Path(__file__).resolve().parents[2]


def _avx512_switch() -> str:
    """The AVX-512 dispatch targets this numpy build would use on this CPU (empty on a CPU without them)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    return " ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f) and ("512" in f or f == "X86_V4"))


def _evaluate(out: Path, home: Path, **env: str) -> None:
    run_env = {**os.environ, "DRBENCH_HOME": str(home), "PYTHONPATH": str(ROOT), **env}
    cmd = [sys.executable, "-c", "import sys; from bench.cli.main import main; sys.exit(main(sys.argv[1:]))",
           "evaluate", "--model", "bm25", "--dataset", "chatterbot", "--generators",
           "EXTRAPUNC,MISSPELL,NOSTOPWORD,SWAPWORDS", "--seed", "0", "--out", str(out), "--no-progress"]
    done = subprocess.run(cmd, env=run_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_an_evaluation_gives_the_same_bytes_under_other_blas_and_simd_kernels(tmp_path):
    home = tmp_path / "home"  # shared: the variation sets are generated once, by the first run
    runs = {"default": {}, "prescott": {"OPENBLAS_CORETYPE": "Prescott"},
            "no-avx512": {"NPY_DISABLE_CPU_FEATURES": _avx512_switch(), "OPENBLAS_NUM_THREADS": "1",
                          "OMP_NUM_THREADS": "1"}}
    for name, env in runs.items():
        _evaluate(tmp_path / name, home, **env)
    for name in ("prescott", "no-avx512"):
        for f in ("per_query.csv", "result.json"):
            assert (tmp_path / name / f).read_bytes() == (tmp_path / "default" / f).read_bytes(), (name, f)


def _skewed(rng, n, k):
    """Sparse, one-sided, skewed per-query columns: most queries unchanged, a few lose a lot."""
    a = rng.uniform(0.0, 1.0, size=n)
    cols = [a]
    for _ in range(k - 1):
        hurt = rng.uniform(size=n) < 0.15
        cols.append(np.where(hurt, a * rng.uniform(0.0, 0.3, size=n), a))
    return np.column_stack(cols)


@pytest.mark.parametrize("seed", range(5))
def test_the_intervals_do_not_depend_on_the_order_of_the_queries(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 400))
    x2, x4, x6 = _skewed(rng, n, 2), _skewed(rng, n, 4), _skewed(rng, n, 6)
    perm = rng.permutation(n)
    for x, stat in ((x2, DROP_RATE), (x2[:, 1] - x2[:, 0], MEAN), (x4, DROP_RATE_DIFFERENCE),
                    (x6, AVERAGE_DROP_RATE)):
        for ci in (skew_t_ci, hall_ci):
            assert ci(x, stat) == ci(x[perm], stat)


def test_the_exact_reductions_equal_their_correctly_rounded_references():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(1001) * 10.0 ** rng.integers(-8, 8, size=1001)
    assert exact.fsum(x) == math.fsum(x.tolist())
    assert exact.mean(x) == statistics.fmean(x.tolist())
    assert math.isclose(exact.sd(x), statistics.stdev(x.tolist()), rel_tol=1e-14)
    assert math.isclose(exact.var(x, ddof=0), statistics.pvariance(x.tolist()), rel_tol=1e-14)
    m = rng.uniform(size=(50, 7))
    np.testing.assert_array_equal(exact.column_means(m), [statistics.fmean(c) for c in m.T.tolist()])
    w = rng.uniform(size=7)
    np.testing.assert_allclose(exact.weighted_columns(m, w), m @ w, rtol=1e-13)
    np.testing.assert_allclose(exact.row_means(m), m.mean(axis=1), rtol=1e-13)
    assert math.isnan(exact.mean([])) and math.isnan(exact.sd([1.0]))
    assert exact.exp(1e6) == math.inf and exact.log(0.0) == -math.inf and math.isnan(exact.log(-1.0))
    assert math.isclose(exact.cbrt(-27.0), -3.0, rel_tol=1e-15) and exact.cbrt(8.0) > 0
