"""Issue 39, items 6, 9 and 11 (model folders): a config.json that is not the one the weights were
saved with, tokenizer files that are not a tokenizer (or need custom code), a weights link to
nothing and a batch that cannot fit in memory are refused with the file and the fix."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from bench.cli.main import main
from bench.core.errors import ResourceError
from bench.models.loading import check_model_folder, load_tokenizer
from tests.conftest import _minilm_folder


def _copy(src, dst, link_weights=False):
    dst.mkdir()
    for p in src.iterdir():
        if p.is_file():
            if link_weights and p.suffix == ".safetensors":
                os.symlink(p, dst / p.name)
            else:
                shutil.copy(p, dst / p.name)
    return dst


def _edit_config(folder, **changes):
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config, indent=2))


@pytest.mark.parametrize("changes", [{"num_attention_heads": 6}, {"hidden_act": "relu"}, {"model_type": "roberta"}])
def test_a_config_that_is_not_the_one_the_known_weights_were_saved_with_is_refused(tmp_path, changes):
    folder = _copy(_minilm_folder(), tmp_path / "m", link_weights=True)
    check_model_folder(folder)  # the copy as published loads
    _edit_config(folder, **changes)
    key = next(iter(changes))
    with pytest.raises(ResourceError, match=f"config.json: .*{key}"):
        check_model_folder(folder)


def test_model_type_other_than_the_saved_architecture_is_refused(tiny_bert_plain, tmp_path):
    folder = _copy(tiny_bert_plain, tmp_path / "m")
    _edit_config(folder, model_type="roberta")
    with pytest.raises(ResourceError, match="model_type 'roberta', but the weights were saved as BertModel"):
        check_model_folder(folder)


def test_a_tokenizer_that_needs_custom_code_is_refused(tiny_bert_plain, tmp_path):
    folder = _copy(tiny_bert_plain, tmp_path / "m")
    path = folder / "tokenizer_config.json"
    data = json.loads(path.read_text())
    data["auto_map"] = {"AutoTokenizer": ["tok.MyTokenizer", None]}
    path.write_text(json.dumps(data))
    with pytest.raises(ResourceError, match="tokenizer_config.json: the tokenizer needs its own code"):
        load_tokenizer(folder)


def test_a_tokenizer_json_that_is_not_a_tokenizer_is_refused(tiny_bert_plain, tmp_path):
    folder = _copy(tiny_bert_plain, tmp_path / "m")
    other = tmp_path / "unrelated.json"
    other.write_text(json.dumps({"hello": "world"}))
    (folder / "tokenizer.json").unlink()
    os.symlink(other, folder / "tokenizer.json")
    with pytest.raises(ResourceError, match="the tokenizer cannot be read"):
        load_tokenizer(folder)


@pytest.mark.parametrize("kind", ["words", "binary"])
def test_a_vocab_txt_that_is_not_the_models_is_refused(tiny_bert_plain, tmp_path, kind):
    folder = _copy(tiny_bert_plain, tmp_path / "m")
    (folder / "tokenizer.json").unlink()  # the tokenizer is built from vocab.txt
    other = tmp_path / "other"
    if kind == "words":
        other.write_text("\n".join(f"word{i}" for i in range(100)) + "\n")
    else:
        other.write_bytes(bytes(range(256)) * 8)
    (folder / "vocab.txt").unlink()
    os.symlink(other, folder / "vocab.txt")
    with pytest.raises(ResourceError, match="the vocabulary is not this model's|the tokenizer cannot be read"):
        load_tokenizer(folder)


def test_a_dangling_weights_link_is_named(tiny_bert, tmp_path, beir_dir, capsys):
    folder = _copy(tiny_bert, tmp_path / "m")
    shutil.copytree(tiny_bert / "1_Pooling", folder / "1_Pooling")
    (folder / "model.safetensors").unlink()
    os.symlink(tmp_path / "gone.safetensors", folder / "model.safetensors")
    rc = main(["evaluate", "--model", str(folder), "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
               "--no-progress", "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "model.safetensors: a symbolic link to" in err and "gone.safetensors, which does not exist" in err


def test_a_batch_that_cannot_fit_in_memory_is_refused_before_work(tiny_bert, beir_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("bench.encoding.memory.available_bytes", lambda: 64 << 20)  # 64 MiB free
    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
               "--no-progress", "--batch-size", "4096", "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--batch-size 4096: one forward pass" in err and "0.1 GiB of memory are free" in err
    assert not (tmp_path / "run").exists()


def test_the_memory_bound_of_the_issue_case(tiny_bert):
    from bench.encoding.memory import forward_bytes
    from tests.conftest import _minilm_folder

    config = json.loads((_minilm_folder() / "config.json").read_text())
    assert forward_bytes(config, 1_000_000, 256) > 1 << 40  # --batch-size 1000000 on minilm-l6: over a TiB
    assert forward_bytes(config, 64, 256) < 1 << 30  # the default batch: under a GiB
