"""Parameter-efficient modules added to a frozen backbone: attach, save, load, transplant, merge.

One entry point adds a method's modules to a plain backbone (:func:`attach`); the method's own
parameters are read and written by name (:func:`method_state`, :func:`load_method_state`) and
stored beside a checkpoint (:func:`save_tuned` / :func:`load_tuned`: ``tuning.json`` +
``tuning.safetensors``). Because the method's parameters are stored apart from the backbone's
weights, modules trained on backbone A can be attached to another backbone B of the same
architecture (the transplant DDR's REM is built for).

Methods (own implementation unless named peft)
----------------------------------------------

Every own module is a bottleneck ``scale * up(act(down(x)))`` or a LoRA delta
``(x A^T B^T) * alpha / r``. Its output side (``up`` weight and bias; LoRA ``B``) starts at zero,
so an attached, untrained model computes exactly the backbone's function, except IAA's aside
modules, which also carry a skip connection (below) and so change the function from the start. ``down`` (and LoRA
``A``) are drawn as ``torch.nn.Linear`` draws its weight (Kaiming-uniform, a = sqrt(5)), seeded
by ``seed`` in a forked RNG (the caller's global RNG is untouched); ``down``'s bias is zero
(the "lora" initialisation of He et al.'s code) except for ``adapter``, which keeps the
``nn.Linear`` bias draw it always had. No dropout inside the modules.

Sites in a BERT-family layer (``attention -> intermediate -> output``; H = hidden size)::

    attention sub-layer  x -> [self-attn (query*, key, value*)] -> attention.output.dense (+a)
                           -> dropout -> LayerNorm(. + x) -> y             (+A_s: y += x + aside(x))
    FFN sub-layer        y -> intermediate.dense -> act -> output.dense (+f) -> dropout
                           -> (+p: + s * parallel(y)) -> LayerNorm(. + y) -> z (+A_s: z += y + aside(y))
    layer                                                                   (+A_l: z += x + aside(x))
    model                embeddings e -> layers -> h                        (+A_m: h += e + aside(e))

    *  LoRA on query / value          a, f  sequential adapters: out + up(act(down(out)))
    p  parallel adapter (FFN input)   A_*   aside modules: skip + bottleneck, unit input -> output

================= ======================================================================
method            modules
================= ======================================================================
adapter           ``a`` and ``f`` in every layer (Houlsby placement: after multi-head attention
                  and after the FFN): width H / ``adapter_reduction``, GELU
pfeiffer          ``f`` in every layer only (Pfeiffer placement), same width and activation
parallel-adapter  ``p`` in every layer (He et al., 2022, "Towards a Unified View of PETL"):
                  width H / ``parallel_adapter_reduction``, ReLU, scale s =
                  ``parallel_adapter_scale`` (4, the paper's FFN-parallel setting). The
                  adapter reads the FFN sub-layer's input and its output is added to the FFN
                  output after the sub-layer's dropout, before the residual add + LayerNorm
                  (as adapter-transformers' ParallelConfig, the implementation DDR used);
                  in eval mode this is exactly ``output.dense(...) + s * adapter(input)``
iaa-s/-l/-m       IAA (Ma et al., CIKM 2022, "Scattered or Connected?"): inside modules
                  (``iaa_inside``: "adapter" = ``a`` and ``f`` in every layer, Houlsby
                  placement, GELU; "lora" = LoRA on query and value, alpha = r) connected
                  by aside modules from a unit's input x to its output F(x): a skip
                  connection plus a bottleneck (GELU), F(x) + x + up(act(down(x))), added
                  after the unit's own residual + LayerNorm: iaa-s around every attention and
                  every FFN sub-layer (2 per layer), iaa-l around every layer, iaa-m one around
                  the whole encoder (embedding output -> final hidden states)
rem               DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on query and
                  value (rank ``rem_lora_r``, default H / 4; alpha ``rem_lora_alpha``,
                  default = r) plus ``p`` (width H / ``rem_adapter_reduction`` = H / 4,
                  scale 4, ReLU): DDR's released REM is "lora192-pa4" on BERT-base
lora, prefix      peft LoRA / PrefixTuning (``get_peft_model``); state names are peft's
================= ======================================================================

IAA budget: ``iaa_budget`` x (backbone parameters) trainable parameters in all (0 to 1). A
bottleneck of width w between H-wide sides has ``w (2H + 1) + H`` parameters, a LoRA pair of rank r
on an H x H projection ``2 H r``. Default split (inferred from the paper's statement that the
variant with more aside modules has the smaller inside modules at equal budget; the paper gives no
rule): one hidden size w for every inside
and aside module of the variant, the whole w that comes nearest to the budget, so at equal
budget the variant with more aside modules has the narrower inside modules (iaa-s, 2 asides a
layer, < iaa-l, 1 a layer, < iaa-m, 1 in all). With ``iaa_inside_share`` set (ours), that share
of the budget goes to the inside modules and the rest to the asides, each width / rank
``round(share per module)``. Widths and ranks may be 0: a module of hidden size 0 has no
parameters; an inside module of size 0 is the identity path and an aside of size 0 is the plain
skip connection, as the paper says (RQ4), so iaa-s/-l/-m at budget 0 are three different models
(skips around every sub-layer / every layer / the whole encoder), and both end points of a budget
or share sweep can be expressed. The actual counts (inside, aside, trainable, trainable share of
the tuned model's parameters) are in :func:`plan_for`'s architecture dict, recorded in result
files and printed by :func:`describe`.

Supported backbones: BERT-family encoders laid out as ``BertModel`` (``model.encoder.layer[i]``
with ``attention.self.{query,value}``, ``attention.output.dense``, ``intermediate.dense``,
``output.dense``): BertModel, RobertaModel, XLMRobertaModel, CamembertModel, ElectraModel and
the like. Others raise a :class:`BenchError` naming these. The modules sit in one container
submodule (``drbench_tuning``) and act through forward hooks bound to it, so copies
(``copy.deepcopy``) carry working modules and the backbone's own parameter names never change.

Import cost: nothing heavy at import time; torch is imported when a function runs.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, Optional

from bench.core.errors import BenchError
from bench.tuning.modules import module_classes
from bench.tuning.plans import (ATTACHABLE, CONTAINER, INFO_ATTR, OWN_METHODS, PEFT_METHODS, encoder_layers,
                                hidden_size, is_peft, plan_for)
from bench.core.io import atomic_path, atomic_write_json

FORMAT = "drbench-tuning/1"
TUNING_JSON = "tuning.json"
TUNING_WEIGHTS = "tuning.safetensors"


# --------------------------------------------------------------------------------------------
# attach


def tuning_info(model) -> Optional[dict]:
    """``{"method", "settings", "architecture"}`` of a model made by :func:`attach`, else None."""
    info = model.__dict__.get(INFO_ATTR)
    return dict(info) if info is not None else None


def attach(model, method: str, cfg, seed: Optional[int] = 0):
    """Add ``method``'s modules to the plain backbone ``model`` (in place; the backbone's own
    weights are not changed; copy it first to keep a plain one) and return the model to use:
    ``model`` itself for own methods, a peft wrapper for ``lora`` / ``prefix``. The backbone is
    frozen and only the method's parameters require grad. Module names are the same on every
    call; ``seed`` seeds their initialisation in a forked RNG (None: the current global RNG).

    Forward signature unchanged: ``model(input_ids=..., attention_mask=...).last_hidden_state``."""
    _check_attachable(method)
    _check_plain(model, method)
    if method in OWN_METHODS:
        plan = plan_for(method, cfg, model)
    else:
        plan = _peft_plan(method, cfg)
    return attach_plan(model, method, plan, seed, settings=cfg.for_method(method))


def _check_attachable(method: str) -> None:
    if method not in ATTACHABLE:
        raise BenchError(f"{method!r} adds no modules to attach (attachable methods: {', '.join(ATTACHABLE)}); "
                         f"full-tune / qry-tune / psg-tune / bitfit change the backbone's own weights")


def _check_plain(model, method: str) -> None:
    if is_peft(model) or hasattr(model, CONTAINER) or tuning_info(model) is not None:
        raise BenchError(f"{method}: the model already carries tuning modules; attach to a plain backbone")


def _peft_plan(method: str, cfg) -> dict:
    if method == "lora":
        return {"peft": "LoraConfig", "r": int(cfg.lora_r), "lora_alpha": int(cfg.lora_alpha),
                "lora_dropout": float(cfg.lora_dropout), "target_modules": list(cfg.lora_targets), "bias": "none"}
    return {"peft": "PrefixTuningConfig", "num_virtual_tokens": int(cfg.prefix_tokens)}


def attach_plan(model, method: str, plan: dict, seed: Optional[int], settings: dict):
    import contextlib

    import torch

    ctx = torch.random.fork_rng(devices=[]) if seed is not None else contextlib.nullcontext()
    with ctx:
        if seed is not None:
            torch.manual_seed(int(seed))
        if method in PEFT_METHODS:
            out = _peft_attach(model, method, plan)
        else:
            out = _own_attach(model, method, plan)
    out.__dict__[INFO_ATTR] = {"method": method, "settings": dict(settings), "architecture": plan}
    return out


def _peft_attach(model, method: str, plan: dict):
    try:
        from peft import LoraConfig, PrefixTuningConfig, TaskType, get_peft_model
    except ImportError:
        from bench.core.errors import ResourceError

        raise ResourceError(f"method {method!r} needs peft. Install: pip install peft==0.21.2") from None
    if method == "lora":
        pcfg = LoraConfig(r=plan["r"], lora_alpha=plan["lora_alpha"], lora_dropout=plan["lora_dropout"],
                          target_modules=list(plan["target_modules"]), bias=plan["bias"],
                          task_type=TaskType.FEATURE_EXTRACTION)
    else:
        pcfg = PrefixTuningConfig(num_virtual_tokens=plan["num_virtual_tokens"], task_type=TaskType.FEATURE_EXTRACTION)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_peft_model(model, pcfg)


def _own_attach(model, method: str, plan: dict):
    import torch

    C = module_classes()
    layers = encoder_layers(model, method)
    h = hidden_size(model, method)
    if plan.get("hidden_size") != h or plan.get("layers") != len(layers):
        raise BenchError(f"{method}: the tuning modules were made for {plan.get('layers')} layers of width "
                         f"{plan.get('hidden_size')}; this backbone ({type(model).__name__}) has {len(layers)} of "
                         f"width {h}. Attach them to a backbone of the same architecture.")
    ref = next(p for p in model.parameters() if p.is_floating_point())
    container = torch.nn.ModuleDict()
    registrations = []
    for g in plan["groups"]:
        for site in g["sites"]:
            targets = [(None, model.encoder)] if site == "model_aside" else list(enumerate(layers))
            for i, layer in targets:
                key = site if i is None else f"{site}_{i}"
                if g["kind"] == "lora":
                    lin = getattr(layer.attention.self, site)
                    mod = C["LoRA"](lin.in_features, lin.out_features, g["rank"], g["alpha"], site)
                    registrations.append(("post", lin, mod.post_hook_output))
                else:
                    skip_at = g.get("skip_at", "after-ln")  # plans written before the option: after the LN
                    mod = C["Bottleneck"](h, h, g["width"], g["activation"], g["scale"], g["init"], site,
                                          skip=bool(g.get("skip", False)), skip_at=skip_at)
                    if site.endswith("_aside") and skip_at == "before-ln":
                        if site == "attn_aside":
                            registrations.append(("pre", layer.attention.output, mod.pre_hook_before_ln))
                        elif site == "ffn_aside":
                            registrations.append(("pre", layer.output, mod.pre_hook_before_ln))
                        else:  # hold the unit's input; join it in the residual of the unit's last sub-layer
                            unit = model.encoder if site == "model_aside" else layer
                            registrations.append(("pre", unit, mod.pre_hook_hold_input))
                            last = layers[-1] if site == "model_aside" else layer
                            registrations.append(("pre", last.output, mod.pre_hook_before_ln))
                        container[key] = mod
                        continue
                    if site == "attn_output":
                        registrations.append(("post", layer.attention.output.dense, mod.post_hook_output))
                    elif site == "ffn_output":
                        registrations.append(("post", layer.output.dense, mod.post_hook_output))
                    elif site == "ffn_parallel":
                        registrations.append(("pre", layer.output, mod.pre_hook_input_tensor))
                    elif site == "attn_aside":
                        registrations.append(("post_kw", layer.attention, mod.post_hook_aside))
                    elif site == "ffn_aside":
                        registrations.append(("post_kw", layer.output, mod.post_hook_aside))
                    elif site == "layer_aside":
                        registrations.append(("post_kw", layer, mod.post_hook_aside))
                    elif site == "model_aside":
                        registrations.append(("post_kw", model.encoder, mod.post_hook_aside))
                    else:
                        raise BenchError(f"unknown module site {site!r} in the tuning plan")
                container[key] = mod
    container.to(device=ref.device, dtype=ref.dtype)
    for p in model.parameters():
        p.requires_grad_(False)
    model.add_module(CONTAINER, container)
    for p in container.parameters():
        p.requires_grad_(True)
    for kind, module, fn in registrations:
        if kind == "post":
            module.register_forward_hook(fn)
        elif kind == "pre":
            module.register_forward_pre_hook(fn, with_kwargs=True)
        else:
            module.register_forward_hook(fn, with_kwargs=True)
    actual = sum(p.numel() for p in container.parameters())
    if actual != plan["method_params"]:  # the plan's arithmetic and the modules disagree: a bug here
        raise RuntimeError(f"{method}: built {actual} parameters, planned {plan['method_params']}")
    return model


# --------------------------------------------------------------------------------------------
# the method's own parameters


def _method_params(model) -> Dict[str, object]:
    """name -> parameter of the method's own modules (names relative to the method container for
    own methods; peft's names for lora / prefix)."""
    info = tuning_info(model)
    if info is None:
        raise BenchError("the model carries no tuning modules (make it with bench.tuning.adapters.attach or load_tuned)")
    if info["method"] in PEFT_METHODS:
        marks = ("lora_",) if info["method"] == "lora" else ("prompt_encoder",)
        return {n: p for n, p in model.named_parameters() if any(m in n for m in marks)}
    container = getattr(model, CONTAINER)
    return dict(container.named_parameters())


