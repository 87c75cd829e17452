"""Options shared by several commands (bench train, bench adapt, the few-shot and domain suites):
argparse groups and the configs built from them."""
from __future__ import annotations

from bench.tuning.config import TuningConfig


def add_tuning_arguments(g) -> None:
    """The per-method settings (``TuningConfig``) on an argparse group."""
    g.add_argument("--lora-r", type=int, default=8)
    g.add_argument("--lora-alpha", type=int, default=16)
    g.add_argument("--lora-dropout", type=float, default=0.1)
    g.add_argument("--lora-targets", default="query,value")
    g.add_argument("--prefix-tokens", type=int, default=10)
    g.add_argument("--adapter-reduction", type=int, default=16)
    g.add_argument("--parallel-adapter-reduction", type=int, default=16,
                   help="parallel-adapter: bottleneck width = hidden / this (default: 16)")
    g.add_argument("--parallel-adapter-scale", type=float, default=4.0,
                   help="parallel-adapter: output scale s (default: 4, He et al. 2022)")
    g.add_argument("--iaa-budget", type=float, default=0.01,
                   help="iaa-s/l/m: trainable parameters as a fraction of the backbone's (default: 0.01)")
    g.add_argument("--iaa-inside-share", type=float, default=0.5,
                   help="iaa-s/l/m: share of the budget for the inside modules; the rest for asides (default: 0.5)")
    g.add_argument("--iaa-inside", choices=["adapter", "lora"], default="adapter",
                   help="iaa-s/l/m: inside modules, bottleneck adapters or LoRA (default: adapter)")
    g.add_argument("--rem-lora-r", type=int, default=None, help="rem: LoRA rank (default: hidden / 4)")
    g.add_argument("--rem-lora-alpha", type=int, default=None, help="rem: LoRA alpha (default: the rank)")
    g.add_argument("--rem-adapter-reduction", type=int, default=4,
                   help="rem: parallel adapter width = hidden / this (default: 4)")
    g.add_argument("--rem-adapter-scale", type=float, default=4.0, help="rem: parallel adapter scale (default: 4)")


def tuning_config_from_args(args) -> TuningConfig:
    return TuningConfig(lora_r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                        lora_targets=tuple(t.strip() for t in args.lora_targets.split(",") if t.strip()),
                        prefix_tokens=args.prefix_tokens, adapter_reduction=args.adapter_reduction,
                        parallel_adapter_reduction=args.parallel_adapter_reduction,
                        parallel_adapter_scale=args.parallel_adapter_scale, iaa_budget=args.iaa_budget,
                        iaa_inside_share=args.iaa_inside_share, iaa_inside=args.iaa_inside, rem_lora_r=args.rem_lora_r,
                        rem_lora_alpha=args.rem_lora_alpha, rem_adapter_reduction=args.rem_adapter_reduction,
                        rem_adapter_scale=args.rem_adapter_scale)
