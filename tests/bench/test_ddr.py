"""DDR: MLM masking as written (15%; 80/10/10), backbone adaptation, checkpoints."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from bench.training.ddr import MLMConfig, adapt_backbone, mask_tokens  # noqa: E402
from bench.core.errors import BenchError  # noqa: E402


def test_masking_ratios():
    n, length, mask_id, vocab = 400, 250, 103, 30522
    ids = torch.randint(1000, 2000, (n, length), generator=torch.Generator().manual_seed(1))
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = True
    special[:, -5:] = True  # padding / [SEP]
    g = torch.Generator().manual_seed(0)
    inputs, labels = mask_tokens(ids, special, mask_id, vocab, g)
    selected = labels != -100
    eligible = (~special).sum().item()
    assert selected.sum().item() / eligible == pytest.approx(0.15, abs=0.005)
    assert not selected[special].any()  # special tokens and padding are never selected
    assert torch.equal(labels[selected], ids[selected])  # labels are the original tokens
    sel_inputs, sel_orig = inputs[selected], ids[selected]
    k = selected.sum().item()
    masked = (sel_inputs == mask_id).sum().item() / k
    kept = (sel_inputs == sel_orig).sum().item() / k
    rand = 1 - masked - kept
    assert masked == pytest.approx(0.8, abs=0.01)
    assert kept == pytest.approx(0.1, abs=0.01)  # (a random token equal to the original counts as kept: ~1/30522)
    assert rand == pytest.approx(0.1, abs=0.01)
    assert torch.equal(inputs[~selected], ids[~selected])  # unselected tokens are untouched
    assert ids.min() >= 1000  # the input tensor itself was not modified


def test_masking_is_seeded():
    ids = torch.randint(1000, 2000, (8, 30), generator=torch.Generator().manual_seed(1))
    special = torch.zeros_like(ids, dtype=torch.bool)
    a = mask_tokens(ids, special, 103, 30522, torch.Generator().manual_seed(5))
    b = mask_tokens(ids, special, 103, 30522, torch.Generator().manual_seed(5))
    assert all(torch.equal(x, y) for x, y in zip(a, b))


def test_bad_ratios_are_refused():
    with pytest.raises(BenchError):
        MLMConfig(mask_ratio=0.9, random_ratio=0.2).validate()


def _tensors(folder):
    from safetensors.numpy import load_file

    return load_file(str(folder / "model.safetensors"))


def test_adapt_backbone_writes_an_adapted_encoder(tiny_bert, tmp_path):
    from bench.models.spec import resolve_model, spec_from_folder

    spec = spec_from_folder(tiny_bert, name="tiny")
    texts = [f"heat transfer in slab number {i} at high mach numbers and boundary layers" for i in range(12)]
    cfg = MLMConfig(batch_size=4, lr=1e-3, max_steps=3, save_every=1)
    out = tmp_path / "dam"
    rec = adapt_backbone(spec, texts, cfg, out, seed=0, progress=False)
    assert rec["complete"] and rec["log"]["steps"] == 3 and rec["mlm_head"].startswith("initialised")
    assert rec["masking"] == {"probability": 0.15, "mask": 0.8, "random": 0.1, "keep": 0.1,
                              "excluded": "special tokens and padding"}
    src, got = _tensors(tiny_bert), _tensors(out)
    assert set(got) == set(src)  # the plain encoder, pooler included, no MLM head
    assert any(not np.array_equal(src[k], got[k]) for k in src)
    new = resolve_model(str(out))
    assert (new.pooling, new.normalize) == (spec.pooling, spec.normalize)
    # resumable: stopping after one step then resuming gives the same weights
    part = adapt_backbone(spec, texts, cfg, tmp_path / "dam2", seed=0, progress=False, stop_after=1)
    assert not part["complete"]
    adapt_backbone(spec, texts, cfg, tmp_path / "dam2", seed=0, progress=False)
    again = _tensors(tmp_path / "dam2")
    assert all(np.array_equal(got[k], again[k]) for k in got)
