"""Tuning methods for few-shot dense retrieval: which parameters of which encoder learn.

A :class:`~bench.training.dual.DualEncoder` holds a query encoder and a passage encoder built from one checkpoint.
They are the same module (tied) when a method tunes both sides, and two modules (untied) when
a method tunes only one side; the frozen side is then the untouched checkpoint, whose
embeddings come from the shared embedding cache.

Methods (:data:`METHODS`):

================ ====== ================================================================
method           tied   what learns
================ ====== ================================================================
full-tune        yes    every parameter
qry-tune         no     every parameter of the query encoder; passages are the cached
                        checkpoint
psg-tune         no     every parameter of the passage encoder; queries are the cached
                        checkpoint
bitfit           yes    bias terms only (Ben Zaken et al., 2022), every other weight frozen
prefix           yes    peft PrefixTuning: ``prefix_tokens`` learned key/value vectors per
                        layer
lora             yes    peft LoRA (rank ``lora_r``, alpha ``lora_alpha``) on ``lora_targets``
adapter          yes    Houlsby bottleneck adapters (own implementation; peft has no
                        bottleneck adapter): ``h + W_up gelu(W_down h)`` after each layer's
                        attention output projection AND after its feed-forward output
                        projection (each before the residual add + LayerNorm), hidden /
                        ``adapter_reduction`` wide, W_up zero-initialised so training
                        starts from the checkpoint's function (the IAA paper's Adapter)
pfeiffer         yes    the same bottleneck after the feed-forward output projection only
                        (Pfeiffer placement; what ``adapter`` was before)
parallel-adapter yes    parallel adapters (He et al., 2022): ``s * W_up relu(W_down x)`` from
                        each feed-forward sub-layer's input x added to its output, hidden /
                        ``parallel_adapter_reduction`` wide, s = ``parallel_adapter_scale``
iaa-s, iaa-l,    yes    IAA (Ma et al., 2022): inside adapters (or LoRA, ``iaa_inside``)
iaa-m                   connected by aside modules (skip + bottleneck) around every
                        sub-layer (-s), layer (-l) or the whole encoder (-m); one hidden size
                        for every module from ``iaa_budget`` x backbone parameters (split
                        inferred from the paper's ordering of the variants), or
                        ``iaa_inside_share`` of the budget inside (ours)
rem              yes    DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on
                        query/value + parallel adapters; transplantable to another backbone
                        of the same architecture
================ ====== ================================================================

Learning rates (:data:`DEFAULT_LR`): the IAA paper's, 2e-5 for full fine-tuning and 1e-4 for the
parameter-efficient methods it compares; the methods it does not cover say where theirs come from
(:data:`LR_NOTES`, :func:`lr_source`).

The PEFT-style methods (adapter, pfeiffer, parallel-adapter, iaa-*, rem, lora, prefix) are added by
:func:`bench.tuning.adapters.attach`; their parameters alone are saved / loaded / transplanted with
:func:`bench.tuning.adapters.save_tuned` / :func:`bench.tuning.adapters.load_tuned` (architecture, sites,
initialisation and the IAA budget arithmetic are documented there).

Embeddings follow the model spec exactly as :class:`bench.encoding.encoder.Encoder` computes them
(prefix, pooling, normalisation); an untrained :class:`~bench.training.dual.DualEncoder` gives the same vectors.

Trained weights never reach the shared embedding cache: :meth:`~bench.training.dual.DualEncoder.encode` is
in-memory only, and :meth:`~bench.training.dual.DualEncoder.fingerprint` hashes the current state (for callers that
want a key of their own).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import List, Optional, Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.options import option
from bench.tuning.plans import IAA_METHODS, OWN_METHODS, check_config, plan_for

METHODS = ("full-tune", "qry-tune", "psg-tune", "bitfit", "prefix", "lora", "adapter", "pfeiffer",
           "parallel-adapter", "iaa-s", "iaa-l", "iaa-m", "rem")
METHOD_DESCRIPTIONS = {
    "full-tune": "all parameters of one shared (tied) encoder",
    "qry-tune": "all parameters of the query encoder; passage encoder frozen (untied; cached passage embeddings)",
    "psg-tune": "all parameters of the passage encoder; query encoder frozen (untied; cached query embeddings)",
    "bitfit": "bias terms only of one shared encoder (BitFit)",
    "prefix": "peft PrefixTuning (learned per-layer key/value prefixes) on one shared encoder",
    "lora": "peft LoRA on one shared encoder",
    "adapter": "Houlsby bottleneck adapters after each attention and each feed-forward block of one shared encoder "
               "(own implementation)",
    "pfeiffer": "Pfeiffer bottleneck adapters after each feed-forward block only, one shared encoder "
                "(own implementation)",
    "parallel-adapter": "parallel adapters (He et al., 2022): a scaled bottleneck from each feed-forward sub-layer's "
                        "input added to its output, frozen shared encoder (own implementation)",
    "iaa-s": "IAA (Ma et al., 2022): inside adapters/LoRA connected by aside modules around every sub-layer, "
             "frozen shared encoder, parameter budget (own implementation)",
    "iaa-l": "IAA (Ma et al., 2022): inside adapters/LoRA connected by aside modules around every layer, "
             "frozen shared encoder, parameter budget (own implementation)",
    "iaa-m": "IAA (Ma et al., 2022): inside adapters/LoRA connected by one aside module around the whole encoder, "
             "frozen shared encoder, parameter budget (own implementation)",
    "rem": "DDR's Relevance Estimation Module (Zhan et al., 2022): LoRA on query/value + parallel adapters on a "
           "frozen shared encoder; transplantable (own implementation)",
}
# learning rates of the IAA paper (Ma et al., 2022): 2e-5 for full fine-tuning, 1e-4 for every
# parameter-efficient method it compares (BitFit, prefix, LoRA, Houlsby adapter, IAA). Methods the
# paper does not cover keep ours (override any with --lr): PAPER_LR says which is which.
PAPER_LR = {"full-tune": 2e-5, "qry-tune": 2e-5, "psg-tune": 2e-5, "bitfit": 1e-4, "prefix": 1e-4, "lora": 1e-4,
            "adapter": 1e-4, "iaa-s": 1e-4, "iaa-l": 1e-4, "iaa-m": 1e-4}
DEFAULT_LR = {**PAPER_LR, "pfeiffer": 1e-4, "parallel-adapter": 5e-4, "rem": 5e-4}
# where a default is ours, not the IAA paper's (printed and recorded with the run's settings)
LR_NOTES = {"pfeiffer": "not in the IAA paper; the paper's PET rate 1e-4 is used",
            "parallel-adapter": "DDR's parallel adapter, not in the IAA paper: ours 5e-4",
            "rem": "DDR's REM, not in the IAA paper: ours 5e-4"}
# the TuningConfig fields each method uses (for_method keeps these)
METHOD_SETTINGS = {
    "lora": ("lora_r", "lora_alpha", "lora_dropout", "lora_targets"),
    "prefix": ("prefix_tokens",),
    "adapter": ("adapter_reduction",),
    "pfeiffer": ("adapter_reduction",),
    "parallel-adapter": ("parallel_adapter_reduction", "parallel_adapter_scale"),
    "iaa-s": ("iaa_budget", "iaa_inside_share", "iaa_inside", "iaa_skip"),
    "iaa-l": ("iaa_budget", "iaa_inside_share", "iaa_inside", "iaa_skip"),
    "iaa-m": ("iaa_budget", "iaa_inside_share", "iaa_inside", "iaa_skip"),
    "rem": ("rem_lora_r", "rem_lora_alpha", "rem_adapter_reduction", "rem_adapter_scale"),
}


@dataclass
class TuningConfig:
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.1
    lora_targets: Tuple[str, ...] = ("query", "value")
    prefix_tokens: int = 10
    adapter_reduction: int = 16
    parallel_adapter_reduction: int = 16  # width = hidden / this (same size as `adapter`)
    parallel_adapter_scale: float = 4.0  # He et al.'s s for the FFN-parallel adapter
    iaa_budget: float = 0.01  # trainable parameters as a fraction of the backbone's (0: identity modules)
    iaa_inside_share: Optional[float] = None  # None: one width for every module (inferred from the paper);
    # a number: that share of the budget for the inside modules, the rest for the asides (ours)
    iaa_inside: str = "adapter"  # adapter | lora
    iaa_skip: str = "before-ln"  # where an aside's skip joins: before-ln | after-ln | scaled (plans.IAA_SKIP);
    # the default has the best step-0 score of the three (docs/methods.md, "Where the aside skip joins")
    rem_lora_r: Optional[int] = None  # None: hidden / 4 (DDR's REM: rank 192 on BERT-base)
    rem_lora_alpha: Optional[int] = None  # None: = rank (scaling 1)
    rem_adapter_reduction: int = 4  # parallel adapter width = hidden / this (DDR: "pa4")
    rem_adapter_scale: float = 4.0

    def for_method(self, method: str, model=None) -> dict:
        """The settings that matter for one method (recorded in the result file). With the
        plain backbone ``model``, own PEFT-style methods also get ``architecture``: the resolved
        widths / ranks and parameter counts (for IAA: inside, aside, trainable, share)."""
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        out = {k: d[k] for k in METHOD_SETTINGS.get(method, ())}
        if model is not None:
            if method in OWN_METHODS:
                out["architecture"] = plan_for(method, self, model)
        return out

    def validate(self, methods: Sequence[str] = ()) -> "TuningConfig":
        for m in methods:
            check_config(m, self)
        return self


def lr_source(method: str, lr: Optional[float]) -> str:
    """Where a method's learning rate comes from (recorded with the training settings)."""
    if lr is not None and lr != DEFAULT_LR.get(method):
        return "--lr"
    if method in PAPER_LR:
        return "IAA paper (Ma et al., 2022): full fine-tuning 2e-5, parameter-efficient methods 1e-4"
    return LR_NOTES.get(method, "ours")


