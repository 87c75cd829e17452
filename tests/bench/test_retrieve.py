import numpy as np
import pytest

from bench.search.exact import BM25Index, DenseIndex, topk_row, write_trec_run


def test_topk_breaks_ties_by_doc_id_descending_including_the_cutoff():
    from bench.search.exact import _doc_rank

    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0], dtype=np.float32)
    ids = ["e", "d", "c", "b", "a"]
    top = topk_row(scores, 2, _doc_rank(ids))
    assert [ids[i] for i in top] == ["d", "c"]  # trec_eval: equal scores, larger doc id first


def test_dense_matches_brute_force_and_is_deterministic():
    rng = np.random.default_rng(0)
    docs = rng.normal(size=(300, 16)).astype(np.float32)
    docs[7] = docs[3]  # an exact tie
    ids = [f"d{i:03d}" for i in range(300)]
    q = rng.normal(size=(20, 16)).astype(np.float32)
    q[0] = docs[3]
    index = DenseIndex(ids, docs, "dot")
    run = index.search([f"q{i}" for i in range(20)], q, 10)
    full = q @ docs.T
    for i in range(20):
        expect = sorted(range(300), key=lambda j: (float(full[i, j]), ids[j]), reverse=True)[:10]
        assert [d for d, _ in run[f"q{i}"]] == [ids[j] for j in expect]
    assert run == index.search([f"q{i}" for i in range(20)], q, 10)
    assert [d for d, _ in run["q0"][:2]] == ["d007", "d003"]


def test_ties_beyond_the_faiss_margin_are_rescored():
    docs = np.ones((50, 4), dtype=np.float32)  # every document ties
    ids = [f"x{i:02d}" for i in range(50)][::-1]
    run = DenseIndex(ids, docs, "cos").search(["q"], np.ones((1, 4), dtype=np.float32), 5)
    assert [d for d, _ in run["q"]] == ["x49", "x48", "x47", "x46", "x45"]


def test_bm25_ranks_the_matching_document_first(tmp_path):
    index = BM25Index(["a", "b", "c"], ["wing lift slipstream", "heat conduction slabs", "shell buckling"],
                      {"k1": 0.9, "b": 0.4, "method": "lucene", "stopwords": "en"})
    run = index.search_texts(["q1", "q2"], ["heat in slabs", "zzz unknownword"], 2)
    assert run["q1"][0][0] == "b"
    assert run["q2"] == []  # no query term matches: nothing retrieved (no zero-score filler)
    run3 = index.search_texts(["q3"], ["heat wing"], 3)
    assert sorted(d for d, _ in run3["q3"]) == ["a", "b"] and all(s > 0 for _, s in run3["q3"])
    write_trec_run(run, tmp_path / "r.trec", "t")
    assert (tmp_path / "r.trec").read_text().splitlines()[0].startswith("q1 Q0 b 1 ")


def test_trec_run_refuses_ids_with_white_space(tmp_path):
    from bench.core.errors import DataError

    for run in ({"q 1": [("a", 1.0)]}, {"q1": [("doc\t7", 1.0)]}):
        with pytest.raises(DataError, match="white space"):
            write_trec_run(run, tmp_path / "r.trec", "t")
    assert not (tmp_path / "r.trec").exists()
