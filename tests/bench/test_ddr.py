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
    cfg = MLMConfig(batch_size=4, lr=1e-3, max_steps=3, save_every=1, head_warmup_max_steps=4,
                    head_warmup_check_every=2, probe_texts=4)
    out = tmp_path / "dam"
    rec = adapt_backbone(spec, texts, cfg, out, seed=0, progress=False)
    assert rec["complete"] and rec["log"]["steps"] == 3 and rec["mlm_head"].startswith("initialised")
    assert rec["masking"] == {"probability": 0.15, "mask": 0.8, "random": 0.1, "keep": 0.1,
                              "excluded": "special tokens and padding"}
    src, got = _tensors(tiny_bert), _tensors(out)
    assert set(got) == set(src)  # the plain encoder, pooler included, no MLM head (that is in mlm_head.safetensors)
    assert any(not np.array_equal(src[k], got[k]) for k in src)
    new = resolve_model(str(out))
    assert (new.pooling, new.normalize) == (spec.pooling, spec.normalize)
    # resumable: stopping after one step then resuming gives the same weights
    part = adapt_backbone(spec, texts, cfg, tmp_path / "dam2", seed=0, progress=False, stop_after=1)
    assert not part["complete"]
    adapt_backbone(spec, texts, cfg, tmp_path / "dam2", seed=0, progress=False)
    again = _tensors(tmp_path / "dam2")
    assert all(np.array_equal(got[k], again[k]) for k in got)


# --------------------------------------------------------------------------------------------
# MLM head: the selected-positions loss, the warm-up, sequential initialisation (issue 15, items 4-5)

TEXTS = [f"heat transfer in slab number {i} at high mach numbers and boundary layers" for i in range(12)]


def _masked_lm(folder, seed=0):
    from bench.models.loading import load_masked_lm

    torch.manual_seed(seed)
    model, tok, _ = load_masked_lm(folder)
    return model, tok


def _batch(tok, texts, seed):
    special_ids = tok(texts, padding=True, return_tensors="pt", return_special_tokens_mask=True)
    special = special_ids["special_tokens_mask"].bool() | (special_ids["attention_mask"] == 0)
    inputs, labels = mask_tokens(special_ids["input_ids"], special, tok.mask_token_id, len(tok),
                                 torch.Generator().manual_seed(seed), mlm_probability=0.3)
    return inputs, special_ids["attention_mask"], labels


def test_selected_position_loss_equals_the_library_loss(tiny_bert):
    """The head runs on the masked positions only; the loss must be the library's full-sequence one."""
    from bench.training.mlm_head import mlm_loss

    model, tok = _masked_lm(tiny_bert)
    model.eval()
    inputs, attn, labels = _batch(tok, TEXTS[:5], 3)
    assert (labels != -100).sum() > 3
    with torch.no_grad():
        ours = float(mlm_loss(model, inputs, attn, labels))
        ref = float(model(input_ids=inputs, attention_mask=attn, labels=labels).loss)
    assert ours == pytest.approx(ref, rel=1e-5)


def test_head_warmup_trains_the_head_only_and_beats_ln_v(tiny_bert):
    """A fresh head (tiny BERT has none) starts at about ln V; the warm-up must bring the probe loss
    below ln V while leaving every encoder tensor, the tied word embeddings included, unchanged."""
    import math

    from bench.training.mlm_head import Probe, base_of, head_state, warm_up_head

    model, tok = _masked_lm(tiny_bert)
    enc_before = {k: v.clone() for k, v in base_of(model).state_dict().items()}
    head_before = head_state(model)
    probe = Probe(TEXTS, lambda t, s: _batch(tok, t, s), 8, 4, seed=0)
    rec, before, after = warm_up_head(model, probe, lambda step: _batch(tok, TEXTS[step % 3 * 4:][:4], 100 + step),
                                      vocab_size=len(tok), lr=2e-2, max_steps=30, target=0.5, check_every=10,
                                      weight_decay=0.0, grad_clip=1.0, seed=0)
    ln_v = math.log(len(tok))
    assert before > 0.9 * ln_v  # a random head is no better than a near-uniform guess
    assert after < ln_v and after < before - 1.0
    assert rec["steps"] >= 10
    assert rec["stopped"] in ("target reached", "step cap") or rec["stopped"].startswith("plateau")
    assert rec["checks"][-1]["probe_loss"] == after
    enc_after = base_of(model).state_dict()
    assert all(torch.equal(enc_before[k], enc_after[k]) for k in enc_before)
    head_after = head_state(model)
    assert any(not torch.equal(head_before[k], head_after[k]) for k in head_before)
    # a head already below the target is left alone
    rec2, b2, a2 = warm_up_head(model, probe, lambda step: _batch(tok, TEXTS[:4], step), vocab_size=len(tok),
                                lr=1e-2, max_steps=60, target=1.0, check_every=10, weight_decay=0.0, grad_clip=1.0,
                                seed=0)
    assert rec2["stopped"].startswith("not needed") and rec2["steps"] == 0 and a2 == b2 == pytest.approx(after)
    # the cap: the last step's check may stop on the target but is no plateau judgement
    fresh, _ = _masked_lm(tiny_bert, seed=1)
    rec3, _, _ = warm_up_head(fresh, probe, lambda step: _batch(tok, TEXTS[:4], step), vocab_size=len(tok),
                              lr=1e-9, max_steps=3, target=0.5, check_every=25, weight_decay=0.0, grad_clip=1.0,
                              seed=0)
    assert rec3["stopped"] == "step cap" and rec3["steps"] == 3 and [c["step"] for c in rec3["checks"]] == [3]


