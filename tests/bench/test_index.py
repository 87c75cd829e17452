"""Indexes: exact search over shards equals the one-matrix index; IVF / HNSW are deterministic,
validated, and recorded in result.json with their recall against exact search."""
import json

import numpy as np
import pytest

from bench.core.errors import BenchError
from bench.search.ann import (ApproximateIndex, IndexConfig, ShardedFlatIndex, auto_nlist, build_index, recall_sample,
                         recall_vs_exact)
from bench.search.exact import TIE_BREAK, DenseIndex
from bench.encoding.shards import ShardedEmbeddings


def _sharded(tmp_path, emb, size):
    paths, sizes = [], []
    for i, start in enumerate(range(0, len(emb), size)):
        p = tmp_path / f"s{i}.npy"
        np.save(p, emb[start:start + size])
        paths.append(p)
        sizes.append(len(emb[start:start + size]))
    return ShardedEmbeddings(paths, sizes, emb.shape[1])


@pytest.fixture
def corpus(tmp_path):
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(500, 8)).astype(np.float32)
    emb[100:140] = emb[7]  # many exact ties, across shard boundaries
    emb[250] = emb[7]
    ids = [f"d{i:03d}" for i in range(500)][::-1]  # id order differs from row order
    q = np.vstack([emb[7], rng.normal(size=(6, 8))]).astype(np.float32)
    return ids, emb, q, _sharded(tmp_path, emb, 64)


@pytest.mark.parametrize("sim", ["dot", "cos"])
def test_sharded_exact_search_equals_the_one_matrix_index(corpus, sim):
    ids, emb, q, sharded = corpus
    qids = [f"q{i}" for i in range(len(q))]
    one = DenseIndex(ids, emb, sim).search(qids, q, 20)
    many = build_index(ids, sharded, sim)
    assert isinstance(many, ShardedFlatIndex)
    got = many.search(qids, q, 20)
    assert [[d for d, _ in got[x]] for x in qids] == [[d for d, _ in one[x]] for x in qids]
    for x in qids:
        np.testing.assert_allclose([s for _, s in got[x]], [s for _, s in one[x]], rtol=1e-6, atol=1e-6)
    assert len(got["q0"]) == 20  # the 42 tied vectors: broken by doc id
    assert [d for d, _ in got["q0"]] == sorted((d for d, _ in got["q0"]), reverse=True)  # trec_eval order


def test_ivf_with_every_list_probed_finds_the_exact_top_k(corpus):
    ids, _, q, sharded = corpus
    ivf = build_index(ids, sharded, "dot", IndexConfig(kind="ivf", nlist=8, nprobe=8))
    assert isinstance(ivf, ApproximateIndex) and ivf.name == "faiss.IndexIVFFlat"
    rec = recall_vs_exact(ivf, sharded, q[1:], 10, at=(5,))
    assert rec == {"recall@5": 1.0, "recall@10": 1.0}
    low = recall_vs_exact(build_index(ids, sharded, "dot", IndexConfig(kind="ivf", nlist=16, nprobe=1)),
                          sharded, q[1:], 50)
    assert 0 < low["recall@50"] < 1  # an approximation that loses documents is measured as such


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_indexes_are_deterministic(corpus, kind):
    ids, _, q, sharded = corpus
    cfg = IndexConfig(kind=kind, nlist=10, nprobe=2, hnsw_m=8, ef_search=16, seed=3)
    qids = [f"q{i}" for i in range(len(q))]
    a = build_index(ids, sharded, "cos", cfg).search(qids, q, 30)
    b = build_index(ids, sharded, "cos", cfg).search(qids, q, 30)
    assert a == b
    assert all(len(v) == 30 for v in a.values())


