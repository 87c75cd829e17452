"""Where each method's modules go and how wide they are: sites, the IAA budget arithmetic, the
resolved plan of a method on a backbone (architecture: :mod:`bench.tuning.adapters`)."""
from __future__ import annotations

from typing import List

from bench.core.errors import BenchError


CONTAINER = "drbench_tuning"  # the attribute holding the own modules
OWN_METHODS = ("adapter", "pfeiffer", "parallel-adapter", "iaa-s", "iaa-l", "iaa-m", "rem")
PEFT_METHODS = ("lora", "prefix")
ATTACHABLE = OWN_METHODS + PEFT_METHODS
IAA_METHODS = ("iaa-s", "iaa-l", "iaa-m")
IAA_INSIDE = ("adapter", "lora")
IAA_SKIP = ("after-ln", "before-ln", "scaled")  # where an aside's skip joins (the paper does not say)
SUPPORTED = ("BERT-family encoders laid out as BertModel (BertModel, RobertaModel, XLMRobertaModel, "
             "CamembertModel, ElectraModel): model.encoder.layer[i] with attention.self.{query,value}, "
             "attention.output.dense, intermediate.dense and output.dense")
INFO_ATTR = "_drbench_tuning_info"

# where each site's module acts (see the module docstring)
_SITE_WHERE = {
    "attn_output": "sequential adapter after each attention output projection (before dropout, residual, LayerNorm)",
    "ffn_output": "sequential adapter after each feed-forward output projection (before dropout, residual, LayerNorm)",
    "ffn_parallel": "parallel adapter: feed-forward sub-layer input -> added to its output before residual + LayerNorm",
    "query": "LoRA on each attention query projection",
    "value": "LoRA on each attention value projection",
    "attn_aside": "aside: attention sub-layer input -> its output (skip + bottleneck, after LayerNorm)",
    "ffn_aside": "aside: feed-forward sub-layer input -> its output (skip + bottleneck, after LayerNorm)",
    "layer_aside": "aside: layer input -> layer output (skip + bottleneck)",
    "model_aside": "aside: embedding output -> final hidden states (skip + bottleneck)",
}


# --------------------------------------------------------------------------------------------
# architecture checks


def is_peft(model) -> bool:
    try:
        from peft import PeftModel
    except ImportError:
        return False
    return isinstance(model, PeftModel)


def encoder_layers(model, method: str) -> List:
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


def hidden_size(model, method: str) -> int:
    return int(encoder_layers(model, method)[0].attention.output.dense.out_features)


def _backbone_params(model) -> int:
    return int(sum(p.numel() for n, p in model.named_parameters() if not n.startswith(CONTAINER + ".")))


# --------------------------------------------------------------------------------------------
# plans: the resolved architecture of a method on a backbone (widths, counts)


def _bottleneck_params(h: int, width: int) -> int:
    """Parameters of an H -> width -> H bottleneck; width 0 is the identity path (no parameters)."""
    return width * (2 * h + 1) + h if width > 0 else 0


def _width_for(budget: float, n: int, h: int) -> int:
    """Bottleneck width that spends ``budget`` parameters over ``n`` H->H bottlenecks (>= 0; 0 is
    the identity path)."""
    return max(0, int(round((budget / n - h) / (2 * h + 1))))


def _rank_for(budget: float, n: int, h: int) -> int:
    return max(0, int(round(budget / (n * 2 * h))))


