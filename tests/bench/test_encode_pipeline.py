"""The corpus-encoding pipeline (tokenise once, feeder thread) writes the bits the per-batch
tokenizer path wrote; the runtime options keep the reference (cpu, torch) keys unchanged."""
import dataclasses

import numpy as np
import pytest

from bench.core.errors import BenchError, ResourceError
from bench.core.io import sha256_hex
from bench.encoding import runtime
from bench.encoding.encoder import Encoder
from bench.encoding.pipeline import feed_batches, pad_batch, tokenise_all
from bench.models.spec import encoder_key, resolve_model

TEXTS = ["the cat sat on the mat", "a", "boundary layer flow over a flat plate at high mach numbers " * 6,
         "", "heat transfer", "shock waves and shock wave boundary layer interaction in supersonic flow",
         "naca airfoil lift"] * 11


def _old_encode_into(enc, texts):
    """The path before the pipeline: a length pass, then every batch tokenised again."""
    out = np.empty((len(texts), enc.dim), dtype=np.float32)
    order = enc.length_order(texts)
    for start in range(0, len(order), enc.batch_size):
        idx = np.sort(order[start:start + enc.batch_size])
        out[idx] = enc.encode_batch([texts[i] for i in idx])
    return out


@pytest.mark.parametrize("batch_size", [1, 8, 64])
def test_pipeline_vectors_are_the_bits_of_per_batch_tokenisation(tiny_bert, batch_size):
    spec = resolve_model(str(tiny_bert))
    enc = Encoder(spec, "passage", batch_size=batch_size, progress=False)
    new = np.empty((len(TEXTS), enc.dim), dtype=np.float32)
    enc.encode_into(TEXTS, new)
    old = _old_encode_into(Encoder(spec, "passage", batch_size=batch_size, progress=False, shared=enc), TEXTS)
    assert new.tobytes() == old.tobytes()


@pytest.mark.parametrize("side", ["right", "left"])
def test_padded_batch_equals_the_tokenizer_call(tiny_bert, side):
    enc = Encoder(resolve_model(str(tiny_bert)), "passage", progress=False)
    _, tok = enc.load()
    tok.padding_side = side
    try:
        ids = tokenise_all(tok, TEXTS, 16)
        rows = np.array([2, 0, 1, 5])
        ours = pad_batch(tok, ids, rows)
        ref = tok([TEXTS[i] for i in rows], padding=True, truncation=True, max_length=16, return_tensors="pt")
        assert sorted(ours) == sorted(ref.keys())
        for k in ref.keys():
            assert ours[k].dtype == ref[k].dtype and ours[k].tolist() == ref[k].tolist(), k
    finally:
        tok.padding_side = "right"


def test_feeder_covers_every_row_once_and_forwards_errors(tiny_bert):
    enc = Encoder(resolve_model(str(tiny_bert)), "passage", progress=False)
    _, tok = enc.load()
    ids = tokenise_all(tok, TEXTS, 64)
    order = np.argsort(-ids.lengths, kind="stable")
    seen = np.concatenate([rows for rows, _ in feed_batches(tok, ids, order, 10, ahead=2)])
    assert sorted(seen.tolist()) == list(range(len(TEXTS)))
    it = feed_batches(tok, ids, order, 10, ahead=1)
    next(it)
    it.close()  # an abandoned iterator stops its thread
    with pytest.raises(IndexError):
        list(feed_batches(tok, ids, np.array([len(TEXTS) + 5]), 4))


def test_reference_runtime_keeps_the_keys_of_before(tiny_bert):
    spec = resolve_model(str(tiny_bert))
    enc = Encoder(spec, "passage", batch_size=64, progress=False)
    assert enc.key == sha256_hex(encoder_key(spec, enc.weights_fp, "passage"), "batching-v2", "64")
    assert runtime.key_parts("cpu", "torch") == [] and runtime.record(spec) is None
    assert "device" not in spec.portable_dict() and "backend" not in spec.portable_dict()
    applied = runtime.apply(spec, "cpu", None, "torch")
    assert applied == spec
    half = runtime.apply(spec, "cpu", "bfloat16", "torch")
    assert Encoder(half, "passage", progress=False).key != enc.key
    assert runtime.record(half) is None  # cpu + torch: the dtype is in model.spec.dtype


def test_device_names_are_checked():
    assert runtime.resolve_device("cpu") == "cpu"
    for bad in ("gpu", "cuda:x", "tpu"):
        with pytest.raises(BenchError, match="--device"):
            runtime.resolve_device(bad)
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        assert runtime.resolve_device("auto") in ("cpu", "mps")
        with pytest.raises(ResourceError, match="no CUDA GPU"):
            runtime.resolve_device("cuda")


def test_onnx_backend_refuses_a_gpu_or_half_precision(tiny_bert):
    spec = resolve_model(str(tiny_bert))
    with pytest.raises(BenchError, match="float32"):
        runtime.apply(spec, "cpu", "float16", "onnx")
    with pytest.raises(BenchError, match="--backend"):
        runtime.apply(spec, "cpu", None, "tensorrt")


def _cuda():
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


@pytest.mark.skipif(not _cuda(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_cuda_encoding_is_keyed_recorded_and_close_to_cpu(tiny_bert, dtype):
    spec = resolve_model(str(tiny_bert))
    cpu = Encoder(spec, "passage", progress=False).encode(TEXTS)
    gspec = runtime.apply(spec, "cuda", dtype, "torch")
    genc = Encoder(gspec, "passage", progress=False)
    gpu = genc.encode(TEXTS)
    assert genc.key != Encoder(spec, "passage", progress=False).key
    rec = runtime.record(gspec)
    assert rec["device"] == "cuda" and rec["dtype"] == dtype
    tol = 1e-4 if dtype == "float32" else 3e-2
    assert np.abs(gpu - cpu).max() < tol
    again = np.empty_like(gpu)
    Encoder(gspec, "passage", progress=False, shared=genc).encode_into(TEXTS, again)
    assert again.tobytes() == gpu.tobytes()  # the same device class: the same bits