def test_adapt_records_the_mlm_losses_and_warmup(tiny_bert, tmp_path):
    import math

    from bench.models.spec import spec_from_folder

    spec = spec_from_folder(tiny_bert, name="tiny")
    cfg = MLMConfig(batch_size=4, lr=1e-3, max_steps=3, head_warmup_lr=1e-2, head_warmup_max_steps=20,
                    head_warmup_check_every=5, probe_texts=8)
    notes = []
    rec = adapt_backbone(spec, TEXTS, cfg, tmp_path / "dam", seed=0, progress=False, role="source",
                         notify=notes.append)
    loss = rec["mlm_loss"]
    assert loss["ln_vocab"] == pytest.approx(math.log(30522))
    assert loss["after_warmup"] < loss["initial"] and loss["after_warmup"] < loss["ln_vocab"]
    assert loss["final"] is not None and rec["head_warmup"]["steps"] > 0
    assert any("no pretrained MLM head" in n and "DDR-2" in n for n in notes)
    assert any(n.startswith("source DAM: MLM head warm-up:") for n in notes)
    # same inputs and seed: the same record numbers and the same bytes
    again = adapt_backbone(spec, TEXTS, cfg, tmp_path / "dam2", seed=0, progress=False, role="source")
    assert again["mlm_loss"] == loss and again["head_warmup"] == rec["head_warmup"]
    for name in ("model.safetensors", "mlm_head.safetensors"):
        assert (tmp_path / "dam" / name).read_bytes() == (tmp_path / "dam2" / name).read_bytes()


def test_target_dam_starts_from_the_source_dam(tiny_bert, tmp_path):
    """Sequential initialisation: at learning rate 0 the target DAM must come out with exactly the
    source DAM's encoder and head tensors (not the original model's), and say where it started."""
    from bench.models.spec import model_fingerprint, spec_from_folder

    spec = spec_from_folder(tiny_bert, name="tiny")
    src_cfg = MLMConfig(batch_size=4, lr=5e-3, max_steps=3, head_warmup_lr=1e-2, head_warmup_max_steps=10,
                        head_warmup_check_every=5, probe_texts=8)
    adapt_backbone(spec, TEXTS, src_cfg, tmp_path / "src", seed=0, progress=False, role="source")
    src_spec = spec_from_folder(tmp_path / "src", name="tiny:DAM-source")
    tgt_cfg = MLMConfig(batch_size=2, lr=0.0, max_steps=2, head_warmup_lr=1.0, probe_texts=4)
    target_texts = ["cavitation on pump impellers", "fatigue cracks in rotor blades", "diesel injector spray"]
    rec = adapt_backbone(src_spec, target_texts, tgt_cfg, tmp_path / "tgt", seed=1, progress=False)
    orig, src, tgt = _tensors(tiny_bert), _tensors(tmp_path / "src"), _tensors(tmp_path / "tgt")
    assert all(np.array_equal(src[k], tgt[k]) for k in src)
    assert any(not np.array_equal(orig[k], tgt[k]) for k in orig)
    from safetensors.numpy import load_file

    h_src, h_tgt = (load_file(str(tmp_path / d / "mlm_head.safetensors")) for d in ("src", "tgt"))
    assert h_src.keys() == h_tgt.keys() and all(np.array_equal(h_src[k], h_tgt[k]) for k in h_src)
    assert rec["mlm_head"].startswith("the source DAM's")
    assert rec["head_warmup"]["steps"] == 0 and rec["head_warmup"]["stopped"].startswith("not needed (the head is trained")
    assert rec["init"]["fingerprint"] == model_fingerprint(src_spec) != model_fingerprint(spec)


def test_warmup_options_are_checked():
    with pytest.raises(BenchError, match="head-warmup-target"):
        MLMConfig(head_warmup_target=1.5).validate()
    with pytest.raises(BenchError, match="head-warmup-steps"):
        MLMConfig(head_warmup_max_steps=-1).validate()
