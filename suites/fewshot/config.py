"""The few-shot suite's configuration and its command-line options (declared as data)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence


from bench.core.errors import BenchError
from bench.core.options import option
from bench.training.contrastive import (TRAINING_OPTIONS, TrainConfig)
from bench.tuning.config import METHODS, TUNING_OPTIONS, TuningConfig, check_method
from suites.fewshot.basic import BASIC_METHOD
from suites.fewshot.sampler import DEFAULT_KS, DEFAULT_TRIALS, SHORT_RULES
from bench.evaluation.stats import CORRECTIONS, TESTS
from bench.training.contrastive import train_config_from
from bench.tuning.config import tuning_config_from


@dataclass
class FewShotConfig:
    seed: int = 0
    ks: Sequence[int] = DEFAULT_KS
    n_trials: int = DEFAULT_TRIALS
    trial_seeds: Optional[Sequence[int]] = None
    novel_ratio: float = 0.5
    test_ratio: float = 0.5
    split_file: Optional[Path] = None
    short_rule: str = "all"
    min_usable_novel: int = 1
    min_class_test: int = 1  # classes with fewer test queries are left out of every average (ours)
    methods: Sequence[str] = ("qry-tune",)
    basic_learning: bool = True  # FewDR: the zero-shot model is the checkpoint fine-tuned on the base classes
    full_shot: bool = True
    cutoff: int = 10
    train: TrainConfig = field(default_factory=TrainConfig)
    tuning: TuningConfig = field(default_factory=TuningConfig)
    test: str = "randomization"
    correction: str = "holm"
    n_resamples: int = 10000
    alpha: float = 0.05
    batch_size: int = 64  # encoding batch size
    cache_root: Optional[Path] = None
    progress: bool = True
    plots: bool = True

    def validate(self) -> "FewShotConfig":
        for m in self.methods:
            check_method(m)
        if not self.methods:
            raise BenchError("--methods is empty")
        if len(set(self.methods)) != len(self.methods):
            raise BenchError("--methods lists a method twice")
        if self.min_class_test < 1:
            raise BenchError("--min-class-test must be at least 1 (1: every class with a test query counts)")
        if self.cutoff < 1:
            raise BenchError("--cutoff must be at least 1")
        self.train.validate()
        self.tuning.validate(self.methods)

        if self.test not in TESTS:
            raise BenchError(f"--fewshot-test must be one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise BenchError(f"--correction must be one of {', '.join(CORRECTIONS)}")
        return self


# --------------------------------------------------------------------------------------------
# command line


def parse_ints(text: str, what: str) -> List[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise BenchError(f"{what} must be integers separated by commas, not {text!r}") from None


#: Options of ``bench evaluate --suite fewshot`` (added to the evaluate command's parser).
FEWSHOT_OPTIONS = (
    option('--methods', default='qry-tune', help=f"comma-separated tuning methods from {', '.join(METHODS)} (default: qry-tune)"),
    option('--ks', default=','.join((str(k) for k in DEFAULT_KS)), help='K values, training queries per class (default: 5,20,100; a K runs where at least --min-usable-novel novel classes have K training queries)'),
    option('--trials', type=int, default=DEFAULT_TRIALS, help='sampling trials per K (default: 5)'),
    option('--trial-seeds', default=None, help='explicit comma-separated trial seeds (default: derived from --seed, recorded)'),
    option('--class-split', type=Path, default=None, help="base/novel split file (JSON {base, novel} or 'class base|novel' lines)"),
    option('--novel-ratio', type=float, default=0.5, help='share of classes drawn as novel without --class-split (default: 0.5)'),
    option('--test-ratio', type=float, default=0.5, help="share of each class's queries held out for testing (default: 0.5)"),
    option('--short-classes', choices=list(SHORT_RULES), default='all', help="classes with fewer than K training queries: 'all' = use all of them (capped), 'skip' = none at that K (default: all)"),
    option('--min-usable-novel', type=int, default=1, help='run a K only if this many novel classes have K training queries (default: 1)'),
    option('--min-class-test', type=int, default=1, help='leave classes with fewer than N test queries out of every average, winning ratio and test (recorded in plan.excluded_classes; default: 1, every class)'),
    option('--no-basic-learning', action='store_true', help="skip FewDR's basic learning (a full fine-tune on every base-class training query, the zero-shot model few-shot training starts from); zero-shot is then the raw checkpoint (a deviation, printed and recorded)"),
    option('--basic-learning', action='store_true', help='basic learning (the default; kept so older command lines run)'),
    option('--no-full-shot', action='store_true', help='skip the full-shot upper reference'),
    option('--cutoff', type=int, default=10, help="R@k cutoff (default: 10, FewDR's R@10)"),
    *TRAINING_OPTIONS,
    *TUNING_OPTIONS,
    option('--fewshot-test', default='randomization', help='paired test vs zero-shot: randomization (default), t-test, wilcoxon'),
    option('--resamples', type=int, default=10000, help='Monte Carlo resamples of the randomization test'),
    option('--no-plots', action='store_true', help='do not write the PNG plots'),
)


def config_from(args) -> FewShotConfig:
    """The FewShotConfig of parsed option values (attributes named by the options' dest)."""
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.basic_learning and args.no_basic_learning:
        raise BenchError("--basic-learning and --no-basic-learning contradict each other; basic learning is the "
                         "default, give --no-basic-learning alone to skip it")

    train = train_config_from(args)
    tuning = tuning_config_from(args)
    return FewShotConfig(
        seed=args.seed, ks=parse_ints(args.ks, "--ks"), n_trials=args.trials,
        trial_seeds=parse_ints(args.trial_seeds, "--trial-seeds") if args.trial_seeds else None,
        novel_ratio=args.novel_ratio, test_ratio=args.test_ratio, split_file=args.class_split,
        short_rule=args.short_classes, min_usable_novel=args.min_usable_novel, methods=methods,
        min_class_test=getattr(args, 'min_class_test', 1),
        basic_learning=not args.no_basic_learning, full_shot=not args.no_full_shot, cutoff=args.cutoff, train=train,
        tuning=tuning, test=args.fewshot_test, correction=args.correction, n_resamples=args.resamples,
        batch_size=args.batch_size, progress=not args.no_progress, plots=not args.no_plots)




# --------------------------------------------------------------------------------------------
# FewDR's schedule and the deviations a run makes from it

#: FewDR's training schedule (the paper's protocol section and its released scripts
#: zero-shot-train.sh / few-shot-train.sh / full-shot-train.sh: the same for every stage)
PAPER_SCHEDULE = {"epochs": 40, "batch_size": 32, "lr": 5e-6, "max_query_length": 32, "max_passage_length": 256,
                  "hard_negatives": 1, "trials": 5,
                  "source": "FewDR (Sun et al., 2023), protocol section; released scripts in OpenMatch/ANCE-Tele "
                            "plugins/FewDR/shells"}


def schedule_text(epochs, batch_size, lr) -> str:
    return f"{epochs} epoch{'s' if epochs != 1 else ''}, batch {batch_size}, lr {lr:g}"


def active_deviations(cfg: FewShotConfig, similarity: str = "cos") -> List[dict]:
    """The departures from FewDR's protocol that this configuration makes (recorded in the result
    as ``deviations`` and printed by the console table; documented in docs/methods.md)."""
    paper = PAPER_SCHEDULE
    out: List[dict] = []
    if not cfg.basic_learning:
        out.append({"name": "no basic learning",
                    "paper": "the zero-shot model is the checkpoint fine-tuned on every base-class training query; "
                             "few-shot training starts from it",
                    "ours": "--no-basic-learning: zero-shot is the raw checkpoint and few-shot training starts "
                            "from it, so base and novel classes are exchangeable",
                    "why": "asked for on the command line"})
    stages = ([BASIC_METHOD] if cfg.basic_learning else []) + list(cfg.methods)
    ours = sorted({(cfg.train.epochs, cfg.train.batch_size, cfg.train.resolved(m, similarity)["lr"]) for m in stages})
    if ours != [(paper["epochs"], paper["batch_size"], paper["lr"])] or cfg.train.max_steps is not None:
        cap = f", at most {cfg.train.max_steps} steps" if cfg.train.max_steps is not None else ""
        out.append({"name": "training schedule",
                    "paper": schedule_text(paper["epochs"], paper["batch_size"], paper["lr"]) + " for every stage",
                    "ours": "; ".join(schedule_text(*o) for o in ours) + cap
                            + " (steps per run: console and methods.<m>.k.<K>.steps_per_trial)",
                    "why": "CPU budget: 40 epochs of every trial, K and method would take hours on a CPU"})
    if (cfg.train.max_query_length, cfg.train.max_passage_length) != (paper["max_query_length"],
                                                                       paper["max_passage_length"]):
        out.append({"name": "training text lengths",
                    "paper": f"query {paper['max_query_length']} / passage {paper['max_passage_length']} tokens",
                    "ours": f"query {cfg.train.max_query_length} / passage {cfg.train.max_passage_length} tokens",
                    "why": "CPU budget"})
    if cfg.full_shot and any(m != BASIC_METHOD for m in cfg.methods):
        out.append({"name": "full-shot method",
                    "paper": "full-shot is a full fine-tune of the checkpoint on every training query",
                    "ours": "full-shot trains each method (" + ", ".join(cfg.methods) + ") from the checkpoint",
                    "why": "an upper reference for the method being studied"})
    return out


def short_class_deviations(plan) -> List[dict]:
    """``short classes``: at each K that runs, the classes that give fewer than K training queries
    and how many each gives (all it has under ``--short-classes all``, none under ``skip``)."""
    parts = []
    n_classes = len(plan.classes.base) + len(plan.classes.novel)
    for k, trials in sorted(plan.trials.items()):
        taken = {c: 0 for t in trials for c in t.skipped}
        taken.update({c: n for t in trials for c, n in t.capped.items()})
        if taken:
            parts.append(f"K={k}: {len(taken)} of {n_classes} classes give fewer than {k} training queries ("
                         + ", ".join(f"{c} {n}" for c, n in sorted(taken.items())) + ")")
    if not parts:
        return []
    rule = {"all": "all it has", "skip": "none"}[plan.short_rule]
    return [{"name": "short classes", "paper": "K training queries sampled from every class at every K",
             "ours": "; ".join(parts) + f"; a short class gives {rule} (--short-classes {plan.short_rule}), a class "
                                        "with no training query none; their test queries are still evaluated",
             "why": "the collection's classes are smaller than K (plan.class_sizes)"}]


def similarity_text(similarity: str, train) -> str:
    """The training and retrieval score of a run (recorded; FewDR's scripts: OpenMatch's dot product)."""
    if similarity == "cos":
        tau = train.temperature if train.temperature is not None else 0.05
        return (f"scores: cosine similarity (the model's), divided by a temperature {tau:g} in training; FewDR's "
                f"scripts (OpenMatch, ANCE-Tele) score by the dot product")
    tau = train.temperature if train.temperature is not None else 1.0
    return f"scores: dot product (the model's), divided by {tau:g} in training, as FewDR's scripts (OpenMatch)"


def negatives_text(train) -> str:
    """Where a run's hard negatives come from (recorded)."""
    if train.negatives_from == "none" or train.hard_negatives == 0:
        return "hard negatives: none (in-batch negatives only); FewDR's training data has one per query"
    src = {"model": "the checkpoint's own ranking (--model, before any training)", "bm25": "BM25's ranking"}[
        train.negatives_from]
    return (f"hard negatives: {train.hard_negatives} per query, mined once from {src}, top {train.negative_depth} "
            f"unjudged passages; FewDR's come with its preprocessed training data")


def run_choices(similarity: str, train) -> List[str]:
    """The run's own choices printed as ``our choice, not FewDR's``: its scores and its negatives."""
    return [similarity_text(similarity, train), negatives_text(train)]

