"""Issue 17, usage errors: lengths, batch size and top-k are refused before any work starts."""
from __future__ import annotations

import json

import pytest

from bench.cli.main import main
from bench.core.errors import BenchError
from bench.models.spec import ModelSpec


def _config_folder(tmp_path, **cfg):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def test_max_query_length_above_position_limit_is_refused(tmp_path):
    spec = ModelSpec(name="b", path=str(_config_folder(tmp_path, model_type="bert", max_position_embeddings=512)))
    with pytest.raises(BenchError, match=r"--max-query-length 1000 exceeds .* 512 tokens.*Fix: give --max-query-length 512"):
        spec.with_overrides(max_query_length=1000)
    assert spec.with_overrides(max_query_length=512).max_query_length == 512


def test_roberta_position_limit_excludes_the_padding_offset(tmp_path):
    spec = ModelSpec(name="r", path=str(_config_folder(tmp_path, model_type="roberta", max_position_embeddings=514,
                                                       pad_token_id=1)))
    with pytest.raises(BenchError, match="limit of 512"):
        spec.with_overrides(max_passage_length=513)


@pytest.mark.parametrize("value", ["0", "-5"])
def test_zero_or_negative_max_length_is_a_usage_error(value, tiny_bert, beir_dir, capsys):
    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--no-progress",
               "--max-passage-length", value, "--out", str(beir_dir.parent / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert f"--max-passage-length {value}" in err and "no truncation" in err
    assert not (beir_dir.parent / "run").exists()


def test_max_length_over_the_tiny_model_limit_via_cli(tiny_bert, beir_dir, capsys):
    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--max-query-length", "1000",
               "--out", str(beir_dir.parent / "run")])
    assert rc == 2 and "limit of 128 tokens" in capsys.readouterr().err


def test_spec_file_with_zero_length_is_refused():
    with pytest.raises(BenchError, match="max_passage_length must be a whole number"):
        ModelSpec(name="x", max_passage_length=0)


@pytest.mark.parametrize("flag", ["--batch-size", "--top-k"])
def test_batch_size_and_top_k_zero_are_usage_errors(flag, beir_dir, capsys):
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), flag, "0",
               "--out", str(beir_dir.parent / "run")])
    assert rc == 2 and f"{flag} 0: must be at least 1" in capsys.readouterr().err


def test_train_batch_size_zero_is_a_usage_error(beir_dir, capsys):
    rc = main(["train", "--model", "bm25", "--dataset", str(beir_dir), "--batch-size", "0",
               "--out", str(beir_dir.parent / "ck")])
    assert rc == 2 and "--batch-size 0" in capsys.readouterr().err


@pytest.mark.parametrize("flag,value,says", [
    ("--lr", "0", "a learning rate must be > 0"), ("--lr", "-1", "a learning rate must be > 0"),
    ("--temperature", "0", "must be > 0"), ("--warmup-ratio", "2", "0 <= x < 1"),
    ("--weight-decay", "-1", "must be >= 0"), ("--save-every", "-1", "must be >= 0"),
    ("--negative-depth", "0", "at least 1"), ("--max-steps", "0", "at least 1"),
])
def test_train_numeric_options_are_checked_before_training(beir_dir, capsys, flag, value, says):
    """--lr -1 ended in torch's ValueError traceback; --lr 0, --temperature 0 (NaN loss), --warmup-ratio 2
    and --save-every 0 trained without a word."""
    rc = main(["train", "--model", "bm25", "--dataset", str(beir_dir), flag, value, "--out", str(beir_dir.parent / "ck")])
    err = capsys.readouterr().err
    assert rc == 2 and f"{flag} {float(value) if flag in ('--lr', '--temperature', '--warmup-ratio', '--weight-decay') else value}" in err and says in err, err
    assert not (beir_dir.parent / "ck").exists()
