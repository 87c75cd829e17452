"""Ranks from one family of corrected pairwise tests: point rank, rank interval and ties, consistent by construction (definitions: bench.reporting.leaderboard.board)."""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence
import numpy as np
from bench.evaluation import exact
from bench.evaluation import stats as S


@dataclass(frozen=True)
class PairwiseRanks:
    """Ranks of k models from corrected pairwise tests (see the module docstring).

    Arrays are indexed by model (the columns of the score matrix). ``better[i, j]`` is True when
    model j is separably better than model i; ``p_raw`` / ``p_adj`` are the symmetric (k, k)
    matrices of raw / corrected p-values (NaN on the diagonal); ``order`` lists the models in
    table order (rank, mean descending, name)."""

    means: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    tied: np.ndarray
    better: np.ndarray
    p_raw: np.ndarray
    p_adj: np.ndarray
    order: List[int]
    n_pairs: int

    def separable(self, i: int, j: int) -> bool:
        return bool(self.better[i, j] or self.better[j, i])


def pairwise_ranks(scores: Any, names: Optional[Sequence[str]] = None, *, test: str = "t-test",
                   correction: str = "holm", alpha: float = 0.05, seed: int = 0,
                   n_resamples: int = S.DEFAULT_RESAMPLES, key: Sequence[str] = ()) -> PairwiseRanks:
    """Point ranks, rank intervals and ties of k models from an (n_queries, k) matrix of finite
    per-query scores on a shared query set (higher is better).

    Every pair (i, j), i < j, is tested with ``bench.evaluation.stats.paired_test(scores[:, i], scores[:, j],
    test)`` (two-sided); the k(k-1)/2 p-values are one family corrected with ``correction``; j is
    separably better than i when the corrected p < ``alpha`` and mean(j) > mean(i).
    rank_low = 1 + #separably better, rank_high = k - #separably worse, rank = 1 + #higher mean
    clipped into [rank_low, rank_high]; tied = not separable from the model directly above or
    below in table order (rank, mean descending, name). The randomization test's stream is keyed
    by (seed, *key, name_i, name_j)."""
    s = np.array(scores, dtype=np.float64, copy=True)
    if s.ndim != 2:
        raise ValueError("scores must be a (n_queries, n_models) array")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores contain NaN or infinite values; drop those queries first")
    if alpha <= 0 or alpha >= 1:
        raise ValueError("alpha must be in (0, 1)")
    if correction not in S.CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(S.CORRECTIONS)}")
    n, k = s.shape
    names = [str(x) for x in names] if names is not None else [str(i) for i in range(k)]
    if len(names) != k:
        raise ValueError("one name per model (column) is needed")
    means = exact.column_means(s) if n else np.full(k, np.nan)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    raw = [S.paired_test(s[:, i], s[:, j], test, seed=seed, n_resamples=n_resamples,
                         key=(*key, names[i], names[j])).pvalue for i, j in pairs]
    adj = S.adjust_pvalues(raw, correction) if pairs else np.array([])
    p_raw = np.full((k, k), np.nan)
    p_adj = np.full((k, k), np.nan)
    better = np.zeros((k, k), dtype=bool)
    for (i, j), pr, pa in zip(pairs, raw, adj):
        p_raw[i, j] = p_raw[j, i] = pr
        p_adj[i, j] = p_adj[j, i] = pa
        if np.isfinite(pa) and pa < alpha:
            if means[j] > means[i]:
                better[i, j] = True
            elif means[i] > means[j]:
                better[j, i] = True
    rank_low = 1 + better.sum(axis=1)  # row i: the models separably better than i
    rank_high = k - better.sum(axis=0)  # column i: the models i is separably better than
    point = S.ranks_of(np.where(np.isfinite(means), means, -np.inf))
    rank = np.clip(point, rank_low, rank_high)
    order = sorted(range(k), key=lambda i: (int(rank[i]), -float(means[i]) if np.isfinite(means[i]) else math.inf,
                                            names[i], i))
    tied = np.zeros(k, dtype=bool)
    for pos, i in enumerate(order):
        for q in (pos - 1, pos + 1):
            if 0 <= q < k and not (better[i, order[q]] or better[order[q], i]):
                tied[i] = True
    return PairwiseRanks(means, rank.astype(int), rank_low.astype(int), rank_high.astype(int), tied, better,
                         p_raw, p_adj, order, len(pairs))


def rank_method(rank_by: str, metric: str, *, test: str, correction: str, alpha: float, seed: int,
                n_resamples: int = S.DEFAULT_RESAMPLES) -> str:
    """The one-line description of the ranking written in the header and the rank_method column."""
    extra = f" (m={n_resamples} Monte Carlo resamples)" if test == "randomization" else ""
    return (f"rank by {rank_by} {metric} (higher is better; few-shot groups: their headline), per group of "
            "comparable runs, on the queries shared by all ranked models; "
            f"pairwise separation: {S.TEST_DESCRIPTIONS[test]}{extra}; two-sided; family = all k(k-1)/2 model "
            f"pairs of a group, correction: {S.CORRECTION_DESCRIPTIONS[correction]}; alpha = {alpha}; seed={seed}; "
            "j separably better than i = corrected p < alpha and mean(j) > mean(i); "
            "rank interval [rank_low, rank_high] with rank_low = 1 + #models separably better, "
            "rank_high = k - #models separably worse (simultaneous 1-alpha rank confidence sets when the "
            "correction controls the FWER); rank = 1 + #models with a higher mean, clipped into the interval; "
            "tied = not separable from the model directly above or below")
