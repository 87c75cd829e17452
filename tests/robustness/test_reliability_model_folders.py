"""Issue 25, cases 8 and 9: module dimensions and tokenizer files are checked when a folder is read."""
from __future__ import annotations

import json
import shutil

import pytest

from bench.cli.main import main
from bench.core.errors import ResourceError
from bench.models.spec import spec_from_folder
from tests.conftest import add_dense


def test_a_dense_module_whose_in_features_do_not_match_is_refused_when_the_folder_is_read(tiny_bert, tmp_path):
    folder = add_dense(tmp_path / "dense", tiny_bert)
    cfg_path = folder / "2_Dense" / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["in_features"] = 48  # the backbone is 32 wide
    cfg_path.write_text(json.dumps(cfg))
    with pytest.raises(ResourceError, match=r"sentence-transformers cannot load this folder .*size mismatch"):
        spec_from_folder(folder)


def test_a_second_dense_is_checked_against_the_first(tiny_bert, tmp_path):
    folder = add_dense(tmp_path / "d1", tiny_bert, out_features=16)
    # add_dense puts the new module (3_Dense: 32 -> 8) before 2_Dense (32 -> 16), which then gets 8 inputs
    folder2 = add_dense(tmp_path / "d2", folder, out_features=8, rel="3_Dense")
    with pytest.raises(ResourceError, match=r"the modules after the Transformer .*Dense:3_Dense, Dense:2_Dense.* cannot "
                                            r"be applied to the encoder's 32-dimensional vectors"):
        spec_from_folder(folder2)


def test_matching_dense_modules_are_accepted(tiny_bert, tmp_path):
    spec = spec_from_folder(add_dense(tmp_path / "ok", tiny_bert))
    assert spec.modules == ("Pooling:1_Pooling", "Dense:2_Dense", "Normalize:3_Normalize")


def test_a_pooling_dimension_that_does_not_match_is_refused(tiny_bert, tmp_path):
    folder = tmp_path / "pool"
    shutil.copytree(tiny_bert, folder)
    cfg = json.loads((folder / "1_Pooling" / "config.json").read_text())
    cfg["word_embedding_dimension"] = 384
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ResourceError, match=r"1_Pooling/config.json: the Pooling module expects 384-dimensional token "
                                            r"vectors, but the encoder's hidden size is 32"):
        spec_from_folder(folder)


def test_a_folder_without_tokenizer_files_is_a_clear_error_before_loading(tiny_bert, beir_dir, tmp_path, capsys):
    folder = tmp_path / "notok"
    shutil.copytree(tiny_bert, folder)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (folder / name).unlink()
    rc = main(["evaluate", "--model", str(folder), "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
               "--no-progress", "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "no tokenizer files" in err and "Traceback" not in err and "stat: path" not in err