def test_index_parameters_are_validated_and_recorded():
    assert auto_nlist(200_000) == 1789 and auto_nlist(1398) == 35 and auto_nlist(10) == 1
    with pytest.raises(BenchError, match=r"--nlist 5000 exceeds the corpus size \(1398 documents\)"):
        IndexConfig(kind="ivf", nlist=5000).resolve(1398)
    with pytest.raises(BenchError, match="--index must be one of flat, ivf, hnsw"):
        IndexConfig(kind="pq")
    with pytest.raises(BenchError, match="--nprobe must be a positive integer"):
        IndexConfig(kind="ivf", nprobe=0)
    p = IndexConfig(kind="ivf", nlist=10, nprobe=32, seed=4).resolve(1000)
    assert p == {"kind": "ivf", "nlist": 10, "nlist_source": "--nlist", "nprobe": 10, "nprobe_clamped": True,
                 "train_size": 500, "train_seed": 4}
    assert IndexConfig(kind="ivf").resolve(200_000)["nlist"] == 1789
    assert IndexConfig(kind="hnsw").resolve(10)["ef_search"] == 128
    pos, described = recall_sample([f"q{i}" for i in range(50)], 10, seed=0)
    assert len(pos) == 10 and pos == sorted(pos) and described.startswith("seeded sample of 10 of the 50")
    assert recall_sample(["a", "b"], 10, 0) == ([0, 1], "all 2 ORIGINAL queries")


def _cli(args, capsys):
    from bench.cli.main import main

    rc = main(args)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_approximate_index_is_recorded_and_printed_flat_is_unchanged(tiny_bert, beir_dir, tmp_path, capsys):
    base = ["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--generators", "extrapunc",
            "--no-progress"]
    rc, out, _ = _cli(base + ["--out", str(tmp_path / "flat")], capsys)
    assert rc == 0 and "approximate index" not in out
    flat = json.loads((tmp_path / "flat" / "result.json").read_text())
    assert flat["retrieval"] == {"top_k": 100, "index": "faiss.IndexFlatIP", "similarity": "cos",
                                 "tie_break": TIE_BREAK}
    rc, out, _ = _cli(base + ["--out", str(tmp_path / "hnsw"), "--index", "hnsw", "--hnsw-m", "4"], capsys)
    assert rc == 0
    r = json.loads((tmp_path / "hnsw" / "result.json").read_text())["retrieval"]
    assert r["index"] == "faiss.IndexHNSWFlat"
    assert r["index_params"] == {"kind": "hnsw", "M": 4, "ef_construction": 200, "ef_search": 128,
                                 "build_threads": 1}
    rec = r["recall_vs_exact"]
    assert rec["n_queries"] == 5 and rec["queries"] == "all 5 ORIGINAL queries"
    assert set(rec) >= {"recall@10", "recall@100"} and 0 <= rec["recall@100"] <= 1
    assert "approximate index faiss.IndexHNSWFlat (M=4" in out and "recall@100" in out
    # errors name the flag and the fix
    rc, _, err = _cli(base + ["--index", "ivf", "--nlist", "99"], capsys)
    assert rc == 2 and "--nlist 99 exceeds the corpus size (6 documents)" in err
    rc, _, err = _cli(base + ["--nprobe", "4"], capsys)
    assert rc == 2 and "add --index ivf or --index hnsw" in err
    rc, _, err = _cli(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "extrapunc",
                       "--index", "ivf", "--no-progress"], capsys)
    assert rc == 2 and "applies to dense models" in err


@pytest.mark.benchmark
@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_search_20k_docs_sharded(benchmark, tmp_path, kind):
    """Search seconds of 1000 queries over 20k 384-dim vectors in 4 shards; recall is reported
    in extra_info (numbers, never asserted beyond shape)."""
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(20000, 384)).astype(np.float32)
    q = rng.normal(size=(1000, 384)).astype(np.float32)
    sharded = _sharded(tmp_path, emb, 5000)
    ids = [f"d{i}" for i in range(20000)]
    index = build_index(ids, sharded, "cos", IndexConfig(kind=kind))
    qids = [f"q{i}" for i in range(1000)]
    run = benchmark.pedantic(index.search, args=(qids, q, 100), rounds=3, iterations=1)
    if kind != "flat":
        benchmark.extra_info.update(recall_vs_exact(index, sharded, q[:200], 100))
    assert len(run) == 1000