SKIP_WHERE = {"after-ln": "after the spanned unit's own residual + LayerNorm, y' = LN(F(x) + x) + x + A(x)",
              "before-ln": "inside the spanned unit's last residual, before its LayerNorm, y' = LN(F(x) + r + x + A(x))",
              "scaled": "after the LayerNorm, halved, y' = (LN(F(x) + x) + x + A(x)) / 2"}
#: a phrase of every deviation method_deviations can return -> the row of docs/methods.md's IAA table
#: that names it (tests/bench/test_methods_doc.py checks both directions)
DEVIATION_ITEMS = {
    "the aside modules' skip joins": "where the aside skip joins",
    "one hidden size for every inside and aside module (inferred": "budget split between inside and aside modules",
    "--iaa-inside-share": "budget split between inside and aside modules",
    "learning rate": "learning rate",
}


def method_deviations(method: str, cfg: "TuningConfig", lr: float) -> List[str]:
    """The departures from the IAA paper active for ``method`` with these settings and learning
    rate (docs/methods.md, "IAA"): printed with the run and recorded in its result."""
    out = []
    if method in IAA_METHODS:
        out.append(f"{method}: the aside modules' skip joins {SKIP_WHERE[cfg.iaa_skip]} (--iaa-skip {cfg.iaa_skip}; "
                   f"the paper says only that the aside connects the component's input and output); the untrained "
                   f"modules change the model's function (its step-0 effect is printed and recorded)")
    if method in IAA_METHODS and cfg.iaa_inside_share is None:
        out.append(f"{method}: one hidden size for every inside and aside module (inferred from the paper's "
                   f"ordering of the variants at equal budget; the paper states no split rule)")
    if method in IAA_METHODS and cfg.iaa_inside_share is not None:
        out.append(f"{method}: --iaa-inside-share {cfg.iaa_inside_share:g} splits the budget by a fixed share "
                   f"(ours; the default is one hidden size for every inside and aside module, inferred from the "
                   f"paper's ordering of the variants; the paper states no split rule)")
    if method in PAPER_LR and lr != PAPER_LR[method]:
        out.append(f"{method}: learning rate {lr:g} (paper: {PAPER_LR[method]:g})")
    elif method in LR_NOTES:
        out.append(f"{method}: learning rate {lr:g} ({LR_NOTES[method]})")
    return out


