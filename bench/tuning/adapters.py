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
so an attached, untrained model computes exactly the backbone's function. ``down`` (and LoRA
``A``) are drawn as ``torch.nn.Linear`` draws its weight (Kaiming-uniform, a = sqrt(5)), seeded
by ``seed`` in a forked RNG (the caller's global RNG is untouched); ``down``'s bias is zero
(the "lora" initialisation of He et al.'s code) except for ``adapter``, which keeps the
``nn.Linear`` bias draw it always had. No dropout inside the modules.

Sites in a BERT-family layer (``attention -> intermediate -> output``; H = hidden size)::

    attention sub-layer  x -> [self-attn (query*, key, value*)] -> attention.output.dense (+a)
                           -> dropout -> LayerNorm(. + x) -> y                    (+A_s: y += aside(x))
    FFN sub-layer        y -> intermediate.dense -> act -> output.dense (+f) -> dropout
                           -> (+p: + s * parallel(y)) -> LayerNorm(. + y) -> z    (+A_s: z += aside(y))
    layer                                                                          (+A_l: z += aside(x))
    model                embeddings e -> layers -> h                               (+A_m: h += aside(e))

    *  LoRA on query / value          a, f  sequential adapters: out + up(act(down(out)))
    p  parallel adapter (FFN input)   A_*   aside bottlenecks from a unit's input to its output

================= ======================================================================
method            modules
================= ======================================================================
adapter           ``f`` in every layer: width H / ``adapter_reduction``, GELU (the existing
                  sequential bottleneck adapter; Pfeiffer placement)
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
                  by aside bottlenecks (GELU) from a unit's input to its output, added
                  after the unit's LayerNorm: iaa-s around every attention and every FFN
                  sub-layer (2 per layer), iaa-l around every layer, iaa-m one around the
                  whole encoder (embedding output -> final hidden states)
rem               DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on query and
                  value (rank ``rem_lora_r``, default H / 4; alpha ``rem_lora_alpha``,
                  default = r) plus ``p`` (width H / ``rem_adapter_reduction`` = H / 4,
                  scale 4, ReLU): DDR's released REM is "lora192-pa4" on BERT-base
lora, prefix      peft LoRA / PrefixTuning (``get_peft_model``); state names are peft's
================= ======================================================================

IAA budget: ``iaa_budget`` x (backbone parameters) trainable parameters in all, a share
``iaa_inside_share`` for the inside modules and the rest for the asides. A bottleneck of width
w between H-wide sides has ``w (2H + 1) + H`` parameters, a LoRA pair of rank r on an H x H
projection ``2 H r``; each width / rank is ``round(share of budget per module)`` (at least 1),
so the actual counts differ from the targets by at most half a width step per module. The
actual counts (inside, aside, trainable, trainable share of the tuned model's parameters) are
in :func:`plan_for`'s architecture dict, recorded in result files and printed by
:func:`describe`.

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
import math
from pathlib import Path
from typing import Dict, List, Optional

from bench.core.errors import BenchError

CONTAINER = "drbench_tuning"
FORMAT = "drbench-tuning/1"
TUNING_JSON = "tuning.json"
TUNING_WEIGHTS = "tuning.safetensors"
OWN_METHODS = ("adapter", "parallel-adapter", "iaa-s", "iaa-l", "iaa-m", "rem")
PEFT_METHODS = ("lora", "prefix")
ATTACHABLE = OWN_METHODS + PEFT_METHODS
IAA_METHODS = ("iaa-s", "iaa-l", "iaa-m")
IAA_INSIDE = ("adapter", "lora")
SUPPORTED = ("BERT-family encoders laid out as BertModel (BertModel, RobertaModel, XLMRobertaModel, "
             "CamembertModel, ElectraModel): model.encoder.layer[i] with attention.self.{query,value}, "
             "attention.output.dense, intermediate.dense and output.dense")
_INFO_ATTR = "_drbench_tuning_info"

# where each site's module acts (see the module docstring)
_SITE_WHERE = {
    "attn_output": "sequential adapter after each attention output projection (before dropout, residual, LayerNorm)",
    "ffn_output": "sequential adapter after each feed-forward output projection (before dropout, residual, LayerNorm)",
    "ffn_parallel": "parallel adapter: feed-forward sub-layer input -> added to its output before residual + LayerNorm",
    "query": "LoRA on each attention query projection",
    "value": "LoRA on each attention value projection",
    "attn_aside": "aside: attention sub-layer input -> its output (after LayerNorm)",
    "ffn_aside": "aside: feed-forward sub-layer input -> its output (after LayerNorm)",
    "layer_aside": "aside: layer input -> layer output",
    "model_aside": "aside: embedding output -> final hidden states",
}


# --------------------------------------------------------------------------------------------
# torch modules (built on first use; module-level names so that pickling finds them)

_CLASSES: Dict[str, type] = {}


def _classes() -> Dict[str, type]:
    if _CLASSES:
        return _CLASSES
    import torch

    class Bottleneck(torch.nn.Module):
        """``scale * up(act(down(x)))``; ``up`` zero-initialised. ``site`` says where it acts."""

        def __init__(self, d_in: int, d_out: int, width: int, activation: str, scale: float, init: str,
                     site: str):
            super().__init__()
            self.down = torch.nn.Linear(d_in, width)
            self.up = torch.nn.Linear(width, d_out)
            if init == "lora":
                torch.nn.init.zeros_(self.down.bias)
            torch.nn.init.zeros_(self.up.weight)
            torch.nn.init.zeros_(self.up.bias)
            self.activation, self.scale, self.site = activation, float(scale), site

        def forward(self, x):
            h = self.down(x)
            h = torch.nn.functional.relu(h) if self.activation == "relu" else torch.nn.functional.gelu(h)
            out = self.up(h)
            return out if self.scale == 1.0 else out * self.scale

        # hooks (bound methods: a deep copy of the model re-binds them to the copied module)
        def post_hook_output(self, module, args, output):
            return output + self(output)

        def pre_hook_input_tensor(self, module, args, kwargs):
            args, kwargs = list(args), dict(kwargs)
            if len(args) > 1:
                args[1] = args[1] + self(args[1])
            else:
                kwargs["input_tensor"] = kwargs["input_tensor"] + self(kwargs["input_tensor"])
            return tuple(args), kwargs

        def post_hook_aside(self, module, args, kwargs, output):
            if self.site == "ffn_aside":
                x = args[1] if len(args) > 1 else kwargs["input_tensor"]
            else:
                x = args[0] if args else kwargs["hidden_states"]
            return _add_to_output(output, self(x))

    class LoRA(torch.nn.Module):
        """``(x A^T B^T) * alpha / r`` added to a linear projection's output; ``B`` zero-initialised."""

        def __init__(self, d_in: int, d_out: int, rank: int, alpha: float, site: str):
            super().__init__()
            self.lora_A = torch.nn.Parameter(torch.empty(rank, d_in))
            self.lora_B = torch.nn.Parameter(torch.zeros(d_out, rank))
            torch.nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            self.scaling, self.site = float(alpha) / rank, site

        def forward(self, x):
            return (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling

        def post_hook_output(self, module, args, output):
            return output + self(args[0])

    for cls in (Bottleneck, LoRA):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
        _CLASSES[cls.__name__] = cls
    return _CLASSES


def __getattr__(name: str):  # PEP 562: Bottleneck / LoRA resolve lazily (pickle, isinstance)
    if name in ("Bottleneck", "LoRA"):
        return _classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _add_to_output(output, delta):
    """``output`` with ``delta`` added to its hidden states (a tensor, a tuple's first item, or a
    ModelOutput's ``last_hidden_state``)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output + delta
    if isinstance(output, tuple):
        return (output[0] + delta,) + tuple(output[1:])
    if hasattr(output, "last_hidden_state"):
        output.last_hidden_state = output.last_hidden_state + delta  # a fresh object of the forward call
        return output
    raise BenchError(f"cannot add an aside module's output to a {type(output).__name__}")


# --------------------------------------------------------------------------------------------
# architecture checks


def _is_peft(model) -> bool:
    try:
        from peft import PeftModel
    except ImportError:
        return False
    return isinstance(model, PeftModel)


def _layers(model, method: str) -> List:
    """The transformer layers of a BERT-family backbone, or a BenchError naming what is supported."""
    import torch

    enc = getattr(model, "encoder", None)
    layers = getattr(enc, "layer", None)
    ok = layers is not None and len(layers) > 0 and hasattr(model, "embeddings")
    if ok:
        for layer in layers:
            att = getattr(layer, "attention", None)
            sa = getattr(att, "self", None)
            parts = [getattr(sa, "query", None), getattr(sa, "value", None),
                     getattr(getattr(att, "output", None), "dense", None),
                     getattr(getattr(layer, "intermediate", None), "dense", None),
                     getattr(getattr(layer, "output", None), "dense", None)]
            if not all(isinstance(p, torch.nn.Linear) for p in parts) or not hasattr(layer.output, "LayerNorm"):
                ok = False
                break
    if not ok:
        raise BenchError(f"{method}: {type(model).__name__} is not a supported architecture for this method; "
                         f"supported: {SUPPORTED}. For other models use lora or bitfit.")
    return list(layers)


def _hidden(model, method: str) -> int:
    return int(_layers(model, method)[0].attention.output.dense.out_features)


def _backbone_params(model) -> int:
    return int(sum(p.numel() for n, p in model.named_parameters() if not n.startswith(CONTAINER + ".")))


# --------------------------------------------------------------------------------------------
# plans: the resolved architecture of a method on a backbone (widths, counts)


def _bottleneck_params(h: int, width: int) -> int:
    return width * (2 * h + 1) + h


def _width_for(budget: float, n: int, h: int) -> int:
    """Bottleneck width that spends ``budget`` parameters over ``n`` H->H bottlenecks (>= 1)."""
    return max(1, int(round((budget / n - h) / (2 * h + 1))))


def _rank_for(budget: float, n: int, h: int) -> int:
    return max(1, int(round(budget / (n * 2 * h))))


def _group(name: str, kind: str, sites: List[str], n_layers: int, h: int, **kw) -> dict:
    count = n_layers * len(sites) if sites != ["model_aside"] else 1
    if kind == "bottleneck":
        params = count * _bottleneck_params(h, kw["width"])
    else:
        params = count * 2 * h * kw["rank"]
    g = {"name": name, "kind": kind, "sites": list(sites), "count": count, **kw, "params": int(params),
         "where": "; ".join(_SITE_WHERE[s] for s in sites)}
    return g


def check_config(method: str, cfg) -> None:
    """BenchError for settings a method cannot use."""
    if method == "adapter" and cfg.adapter_reduction < 1:
        raise BenchError("--adapter-reduction must be at least 1")
    if method == "parallel-adapter":
        if cfg.parallel_adapter_reduction < 1:
            raise BenchError("--parallel-adapter-reduction must be at least 1")
    if method in IAA_METHODS:
        if not 0 < cfg.iaa_budget <= 1:
            raise BenchError(f"--iaa-budget is a fraction of the backbone's parameters in (0, 1], not {cfg.iaa_budget}")
        if not 0 <= cfg.iaa_inside_share <= 1:
            raise BenchError(f"--iaa-inside-share must be in [0, 1], not {cfg.iaa_inside_share}")
        if cfg.iaa_inside not in IAA_INSIDE:
            raise BenchError(f"--iaa-inside must be one of {', '.join(IAA_INSIDE)}, not {cfg.iaa_inside!r}")
    if method == "rem":
        if cfg.rem_lora_r is not None and cfg.rem_lora_r < 1:
            raise BenchError("--rem-lora-r must be at least 1")
        if cfg.rem_adapter_reduction < 1:
            raise BenchError("--rem-adapter-reduction must be at least 1")


def plan_for(method: str, cfg, model) -> dict:
    """The resolved architecture of ``method`` (an own method) on the plain backbone ``model``:
    module groups (sites, widths / ranks, counts, parameters) and parameter totals."""
    if method not in OWN_METHODS:
        raise BenchError(f"no architecture plan for {method!r} (own methods: {', '.join(OWN_METHODS)})")
    check_config(method, cfg)
    layers = _layers(model, method)
    n_layers, h = len(layers), _hidden(model, method)
    n_backbone = _backbone_params(model)
    out: dict = {"backbone": type(model).__name__, "hidden_size": h, "layers": n_layers}
    if method == "adapter":
        groups = [_group("adapter", "bottleneck", ["ffn_output"], n_layers, h,
                         width=max(1, h // max(1, cfg.adapter_reduction)), activation="gelu", scale=1.0, init="linear")]
    elif method == "parallel-adapter":
        groups = [_group("parallel_adapter", "bottleneck", ["ffn_parallel"], n_layers, h,
                         width=max(1, h // cfg.parallel_adapter_reduction), activation="relu",
                         scale=float(cfg.parallel_adapter_scale), init="lora")]
    elif method == "rem":
        r = int(cfg.rem_lora_r) if cfg.rem_lora_r is not None else max(1, h // 4)
        alpha = float(cfg.rem_lora_alpha) if cfg.rem_lora_alpha is not None else float(r)
        groups = [_group("lora", "lora", ["query", "value"], n_layers, h, rank=r, alpha=alpha),
                  _group("parallel_adapter", "bottleneck", ["ffn_parallel"], n_layers, h,
                         width=max(1, h // cfg.rem_adapter_reduction), activation="relu",
                         scale=float(cfg.rem_adapter_scale), init="lora")]
    else:
        budget = int(round(cfg.iaa_budget * n_backbone))
        inside_budget = int(round(budget * cfg.iaa_inside_share))
        aside_budget = budget - inside_budget
        if cfg.iaa_inside == "adapter":
            sites = ["attn_output", "ffn_output"]
            inside = _group("inside", "bottleneck", sites, n_layers, h,
                            width=_width_for(inside_budget, n_layers * len(sites), h), activation="gelu", scale=1.0,
                            init="lora")
        else:
            sites = ["query", "value"]
            r = _rank_for(inside_budget, n_layers * len(sites), h)
            inside = _group("inside", "lora", sites, n_layers, h, rank=r, alpha=float(r))
        aside_sites = {"iaa-s": ["attn_aside", "ffn_aside"], "iaa-l": ["layer_aside"], "iaa-m": ["model_aside"]}[method]
        n_aside = 1 if method == "iaa-m" else n_layers * len(aside_sites)
        aside = _group("aside", "bottleneck", aside_sites, n_layers, h, width=_width_for(aside_budget, n_aside, h),
                       activation="gelu", scale=1.0, init="lora")
        groups = [inside, aside]
        out.update(budget_fraction=float(cfg.iaa_budget), budget_params=budget,
                   inside_share=float(cfg.iaa_inside_share), inside_budget_params=inside_budget,
                   aside_budget_params=aside_budget,
                   inside=cfg.iaa_inside, inside_params=inside["params"], aside_params=aside["params"])
    method_params = sum(g["params"] for g in groups)
    out.update(groups=groups, backbone_params=n_backbone, method_params=int(method_params),
               trainable_params=int(method_params), total_params=int(n_backbone + method_params),
               trainable_share=method_params / (n_backbone + method_params),
               trainable_per_backbone=method_params / n_backbone)
    return out


def describe(method: str, settings: dict) -> str:
    """One line on a method's resolved architecture (``settings``: :meth:`TuningConfig.for_method`
    with a backbone, or a plan). Empty when there is nothing resolved to say."""
    arch = settings.get("architecture", settings)
    if "groups" not in arch:
        return ""
    parts = []
    for g in arch["groups"]:
        size = f"r={g['rank']}" if g["kind"] == "lora" else f"w={g['width']}"
        scale = f" s={g['scale']:g}" if g.get("scale", 1.0) != 1.0 else ""
        name = g["name"] if g["kind"] in g["name"] else f"{g['name']} {g['kind']}"
        parts.append(f"{name} {size}{scale} x{g['count']} = {g['params']:,}")
    text = f"{method}: " + " + ".join(parts)
    if "budget_params" in arch:
        text += (f" (budget {arch['budget_fraction']:g} x backbone = {arch['budget_params']:,}: inside "
                 f"{arch['inside_budget_params']:,} / aside {arch['aside_budget_params']:,})")
    text += (f"; trainable {arch['trainable_params']:,} of {arch['total_params']:,} "
             f"({100 * arch['trainable_share']:.3f}%)")
    return text


# --------------------------------------------------------------------------------------------
# attach


def tuning_info(model) -> Optional[dict]:
    """``{"method", "settings", "architecture"}`` of a model made by :func:`attach`, else None."""
    info = model.__dict__.get(_INFO_ATTR)
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
    return _attach_plan(model, method, plan, seed, settings=cfg.for_method(method))


def _check_attachable(method: str) -> None:
    if method not in ATTACHABLE:
        raise BenchError(f"{method!r} adds no modules to attach (attachable methods: {', '.join(ATTACHABLE)}); "
                         f"full-tune / qry-tune / psg-tune / bitfit change the backbone's own weights")


def _check_plain(model, method: str) -> None:
    if _is_peft(model) or hasattr(model, CONTAINER) or tuning_info(model) is not None:
        raise BenchError(f"{method}: the model already carries tuning modules; attach to a plain backbone")


def _peft_plan(method: str, cfg) -> dict:
    if method == "lora":
        return {"peft": "LoraConfig", "r": int(cfg.lora_r), "lora_alpha": int(cfg.lora_alpha),
                "lora_dropout": float(cfg.lora_dropout), "target_modules": list(cfg.lora_targets), "bias": "none"}
    return {"peft": "PrefixTuningConfig", "num_virtual_tokens": int(cfg.prefix_tokens)}


def _attach_plan(model, method: str, plan: dict, seed: Optional[int], settings: dict):
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
    out.__dict__[_INFO_ATTR] = {"method": method, "settings": dict(settings), "architecture": plan}
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

    C = _classes()
    layers = _layers(model, method)
    h = _hidden(model, method)
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
                    mod = C["Bottleneck"](h, h, g["width"], g["activation"], g["scale"], g["init"], site)
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
    if info is None or info["method"] != "lora" or not _is_peft(model):
        method = info["method"] if info else "no tuning method"
        raise BenchError(f"merge_lora merges the peft lora method only; this model has {method}")
    merged = copy.deepcopy(model).merge_and_unload()
    merged.__dict__.pop(_INFO_ATTR, None)
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

    from bench.core.io import atomic_path, atomic_write_json

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
    model = _attach_plan(backbone, method, meta["architecture"], seed=0, settings=meta.get("settings") or {})
    load_method_state(model, state)
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    return model
