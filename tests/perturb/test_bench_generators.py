"""Queries per second of each generator on Cranfield's 225 queries (pytest-benchmark; no asserts
on time). Run with `pytest -m benchmark --benchmark-enable tests/perturb/test_bench_generators.py`."""
from __future__ import annotations

import pytest

from perturb import PAPER_ORDER
from perturb_helpers import generator


@pytest.mark.benchmark
@pytest.mark.parametrize("name", PAPER_ORDER)
def test_generator_throughput(benchmark, name, cranfield):
    gen = generator(name)
    gen.perturb_batch(cranfield[:5], 0)  # load resources outside the timing
    out = benchmark.pedantic(gen.perturb_batch, args=(cranfield, 0), rounds=3, iterations=1)
    assert len(out) == len(cranfield)
    if benchmark.stats is not None:
        benchmark.extra_info["queries_per_second"] = len(cranfield) / benchmark.stats.stats.mean