def check_method(method: str) -> str:
    if method not in METHODS:
        raise BenchError(f"unknown tuning method {method!r}; choose from {', '.join(METHODS)}")
    return method


def tunes_queries(method: str) -> bool:
    return check_method(method) != "psg-tune"


def tunes_passages(method: str) -> bool:
    return check_method(method) != "qry-tune"


#: The per-method settings (``TuningConfig``) on an argparse group.
TUNING_OPTIONS = (
    option('--lora-r', type=int, default=8, help='lora: rank of the low-rank update (default: 8)'),
    option('--lora-alpha', type=int, default=16, help='lora: scaling alpha, the update is scaled by alpha / r (default: 16)'),
    option('--lora-dropout', type=float, default=0.1, help='lora: dropout on the input of the update (default: 0.1)'),
    option('--lora-targets', default='query,value', help='lora: comma-separated attention projections that get an update (default: query,value)'),
    option('--prefix-tokens', type=int, default=10, help='prefix: trainable prefix tokens per layer (default: 10)'),
    option('--adapter-reduction', type=int, default=16, help='adapter (Houlsby) and pfeiffer: bottleneck width = hidden / this (default: 16)'),
    option('--parallel-adapter-reduction', type=int, default=16, help='parallel-adapter: bottleneck width = hidden / this (default: 16)'),
    option('--parallel-adapter-scale', type=float, default=4.0, help='parallel-adapter: output scale s (default: 4, He et al. 2022)'),
    option('--iaa-budget', type=float, default=0.01, help="iaa-s/l/m: trainable parameters as a fraction of the backbone's, 0 to 1 (0: inside modules are the identity path, asides plain skip connections; default: 0.01)"),
    option('--iaa-inside-share', type=float, default=None, help="iaa-s/l/m: give this share of the budget to the inside modules and the rest to the asides (0 or 1: one side is the identity path); default: one hidden size for every module, so variants with more aside modules get narrower inside modules (inferred from the paper's statement that they do; the paper gives no split rule)"),
    option('--iaa-inside', choices=['adapter', 'lora'], default='adapter', help='iaa-s/l/m: inside modules, bottleneck adapters or LoRA (default: adapter)'),
    option('--iaa-skip', choices=['after-ln', 'before-ln', 'scaled'], default='before-ln', help="iaa-s/l/m: where an aside module's skip joins the spanned unit (the paper does not say): before-ln, y' = LN(F(x) + r + x + A(x)) with r the unit's last sub-layer's own residual (default: the best step-0 score); after-ln, y' = LN(F(x)+x) + x + A(x); scaled, y' = (LN(F(x)+x) + x + A(x)) / 2 (docs/methods.md gives each one's step-0 score)"),
    option('--rem-lora-r', type=int, default=None, help='rem: LoRA rank (default: hidden / 4)'),
    option('--rem-lora-alpha', type=int, default=None, help='rem: LoRA alpha (default: the rank)'),
    option('--rem-adapter-reduction', type=int, default=4, help='rem: parallel adapter width = hidden / this (default: 4)'),
    option('--rem-adapter-scale', type=float, default=4.0, help='rem: parallel adapter scale (default: 4)'),
)


def tuning_config_from(args) -> TuningConfig:
    """The TuningConfig of parsed option values (attributes named by the options' dest)."""
    return TuningConfig(lora_r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                        lora_targets=tuple(t.strip() for t in args.lora_targets.split(",") if t.strip()),
                        prefix_tokens=args.prefix_tokens, adapter_reduction=args.adapter_reduction,
                        parallel_adapter_reduction=args.parallel_adapter_reduction,
                        parallel_adapter_scale=args.parallel_adapter_scale, iaa_budget=args.iaa_budget,
                        iaa_inside_share=args.iaa_inside_share, iaa_inside=args.iaa_inside, iaa_skip=getattr(args, "iaa_skip", "before-ln"),
                        rem_lora_r=args.rem_lora_r,
                        rem_lora_alpha=args.rem_lora_alpha, rem_adapter_reduction=args.rem_adapter_reduction,
                        rem_adapter_scale=args.rem_adapter_scale)
