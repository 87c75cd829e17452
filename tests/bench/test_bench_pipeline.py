"""pytest-benchmark measurements of the encode, search and measure steps (run: tox -e bench).
Numbers are reported, never asserted."""
import numpy as np
import pytest

pytestmark = pytest.mark.benchmark


@pytest.fixture(scope="module")
def chatterbot():
    from bench.data.collections import load_chatterbot

    return load_chatterbot()


def test_encode_passages_minilm(benchmark, chatterbot):
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model

    enc = Encoder(resolve_model("minilm-l6"), "passage", progress=False)
    texts = [d.full_text() for d in chatterbot.corpus.values()][:256]
    enc.load()
    out = benchmark.pedantic(enc.encode, args=(texts,), rounds=3, iterations=1)
    benchmark.extra_info["texts_per_round"] = len(texts)
    assert out.shape == (256, 384)


def test_encode_queries_minilm(benchmark, chatterbot):
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model

    enc = Encoder(resolve_model("minilm-l6"), "query", progress=False)
    texts = [q.text for q in chatterbot.queries.values()][:512]
    enc.load()
    out = benchmark.pedantic(enc.encode, args=(texts,), rounds=3, iterations=1)
    benchmark.extra_info["texts_per_round"] = len(texts)
    assert out.shape == (512, 384)


def test_search_exact_20k_docs(benchmark):
    from bench.search.exact import DenseIndex

    rng = np.random.default_rng(0)
    docs = rng.normal(size=(20000, 384)).astype(np.float32)
    q = rng.normal(size=(1000, 384)).astype(np.float32)
    index = DenseIndex([f"d{i}" for i in range(20000)], docs, "cos")
    run = benchmark(index.search, [f"q{i}" for i in range(1000)], q, 100)
    benchmark.extra_info["queries_per_round"] = 1000
    assert len(run) == 1000


def test_measure_1000_queries(benchmark):
    from bench.evaluation.measures import parse_measures, per_query

    rng = np.random.default_rng(0)
    qids = [f"q{i}" for i in range(1000)]
    qrels = {q: {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(5000, 5, replace=False)} for q in qids}
    run = {q: [(f"d{j}", float(100 - r)) for r, j in enumerate(rng.choice(5000, 100, replace=False))] for q in qids}
    ms = parse_measures("MRR@10 nDCG@10 R@100")
    out = benchmark(per_query, ms, qrels, run, qids)
    assert len(out["MRR@10"]) == 1000