def _uniform_width(budget: float, n_inside: int, n_aside: int, h: int, inside: str) -> int:
    """The one hidden size w (bottleneck width; LoRA rank for LoRA inside modules) shared by every
    inside and aside module that spends ``budget``: inferred from the paper (which states that a
    variant with more aside modules has narrower inside modules at equal budget but gives no rule);
    under it, a variant with more aside modules has narrower inside modules (iaa-s < iaa-l < iaa-m at equal budget)."""
    if inside == "adapter":  # (n_inside + n_aside) * (w (2H + 1) + H)
        return _width_for(budget, n_inside + n_aside, h)
    # n_inside * 2 H w + n_aside * (w (2H + 1) + H)
    return max(0, int(round((budget - n_aside * h) / (n_inside * 2 * h + n_aside * (2 * h + 1)))))


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
    if method in ("adapter", "pfeiffer") and cfg.adapter_reduction < 1:
        raise BenchError("--adapter-reduction must be at least 1")
    if method == "parallel-adapter":
        if cfg.parallel_adapter_reduction < 1:
            raise BenchError("--parallel-adapter-reduction must be at least 1")
    if method in IAA_METHODS:
        if not 0 <= cfg.iaa_budget <= 1:
            raise BenchError(f"--iaa-budget is a fraction of the backbone's parameters in [0, 1] (0: inside modules "
                             f"are the identity path, asides plain skips), not {cfg.iaa_budget}")
        if cfg.iaa_inside_share is not None and not 0 <= cfg.iaa_inside_share <= 1:
            raise BenchError(f"--iaa-inside-share must be in [0, 1] (or left out for one width for every module, inferred from the paper), "
                             f"not {cfg.iaa_inside_share}")
        if getattr(cfg, "iaa_skip", "after-ln") not in IAA_SKIP:
            raise BenchError(f"--iaa-skip must be one of {', '.join(IAA_SKIP)}, not {cfg.iaa_skip!r}")
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
    layers = encoder_layers(model, method)
    n_layers, h = len(layers), hidden_size(model, method)
    n_backbone = _backbone_params(model)
    out: dict = {"backbone": type(model).__name__, "hidden_size": h, "layers": n_layers}
    if method in ("adapter", "pfeiffer"):  # Houlsby: after attention and FFN; Pfeiffer: after FFN only
        sites = ["attn_output", "ffn_output"] if method == "adapter" else ["ffn_output"]
        groups = [_group(method, "bottleneck", sites, n_layers, h,
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
        inside_sites = ["attn_output", "ffn_output"] if cfg.iaa_inside == "adapter" else ["query", "value"]
        n_inside = n_layers * len(inside_sites)
        aside_sites = {"iaa-s": ["attn_aside", "ffn_aside"], "iaa-l": ["layer_aside"], "iaa-m": ["model_aside"]}[method]
        n_aside = 1 if method == "iaa-m" else n_layers * len(aside_sites)
        if cfg.iaa_inside_share is None:  # inferred from the paper: one hidden size for every module
            w_in = w_as = _uniform_width(budget, n_inside, n_aside, h, cfg.iaa_inside)
            split = "uniform width (inferred from the paper)"
        else:  # ours: a fixed share of the budget for the inside modules
            inside_budget = int(round(budget * cfg.iaa_inside_share))
            w_in = (_width_for(inside_budget, n_inside, h) if cfg.iaa_inside == "adapter"
                    else _rank_for(inside_budget, n_inside, h))
            w_as = _width_for(budget - inside_budget, n_aside, h)
            split = f"inside share {cfg.iaa_inside_share:g}"
        if cfg.iaa_inside == "adapter":
            inside = _group("inside", "bottleneck", inside_sites, n_layers, h, width=w_in, activation="gelu",
                            scale=1.0, init="lora")
        else:
            inside = _group("inside", "lora", inside_sites, n_layers, h, rank=w_in, alpha=float(w_in))
        aside = _group("aside", "bottleneck", aside_sites, n_layers, h, width=w_as,
                       activation="gelu", scale=1.0, init="lora", skip=True)
        aside["skip_at"] = cfg.iaa_skip
        groups = [inside, aside]
        out.update(budget_fraction=float(cfg.iaa_budget), budget_params=budget, split=split,
                   inside_share=None if cfg.iaa_inside_share is None else float(cfg.iaa_inside_share),
                   inside=cfg.iaa_inside, inside_params=inside["params"], aside_params=aside["params"])
        if cfg.iaa_inside_share is not None:
            out.update(inside_budget_params=inside_budget, aside_budget_params=budget - inside_budget)
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
        text += f" (budget {arch['budget_fraction']:g} x backbone = {arch['budget_params']:,}, split: "
        if "inside_budget_params" in arch:
            text += f"inside {arch['inside_budget_params']:,} / aside {arch['aside_budget_params']:,})"
        else:
            text += f"{arch.get('split', 'uniform width')})"
    text += (f"; trainable {arch['trainable_params']:,} of {arch['total_params']:,} "
             f"({100 * arch['trainable_share']:.3f}%)")
    return text
