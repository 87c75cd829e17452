"""sentence-transformers folders are read and applied by the library itself (bench.models.st_folder)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from bench.models.spec import resolve_model, spec_from_folder
from tests.conftest import _minilm_folder

DATA = {"corpus": {"d1": {"title": "Paris", "text": "Paris is the capital of France"},
                   "d2": {"title": "Berlin", "text": "Berlin is the capital of Germany"},
                   "d3": "Dense retrieval maps queries and passages to vectors",
                   "d4": "You can reset your password from the account settings page"},
        "queries": {"q1": "what is the capital of France", "q2": "how does dense retrieval work",
                    "q3": "how do I reset my password?", "q4": "which city is the capital of Germany"},
        "qrels": {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}, "q4": {"d2": 1}}}


@pytest.fixture(scope="module")
def saved_default(tmp_path_factory):
    """The shipped default model written by the installed sentence-transformers, as the docs say."""
    from sentence_transformers import SentenceTransformer

    folder = tmp_path_factory.mktemp("st") / "minilm-saved"
    SentenceTransformer(str(_minilm_folder()), device="cpu").save(str(folder))
    return folder


def test_a_folder_saved_by_the_installed_library_is_read(saved_default):
    spec = spec_from_folder(saved_default)
    assert spec.pooling == "mean" and spec.normalize and spec.similarity == "cos"
    assert [m.split(":")[0] for m in spec.modules] == ["Pooling", "Normalize"]


def test_saved_default_model_gives_the_per_query_scores_of_minilm_l6(saved_default, tmp_path):
    import bench

    runs = {}
    for label, model in (("registered", "minilm-l6"), ("saved", str(saved_default))):
        bench.evaluate(model=model, dataset=DATA, dataset_name="tiny", generators=["EXTRAPUNC"],
                       out=tmp_path / label, no_progress=True)
        runs[label] = (tmp_path / label / "per_query.csv").read_bytes()
    assert runs["registered"] == runs["saved"] and runs["saved"].count(b"\n") > 4


def _with_pooling(src, folder, mode):
    shutil.copytree(src, folder)
    path = folder / "1_Pooling" / "config.json"
    path.write_text(json.dumps({"embedding_dimension": 32, "pooling_mode": mode, "include_prompt": True}))
    return folder


@pytest.mark.parametrize("override", ["mean", "cls"])
def test_pooling_option_replaces_the_folders_pooling_mode(tiny_bert, tmp_path, override):
    from bench.encoding.encoder import Encoder

    texts = ["a short query", "a longer passage about dense retrieval and vectors"]
    folder = _with_pooling(tiny_bert, tmp_path / "max", "max")
    spec = spec_from_folder(folder)
    assert spec.pooling == "max"
    overridden = Encoder(spec.with_overrides(pooling=override), "query", progress=False).encode(texts)
    wanted = Encoder(spec_from_folder(_with_pooling(tiny_bert, tmp_path / override, override)), "query",
                     progress=False).encode(texts)
    as_is = Encoder(spec, "query", progress=False).encode(texts)
    np.testing.assert_array_equal(overridden, wanted)
    assert not np.allclose(overridden, as_is)


def test_the_library_prompts_are_the_prefixes(tiny_bert, tmp_path):
    folder = tmp_path / "prompts"
    shutil.copytree(tiny_bert, folder)
    (folder / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "query: ", "document": "passage: "}, "default_prompt_name": None,
         "similarity_fn_name": "dot"}))
    spec = resolve_model(str(folder))
    assert (spec.query_prefix, spec.passage_prefix, spec.similarity) == ("query: ", "passage: ", "dot")
