"""The one encoder contract (bench.encoding.contract) and the cache-key rule of model objects
(bench.encoding.objects): every batch of every model form is checked, not only the probes; two
objects that differ anywhere in their probes or on the dataset's own texts never share vectors.
Each case below was a silent wrong number or a traceback before the contract."""
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError
from bench.encoding.contract import MAX_NORM, VectorContract
from tests.conftest import DOCS, QRELS, QUERIES, _minilm_folder


def tiny_dict():
    return {"corpus": {d: {"title": t, "text": x} for d, (t, x) in DOCS.items()},
            "queries": {q: {"text": t} for q, (t, _) in QUERIES.items()},
            "qrels": {q: {d: g for qq, d, g in QRELS if qq == q} for q in dict.fromkeys(q for q, _, _ in QRELS)}}


def bow(texts, dim=64, max_words=None, salt=""):
    out = np.full((len(texts), dim), 0.01, dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split()[:max_words]:
            out[i, int(hashlib.md5((salt + w).encode()).hexdigest(), 16) % dim] += 1
    return out


class Bow:
    """A bag-of-words encoder; ``max_words`` cuts texts as a model's max_seq_length does."""

    def __init__(self, max_words=None, dim=64):
        self.max_words, self.dim = max_words, dim

    def encode(self, texts, batch_size=32):
        return bow(texts, self.dim, self.max_words)


def evaluate(tmp_path, model, folder="run", **kw):
    return bench.evaluate(model=model, dataset=tiny_dict(), out=tmp_path / folder, generators=["EXTRAPUNC"],
                          no_progress=True, **kw)


class Split:
    """Queries and passages through separate methods (widths may differ)."""

    def __init__(self, q_dim=64, p_dim=64):
        self.q_dim, self.p_dim = q_dim, p_dim

    def encode_queries(self, texts, **kw):
        return bow(texts, self.q_dim)

    def encode_corpus(self, texts, **kw):
        return bow(texts, self.p_dim)


class OnlyOnData(Bow):
    """Fine on the probe texts; ``bad`` on every text of the dataset's corpus (only a check of every
    batch, not of the probes, sees it)."""

    def __init__(self, bad):
        super().__init__()
        self.bad = bad
        self.corpus = {f"{t} {x}" for t, x in DOCS.values()}

    def encode(self, texts, batch_size=32):
        out = bow(texts)
        rows = [i for i, t in enumerate(texts) if t in self.corpus]
        if rows:
            return self.bad(out, rows)
        return out


def test_query_and_passage_widths_64_and_32_are_a_bench_error(tmp_path):
    with pytest.raises(BenchError, match=r"passages\) vectors have 32 dimensions, .*queries\) vectors 64"):
        evaluate(tmp_path, Split(64, 32))
    with pytest.raises(BenchError, match="must be compared in one space"):
        evaluate(tmp_path, Split(64, 32), folder="named", name="split")


@pytest.mark.parametrize("bad, says", [
    (lambda out, rows: out.astype(np.complex64) * 1j, "returned complex numbers"),
    (lambda out, rows: out.astype(np.float64) * 1e20, "above 1e\\+18: their dot products leave float32's range"),
    (lambda out, rows: np.where(np.isin(np.arange(len(out)), rows)[:, None], 0.0, out), "returned an all-zero vector"),
    (lambda out, rows: np.where(np.isin(np.arange(len(out)), rows)[:, None], np.nan, out), "NaN or infinite"),
    (lambda out, rows: out.astype(np.float64) * 1e300, "NaN or infinite values \\(or values beyond float32's range"),
])
def test_every_batch_is_checked_not_only_the_probes(tmp_path, bad, says):
    with pytest.raises(BenchError, match=says):
        evaluate(tmp_path, OnlyOnData(bad))
    assert not (tmp_path / "run").exists()


def test_an_unsupported_similarity_fn_name_is_refused(tmp_path):
    class Euclid(Bow):
        similarity_fn_name = "euclidean"

    with pytest.raises(BenchError, match="similarity_fn_name='euclidean', which drbench does not implement"):
        evaluate(tmp_path, Euclid())
    r = evaluate(tmp_path, Euclid(), similarity="dot")  # an explicit similarity overrides the object's own
    assert r.result["model"]["spec"]["similarity"] == "dot"


def test_a_class_instead_of_an_instance_is_refused(tmp_path):
    with pytest.raises(BenchError, match=r"model= is the class .*Bow, not a model object\. Fix: give an instance"):
        evaluate(tmp_path, Bow)


def test_an_object_changed_during_the_run_is_detected_before_its_vectors_are_stored(tmp_path):
    class Drifting(Bow):
        """Changes its outputs after the corpus is encoded (trained in place)."""

        calls = 0

        def encode(self, texts, batch_size=32):
            self.calls += 1
            if any(f"{t} {x}" in texts for t, x in DOCS.values()):
                self.salt_after = True
            return bow(texts, salt="x" if getattr(self, "salt_after", False) else "")

    home = Path(os.environ["DRBENCH_HOME"]) / "embeddings"

    def entries():
        return set(home.rglob("*")) if home.exists() else set()

    before = entries()
    with pytest.raises(BenchError, match="changed its outputs during the run"):
        evaluate(tmp_path, Drifting(), name="drifting")
    assert not [p for p in entries() - before if p.is_file()]  # no vectors stored under the old key


def test_two_objects_that_cut_texts_at_other_lengths_do_not_share_vectors(tmp_path):
    """max_seq_length 256, then 40, under one name: the dataset's texts are short, so only the long
    probes tell them apart; the second run encodes again instead of reading the first's vectors."""
    a = evaluate(tmp_path, Bow(max_words=256), folder="a", name="cut")
    b = evaluate(tmp_path, Bow(max_words=40), folder="b", name="cut")
    ia, ib = a.result["model"]["encoder_object"], b.result["model"]["encoder_object"]
    assert ia["probe_fingerprint"] != ib["probe_fingerprint"]
    assert json.loads((b.folder / "timings.json").read_text())["encoding"]["passages_encoded"] == len(DOCS)


def test_two_objects_that_differ_only_on_the_dataset_texts_do_not_share_vectors(tmp_path):
    class Special(Bow):
        def encode(self, texts, batch_size=32):
            out = bow(texts)
            out[[i for i, t in enumerate(texts) if "slipstream" in t], 0] += 5  # only a dataset text has the word
            return out

    a = evaluate(tmp_path, Bow(), folder="a", name="same-name")
    b = evaluate(tmp_path, Special(), folder="b", name="same-name")
    ia, ib = a.result["model"]["encoder_object"], b.result["model"]["encoder_object"]
    assert ia["probe_fingerprint"] == ib["probe_fingerprint"]
    assert ia["sample_fingerprint"] != ib["sample_fingerprint"]
    assert json.loads((b.folder / "timings.json").read_text())["encoding"]["passages_encoded"] == len(DOCS)


@pytest.mark.slow
def test_minilm_with_max_seq_length_256_then_40_under_one_name(tmp_path):
    st = pytest.importorskip("sentence_transformers")
    model = st.SentenceTransformer(str(_minilm_folder()), device="cpu")
    first = evaluate(tmp_path, model, folder="a", name="minilm-object")
    model.max_seq_length = 40
    second = evaluate(tmp_path, model, folder="b", name="minilm-object")
    ia, ib = first.result["model"]["encoder_object"], second.result["model"]["encoder_object"]
    assert ia["probe_fingerprint"] != ib["probe_fingerprint"]
    assert json.loads((second.folder / "timings.json").read_text())["encoding"]["passages_encoded"] == len(DOCS)


def test_bm25_refuses_dense_model_options(beir_dir, capsys):
    for flag, value in (("--similarity", "dot"), ("--pooling", "cls"), ("--query-prefix", "q: ")):
        rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), flag, value, "--no-progress",
                   "--out", str(beir_dir.parent / "run")])
        assert rc == 2 and f"{flag} configure a dense model; 'bm25' is BM25" in capsys.readouterr().err
    assert not (beir_dir.parent / "run").exists()


def test_a_folder_model_batch_is_checked_too(tmp_path, tiny_bert, monkeypatch):
    import bench.encoding.encoder as E

    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path / "home"))  # a cold cache: the batches are encoded here
    monkeypatch.setattr(E, "pool", lambda out, mask, spec, dense: out[:, 0] * 0)
    with pytest.raises(BenchError, match="passage batch returned an all-zero vector"):
        evaluate(tmp_path, str(tiny_bert))


def test_the_contract_alone():
    c = VectorContract("m")
    assert c.check([[1.0, 2.0]], 1, "x").dtype == np.float32
    with pytest.raises(BenchError, match=r"returned shape \(2,\) for 2 texts"):
        c.check(np.ones(2), 2, "x")
    with pytest.raises(BenchError, match="vectors have 3 dimensions, x vectors 2"):
        c.check(np.ones((1, 3)), 1, "y")
    assert c.check(np.full((1, 2), MAX_NORM / 2), 1, "x").shape == (1, 2)  # large but within range
    with pytest.raises(BenchError, match="not numbers"):
        c.check(np.array([["a", "b"]]), 1, "x")
