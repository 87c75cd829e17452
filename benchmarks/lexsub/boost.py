"""Gradient-boosted regression trees with the logistic loss: the fit of the synonym swaps' pick check.

Each tree is grown greedily to ``depth`` levels on the gradient and Hessian of the log-loss at the
current scores (XGBoost's second-order gain, ``l2`` on the leaf values, at least ``min_leaf`` rows on
each side of a split); a leaf's value is the Newton step ``-G / (H + l2)`` times ``rate``. No row or
feature is sampled: the same rows give the same trees. A split is ``x[feature] <= threshold``, the
threshold one of the feature's own values (no midpoint to round). Ties of gain go to the lower feature
index, then the lower threshold. A feature may be declared monotone (XGBoost's ``monotone_constraints``):
a split on it is taken only if its two weights run in the declared direction, and each subtree's leaves
are clamped to its side of the two weights' mid-point, so the sum of the trees never moves against it.

The model is plain JSON (``{"base": log-odds, "trees": [[node, ...], ...]}``, a node ``[feature,
threshold, left, right]`` or a leaf ``[value]``), read by :func:`perturb.generators.swapsyn.check.boosted`,
which sums the leaves exactly (``math.fsum``): the same probability on any CPU.
"""
from __future__ import annotations

import math
from typing import Dict, Optional

import numpy as np

#: the defaults of the shipped check: a common setting for small tabular data, not tuned on its rows
TREES, DEPTH, RATE, L2, MIN_LEAF = 100, 3, 0.1, 1.0, 20


def _clamp(w, lo: float, hi: float):
    return np.minimum(np.maximum(w, lo), hi)


def _loss(G, H, w, l2: float):
    """The second-order log-loss of a leaf of weight ``w`` over rows of gradient sum ``G``, Hessian sum ``H``."""
    return G * w + 0.5 * (H + l2) * w * w


def _best_split(X: np.ndarray, g: np.ndarray, h: np.ndarray, rows: np.ndarray, l2: float, min_leaf: int,
                bounds: tuple, monotone: dict):
    """(gain, feature, threshold, left weight, right weight) of the best split of ``rows``; feature None when
    none gains. Weights are the Newton steps clamped to ``bounds``; a split on a feature of ``monotone``
    (index -> +1 or -1) whose weights run against its direction is not taken."""
    G, H, n = g[rows].sum(), h[rows].sum(), len(rows)
    lo, hi = bounds
    parent = _loss(G, H, float(_clamp(-G / (H + l2), lo, hi)), l2)
    best = (0.0, None, None, None, None)
    k = np.arange(1, n)
    for j in range(X.shape[1]):
        v = X[rows, j]
        order = np.argsort(v, kind="stable")
        vs = v[order]
        gl, hl = np.cumsum(g[rows][order])[:-1], np.cumsum(h[rows][order])[:-1]
        ok = (vs[:-1] < vs[1:]) & (k >= min_leaf) & (n - k >= min_leaf)
        if not ok.any():
            continue
        gr, hr = G - gl, H - hl
        wl, wr = _clamp(-gl / (hl + l2), lo, hi), _clamp(-gr / (hr + l2), lo, hi)
        sign = monotone.get(j, 0)
        if sign:
            ok &= (wr - wl) * sign >= 0
        gain = np.where(ok, parent - _loss(gl, hl, wl, l2) - _loss(gr, hr, wr, l2), -np.inf)
        i = int(np.argmax(gain))
        if gain[i] > best[0] + 1e-12:
            best = (float(gain[i]), j, float(vs[i]), float(wl[i]), float(wr[i]))
    return best


def _grow(X, g, h, rows, depth: int, l2: float, min_leaf: int, rate: float, nodes: list, bounds: tuple,
          monotone: dict) -> int:
    me = len(nodes)
    nodes.append(None)
    found = (0.0, None, None, None, None) if depth == 0 else _best_split(X, g, h, rows, l2, min_leaf, bounds, monotone)
    _, j, t, wl, wr = found
    if j is None:
        w = float(_clamp(-g[rows].sum() / (h[rows].sum() + l2), *bounds))
        nodes[me] = [round(w * rate, 8)]
        return me
    lo, hi = bounds
    left_bounds = right_bounds = bounds
    if monotone.get(j, 0):  # the subtrees keep the split's order: every left leaf on one side of the mid-point
        mid = (wl + wr) / 2.0
        left_bounds, right_bounds = ((lo, mid), (mid, hi)) if monotone[j] > 0 else ((mid, hi), (lo, mid))
    left = _grow(X, g, h, rows[X[rows, j] <= t], depth - 1, l2, min_leaf, rate, nodes, left_bounds, monotone)
    right = _grow(X, g, h, rows[X[rows, j] > t], depth - 1, l2, min_leaf, rate, nodes, right_bounds, monotone)
    nodes[me] = [j, t, left, right]
    return me


def fit(X, y, trees: int = TREES, depth: int = DEPTH, rate: float = RATE, l2: float = L2,
        min_leaf: int = MIN_LEAF, monotone: Optional[Dict[int, int]] = None) -> dict:
    """The boosted model of labels ``y`` (0/1) on rows ``X``, with its settings. ``monotone``: column index ->
    +1 (the probability never falls as that feature rises, the others fixed) or -1 (never rises)."""
    from perturb.generators.swapsyn.check import leaf_value

    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    m = min(max(float(y.mean()), 1e-6), 1.0 - 1e-6)
    model = {"base": round(math.log(m / (1.0 - m)), 8), "trees": [],
             "settings": {"trees": trees, "depth": depth, "rate": rate, "l2": l2, "min_leaf": min_leaf,
                          "monotone": {str(j): s for j, s in sorted((monotone or {}).items())}}}
    rows, z = np.arange(len(y)), np.full(len(y), model["base"])
    for _ in range(trees):
        p = 1.0 / (1.0 + np.exp(-z))
        nodes: list = []
        _grow(X, p - y, p * (1.0 - p), rows, depth, l2, min_leaf, rate, nodes, (-np.inf, np.inf), monotone or {})
        model["trees"].append(nodes)
        z = z + np.array([leaf_value(nodes, x) for x in X.tolist()])
    return model
