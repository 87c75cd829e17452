"""`bench train --recipe rodr|dr-qv|dr-oq-qv|dr --model CKPT --dataset D --out DIR`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from bench.cli.options import add_training_options, out_folder
from bench.config import check_at_least_one, slug
from bench.core.errors import BenchError
from bench.core.paths import check_cache_home, check_writable_folder
from bench.core.written import check_folder_replaceable
from bench.data.collections import load_dataset
from bench.models.loading import refuse_dense
from bench.models.spec import resolve_model
from bench.training.contrastive import train_config_from
from bench.training.recipes import CASES, RECIPES, RecipeConfig, stage_one_folder, train_recipe
from bench.tuning.config import tuning_config_from
from perturb import GENERATORS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recipe", default="rodr", choices=list(RECIPES),
                   help="; ".join(f"{k}: {v}" for k, v in RECIPES.items()))
    p.add_argument("--model", default="minilm-l6", help="the model to start from (DR_O; frozen teacher for rodr)")
    p.add_argument("--dataset", default="chatterbot", help="registered dataset or folder (as for bench evaluate)")
    p.add_argument("--split", default=None, help="qrels split (default: test)")
    p.add_argument("--train-split", default=None, help="train on this split of the dataset instead of holding "
                                                       "queries out of --split")
    p.add_argument("--holdout", type=float, default=0.5, help="without --train-split: share of judged queries held "
                                                              "out of training, seeded (default: 0.5)")
    p.add_argument("--out", type=out_folder, default=None, help="checkpoint folder (default: "
                                                          "checkpoints/<model>__<dataset>__<recipe>__s<seed>)")
    p.add_argument("--force", action="store_true",
                   help="write into an existing --out folder that drbench did not write (or whose files were changed "
                        "since): same-named files are replaced, its other files are kept")
    p.add_argument("--method", default="full-tune", help="which parameters learn (bench.tuning.config methods that make "
                                                         "one checkpoint; default: full-tune)")
    p.add_argument("--seed", type=int, default=0, help="training seed: holdout split, sampling, initialisation (default: 0)")
    p.add_argument("--from-dr-oq", action="store_true",
                   help="rodr: train DR_OQ on the original queries first (into OUT.dr-oq), then RoDR from it with "
                        "the paper's weights for that case, 1 / 1 / 0.2 (default: RoDR applied to the existing "
                        "retriever --model, with the paper's equal weights 1 / 1 / 1)")
    p.add_argument("--w-nll", type=float, default=None, help="rodr: weight of the NLL term (default: the paper's, 1)")
    p.add_argument("--w-query", type=float, default=None,
                   help="rodr: weight of query-centred alignment (default: the paper's, 1)")
    p.add_argument("--w-passage", type=float, default=None, help="rodr: weight of passage-centred alignment "
                                                                 "(default: the paper's for the case: 1, or 0.2 "
                                                                 "with --from-dr-oq)")
    p.add_argument("--passage-rows", choices=["all", "positives"], default="all",
                   help="rodr: passages that centre the passage-centred KL: every in-batch passage (the paper, "
                        "default) or the positives only")
    p.add_argument("--rodr-schedule", choices=["harness", "paper"], default="harness",
                   help="harness: the training options as given (default); paper: RoDR's own schedule, 4 epochs, "
                        "7 hard negatives, lr 5e-6 (the rate the paper uses most often; an explicit --lr is kept). "
                        "Every difference from RoDR's settings is printed and recorded")
    p.add_argument("--variation-sampling", choices=["quota", "sets", "changed"], default="quota",
                   help="quota: every training query gets one variation that changed it, the types given equal "
                        "quotas as far as the queries allow (the RoDR authors' code; default); sets: drawn per "
                        "epoch uniformly over the variation sets, a set that left the query unchanged giving the "
                        "query itself; changed: drawn per epoch among the sets that changed it (both earlier "
                        "rules, recorded deviations)")
    p.add_argument("--protocol", default="validated", choices=["validated", "rodr"],
                   help="the variation generators of the training pairs: validated (default; ours, constrained) or "
                        "rodr (the paper's TextFlint / TextAttack operations); printed and recorded")
    p.add_argument("--loss", default="nll", choices=["nll", "margin-mse"],
                   help="baseline recipes: NLL (default) or Margin-MSE distillation from --teacher")
    p.add_argument("--teacher", default=None, help="margin-mse: dense teacher model (default: the starting model)")
    p.add_argument("--generators", default=None, help="comma-separated variation generators to sample from "
                                                      "(default: all eight)")
    p.add_argument("--save-every", type=int, default=50, help="write the resumable training state every N steps (0: only at the end)")
    add_training_options(p, "optimisation", "method settings", "encoding batch size (corpus, negatives)")


def run(args) -> int:


    check_at_least_one(args, "batch_size")
    if args.out is not None:
        check_writable_folder(args.out, "--out", "give --out a new or writable folder")
    check_cache_home()
    from bench.encoding import runtime

    spec = runtime.apply(resolve_model(args.model).with_overrides(), args.device, args.dtype, "torch")
    refuse_dense(spec, "bench train")
    print(spec.describe(), file=sys.stderr)
    dataset = load_dataset(args.dataset, args.split)
    train_ds = load_dataset(args.dataset, args.train_split) if args.train_split else None
    gens = None
    if args.generators:
        gens = [GENERATORS.canonical(g.strip()) for g in args.generators.split(",") if g.strip()]
    if args.rodr_schedule == "paper" and (args.epochs, args.hard_negatives) != (1, 1):
        raise BenchError("--rodr-schedule paper sets --epochs 4 and --hard-negatives 7 (RoDR's); leave those "
                         "options out, or use --rodr-schedule harness to set them yourself")
    cfg = RecipeConfig(recipe=args.recipe, method=args.method, seed=args.seed, w_nll=args.w_nll, w_query=args.w_query,
                       w_passage=args.w_passage, holdout=args.holdout, train_split=args.train_split, generators=gens,
                       save_every=args.save_every, train=train_config_from(args),
                       tuning=tuning_config_from(args), loss=args.loss,
                       teacher=resolve_model(args.teacher) if args.teacher else None,
                       from_dr_oq=args.from_dr_oq, passage_rows=args.passage_rows,
                       rodr_schedule=args.rodr_schedule, variation_sampling=args.variation_sampling,
                       protocol=args.protocol)
    cfg.validate()  # before any training: a bad combination is a usage error (exit 2)
    out = args.out or Path("checkpoints") / f"{slug(spec.name)}__{slug(dataset.name)}__{args.recipe}__s{args.seed}"
    check_writable_folder(out, "--out", "give --out a new or writable folder")
    check_folder_replaceable(out, "--out", args.force, "give --out a new folder")  # before any training
    if cfg.recipe == "dr-oq-qv" or cfg.from_dr_oq:
        check_folder_replaceable(stage_one_folder(out), "the stage-1 checkpoint folder", args.force,
                                 "give --out a new folder")
    case = f" ({cfg.case}: {CASES[cfg.case]})" if cfg.case else ""
    print(f"bench train: recipe {args.recipe}{case}, method {args.method}, from {spec.name} on {dataset.name}",
          file=sys.stderr)
    for d in cfg.deviations(spec.similarity):
        print(f"deviation from the paper: {d}", file=sys.stderr)
    rec = train_recipe(spec, dataset, cfg, out, train_dataset=train_ds, batch_size=args.batch_size,
                       progress=not args.no_progress, force=args.force)
    print(training_summary(rec))
    print(f"checkpoint: {out}")
    if rec["queries"]["heldout_file"]:
        from bench.cli.next_steps import command, option_argv
        from bench.core.options import option

        print("evaluate on the held-out queries: " + command(
            "evaluate", "--model", out, *option_argv(option("--dataset"), args.dataset),
            "--queries", Path(out) / rec["queries"]["heldout_file"]))
    return 0


def training_summary(rec: dict) -> str:
    log, par = rec["log"], rec["parameters"]
    lines = [f"recipe {rec.get('recipe', rec.get('kind'))}: {rec.get('description', '')}",
             f"trainable parameters {par['trainable']:,} of {par['total']:,} ({100 * par['trainable_share']:.2f}%)",
             f"steps {log['steps']} in {log['seconds']:.1f} s; loss {log['first_loss']:.4f} -> {log['last_loss']:.4f}"]
    if rec.get("case"):
        w = rec["loss"]["weights"]
        lines.append(f"case {rec['case']}: weights {w['w_nll']:g} / {w['w_query']:g} / {w['w_passage']:g} "
                     f"(NLL / query-centred / passage-centred)")
    for st in rec.get("stages") or []:
        lines.append(f"stage {st['stage']} {st['name']} ({st['recipe']}): {st['steps']} steps"
                     + (f", reused {st['checkpoint']}" if st.get("reused") else ""))
    for d in rec.get("deviations") or []:
        lines.append(f"deviation from the paper: {d}")
    if log.get("resumed_at"):
        lines.append(f"resumed at step(s) {', '.join(map(str, log['resumed_at']))}")
    v = rec.get("variations") or {}
    if v.get("rule"):
        u = v.get("unchanged_pairs") or {}
        lines.append(f"training variations: --protocol {v.get('protocol')}, --variation-sampling {v['rule']} "
                     f"({v.get('sampling')}); unchanged (q, q) pairs {u.get('n', 0)} of {u.get('of', 0)} "
                     f"({100 * u.get('share', 0.0):.1f}%)")
    if rec.get("variation_use"):
        lines.append("variations used: " + ", ".join(f"{k} {v}" for k, v in rec["variation_use"].items()))
    return "\n".join(lines)
