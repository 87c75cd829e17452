"""Issue 17: model folders whose weights do not fit, need custom code, are pickle-only or corrupt are
refused with the fix, never silently random-initialised and never a transformers traceback."""
from __future__ import annotations

import datetime
import json
import shutil

import pytest

from bench.core.errors import ResourceError
from bench.models.loading import load_encoder, load_masked_lm

KEEP = ("config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def _folder(tiny_bert_plain, tmp_path, name="m"):
    folder = tmp_path / name
    folder.mkdir()
    for n in KEEP:
        shutil.copy(tiny_bert_plain / n, folder / n)
    return folder


def test_safetensors_that_do_not_match_the_architecture_are_refused(tiny_bert_plain, tmp_path):
    import torch
    from safetensors.torch import save_file

    folder = _folder(tiny_bert_plain, tmp_path)
    save_file({"x": torch.zeros(1)}, str(folder / "model.safetensors"))
    with pytest.raises(ResourceError, match=r"tensor\(s\) missing \(.*embeddings.word_embeddings.weight.*"
                                            r"1 unexpected \(x\).*initialised at random"):
        load_encoder(folder)


def test_pytorch_bin_that_does_not_match_is_refused_via_the_cli(tiny_bert_plain, tmp_path, beir_dir, capsys):
    import torch

    from bench.cli.main import main

    folder = _folder(tiny_bert_plain, tmp_path)
    torch.save({"x": torch.zeros(1)}, folder / "pytorch_model.bin")
    rc = main(["evaluate", "--model", str(folder), "--dataset", str(beir_dir), "--no-progress",
               "--generators", "EXTRAPUNC", "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "do not match the architecture" in err and "encoder.layer.0" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "result.json").exists()


def test_masked_lm_refuses_missing_encoder_weights_but_not_a_missing_head(tiny_bert_plain, tmp_path):
    import torch
    from safetensors.torch import save_file

    folder = _folder(tiny_bert_plain, tmp_path)
    save_file({"x": torch.zeros(1)}, str(folder / "model.safetensors"))
    with pytest.raises(ResourceError, match="missing"):
        load_masked_lm(folder)
    model, _, info = load_masked_lm(tiny_bert_plain)  # a plain encoder: only the MLM head is created
    assert any(k.startswith("cls.") for k in info["missing_keys"])


def test_pickle_only_folder_that_cannot_be_read_safely_says_convert(tiny_bert_plain, tmp_path):
    import torch

    folder = _folder(tiny_bert_plain, tmp_path)
    torch.save({"x": datetime.date(2020, 1, 1)}, folder / "pytorch_model.bin")  # not weights-only
    with pytest.raises(ResourceError, match="pickle file .* Fix: convert them to safetensors"):
        load_encoder(folder)


def test_custom_code_folder_is_refused(tiny_bert_plain, tmp_path):
    folder = _folder(tiny_bert_plain, tmp_path)
    shutil.copy(tiny_bert_plain / "model.safetensors", folder / "model.safetensors")
    cfg = json.loads((folder / "config.json").read_text())
    cfg["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / "modeling_custom.py").write_text("raise SystemExit('custom code ran')\n")
    with pytest.raises(ResourceError, match="never runs custom model code"):
        load_encoder(folder)


def test_corrupt_safetensors_is_refused(tiny_bert_plain, tmp_path):
    folder = _folder(tiny_bert_plain, tmp_path)
    (folder / "model.safetensors").write_bytes(b"\xff" * 8 + b"not json")
    with pytest.raises(ResourceError, match="not a valid safetensors file.*Fix"):
        load_encoder(folder)
