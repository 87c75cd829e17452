"""Issue 17: model folders whose weights do not fit, need custom code, are pickle-only or corrupt are
refused with the fix, never silently random-initialised and never a transformers traceback."""
from __future__ import annotations

import datetime
import json
import shutil

import pytest

from bench.core.errors import BenchError, DataError, ResourceError
from bench.models.loading import load_encoder, load_masked_lm
from bench.models.spec import spec_from_folder

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


# --------------------------------------------------------------------------------------------
# sentence-transformers folders: the library applies their modules; what it must not be handed is refused


def _modules(folder):
    return json.loads((folder / "modules.json").read_text())


def _write_modules(folder, modules):
    (folder / "modules.json").write_text(json.dumps(modules, indent=2))


def test_pickle_only_dense_is_refused_with_convert(tiny_bert, tmp_path, beir_dir, capsys):
    import torch

    from bench.cli.main import main
    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "m", tiny_bert)
    (folder / "2_Dense" / "model.safetensors").unlink()
    torch.save({"linear.weight": torch.zeros(16, 32)}, folder / "2_Dense" / "pytorch_model.bin")
    rc = main(["evaluate", "--model", str(folder), "--dataset", str(beir_dir), "--no-progress",
               "--generators", "EXTRAPUNC", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc == 2 and "pytorch_model.bin" in err and "convert to safetensors" in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("change,message", [
    (lambda m: m.pop(1), r"0 Pooling modules after the Transformer"),
    (lambda m: m.insert(0, m.pop(1)), r"modules.json:\d+: drbench reads the encoder from the folder itself"),
    (lambda m: m[2].update(type="my_package.MyDense"), r"modules.json:\d+: module 'my_package.MyDense' is not a "
                                                        r"sentence-transformers module"),
    (lambda m: m[2].update(path="../elsewhere"), r"modules.json:\d+: module Dense path '../elsewhere' climbs out"),
    (lambda m: m[2].update(path="/etc"), r"modules.json:\d+: module Dense path '/etc' is an absolute path"),
])
def test_modules_drbench_cannot_hand_to_the_library_are_refused(tiny_bert, tmp_path, change, message):
    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "m", tiny_bert)
    modules = _modules(folder)
    change(modules)
    _write_modules(folder, modules)
    with pytest.raises(BenchError, match=message):
        spec_from_folder(folder)


def test_module_path_through_a_symlink_out_of_the_folder_is_refused(tiny_bert, tmp_path):
    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "m", tiny_bert)
    shutil.move(str(folder / "2_Dense"), str(tmp_path / "outside"))
    (folder / "2_Dense").symlink_to(tmp_path / "outside")
    with pytest.raises(DataError, match=r"modules.json:\d+: module Dense path '2_Dense' leads outside"):
        spec_from_folder(folder)


@pytest.mark.parametrize("cfg,pooling", [
    ({"activation_function": "torch.nn.modules.activation.ReLU"}, None),
    ({}, {"pooling_mode": "max"}),
    ({}, {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}),
    ({}, {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}),
])
def test_modules_the_library_applies_give_its_vectors(tiny_bert, tmp_path, cfg, pooling):
    """Activations, pooling modes and combined modes drbench's own pooling has not: the library's
    modules apply them, so the vectors are the library's."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from bench.encoding.encoder import Encoder
    from tests.conftest import add_dense

    if pooling and pooling.get("pooling_mode_mean_tokens"):  # two modes: 64 wide, no Dense of 32 inputs after it
        folder = tmp_path / "m"
        shutil.copytree(tiny_bert, folder)
    else:
        folder = add_dense(tmp_path / "m", tiny_bert)
        dense = folder / "2_Dense" / "config.json"
        dense.write_text(json.dumps({**json.loads(dense.read_text()), **cfg}))
    if pooling:
        path = folder / "1_Pooling" / "config.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **pooling}))
    texts = ["a short query", "a somewhat longer passage about dense retrieval and its vectors"]
    ours = Encoder(spec_from_folder(folder), "passage", progress=False).encode(texts)
    theirs = SentenceTransformer(str(folder), device="cpu", local_files_only=True).encode(texts, convert_to_numpy=True)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_dense_weights_that_do_not_fit_the_config_are_refused(tiny_bert, tmp_path):
    import torch
    from safetensors.torch import save_file

    from tests.conftest import add_dense

    folder = add_dense(tmp_path / "m", tiny_bert, bias=True)
    save_file({"linear.weight": torch.zeros(16, 32)}, str(folder / "2_Dense" / "model.safetensors"))  # no bias
    with pytest.raises(ResourceError, match=r"sentence-transformers cannot load this folder .*linear.bias"):
        spec_from_folder(folder)


def test_training_refuses_a_model_with_dense_modules(tiny_bert, tmp_path):
    from bench.models.loading import load_backbone
    from tests.conftest import add_dense

    spec = spec_from_folder(add_dense(tmp_path / "m", tiny_bert))
    with pytest.raises(BenchError, match=r"module\(s\) drbench's training does not keep \(Dense:2_Dense\)"):
        load_backbone(spec)
