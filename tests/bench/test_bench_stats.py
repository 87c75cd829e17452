"""pytest-benchmark measurements of the statistics kernels (run: tox -e bench, or
`pytest -m benchmark --benchmark-enable tests/bench/test_bench_stats.py`). No times asserted."""
import numpy as np
import pytest

from bench.evaluation import stats as S
from bench.reporting.gate import GateOptions, gate_arrays
from runfactory import mrr_like, per_query_frame, rng_for, synthetic_values

pytestmark = pytest.mark.benchmark

N = 1000  # queries


@pytest.fixture(scope="module")
def pair():
    rng = rng_for(0, "bench")
    a = mrr_like(rng, N)
    b = np.where(rng.random(N) < 0.3, a * 0.5, a)
    return a, b


def test_ttest_1000(benchmark, pair):
    benchmark(S.paired_ttest, *pair)


def test_wilcoxon_1000(benchmark, pair):
    r = benchmark(S.wilcoxon_test, *pair)
    assert r.method.startswith("normal approximation")


def test_wilcoxon_exact_50_nonzero_of_1000(benchmark, pair):
    a, b = pair
    b = a.copy()
    b[:S.WILCOXON_EXACT_MAX_N] += np.arange(1, S.WILCOXON_EXACT_MAX_N + 1) % 7 * 0.01 - 0.03  # ties and zeros
    r = benchmark(S.wilcoxon_test, a, b, alternative="less")
    assert r.method.startswith("exact conditional")


def test_randomization_exact_n20(benchmark, pair):
    a, b = pair
    r = benchmark(S.paired_randomization_test, a[:20] + np.arange(20) * 1e-3, b[:20])
    assert r.method.startswith("exact")


def test_randomization_monte_carlo_1000q_10000resamples(benchmark, pair):
    benchmark(S.paired_randomization_test, *pair, n_resamples=10000)


def test_randomization_exact_20_nonzero_of_1000(benchmark, pair):
    a, _ = pair
    b = a.copy()
    b[:20] += np.arange(20) * 1e-3 + 0.01
    r = benchmark(S.paired_randomization_test, a, b)
    assert r.method.startswith("exact (2^20")


def test_t_intervals_1000q(benchmark, pair):
    benchmark(S.paired_bootstrap_ci, *pair)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_bootstrap_ci_1000q_B1000(benchmark, pair, interval):
    benchmark(S.paired_bootstrap_ci, *pair, B=1000, interval=interval)


def test_holm_1000_pvalues(benchmark):
    p = rng_for(0, "p").random(1000)
    benchmark(S.adjust_pvalues, p, "holm")


def test_bootstrap_ranks_10_models(benchmark):
    scores = rng_for(0, "models").random((N, 10))
    benchmark(S.bootstrap_ranks, scores, B=1000)


def test_variation_statistics_4sets_3measures(benchmark):
    vals = synthetic_values(0, n=N, sets=("A", "B", "C", "D"), measures=("MRR@10", "nDCG@10", "R@100"))
    df = per_query_frame(vals)
    benchmark.pedantic(S.variation_statistics, args=(df, ["A", "B", "C", "D"], ["MRR@10", "nDCG@10", "R@100"]),
                       rounds=3, iterations=1)


def test_gate_arrays_4sets(benchmark):
    vals = synthetic_values(0, n=N, sets=("A", "B", "C", "D"), measures=("MRR@10",))
    base = {s: v["MRR@10"] for s, v in vals.items()}
    cand = {s: np.clip(x + rng_for(1, s).normal(0, 0.05, N), 0, 1) for s, x in base.items()}
    benchmark.pedantic(gate_arrays, args=(base, cand, GateOptions()), rounds=3, iterations=1)
