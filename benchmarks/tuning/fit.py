"""The synonym verifier's logistic models, fitted on labelled rows: ``python -m benchmarks.tuning fit
SWAPSYN-WNET|SWAPSYN-GLOVE`` writes :mod:`perturb.generators.swapsyn.weights` (its docstring and
``VERSION`` are kept as the file has them; ``--version`` sets a new one).

One model per source (GLOVE, WNET): an L2 (1.0) logistic regression, fitted by Newton's method on
the standardised features of :data:`perturb.generators.swapsyn.verifier.FEATURES`, over every
labelled row of the set that precedes the pick sample (:data:`FIT_SAMPLES`); a row whose pair the
verifier's cheap filter or exclusions refuse has no features and is left out. Nothing is fitted at
run time: the generators read the written weights.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from benchmarks.tuning import rules
from perturb.checks import devset

SOURCES = {"SWAPSYN-GLOVE": "glove", "SWAPSYN-WNET": "wordnet"}
FIT_SAMPLES = ("branch-syn-sample", "ceiling-sample")  # the rows labelled before the pick sample
WEIGHTS = rules.ROOT / "perturb" / "generators" / "swapsyn" / "weights.py"
KEYS = ("intercept", "weights", "mu", "sd", "rows", "valid")
_DETAIL = re.compile(r"^([nvar]):'([^']*)'->'([^']*)'")


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 100) -> np.ndarray:
    """Intercept then weights of an L2-penalised logistic regression (the intercept not penalised)."""
    n, d = X.shape
    A = np.hstack([np.ones((n, 1)), X])
    w = np.zeros(d + 1)
    pen = np.full(d + 1, float(l2))
    pen[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ w, -50, 50)))
        H = (A * (p * (1 - p))[:, None]).T @ A + np.diag(pen) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(H, A.T @ (p - y) + pen * w)
        w -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return w


def locate(rows: List[dict]) -> List[dict]:
    """Add the swap's POS, target, new word and offset (from ``detail`` and the two texts)."""
    for r in rows:
        m = _DETAIL.match(r["detail"])
        pos, word, new = m.group(1), m.group(2), m.group(3)
        o, v = r["original"], r["variation"]
        start = next(i for i in range(len(o)) if o.startswith(word, i) and o[:i] + new + o[i + len(word):] == v)
        r.update(pos=pos, word=word, new=new, start=start)
    return rows


def fit_rows(name: str, rows: Optional[Sequence[devset.Candidate]] = None) -> List[dict]:
    """The labelled rows a model of ``name`` is fitted on, located, in the order the fit has always
    read them (generator, style, qid, variation)."""
    if rows is None:
        rows = devset.read_devset(rules.labelled_path(name))
    picked = sorted((c for c in devset.of_provenance(rows, FIT_SAMPLES) if c.generator == name and c.valid is not None),
                    key=lambda c: (c.generator, c.style, c.qid, c.variation))
    return locate([dict(generator=c.generator, style=c.style, qid=c.qid, original=c.original, variation=c.variation,
                        detail=c.detail, split=c.split, valid=int(c.valid), reason=c.reason, score=c.score)
                   for c in picked])


def features(rows: List[dict]) -> List[dict]:
    """The verifier's features of labelled rows (``x``; None where the pair is excluded)."""
    from perturb.generators.swapsyn import verifier as sv
    from perturb.generators.swapsyn.wordnet import SwapSynWordNet
    from perturb.resources import parsing
    from perturb.resources.lexicon import base_forms, sense_in_context
    from perturb.resources.wordnet_reader import wordnet
    from perturb.resources.words import stopwords, tagging_copy

    wn = wordnet()
    gen = SwapSynWordNet()
    stops = stopwords()
    texts = sorted({r["original"] for r in rows})
    docs = dict(zip(texts, parsing.parse([tagging_copy(t) for t in texts])))
    sv.neighbours_many(sorted({base_forms(r["word"].lower(), r["pos"])[-1] for r in rows}))
    for r in rows:
        doc = docs[r["original"]]
        tok = next((t for t in doc if t.idx == r["start"]), None)
        pos, low = r["pos"], r["word"].lower()
        base = base_forms(low, pos)[-1]
        cand = wn.morphy(r["new"].lower(), pos) or r["new"].lower()
        nb = sv.neighbours_many([base])[base]
        rank = (nb.index(cand) + 1) if cand in nb else (nb.index(r["new"].lower()) + 1 if r["new"].lower() in nb else sv.K + 1)
        free = sv.free_features(low, base, pos, cand, rank)
        if free is None or sv.excluded(low, base, pos, cand):
            r["x"] = None
            continue
        others = [t.lower_ for t in doc if t.is_alpha and t.lower_ not in stops and t.idx != r["start"]]
        sense, _ = sv._linking(base, cand, pos)
        ctx = sense_in_context(base, pos, others) if sense else None
        r["x"] = tuple(free) + (sv.context_fit(base, cand, others), float(bool(sense) and sense == ctx),
                                float(bool(tok is not None and gen.in_term(tok))),
                                float(bool(tok is not None and gen.in_collocation(tok))))
    return rows


def fit_model(rows: Sequence[dict]) -> Dict[str, object]:
    """The rounded model of the rows with features (``x`` not None)."""
    rows = [r for r in rows if r["x"] is not None]
    X = np.array([r["x"] for r in rows], float)
    y = np.array([r["valid"] for r in rows], float)
    mu, sd = X.mean(0), X.std(0)
    sd[sd < 1e-6] = 1.0  # a constant feature (WNET: every candidate is a synonym)
    w = fit_logistic((X - mu) / sd, y)
    return {"intercept": round(float(w[0]), 6), "weights": [round(float(v), 6) for v in w[1:]],
            "mu": [round(float(v), 6) for v in mu], "sd": [round(float(v), 6) for v in sd],
            "rows": len(rows), "valid": int(sum(r["valid"] for r in rows))}


def read_weights(path: Path = WEIGHTS) -> tuple:
    """(docstring and blank line as written, VERSION, FEATURES, MODELS) of a weights module."""
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("\nVERSION = ") + 1]
    scope = {node.targets[0].id: ast.literal_eval(node.value) for node in ast.parse(text).body
             if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
    return head, scope["VERSION"], tuple(scope["FEATURES"]), dict(scope["MODELS"])


def weights_text(head: str, version: str, features: Sequence[str], models: Dict[str, Dict[str, object]]) -> str:
    lines = [head.rstrip("\n"), "", f'VERSION = "{version}"', f"FEATURES = {tuple(features)!r}", "MODELS = {"]
    for src, m in models.items():
        lines.append(f"    {src!r}: {{")
        for k in KEYS:
            lines.append(f"        {k!r}: {m[k]!r},")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def fit(name: str, out: Path = WEIGHTS, version: Optional[str] = None, rows: Optional[List[dict]] = None) -> Dict[str, object]:
    """Fit ``name``'s model and write the weights module to ``out`` (the other source's model, the
    docstring and the version kept from the shipped module, or from ``out`` when it exists)."""
    from perturb.generators.swapsyn.verifier import FEATURES

    if name not in SOURCES:
        raise ValueError(f"fit: {name!r} has no fitted model; choose from {', '.join(SOURCES)}")
    head, old_version, _, models = read_weights(out if Path(out).is_file() else WEIGHTS)
    model = fit_model(features(fit_rows(name)) if rows is None else rows)
    models[SOURCES[name]] = model
    Path(out).write_text(weights_text(head, version or old_version, FEATURES, models), encoding="utf-8")
    return model
