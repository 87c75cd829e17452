"""The few-shot suite's configuration and its command-line options (declared as data)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence


from bench.core.errors import BenchError
from bench.core.options import option
from bench.training.contrastive import (TRAINING_OPTIONS, TrainConfig)
from bench.tuning.config import METHODS, TUNING_OPTIONS, TuningConfig, check_method
from suites.fewshot_sampler import DEFAULT_KS, DEFAULT_TRIALS, SHORT_RULES
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
    methods: Sequence[str] = ("qry-tune",)
    basic_learning: bool = False
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
    option('--basic-learning', action='store_true', help='first train each method on all base training queries; few-shot starts from those weights'),
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

    train = train_config_from(args)
    tuning = tuning_config_from(args)
    return FewShotConfig(
        seed=args.seed, ks=parse_ints(args.ks, "--ks"), n_trials=args.trials,
        trial_seeds=parse_ints(args.trial_seeds, "--trial-seeds") if args.trial_seeds else None,
        novel_ratio=args.novel_ratio, test_ratio=args.test_ratio, split_file=args.class_split,
        short_rule=args.short_classes, min_usable_novel=args.min_usable_novel, methods=methods,
        basic_learning=args.basic_learning, full_shot=not args.no_full_shot, cutoff=args.cutoff, train=train,
        tuning=tuning, test=args.fewshot_test, correction=args.correction, n_resamples=args.resamples,
        batch_size=args.batch_size, progress=not args.no_progress, plots=not args.no_plots)


