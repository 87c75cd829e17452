"""Corpus shards: the plan, content-addressed shard files, resume, the memory-mapped view and the
streaming corpus reader."""
import hashlib
import json
import pickle

import numpy as np
import pytest

from bench.data.readers import iter_corpus_chunks, load_beir, load_msmarco, read_beir_corpus, read_tsv_pairs
from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.core.errors import BenchError, DataError
from bench.models.spec import spec_from_folder
from bench.encoding.shards import (ShardedEmbeddings, content_key, dataset_chunks, encode_corpus, list_chunks, plan_bounds,
                          shard_path)

TEXTS = ["the lift of a wing", "heat conduction in slabs", "laminar boundary layers", "shock waves on a cone",
         "buckling of thin shells under axial compression", "security clearance"]


def _legacy_matrix_key(texts):
    """The whole-corpus cache key of the code before shards (it must not change)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(hashlib.sha256(t.encode("utf-8")).hexdigest().encode())
    return h.hexdigest()


def test_plan_is_fixed_size_in_corpus_order():
    assert plan_bounds(5, 2) == [(0, 2), (2, 4), (4, 5)]
    assert plan_bounds(5, 50_000) == [(0, 5)]
    assert [t for _, t in list_chunks(TEXTS, 4)] == [TEXTS[:4], TEXTS[4:]]
    with pytest.raises(BenchError, match="--shard-size"):
        plan_bounds(5, 0)


def test_a_one_shard_corpus_keeps_its_cache_entry_and_its_bytes(tiny_bert, tmp_path):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", progress=False)
    m = EmbeddingCache(enc, tmp_path).matrix(TEXTS)
    assert isinstance(m, np.memmap)
    files = sorted(p.name for p in (tmp_path / enc.key).iterdir() if not p.name.endswith(".sum.json"))
    assert files == [f"matrix-{_legacy_matrix_key(TEXTS)}.npy"]  # beside it only its checksum sidecar
    assert content_key(TEXTS) == _legacy_matrix_key(TEXTS)
    whole = np.empty((len(TEXTS), enc.dim), dtype=np.float32)
    Encoder(spec, "passage", progress=False).encode_into(TEXTS, whole)  # the pre-shard encoding
    assert np.asarray(m).tobytes() == whole.tobytes()


def test_each_shard_is_encoded_on_its_own_and_read_back_as_one_matrix(tiny_bert, tmp_path):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", progress=False)
    m = EmbeddingCache(enc, tmp_path, shard_size=4).matrix(TEXTS)
    assert isinstance(m, ShardedEmbeddings) and m.shape == (6, 32) and len(m) == 6
    for start, stop in plan_bounds(6, 4):
        alone = Encoder(spec, "passage", progress=False).encode(TEXTS[start:stop])
        assert np.asarray(m[start:stop]).tobytes() == alone.tobytes()
        assert shard_path(tmp_path / enc.key, content_key(TEXTS[start:stop])).exists()
    full = np.asarray(m)
    np.testing.assert_array_equal(m[[5, 0, 3]], full[[5, 0, 3]])
    np.testing.assert_array_equal(m[-1], full[-1])
    np.testing.assert_array_equal(m[np.array([1, 4])], full[[1, 4]])
    np.testing.assert_array_equal(m[2:5], full[2:5])
    m.shard(0)
    clone = pickle.loads(pickle.dumps(m))  # memory maps are not pickled, they are reopened
    assert clone._open == {} and np.asarray(clone).tobytes() == full.tobytes()
    with pytest.raises(IndexError):
        m[[6]]


def test_resume_encodes_only_missing_shards(tiny_bert, tmp_path):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", progress=False)
    root = tmp_path / enc.key
    first = encode_corpus(enc, list_chunks(TEXTS, 2, ids=[f"d{i}" for i in range(6)]), root, 2)
    assert (first.shards_encoded, first.passages_encoded, first.n_shards) == (3, 6, 3)
    assert first.doc_ids == [f"d{i}" for i in range(6)]
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    shard_path(root, content_key(TEXTS[2:4])).unlink()  # an interrupted run lost shard 1
    again = encode_corpus(enc, list_chunks(TEXTS, 2), root, 2)
    assert (again.shards_encoded, again.passages_encoded, again.passages_cached) == (1, 2, 4)
    assert [d["shard"] for d in again.shard_log] == [1]
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before
    warm = encode_corpus(enc, list_chunks(TEXTS, 2), root, 2)
    assert warm.shards_encoded == 0 and warm.passages_cached == 6


def test_an_interrupted_shard_keeps_the_finished_ones(tiny_bert, tmp_path, monkeypatch):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", batch_size=1, progress=False)
    real, calls = enc.forward_batch, {"n": 0}

    def flaky(batch):
        calls["n"] += 1
        if calls["n"] == 4:  # inside the second shard
            raise KeyboardInterrupt
        return real(batch)

    monkeypatch.setattr(enc, "forward_batch", flaky)
    root = tmp_path / enc.key
    with pytest.raises(KeyboardInterrupt):
        encode_corpus(enc, list_chunks(TEXTS, 2), root, 2)
    done = shard_path(root, content_key(TEXTS[:2])).name
    assert sorted(p.name for p in root.iterdir()) == [done, done + ".sum.json"]
    monkeypatch.setattr(enc, "forward_batch", real)
    out = encode_corpus(enc, list_chunks(TEXTS, 2), root, 2)
    assert out.passages_encoded == 4 and out.passages_cached == 2


def test_streaming_reader_yields_the_loaders_corpus_in_chunks(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    chunks = list(iter_corpus_chunks(beir_dir, 4))
    assert [len(ids) for ids, _ in chunks] == [4, 2]
    assert [d for ids, _ in chunks for d in ids] == ds.doc_ids()
    assert [t for _, texts in chunks for t in texts] == [ds.corpus[d].full_text() for d in ds.doc_ids()]
    assert [(list(i), list(t)) for i, t in dataset_chunks(ds, 4)] == [(list(i), list(t)) for i, t in chunks]
    # MS MARCO-style collection.tsv
    ms = tmp_path / "ms"
    ms.mkdir()
    (ms / "collection.tsv").write_text("0\tfirst passage\n1\tsecond\tpassage\n2\tthird\n", encoding="utf-8")
    (ms / "queries.dev.tsv").write_text("q1\tfirst\n", encoding="utf-8")
    (ms / "qrels.dev.tsv").write_text("q1\t0\t0\t1\n", encoding="utf-8")
    loaded = load_msmarco(ms)
    got = list(iter_corpus_chunks(f"msmarco:{ms}", 2))
    assert [ids for ids, _ in got] == [["0", "1"], ["2"]]
    assert [t for _, texts in got for t in texts] == [loaded.corpus[d].full_text() for d in loaded.doc_ids()]


@pytest.mark.parametrize("lines", [
    ['{"_id": "a", "text": "x"}', '{"_id": "a", "text": "y"}'],  # duplicate id
    ['{"_id": "a", "text": "x"}', '{"_id": "b", "text": "  ", "title": ""}'],  # no text
    ['{"_id": "a", "text": "x"}', '{"_id": "b", "text": '],  # malformed JSON
    ['{"text": "x"}'],  # no id
    [],  # empty corpus
])
def test_streaming_reader_reports_the_loaders_errors(tmp_path, lines):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(DataError) as full:
        read_beir_corpus(path)
    with pytest.raises(DataError) as streamed:
        list(iter_corpus_chunks(path, 1))
    assert str(streamed.value) == str(full.value)


def test_streaming_tsv_reader_reports_the_loaders_errors(tmp_path):
    path = tmp_path / "collection.tsv"
    path.write_text("1\tone\n2\ttwo\n1\tagain\n", encoding="utf-8")
    with pytest.raises(DataError) as full:
        read_tsv_pairs(path, "passage")
    with pytest.raises(DataError) as streamed:
        list(iter_corpus_chunks(path, 2))
    assert str(streamed.value) == str(full.value) and ":3:" in str(full.value)


def test_retriever_from_a_corpus_stream_equals_the_dataset_path(tiny_bert, beir_dir, tmp_path):
    from bench.core.timing import Timer
    from bench.search.retriever import DenseRetriever

    ds = load_beir(beir_dir)
    spec = spec_from_folder(tiny_bert)
    qids = ds.judged_query_ids()
    texts = [ds.queries[q].text for q in qids]
    a = DenseRetriever(spec, ds, Timer(), cache_root=tmp_path / "a", progress=False, shard_size=4)
    b = DenseRetriever(spec, iter_corpus_chunks(beir_dir, 4), Timer(), cache_root=tmp_path / "b", progress=False,
                       shard_size=4)
    assert a.search(qids, texts, 3) == b.search(qids, texts, 3)
    assert b.stats()["passages_encoded"] == 6 and b.stats()["corpus_shards"]["shards"] == 2
    assert a.index_record(3) == {"corpus_shards": {"shard_size": 4, "n_shards": 2}}
    one = DenseRetriever(spec, ds, Timer(), cache_root=tmp_path / "a", progress=False)
    assert one.index_record(3) == {} and one.index.name == "faiss.IndexFlatIP"
    json.dumps(a.stats())  # timings.json must stay serialisable
