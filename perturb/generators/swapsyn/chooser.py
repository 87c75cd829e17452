"""The fitted chooser of the synonym swaps: which (target, substitute) of a text to use, if any.

Per text: every target's candidates (:mod:`perturb.generators.swapsyn.candidates`) get a *cheap*
score (a logistic model over the context-free features); the ``prune`` best of the text go through
MiniLM (:mod:`perturb.generators.swapsyn.context`) and get the *full* score (a logistic model over
the context-free and in-context features and the POS). Both models and each source's threshold are
fitted on the SWORDS development split (``chooser.json``; the command that refits them is in its
``command`` field). The pick: among the candidates scoring at least the threshold, nouns, main
verbs and adjectives before adverbs, then the highest score, then the earliest position.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from perturb.generators.swapsyn import candidates as cs
from perturb.generators.swapsyn import context
from perturb.resources.memo import Memo
from perturb.resources.words import match_case

MODEL_FILE = Path(__file__).with_name("chooser.json")
CONTEXT = ("cos_layer4", "cos_layer6", "cos_sentence")
POS_FEATURES = ("pos_n", "pos_v", "pos_a")
FEATURES = cs.FREE + CONTEXT + POS_FEATURES
CHEAP = cs.FREE + POS_FEATURES
PREFERRED = ("n", "v", "a")

_LOADED = Memo(8)


def load_model(path: Optional[Path] = None) -> dict:
    path = Path(path or MODEL_FILE)
    return _LOADED.get_or_compute(str(path), lambda: json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Scored:
    """One candidate swap of a text: ``text[start:end]`` -> ``new`` (lemma ``lemma``)."""

    start: int
    end: int
    word: str
    pos: str
    new: str
    lemma: str
    cheap: float
    score: Optional[float]
    x: Tuple[float, ...]

    def detail(self) -> str:
        return f"{self.pos}:{self.word!r}->{self.new!r} (score {self.score:.4f})"


def logistic(part: dict, x: Sequence[float]) -> float:
    z = part["intercept"] + math.fsum(w * (v - m) / s for w, v, m, s in zip(part["weights"], x, part["mu"], part["sd"]))
    return round(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), 4)


def _pos_onehot(pos: str) -> Tuple[float, ...]:
    return tuple(float(pos == p) for p in PREFERRED)


def candidates_of(text: str, doc, source: str, only: Optional[int] = None, refuse=None) -> List[Scored]:
    """Every candidate swap of a parsed text (``only``: the target starting at that offset; ``refuse``:
    a test of the target token that vetoes it), without scores."""
    out = []
    for tok, word, pos in cs.targets_of(doc, text):
        if (only is not None and tok.idx != only) or (refuse is not None and refuse(tok)):
            continue
        for lemma, form, free in cs.candidates(word.lower(), pos, tok.tag_, source):
            out.append(Scored(tok.idx, tok.idx + len(word), word, pos, match_case(word, form), lemma, 0.0, None,
                              free + _pos_onehot(pos)))
    return out


def with_context(texts: Sequence[str], per_text: Sequence[List[Scored]]) -> List[List[Scored]]:
    """The candidates with the in-context features inserted (one batched MiniLM pass); a candidate
    whose span the encoder lost is dropped."""
    pairs = [((texts[i], c.start, c.end), (texts[i][:c.start] + c.new + texts[i][c.end:], c.start, c.start + len(c.new)))
             for i, cands in enumerate(per_text) for c in cands]
    feats = iter(context.features(pairs))
    out = []
    for cands in per_text:
        row = []
        for c in cands:
            f = next(feats)
            if f is not None:
                n = len(cs.FREE)
                row.append(Scored(c.start, c.end, c.word, c.pos, c.new, c.lemma, c.cheap, c.score, c.x[:n] + f + c.x[n:]))
        out.append(row)
    return out


def score(texts: Sequence[str], docs, source: str, model: dict, only: Optional[Sequence[Optional[int]]] = None,
          refuse=None) -> List[List[Scored]]:
    """Per text, its candidates scored: cheap score for all, full score for the ``model['prune']``
    best by cheap score (ties: text order), in text order."""
    prune, per_text = int(model["prune"]), []
    for i, (text, doc) in enumerate(zip(texts, docs)):
        cands = candidates_of(text, doc, source, None if only is None else only[i], refuse)
        cheap = [Scored(c.start, c.end, c.word, c.pos, c.new, c.lemma, logistic(model["cheap"], c.x), None, c.x)
                 for c in cands]
        keep = sorted(range(len(cheap)), key=lambda j: (-cheap[j].cheap, j))[:prune]
        per_text.append([cheap[j] for j in sorted(keep)])
    full = with_context(texts, per_text)
    return [[Scored(c.start, c.end, c.word, c.pos, c.new, c.lemma, c.cheap, logistic(model["full"], c.x), c.x)
             for c in row] for row in full]


def ranked(cands: Sequence[Scored], threshold: float) -> List[Scored]:
    """The candidates scoring at least ``threshold``, best first: nouns, main verbs and adjectives
    before adverbs, then score, then position."""
    ok = [c for c in cands if c.score is not None and c.score >= threshold]
    return sorted(ok, key=lambda c: (c.pos not in PREFERRED, -c.score, c.start, c.new))
