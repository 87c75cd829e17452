"""Parameter-efficient modules (bench.tuning.adapters): parallel adapters, IAA, REM, LoRA on the tiny BERT."""
import copy
import json

import pytest
import torch

from bench.tuning.adapters import attach, load_method_state, load_tuned, merge_lora, method_state, save_tuned, tuning_info
from bench.tuning.plans import ATTACHABLE, CONTAINER, OWN_METHODS, describe, plan_for
from bench.core.errors import BenchError
from bench.tuning.config import TuningConfig

NEW = ["parallel-adapter", "iaa-s", "iaa-l", "iaa-m", "rem"]
# (method, iaa_inside): every new method, IAA with both kinds of inside modules
VARIANTS = [("parallel-adapter", "adapter"), ("rem", "adapter")] + [
    (m, inside) for m in ("iaa-s", "iaa-l", "iaa-m") for inside in ("adapter", "lora")]
TEXTS = ["what is the lift of a wing", "heat", "a much longer question about boundary layers in supersonic flow"]


@pytest.fixture(scope="module")
def backbone_a(tiny_bert):
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(tiny_bert)).eval()


@pytest.fixture(scope="module")
def backbone_b(tiny_bert_plain):
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(tiny_bert_plain)).eval()


@pytest.fixture(scope="module")
def batch(tiny_bert):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_bert))
    return dict(tok(TEXTS, padding=True, return_tensors="pt"))


def hidden(model, batch):
    model.eval()
    with torch.no_grad():
        return model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state