def method_state(model) -> Dict[str, object]:
    """The method's own parameters only (detached CPU copies), by names that do not involve the
    backbone's weights: load them into any backbone of the same architecture."""
    return {n: p.detach().cpu().clone().contiguous() for n, p in sorted(_method_params(model).items())}


def set_method_trainable(model):
    """``model`` (e.g. from :func:`load_tuned`) with only its method's parameters trainable (to
    train its modules on; the backbone stays frozen). Returns the model."""
    own = {id(p) for p in _method_params(model).values()}
    for p in model.parameters():
        p.requires_grad_(id(p) in own)
    return model


def load_method_state(model, state: Dict[str, object]) -> None:
    """Copy ``state`` into the method's parameters of ``model`` (strict: missing or unexpected
    names and shape mismatches raise a BenchError; nothing is copied then)."""
    import torch

    own = _method_params(model)
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    if missing or unexpected:
        def few(names):
            return ", ".join(names[:5]) + (f" (+{len(names) - 5} more)" if len(names) > 5 else "")

        raise BenchError("tuning state does not fit this model: "
                         + "; ".join(x for x in (f"missing {few(missing)}" if missing else "",
                                                 f"unexpected {few(unexpected)}" if unexpected else "") if x)
                         + ". Was it saved for another method or settings?")
    bad = [f"{n}: {tuple(state[n].shape)} vs {tuple(p.shape)}" for n, p in own.items()
           if tuple(state[n].shape) != tuple(p.shape)]
    if bad:
        raise BenchError(f"tuning state shapes do not fit this model: {', '.join(bad[:5])}")
    with torch.no_grad():
        for n, p in own.items():
            p.copy_(torch.as_tensor(state[n]).to(device=p.device, dtype=p.dtype))


