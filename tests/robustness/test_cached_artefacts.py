"""Issue 39 item 3: every cached artefact is checked against a recorded digest before use (ONNX
exports, the WordNet copy, reused checkpoints; embeddings, variation shards and the pivot table have
their own tests), and a mismatch is rebuilt with a warning: never other numbers, never a traceback."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import perturb.resources.wordnet_reader as W


# ----------------------------------------------------------------- the WordNet copy


@pytest.fixture
def wordnet_home(tmp_path, monkeypatch):
    found = W.find_wordnet()
    if found is None:
        pytest.skip("no WordNet files here")
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(W, "_CHECKED", set(), raising=False)
    monkeypatch.setattr(W, "_CONTENT_SHA", {})
    monkeypatch.setattr(W, "_WN", None)
    monkeypatch.setattr(W, "_WN_META", {})
    return found[1]


def _source_digest(source: Path) -> str:
    content = hashlib.sha256()
    for name, data in W._normalised_files(source):
        W._add_content(content, name, data)
    return content.hexdigest()


def _new_process(monkeypatch):
    monkeypatch.setattr(W, "_CHECKED", set(), raising=False)
    monkeypatch.setattr(W, "_CONTENT_SHA", {})
    monkeypatch.setattr(W, "_WN", None)
    monkeypatch.setattr(W, "_WN_META", {})


def test_an_edited_wordnet_copy_is_rebuilt_and_the_recorded_hash_is_of_the_source(wordnet_home, monkeypatch, capsys):
    source = wordnet_home
    copy = W.prepare_wordnet(source)
    data = bytearray((copy / "data.adj").read_bytes())
    i = data.index(b" fast ")
    data[i + 1:i + 5] = b"slow"  # a consistent edit: same length, every offset still right
    (copy / "data.adj").write_bytes(bytes(data))
    marker = json.loads((copy / "drbench-wordnet.json").read_text())
    marker["content_sha256"] = "0" * 64  # the record edited along with it
    (copy / "drbench-wordnet.json").write_text(json.dumps(marker))
    _new_process(monkeypatch)
    assert W.wordnet_content_sha() == _source_digest(source)[:16]  # never the copy's record
    assert W.prepare_wordnet(source) == copy  # what wordnet() reads
    err = capsys.readouterr().err
    assert "is not a copy of" in err and "data.adj differs" in err and "rebuilding it" in err
    assert (copy / "data.adj").read_bytes() == (source / "data.adj").read_bytes().replace(b"\r\n", b"\n")
    assert json.loads((copy / "drbench-wordnet.json").read_text())["content_sha256"] == _source_digest(source)
    _new_process(monkeypatch)
    W.prepare_wordnet(source)  # intact now: used without a word
    assert "warning" not in capsys.readouterr().err


@pytest.mark.slow
def test_an_inconsistently_edited_copy_is_rebuilt_not_a_key_error(wordnet_home, monkeypatch, capsys):
    copy = W.prepare_wordnet(wordnet_home)
    data = (copy / "data.adv").read_bytes()
    (copy / "data.adv").write_bytes(data[: len(data) // 2])  # offsets now point past the end
    _new_process(monkeypatch)
    wn = W.wordnet()
    assert "data.adv differs" in capsys.readouterr().err
    assert [s.name() for s in wn.synsets("quickly", pos="r")]
    assert W.wordnet_meta()["content_sha256"] == _source_digest(wordnet_home)


# ----------------------------------------------------------------- reused checkpoints


def _checkpoint(folder: Path) -> None:
    from bench.models.checkpoint import TRAINING_FILE, atomic_folder

    with atomic_folder(folder) as tmp:
        (tmp / "model.safetensors").write_bytes(b"weights")
        (tmp / TRAINING_FILE).write_text(json.dumps({"complete": True, "kind": "k"}))


def test_a_reused_checkpoint_whose_weights_changed_is_trained_again(tmp_path, capsys):
    from bench.models.checkpoint import reusable_training

    folder = tmp_path / "home" / "checkpoints" / "c1"
    _checkpoint(folder)
    assert reusable_training(folder) == {"complete": True, "kind": "k"}
    (folder / "model.safetensors").write_bytes(b"other weights")
    assert reusable_training(folder) is None
    err = capsys.readouterr().err
    assert "model.safetensors" in err and "training it again" in err


def test_a_checkpoint_written_before_records_is_accepted_and_recorded(tmp_path):
    from bench.core.written import RECORD, folder_problem
    from bench.models.checkpoint import TRAINING_FILE, reusable_training

    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"w")
    (folder / TRAINING_FILE).write_text(json.dumps({"complete": True}))
    assert reusable_training(folder) is not None and (folder / RECORD).is_file() and folder_problem(folder) == ""


# ----------------------------------------------------------------- ONNX exports


def test_a_cached_onnx_export_that_was_replaced_or_truncated_is_exported_again(tiny_bert, capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    import torch

    from bench.encoding.onnx_backend import EXPORT_RECORD, load_onnx
    from bench.models.spec import weights_fingerprint

    fp = weights_fingerprint(tiny_bert)
    model, tok = load_onnx(tiny_bert, fp, "onnx")
    batch = tok(["the lift of a wing", "heat"], padding=True, return_tensors="pt")
    want = model(**batch).last_hidden_state.numpy()
    from bench.encoding.onnx_backend import export_folder

    export = export_folder(fp) / "model.onnx"
    assert json.loads((export.parent / EXPORT_RECORD).read_text())["sha256"]["model.onnx"]
    for damage in (lambda b: b[: len(b) // 2], lambda b: b[:-64] + bytes(64)):
        export.write_bytes(damage(export.read_bytes()))
        model, tok = load_onnx(tiny_bert, fp, "onnx")
        assert "exporting it again" in capsys.readouterr().err
        with torch.no_grad():
            assert np.array_equal(model(**batch).last_hidden_state.numpy(), want)
