"""The Marian back-translation path, end to end, on a tiny randomly initialised MarianMT model
built here (real opus-mt weights cannot be downloaded on this machine). It checks the local
loading (folders, never the hub), batching, labels and determinism, not translation quality."""
from __future__ import annotations

import json

import pytest

from bench.core.seeding import rng_for

spm = pytest.importorskip("sentencepiece", reason="sentencepiece is needed by MarianTokenizer")


@pytest.fixture(scope="module")
def tiny_marian(tmp_path_factory, cranfield):
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder = tmp_path_factory.mktemp("tiny-marian")
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(t for _, t in cranfield), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "sp"), vocab_size=300,
                                   model_type="unigram", bos_id=-1, eos_id=-1, unk_id=0, pad_id=-1,
                                   minloglevel=2)
    proc = spm.SentencePieceProcessor(model_file=str(folder / "sp.model"))
    vocab = {"</s>": 0, "<unk>": 1, "<pad>": 2}
    for i in range(proc.get_piece_size()):
        vocab.setdefault(proc.id_to_piece(i), len(vocab))
    model_dir = folder / "model"
    model_dir.mkdir()
    for name in ("source.spm", "target.spm"):
        (model_dir / name).write_bytes((folder / "sp.model").read_bytes())
    (model_dir / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tok = MarianTokenizer(str(model_dir / "source.spm"), str(model_dir / "target.spm"), str(model_dir / "vocab.json"))
    tok.save_pretrained(str(model_dir))
    torch.manual_seed(0)
    cfg = MarianConfig(vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1,
                       encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                       max_position_embeddings=64, pad_token_id=2, eos_token_id=0, decoder_start_token_id=2,
                       forced_eos_token_id=0)
    MarianMTModel(cfg).save_pretrained(str(model_dir))
    return model_dir


@pytest.mark.slow
def test_marian_backend_from_local_folders(tiny_marian, monkeypatch, cranfield):
    from perturb.generators.backtrans.generator import BackTranslate

    monkeypatch.setenv("DRBENCH_MARIAN_EN_DE", str(tiny_marian))
    monkeypatch.setenv("DRBENCH_MARIAN_DE_EN", str(tiny_marian))
    gen = BackTranslate(max_length=12)  # default backend: Marian, because its weights are local
    gen.check()
    assert gen.label == "BACKTRANS[deu,marian]"
    assert gen.config()["backend"] == "marian" and gen.config()["local_paths"] == [str(tiny_marian)] * 2
    items = cranfield[:6] + [("e", "")]
    a = gen.perturb_batch(items, 0)
    b = gen.perturb_batch(list(reversed(items)), 0)
    assert a == list(reversed(b))
    assert not a[-1].applied
    for (qid, text), p in zip(items, a):
        assert p.applied == (p.text != text)
        assert p == gen.perturb(text, rng_for(0, "BACKTRANS", qid)) or p.text == gen.perturb(text, None).text


def test_marian_explicit_backend_missing_weights(tmp_path):
    from perturb.generators.backtrans.generator import BackTranslate
    from perturb.base import ResourceMissing

    gen = BackTranslate(backend="marian", en_pivot=str(tmp_path / "no"), pivot_en=str(tmp_path / "no"))
    assert gen.label == "BACKTRANS[deu,marian]"
    with pytest.raises(ResourceMissing) as exc:
        gen.check()
    assert "opus-mt-en-de" in str(exc.value)