# --------------------------------------------------------------------------------------------
# merge


def merge_lora(model):
    """A plain transformers model with the peft ``lora`` deltas merged into the weights
    (peft ``merge_and_unload`` on a copy: ``model`` stays as it was)."""
    import copy

    info = tuning_info(model)
    if info is None or info["method"] != "lora" or not is_peft(model):
        method = info["method"] if info else "no tuning method"
        raise BenchError(f"merge_lora merges the peft lora method only; this model has {method}")
    merged = copy.deepcopy(model).merge_and_unload()
    merged.__dict__.pop(INFO_ATTR, None)
    for p in merged.parameters():
        p.requires_grad_(False)
    return merged


# --------------------------------------------------------------------------------------------
# save / load beside a checkpoint


def save_tuned(model, folder, backbone: Optional[str] = None) -> Path:
    """Write ``tuning.safetensors`` (the method's state) then ``tuning.json`` (method, settings,
    architecture; ``backbone``: an optional name / path of the backbone, recorded), each
    atomically. Returns the folder."""
    from safetensors.torch import save_file


    info = tuning_info(model)
    if info is None:
        raise BenchError("save_tuned: the model carries no tuning modules (make it with bench.tuning.adapters.attach)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = method_state(model)
    with atomic_path(folder / TUNING_WEIGHTS, suffix=".safetensors") as tmp:
        save_file(state, str(tmp), metadata={"format": FORMAT, "method": info["method"]})
    meta = {"format": FORMAT, "method": info["method"], "settings": info["settings"],
            "architecture": info["architecture"], "weights": TUNING_WEIGHTS,
            "parameters": {n: list(t.shape) for n, t in state.items()}}
    if backbone is not None:
        meta["backbone"] = str(backbone)
    atomic_write_json(folder / TUNING_JSON, meta)
    return folder


def read_tuning_json(folder) -> dict:
    path = Path(folder) / TUNING_JSON
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchError(f"{path}: not found; a tuned checkpoint folder holds {TUNING_JSON} and {TUNING_WEIGHTS} "
                         f"(bench.tuning.adapters.save_tuned writes them)") from None
    except json.JSONDecodeError as exc:
        raise BenchError(f"{path}: not valid JSON ({exc}); write it again with bench.tuning.adapters.save_tuned") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BenchError(f"{path}: format {meta.get('format') if isinstance(meta, dict) else None!r} is not "
                         f"{FORMAT!r}; write it again with bench.tuning.adapters.save_tuned")
    if meta.get("method") not in ATTACHABLE:
        raise BenchError(f"{path}: method {meta.get('method')!r} is not attachable ({', '.join(ATTACHABLE)})")
    return meta


def load_tuned(folder, backbone):
    """The plain backbone ``backbone`` (a loaded transformers model; changed in place) with the
    method saved in ``folder`` attached and its state loaded: frozen, in eval mode, same forward
    signature (``input_ids, attention_mask -> .last_hidden_state``). The saved widths are used
    as they are (not re-derived from a budget), so any backbone of the same architecture fits."""
    from safetensors.torch import load_file

    meta = read_tuning_json(folder)
    method = meta["method"]
    _check_plain(backbone, method)
    wpath = Path(folder) / meta.get("weights", TUNING_WEIGHTS)
    if not wpath.exists():
        raise BenchError(f"{wpath}: not found beside {TUNING_JSON}; save the tuned model again (save_tuned)")
    state = load_file(str(wpath))
    model = attach_plan(backbone, method, meta["architecture"], seed=0, settings=meta.get("settings") or {})
    load_method_state(model, state)
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    return model
