"""SWAPWORDS's kind table: each evidence kind's score is its Laplace-smoothed validity on the tuning
half of the development samples, ``(valid + 1) / (labelled + 2)`` (the scores of
:data:`perturb.generators.swapwords.pairs.EVIDENCE`; a kind with no label scores 0.5)."""
from __future__ import annotations

from typing import Dict, Hashable, Sequence, Tuple

from perturb.checks.devset import DEVELOPMENT, Candidate, Provenance, kind_counts
from benchmarks.tuning.rules import tuning_half


def kind_scores(rows: Sequence[Candidate], generator: str = "SWAPWORDS", provenance: Provenance = DEVELOPMENT
                ) -> Dict[Hashable, Tuple[float, int, int]]:
    """kind -> (score rounded to 2 decimals, valid, labelled) on the tuning half."""
    counts = kind_counts(r for r in tuning_half(rows, provenance) if r.generator == generator)
    return {k: (round((v + 1) / (n + 2), 2), v, n) for k, (v, n) in sorted(counts.items())}
