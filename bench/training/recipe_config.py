"""Settings of a recipe run (:mod:`bench.training.recipes`): recipes, the RoDR case and its loss
weights, and the departures from the paper that a configuration makes (docs/methods.md, "RoDR")."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence

from bench.core.errors import BenchError
from bench.models.checkpoint import check_saveable
from bench.training.contrastive import TrainConfig

RECIPES = {
    "rodr": "RoDR: NLL on a sampled query variation + query- and passage-centred local ranking alignment "
            "(KL from the frozen original model)",
    "dr-qv": "DR_QV: fine-tuned on query variations only (NLL), no alignment",
    "dr-oq-qv": "DR_OQ->QV: fine-tuned on the original queries (stage 1), then on query variations (stage 2), "
                "each stage with its own schedule and RoDR's number of steps",
    "dr": "DR: fine-tuned on the original queries (NLL)",
}
PHASES = {"rodr": ("variation",), "dr-qv": ("variation",), "dr-oq-qv": ("original", "variation"), "dr": ("original",)}
HELDOUT_FILE = "heldout_queries.txt"
LOSSES = ("nll", "margin-mse")
PASSAGE_ROWS = ("all", "positives")
# RoDR's loss weights (w_nll, w_query, w_passage) per case (Chen et al., IJCAI 2022)
CASES = {
    "existing-retriever": "RoDR applied to an existing retriever (the starting model is DR_O): equal weights",
    "from-dr-oq": "DR_OQ trained on the original queries first (stage 1), then RoDR from it (stage 2): 1 / 1 / 0.2",
}
PAPER_WEIGHTS = {"existing-retriever": (1.0, 1.0, 1.0), "from-dr-oq": (1.0, 1.0, 0.2)}
# the weights the paper gives for document ranking (MS MARCO documents); recorded beside the case's
PAPER_DOCUMENT_WEIGHTS = (1.0, 0.1, 1.0)
MASKING = ("an in-batch passage judged relevant to another row's query is masked out of that row in every term "
           "(ours: neither the paper nor the authors' code masks them)")
# RoDR's own training settings (Chen et al., IJCAI 2022): 4 epochs, n = 7 hard negatives from DR_O's
# top-ranked passages, dot-product scores, a learning rate per model (5e-6 / 3e-5 / 5e-6 / 5e-7 for
# its four retrievers). `--rodr-schedule paper` takes these; for a model that is not one of the
# paper's it takes 5e-6, the rate the paper uses most often (an explicit --lr is kept).
RODR_SCHEDULES = ("harness", "paper")
PAPER_SCHEDULE = {"epochs": 4, "hard_negatives": 7, "lr": 5e-6}
PAPER_LRS = (5e-6, 3e-5, 5e-6, 5e-7)
PAPER_NEGATIVE_DEPTH = 1000  # RoDR mines its hard negatives from DR_O's top 1,000
VARIATION_SAMPLING = ("quota", "sets", "changed")
# what each --variation-sampling rule does (recorded as variations.sampling in training.json)
SAMPLING_TEXT = {
    "quota": "one changed variation per query for the whole run, the variation types given equal quotas as far as "
             "the queries allow (the RoDR authors' construct_train_query_variations.py)",
    "sets": "uniform over every variation set per (query, epoch); a set that left the query unchanged gives the "
            "query itself",
    "changed": "uniform per (query, epoch) among the sets that changed the query",
}
_LR_TEXT = " / ".join(f"{x:.0e}".replace("e-0", "e-") for x in PAPER_LRS)


#: a phrase of every deviation a recipe run can print -> the row of docs/methods.md's RoDR table that
#: names it (tests/bench/test_methods_doc.py checks both directions)
DEVIATION_ITEMS = {
    "loss weights": "weights given on the command line",
    "passage-centred KL over the B positive": "passage-centred term",
    "--variation-sampling sets": "variation sampling",
    "--variation-sampling changed": "variation sampling",
    "changed by no variation set": "variation sampling",
    "quotas unequal": "variation sampling",
    "training variations from the validated generators": "training variations",
    "masked out of that row": "masking of other queries' relevant passages",
    "hard negative(s) per query": "hard negatives",
    "epoch(s) (paper: 4)": "epochs",
    "learning rate": "learning rate",
    "scores are cosine similarities": "scores",
    "dot-product scores": "scores",
    "--method": "tuning method",
}


@dataclass
class RecipeConfig:
    recipe: str = "rodr"
    method: str = "full-tune"
    seed: int = 0
    w_nll: Optional[float] = None  # rodr: None = the paper's weight for the case (PAPER_WEIGHTS)
    w_query: Optional[float] = None
    w_passage: Optional[float] = None
    holdout: float = 0.5
    train_split: Optional[str] = None
    generators: Optional[Sequence[str]] = None  # None: the paper's eight
    save_every: int = 50
    train: TrainConfig = field(default_factory=TrainConfig)
    tuning: Optional[object] = None  # bench.tuning.config.TuningConfig (None: its defaults)
    loss: str = "nll"  # recipes dr / dr-qv / dr-oq-qv: "nll" or "margin-mse"
    teacher: Optional[object] = None  # margin-mse: the teacher's ModelSpec (None: the starting model)
    from_dr_oq: bool = False  # rodr: train DR_OQ first, then RoDR from it (the paper's 1 / 1 / 0.2 case)
    passage_rows: str = "all"  # rodr: rows of the passage-centred KL: every in-batch passage (paper) or positives
    rodr_schedule: str = "harness"  # harness: TrainConfig as given; paper: RoDR's epochs, negatives, lr
    variation_sampling: str = "quota"  # quota: one changed variation per query, equal quotas per type (the
    # authors' code); sets: uniform over every set, unchanged queries included; changed: uniform over the sets
    # that changed the query (both: rules of earlier runs, named deviations)
    protocol: str = "validated"  # the variation generators: validated (ours) or rodr (the paper's operations)

    def __post_init__(self):
        if self.rodr_schedule == "paper":  # idempotent: dataclasses.replace re-runs it
            t = self.train
            self.train = replace(t, epochs=PAPER_SCHEDULE["epochs"], hard_negatives=PAPER_SCHEDULE["hard_negatives"],
                                 lr=t.lr if t.lr is not None else PAPER_SCHEDULE["lr"])

    def validate(self) -> "RecipeConfig":
        if self.recipe not in RECIPES:
            raise BenchError(f"unknown recipe {self.recipe!r}; choose from {', '.join(RECIPES)}")

        check_saveable(self.method)  # before any training, not after it
        if not 0.0 < self.holdout < 1.0:
            raise BenchError("--holdout must be between 0 and 1 (exclusive), or give --train-split")
        if self.save_every < 0:
            raise BenchError(f"--save-every {self.save_every}: must be >= 0 (0: only at the end)")
        if self.loss not in LOSSES:
            raise BenchError(f"--loss must be one of {', '.join(LOSSES)}")
        if self.loss == "margin-mse" and self.recipe == "rodr":
            raise BenchError("--loss margin-mse replaces the NLL of the baseline recipes; rodr keeps its own loss")
        if self.loss == "margin-mse" and (self.train.hard_negatives < 1 or self.train.negatives_from == "none"):
            raise BenchError("--loss margin-mse needs hard negatives (--hard-negatives >= 1, --negatives model|bm25)")
        if self.from_dr_oq and self.recipe != "rodr":
            raise BenchError(f"--from-dr-oq belongs to --recipe rodr (recipe {self.recipe} has no DR_OQ stage to add; "
                             f"dr-oq-qv already trains DR_OQ first)")
        if self.rodr_schedule not in RODR_SCHEDULES:
            raise BenchError(f"--rodr-schedule must be one of {', '.join(RODR_SCHEDULES)}")
        if self.variation_sampling not in VARIATION_SAMPLING:
            raise BenchError(f"--variation-sampling must be one of {', '.join(VARIATION_SAMPLING)}")
        from perturb import PROTOCOLS

        if self.protocol not in PROTOCOLS:
            raise BenchError(f"--protocol must be one of {', '.join(PROTOCOLS)}")
        if self.passage_rows not in PASSAGE_ROWS:
            raise BenchError(f"--passage-rows must be one of {', '.join(PASSAGE_ROWS)}")
        given = [w for w in (self.w_nll, self.w_query, self.w_passage) if w is not None]
        if given and self.recipe != "rodr":
            raise BenchError(f"--w-nll/--w-query/--w-passage weigh RoDR's terms; recipe {self.recipe} has NLL only")
        if any(w < 0 for w in given):
            raise BenchError("loss weights (--w-nll, --w-query, --w-passage) must be >= 0")
        self.train.validate()
        return self

    @property
    def case(self) -> Optional[str]:
        """rodr: "from-dr-oq" or "existing-retriever" (None for the baselines)."""
        if self.recipe != "rodr":
            return None
        return "from-dr-oq" if self.from_dr_oq else "existing-retriever"

    def weights(self) -> Dict[str, float]:
        if self.recipe != "rodr":
            return {"w_nll": 1.0, "w_query": 0.0, "w_passage": 0.0}
        paper = PAPER_WEIGHTS[self.case]
        given = (self.w_nll, self.w_query, self.w_passage)
        w = [float(g) if g is not None else p for g, p in zip(given, paper)]
        return {"w_nll": w[0], "w_query": w[1], "w_passage": w[2]}

    def deviations(self, similarity: Optional[str] = None) -> List[str]:
        """The departures from the RoDR paper this configuration makes (printed and recorded).
        ``similarity``: the model's ("cos" or "dot"; None: not known yet, scores not checked)."""
        out = []
        if self.recipe == "rodr":
            paper = PAPER_WEIGHTS[self.case]
            w = self.weights()
            if (w["w_nll"], w["w_query"], w["w_passage"]) != paper:
                out.append(f"rodr: loss weights {w['w_nll']:g} / {w['w_query']:g} / {w['w_passage']:g} "
                           f"(paper for the {self.case} case: {' / '.join(f'{x:g}' for x in paper)})")
            if self.passage_rows == "positives":
                out.append("rodr: passage-centred KL over the B positive passages only (paper: every in-batch "
                           "passage, positives and hard negatives)")
        if self.recipe != "dr":
            out += self.variation_deviations()
        out.append(f"{self.recipe}: {MASKING}")
        return out + self.schedule_deviations(similarity)

    def variation_deviations(self) -> List[str]:
        """How the training variations depart from RoDR's (paper: one uniformly sampled variation per
        query; the authors' code: one changed variation per query, equal quotas per type)."""
        r, out = self.recipe, []
        if self.variation_sampling == "sets":
            out.append(f"{r}: --variation-sampling sets: a query's variation is drawn per epoch uniformly over the "
                       f"variation sets, a set that left it unchanged giving the query itself, so some training pairs "
                       f"are (q, q) (the authors' code: one changed variation per query, equal quotas per type)")
        elif self.variation_sampling == "changed":
            out.append(f"{r}: --variation-sampling changed: a query's variation is drawn per epoch among the sets that "
                       f"changed it, without quotas per type (the authors' code: one changed variation per query "
                       f"for the whole run, equal quotas per type)")
        if self.protocol == "validated":
            out.append(f"{r}: training variations from the validated generators (--protocol validated; paper: "
                       f"TextFlint / TextAttack operations, --protocol rodr)")
        return out

    def schedule_deviations(self, similarity: Optional[str] = None) -> List[str]:
        """Where the training settings of this run differ from RoDR's own (every recipe: the
        baselines are the paper's too)."""
        t, r, out = self.train, self.recipe, []
        n_neg = 0 if t.negatives_from == "none" else t.hard_negatives
        src = {"model": f"DR_O's top {t.negative_depth}", "bm25": f"BM25's top {t.negative_depth}",
               "none": "none"}[t.negatives_from]
        if r == "rodr":
            if (n_neg != PAPER_SCHEDULE["hard_negatives"] or t.negatives_from != "model"
                    or t.negative_depth != PAPER_NEGATIVE_DEPTH):
                out.append(f"{r}: {n_neg} hard negative(s) per query ({src}; paper: 7 from DR_O's top "
                           f"{PAPER_NEGATIVE_DEPTH:,})")
        elif t.negatives_from != "bm25":  # the paper's baselines train on D_O's BM25 triples
            out.append(f"{r}: {n_neg} hard negative(s) per query ({src}; the paper's baselines: the BM25 "
                       f"negatives of the original training triples D_O)")
        if t.epochs != PAPER_SCHEDULE["epochs"]:
            out.append(f"{r}: {t.epochs} epoch(s) (paper: 4)")
        lr = t.lr if t.lr is not None else _default_lr(self.method)
        out.append(f"{r}: learning rate {lr:g}, {self.lr_source()} (paper: {_LR_TEXT} by model; "
                   f"this model is not one of the paper's)")
        if similarity == "cos":
            tau = t.temperature if t.temperature is not None else 0.05
            out.append(f"{r}: scores are cosine similarities / {tau:g} (the model's similarity; paper: dot product)")
        elif similarity == "dot" and t.temperature not in (None, 1.0):
            out.append(f"{r}: dot-product scores / {t.temperature:g} (paper: the dot product itself)")
        if self.method != "full-tune":
            out.append(f"{r}: --method {self.method} (paper: the whole model is fine-tuned)")
            from bench.tuning.config import TuningConfig, method_deviations

            lr = t.lr if t.lr is not None else _default_lr(self.method)
            out += method_deviations(self.method, self.tuning if self.tuning is not None else TuningConfig(), lr)
        return out

    def lr_source(self) -> str:
        if self.train.lr is not None and not (self.rodr_schedule == "paper" and self.train.lr == PAPER_SCHEDULE["lr"]):
            return "from --lr"
        if self.rodr_schedule == "paper":
            return "--rodr-schedule paper: the rate the paper uses most often"
        return "ours: the harness's default for the method (for full-tune the IAA paper's full fine-tuning rate)"

    def hyperparameter_sources(self) -> Dict[str, str]:
        """Where each training setting of the run comes from (recorded in training.json)."""
        paper = self.rodr_schedule == "paper"
        return {"lr": self.lr_source(),
                "epochs": "RoDR paper (4)" if paper and self.train.epochs == 4 else "ours (harness default or --epochs)",
                "hard_negatives": ("RoDR paper (7)" if paper and self.train.hard_negatives == 7
                                   else "ours (harness default or --hard-negatives)"),
                "negative_depth": ("RoDR paper (1000)" if self.train.negative_depth == PAPER_NEGATIVE_DEPTH
                                   else "ours (harness default or --negative-depth; the paper: DR_O's top 1,000)"),
                "batch_size": "ours (harness default or --train-batch-size)",
                "temperature": "ours (0.05 on cosine scores, 1 on dot products, or --temperature)",
                "lengths": "ours (--train-max-query-length / --train-max-passage-length)",
                "loss_weights": f"RoDR paper ({self.case} case)" if self.case else "-",
                "warmup_and_decay": "ours (linear warm-up over --warmup-ratio, then linear decay)"}


def _default_lr(method: str) -> float:
    from bench.tuning.config import DEFAULT_LR

    return DEFAULT_LR[method]