def perturb(model, seed=0, std=0.2):
    """Random values in every method parameter (stands in for training)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            if p.requires_grad:
                p.add_(torch.randn(p.shape, generator=g) * std)


def cfg_for(inside="adapter", **kw):
    return TuningConfig(iaa_inside=inside, **kw)


@pytest.mark.parametrize("method,inside", VARIANTS)
def test_untrained_equals_backbone_and_only_method_trains(backbone_a, batch, method, inside):
    ref = hidden(backbone_a, batch)
    plain = copy.deepcopy(backbone_a)
    model = attach(plain, method, cfg_for(inside), seed=0)
    if method.startswith("iaa-"):  # the asides' skip connections change the function from the start
        skips = attach(copy.deepcopy(backbone_a), method, cfg_for(inside, iaa_budget=0.0), seed=0)
        assert torch.equal(hidden(model, batch), hidden(skips, batch))
        assert not torch.equal(hidden(model, batch), ref)
    else:
        assert torch.equal(hidden(model, batch), ref)  # zero-initialised output sides: the checkpoint exactly
    own = {f"{CONTAINER}.{n}" for n in method_state(model)}
    assert {n for n, p in model.named_parameters() if p.requires_grad} == own and own
    # a few optimiser steps: every method tensor moves, every backbone tensor stays bit-identical
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    target = torch.randn(ref.shape, generator=torch.Generator().manual_seed(1))
    model.train()
    for _ in range(3):
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        loss = ((out - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for n, p in model.named_parameters():
        if n in own:
            assert not torch.equal(p.detach(), before[n]), f"method tensor did not train: {n}"
        else:
            assert torch.equal(p.detach(), before[n]), f"backbone tensor changed: {n}"
    assert not torch.equal(hidden(model, batch), ref)
    # attach changed the copy it was given, never the backbone that copy was made from
    assert not hasattr(backbone_a, CONTAINER) and tuning_info(backbone_a) is None
    assert torch.equal(hidden(backbone_a, batch), ref)


@pytest.mark.parametrize("method", ["iaa-s", "iaa-l", "iaa-m"])
@pytest.mark.parametrize("inside", ["adapter", "lora"])
def test_iaa_budget_split_and_reported_counts(backbone_a, method, inside):
    cfg = cfg_for(inside, iaa_budget=0.02, iaa_inside_share=0.25)
    settings = cfg.for_method(method, backbone_a)
    assert set(settings) == {"iaa_budget", "iaa_inside_share", "iaa_inside", "iaa_skip", "architecture"}
    arch = settings["architecture"]
    model = attach(copy.deepcopy(backbone_a), method, cfg, seed=0)
    container = getattr(model, CONTAINER)
    counted = {"inside": 0, "aside": 0}
    for key, mod in container.items():
        counted["aside" if "aside" in key else "inside"] += sum(p.numel() for p in mod.parameters())
    h, n_layers = 32, 2
    n_backbone = sum(p.numel() for p in backbone_a.parameters())
    assert arch["backbone_params"] == n_backbone
    assert arch["inside_params"] == counted["inside"] and arch["aside_params"] == counted["aside"]
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    assert arch["trainable_params"] == trainable == counted["inside"] + counted["aside"]
    assert arch["total_params"] == total and arch["trainable_share"] == pytest.approx(trainable / total)
    budget = round(0.02 * n_backbone)
    assert arch["budget_params"] == budget and arch["inside_budget_params"] == round(0.25 * budget)
    # within rounding: half a width (or rank) step per module
    n_inside = 2 * n_layers
    inside_step = 2 * h + 1 if inside == "adapter" else 2 * h
    n_aside = {"iaa-s": 2 * n_layers, "iaa-l": n_layers, "iaa-m": 1}[method]
    assert abs(counted["inside"] - arch["inside_budget_params"]) <= n_inside * inside_step / 2
    assert abs(counted["aside"] - arch["aside_budget_params"]) <= n_aside * (2 * h + 1) / 2
    assert len([k for k in container if "aside" in k]) == n_aside
    line = describe(method, settings)
    assert f"{trainable:,}" in line and "inside" in line and "aside" in line
    # a larger budget gives wider modules
    wider = plan_for(method, cfg_for(inside, iaa_budget=0.08), backbone_a)
    assert wider["trainable_params"] > 3 * arch["trainable_params"] * 0.9


def test_for_method_keeps_only_relevant_settings(backbone_a):
    cfg = TuningConfig()
    assert cfg.for_method("qry-tune") == {} and cfg.for_method("full-tune", backbone_a) == {}
    assert set(cfg.for_method("parallel-adapter")) == {"parallel_adapter_reduction", "parallel_adapter_scale"}
    assert set(cfg.for_method("rem")) == {"rem_lora_r", "rem_lora_alpha", "rem_adapter_reduction", "rem_adapter_scale"}
    assert set(cfg.for_method("lora", backbone_a)) == {"lora_r", "lora_alpha", "lora_dropout", "lora_targets"}
    rem = cfg.for_method("rem", backbone_a)["architecture"]
    assert [g["name"] for g in rem["groups"]] == ["lora", "parallel_adapter"]
    assert rem["groups"][0]["rank"] == 32 // 4 and rem["groups"][1]["width"] == 32 // 4
    assert rem["groups"][1]["scale"] == 4.0
    with pytest.raises(BenchError, match="iaa-inside"):
        TuningConfig(iaa_inside="prefix").validate(["iaa-s"])
    with pytest.raises(BenchError, match="iaa-budget"):
        TuningConfig(iaa_budget=-0.01).validate(["iaa-m"])
    with pytest.raises(BenchError, match="iaa-budget"):
        TuningConfig(iaa_budget=1.5).validate(["iaa-m"])
    with pytest.raises(BenchError, match="iaa-inside-share"):
        TuningConfig(iaa_inside_share=1.2).validate(["iaa-l"])


def test_parallel_adapter_adds_scaled_bottleneck_of_ffn_input(backbone_a, batch):
    """Eval-mode output of the FFN sub-layer: LayerNorm(dense(intermediate) + s * A(x) + x)."""
    model = attach(copy.deepcopy(backbone_a), "parallel-adapter", TuningConfig(parallel_adapter_scale=3.0), seed=0)
    perturb(model)
    layer = model.encoder.layer[0]
    ad = getattr(model, CONTAINER)["ffn_parallel_0"]
    x = torch.randn(2, 5, 32, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        got = layer.feed_forward_chunk(x)
        a = ad.up(torch.relu(ad.down(x)))
        want = layer.output.LayerNorm(layer.output.dense(layer.intermediate(x)) + 3.0 * a + x)
    torch.testing.assert_close(got, want)


def test_deep_copy_carries_its_own_modules(backbone_a, batch):
    model = attach(copy.deepcopy(backbone_a), "iaa-s", TuningConfig(), seed=0)
    perturb(model)
    ref = hidden(model, batch)
    twin = copy.deepcopy(model)
    assert torch.equal(hidden(twin, batch), ref)
    perturb(twin, seed=5)
    assert not torch.equal(hidden(twin, batch), ref)
    assert torch.equal(hidden(model, batch), ref)  # the original's hooks still use the original's modules


def test_attach_is_deterministic_and_names_are_stable(backbone_a):
    one = method_state(attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=7))
    two = method_state(attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=7))
    other = method_state(attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=8))
    assert list(one) == list(two) and all(torch.equal(one[k], two[k]) for k in one)
    assert any(not torch.equal(one[k], other[k]) for k in one)
    assert "ffn_parallel_0.down.weight" in one and "query_1.lora_A" in one
    assert not any("encoder" in k or "embeddings" in k for k in one)


@pytest.mark.parametrize("method", list(ATTACHABLE))
def test_save_and_load_round_trip(backbone_a, batch, tmp_path, method):
    model = attach(copy.deepcopy(backbone_a), method, TuningConfig(), seed=0)
    perturb(model)
    ref = hidden(model, batch)
    folder = save_tuned(model, tmp_path / "ckpt", backbone="tiny-bert")
    meta = json.loads((folder / "tuning.json").read_text())
    assert meta["method"] == method and meta["backbone"] == "tiny-bert"
    assert sorted(p.name for p in folder.iterdir()) == ["tuning.json", "tuning.safetensors"]  # no temp files left
    loaded = load_tuned(folder, copy.deepcopy(backbone_a))
    assert torch.equal(hidden(loaded, batch), ref)
    assert not any(p.requires_grad for p in loaded.parameters()) and not loaded.training
    assert tuning_info(loaded)["method"] == method
    state = method_state(loaded)
    assert all(torch.equal(state[k], v) for k, v in method_state(model).items())


def test_rem_transplants_to_another_backbone(backbone_a, backbone_b, batch, tmp_path):
    a_rem = attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=0)
    perturb(a_rem)  # "trained" on backbone A
    state = method_state(a_rem)
    save_tuned(a_rem, tmp_path / "rem")
    b_rem = load_tuned(tmp_path / "rem", copy.deepcopy(backbone_b))
    b_ref = attach(copy.deepcopy(backbone_b), "rem", TuningConfig(), seed=99)
    load_method_state(b_ref, state)
    out = hidden(b_rem, batch)
    assert torch.equal(out, hidden(b_ref, batch))
    assert not torch.equal(out, hidden(backbone_b, batch))  # the REM acts
    assert not torch.allclose(out, hidden(a_rem, batch))  # on B's weights, not A's
    b_plain = dict(backbone_b.named_parameters())
    for n, p in b_rem.named_parameters():
        if not n.startswith(CONTAINER + "."):
            assert torch.equal(p, b_plain[n]), f"backbone weight not B's: {n}"


def test_load_method_state_is_strict(backbone_a):
    model = attach(copy.deepcopy(backbone_a), "parallel-adapter", TuningConfig(), seed=0)
    state = method_state(model)
    missing = dict(state)
    missing.pop("ffn_parallel_0.up.bias")
    with pytest.raises(BenchError, match="missing ffn_parallel_0.up.bias"):
        load_method_state(model, missing)
    with pytest.raises(BenchError, match="unexpected extra"):
        load_method_state(model, dict(state, extra=torch.zeros(1)))
    wide = method_state(attach(copy.deepcopy(backbone_a), "parallel-adapter",
                               TuningConfig(parallel_adapter_reduction=4), seed=0))
    with pytest.raises(BenchError, match="shapes"):
        load_method_state(model, wide)
    with pytest.raises(BenchError, match="does not fit"):  # another method's state
        load_method_state(model, method_state(attach(copy.deepcopy(backbone_a), "iaa-s", TuningConfig(), seed=0)))


def test_load_tuned_rejects_another_architecture(backbone_a, tmp_path):
    from transformers import BertConfig, BertModel

    model = attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=0)
    save_tuned(model, tmp_path / "rem")
    torch.manual_seed(0)
    narrow = BertModel(BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=32))
    with pytest.raises(BenchError, match="same architecture"):
        load_tuned(tmp_path / "rem", narrow)
    with pytest.raises(BenchError, match="tuning.json: not found"):
        load_tuned(tmp_path / "nothing", copy.deepcopy(backbone_a))
    with pytest.raises(BenchError, match="already carries"):
        attach(model, "rem", TuningConfig())


def test_merge_lora_equals_unmerged(backbone_a, batch):
    from peft import PeftModel
    from transformers import PreTrainedModel

    model = attach(copy.deepcopy(backbone_a), "lora", TuningConfig(lora_dropout=0.0), seed=0)
    perturb(model)
    unmerged = hidden(model, batch)
    merged = merge_lora(model)
    assert isinstance(merged, PreTrainedModel) and not isinstance(merged, PeftModel)
    assert not any("lora_" in n for n, _ in merged.named_parameters())
    assert type(merged) is type(backbone_a)
    torch.testing.assert_close(hidden(merged, batch), unmerged, atol=1e-5, rtol=0)
    assert not torch.allclose(hidden(merged, batch), hidden(backbone_a, batch), atol=1e-4)  # the delta is in
    assert torch.equal(hidden(model, batch), unmerged)  # the peft model is left as it was
    with pytest.raises(BenchError, match="lora"):
        merge_lora(attach(copy.deepcopy(backbone_a), "rem", TuningConfig(), seed=0))


@pytest.mark.parametrize("method", OWN_METHODS)
def test_unsupported_architecture_is_named(method):
    from transformers import DistilBertConfig, DistilBertModel

    torch.manual_seed(0)
    distil = DistilBertModel(DistilBertConfig(vocab_size=100, dim=16, n_layers=1, n_heads=2, hidden_dim=32))
    with pytest.raises(BenchError, match=r"DistilBertModel is not a supported architecture.*BertModel, RobertaModel"):
        attach(distil, method, TuningConfig())
    with pytest.raises(BenchError, match="adds no modules"):
        attach(distil, "bitfit", TuningConfig())


def test_dual_encoder_settings_record_architecture(tiny_bert):
    from bench.models.spec import spec_from_folder
    from bench.models.loading import load_backbone
    from bench.training.dual import build_dual_encoder, tuned_module

    spec = spec_from_folder(tiny_bert)
    base, tok = load_backbone(spec)
    dual = build_dual_encoder(spec, "iaa-l", base, tok, seed=0)
    arch = dual.settings["architecture"]
    assert dual.tied and dual.parameter_counts() == {"trainable": arch["trainable_params"],
                                                      "total": arch["total_params"]}
    again = build_dual_encoder(spec, "iaa-l", base, tok, seed=0, start=tuned_module(dual))
    assert again.fingerprint() == dual.fingerprint() and again.query_model is not dual.query_model
    assert set(NEW) <= set(__import__("bench.tuning.config", fromlist=["METHODS"]).METHODS)


# --------------------------------------------------------------------------------------------
# issue 15: identity path, the paper's IAA split, Houlsby vs Pfeiffer adapters


def test_hidden_size_zero_module_is_the_identity_path():
    from bench.tuning.modules import module_classes

    C = module_classes()
    x = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(0))
    aside = C["Bottleneck"](8, 8, 0, "gelu", 1.0, "lora", "layer_aside")
    assert list(aside.parameters()) == []
    out = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(1))
    # every hook leaves the wrapped module's output as it is (None = unchanged), bit for bit
    assert aside.post_hook_aside(None, (x,), {}, out) is None
    assert aside.post_hook_output(None, (x,), out) is None
    assert aside.pre_hook_input_tensor(None, (x, out), {}) is None
    assert torch.equal(aside(x), torch.zeros_like(x))
    lora = C["LoRA"](8, 8, 0, 0.0, "query")
    assert list(lora.parameters()) == [] and lora.post_hook_output(None, (x,), out) is None
    # a width-1 module does have parameters and (once trained) changes the output
    one = C["Bottleneck"](8, 8, 1, "gelu", 1.0, "lora", "layer_aside")
    assert sum(p.numel() for p in one.parameters()) == 1 * (2 * 8 + 1) + 8


def _hand_written_skips(backbone, input_ids, variant):
    """The backbone's forward pass written out by hand with IAA's width-0 asides: a plain skip
    from a unit's input to its output, added after the unit's own residual + LayerNorm, around
    every sub-layer ("s"), every layer ("l") or the whole encoder ("m"). One unpadded text, so
    no attention mask is needed."""
    with torch.no_grad():
        e = backbone.embeddings(input_ids=input_ids)
        x = e
        for layer in backbone.encoder.layer:
            a = layer.attention(x)
            y = a[0] if isinstance(a, tuple) else a
            if variant == "s":
                y = y + x
            z = layer.output(layer.intermediate(y), y)
            if variant == "s":
                z = z + y
            x = z + x if variant == "l" else z
        return x + e if variant == "m" else x


@pytest.mark.parametrize("inside", ["adapter", "lora"])
def test_iaa_width_zero_is_the_skip_connection_and_three_models(backbone_a, tiny_bert, inside):
    from transformers import AutoTokenizer

    ids = AutoTokenizer.from_pretrained(str(tiny_bert))([TEXTS[2]], return_tensors="pt")["input_ids"]
    cfg = cfg_for(inside, iaa_budget=0.0, iaa_skip="after-ln")  # every placement: test_iaa_skip_placements_...
    outs = {}
    for method in ("iaa-s", "iaa-l", "iaa-m"):
        arch = plan_for(method, cfg, backbone_a)
        assert arch["trainable_params"] == 0 and all(g.get("width", g.get("rank")) == 0 for g in arch["groups"])
        model = attach(copy.deepcopy(backbone_a), method, cfg, seed=0).eval()
        assert not any(p.requires_grad for p in model.parameters())
        with torch.no_grad():
            outs[method] = model(input_ids=ids).last_hidden_state
        # the tuned model is the hand-written skip-connected backbone, to float rounding
        assert torch.allclose(outs[method], _hand_written_skips(backbone_a, ids, method[-1]), atol=1e-5)
    with torch.no_grad():
        plain = backbone_a(input_ids=ids).last_hidden_state
    # width 0 is three different models, none of them the backbone (RQ4 of the paper)
    pairs = [("iaa-s", "iaa-l"), ("iaa-s", "iaa-m"), ("iaa-l", "iaa-m")]
    assert all((outs[a] - outs[b]).abs().max() > 1e-2 for a, b in pairs)
    assert all((o - plain).abs().max() > 1e-2 for o in outs.values())


def test_aside_with_width_adds_skip_and_bottleneck():
    from bench.tuning.modules import module_classes

    C = module_classes()
    x = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(0))
    out = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(1))
    aside = C["Bottleneck"](8, 8, 2, "gelu", 1.0, "lora", "layer_aside", skip=True)
    with torch.no_grad():
        aside.up.weight.normal_(generator=torch.Generator().manual_seed(2))
    got = aside.post_hook_aside(None, (x,), {}, out)
    assert torch.allclose(got, out + x + aside(x))
    bare = C["Bottleneck"](8, 8, 0, "gelu", 1.0, "lora", "layer_aside", skip=True)
    assert torch.equal(bare.post_hook_aside(None, (x,), {}, out), out + x)


@pytest.mark.parametrize("inside", ["adapter", "lora"])
def test_iaa_inside_share_end_points(backbone_a, batch, inside):
    only_inside = plan_for("iaa-l", cfg_for(inside, iaa_inside_share=1.0), backbone_a)
    only_aside = plan_for("iaa-l", cfg_for(inside, iaa_inside_share=0.0), backbone_a)
    assert only_inside["aside_params"] == 0 and only_inside["inside_params"] > 0
    assert only_aside["inside_params"] == 0 and only_aside["aside_params"] > 0
    # share 1: the asides are plain skip connections (no parameters) beside the inside modules
    model = attach(copy.deepcopy(backbone_a), "iaa-l", cfg_for(inside, iaa_inside_share=1.0), seed=0)
    container = getattr(model, CONTAINER)
    assert all(sum(p.numel() for p in container[k].parameters()) == 0 and container[k].skip
               for k in container if "aside" in k)
    skips_only = attach(copy.deepcopy(backbone_a), "iaa-l", cfg_for(inside, iaa_budget=0.0), seed=0)
    assert torch.equal(hidden(model, batch), hidden(skips_only, batch))  # untrained inside: the skips alone
    perturb(model)
    assert not torch.equal(hidden(model, batch), hidden(skips_only, batch))


@pytest.mark.parametrize("inside", ["adapter", "lora"])
@pytest.mark.parametrize("budget", [0.005, 0.01, 0.05])
def test_iaa_paper_split_one_width_and_smaller_inside_for_more_asides(backbone_a, inside, budget):
    h, n_layers = 32, 2
    n_backbone = sum(p.numel() for p in backbone_a.parameters())
    target = round(budget * n_backbone)
    widths = {}
    for method, n_aside in (("iaa-s", 2 * n_layers), ("iaa-l", n_layers), ("iaa-m", 1)):
        arch = plan_for(method, cfg_for(inside, iaa_budget=budget), backbone_a)
        g_in, g_as = arch["groups"]
        w = g_in["width"] if inside == "adapter" else g_in["rank"]
        assert g_as["width"] == w  # one hidden size for every module
        n_in = 2 * n_layers
        per_in = (w * (2 * h + 1) + h) if inside == "adapter" else 2 * h * w
        assert arch["trainable_params"] == n_in * per_in + n_aside * (w * (2 * h + 1) + h)
        # the width comes nearest to the budget: one step more or less is further away
        def total(v):
            pin = (v * (2 * h + 1) + h) if inside == "adapter" else 2 * h * v
            return n_in * pin + n_aside * (v * (2 * h + 1) + h)
        assert abs(total(w) - target) <= min(abs(total(w + 1) - target), abs(total(w - 1) - target))
        assert arch["split"] == "uniform width (inferred from the paper)" and "inside_budget_params" not in arch
        widths[method] = w
    # the paper's rule at equal budget: more aside modules, smaller inside modules
    assert widths["iaa-s"] < widths["iaa-l"] < widths["iaa-m"], widths
    # the former fixed 50 % share gave all three the same inside width
    share = {m: plan_for(m, cfg_for(inside, iaa_budget=budget, iaa_inside_share=0.5), backbone_a)["groups"][0]
             for m in ("iaa-s", "iaa-l", "iaa-m")}
    assert len({g.get("width", g.get("rank")) for g in share.values()}) == 1


@pytest.mark.parametrize("method,sites", [("adapter", {"attn_output", "ffn_output"}), ("pfeiffer", {"ffn_output"})])
def test_houlsby_adapter_after_attention_and_ffn_pfeiffer_after_ffn(backbone_a, method, sites):
    h, n_layers, w = 32, 2, 32 // 16
    model = attach(copy.deepcopy(backbone_a), method, TuningConfig(), seed=0)
    container = getattr(model, CONTAINER)
    assert {k.rsplit("_", 1)[0] for k in container} == sites
    assert len(container) == n_layers * len(sites)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == n_layers * len(sites) * (w * (2 * h + 1) + h)
    # the attention sub-layer (eval mode): LayerNorm(d + A(d) + x), d = attention.output.dense(ctx), for Houlsby only
    perturb(model)
    out = model.encoder.layer[0].attention.output
    g = torch.Generator().manual_seed(3)
    ctx, x = torch.randn(2, 4, h, generator=g), torch.randn(2, 4, h, generator=g)
    with torch.no_grad():
        got = out(ctx, x)
        d = torch.nn.functional.linear(ctx, out.dense.weight, out.dense.bias)  # without the dense's hook
        if method == "adapter":
            ad = container["attn_output_0"]
            d = d + ad.up(torch.nn.functional.gelu(ad.down(d)))
        want = out.LayerNorm(d + x)
        plain = out.LayerNorm(torch.nn.functional.linear(ctx, out.dense.weight, out.dense.bias) + x)
    torch.testing.assert_close(got, want)
    assert torch.equal(got, plain) == (method == "pfeiffer")


def test_method_deviations_and_lr_defaults():
    from bench.tuning.config import DEFAULT_LR, PAPER_LR, method_deviations

    assert DEFAULT_LR["full-tune"] == 2e-5
    assert all(DEFAULT_LR[m] == 1e-4 for m in ("bitfit", "prefix", "lora", "adapter", "iaa-s", "iaa-l", "iaa-m"))
    default = method_deviations("iaa-s", TuningConfig(), PAPER_LR["iaa-s"])
    assert len(default) == 2 and "--iaa-skip" in default[0] and "step-0" in default[0]
    assert "inferred from the paper" in default[1]
    dev = method_deviations("iaa-s", TuningConfig(iaa_inside_share=0.5), 1e-3)
    assert len(dev) == 3 and "inside-share" in dev[1] and "1e-4" in dev[2].replace("0.0001", "1e-4")
    assert "ours" in method_deviations("rem", TuningConfig(), DEFAULT_LR["rem"])[0]


def _hand_written_placements(backbone, input_ids, variant, skip):
    """As :func:`_hand_written_skips`, for each ``--iaa-skip`` placement: after-ln, y' = LN(F(x) + x) + x;
    before-ln, y' = LN(F(x) + r + x) with r the unit's last residual input; scaled, (LN(F(x) + x) + x) / 2."""
    def sa(layer, x):
        out = layer.attention.self(x)
        return out[0] if isinstance(out, tuple) else out

    before, half = skip == "before-ln", 0.5 if skip == "scaled" else 1.0
    with torch.no_grad():
        e = backbone.embeddings(input_ids=input_ids)
        x, layers = e, list(backbone.encoder.layer)
        for i, layer in enumerate(layers):
            ao, oo = layer.attention.output, layer.output
            y = ao.LayerNorm(ao.dense(sa(layer, x)) + x + (x if variant == "s" and before else 0))
            if variant == "s" and not before:
                y = (y + x) * half
            extra = {"s": y, "l": x, "m": e if i == len(layers) - 1 else 0}[variant] if before else 0
            z = oo.LayerNorm(oo.dense(layer.intermediate(y)) + y + extra)
            if variant in "sl" and not before:
                z = (z + (y if variant == "s" else x)) * half
            x = z
        return (x + e) * half if variant == "m" and not before else x


@pytest.mark.parametrize("skip", ["after-ln", "before-ln", "scaled"])
def test_iaa_skip_placements_compute_their_formula(backbone_a, tiny_bert, skip):
    from transformers import AutoTokenizer

    ids = AutoTokenizer.from_pretrained(str(tiny_bert))([TEXTS[2]], return_tensors="pt")["input_ids"]
    outs = {}
    for method in ("iaa-s", "iaa-l", "iaa-m"):
        for budget in (0.0, 0.01):  # width 0 (plain skip) and an untrained aside (up = 0): the same function
            model = attach(copy.deepcopy(backbone_a), method, cfg_for(iaa_budget=budget, iaa_skip=skip), seed=0).eval()
            with torch.no_grad():
                outs[method] = model(input_ids=ids).last_hidden_state
            assert torch.allclose(outs[method], _hand_written_placements(backbone_a, ids, method[-1], skip), atol=1e-5)
        assert plan_for(method, cfg_for(iaa_skip=skip), backbone_a)["groups"][1]["skip_at"] == skip
    with torch.no_grad():
        plain = backbone_a(input_ids=ids).last_hidden_state
    assert all((o - plain).abs().max() > 1e-3 for o in outs.values())  # no placement is the backbone
    with pytest.raises(BenchError, match="--iaa-skip"):
        TuningConfig(iaa_skip="inside").validate(["iaa-s"])
