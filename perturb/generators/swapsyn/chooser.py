"""The fitted chooser of the synonym swaps: which (target, substitute) of a text to use, if any.

Per text: every target's candidates (:mod:`perturb.generators.swapsyn.candidates`) get a *cheap*
score (a logistic model over the context-free features); the best of the text (:func:`prune_limit`) go through
MiniLM (:mod:`perturb.generators.swapsyn.context`) and get the *full* score (a logistic model over
the context-free and in-context features and the POS). Both models and each source's threshold are
fitted on the SWORDS development split (``chooser.json``; the command that refits them is in its
``command`` field). The pick: among the candidates scoring at least the threshold, nouns, main
verbs and adjectives before adverbs, then the highest score, then the earliest position.

:func:`best` finds that pick without scoring every pruned candidate: a candidate's full score is at
most its score with each in-context cosine at the end of [-1, 1] its weight favours (:func:`bound`),
so MiniLM sees only the candidates that can still pass the threshold and beat the best one found.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

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
    check: Optional[float] = None

    def detail(self) -> str:
        return f"{self.pos}:{self.word!r}->{self.new!r} (score {self.score:.4f})"


def rounded_probability(z: float) -> float:
    """The probability of log-odds ``z`` (clipped to +-50), rounded to 4 places: every score the sets compare."""
    return round(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), 4)


def logistic(part: dict, x: Sequence[float]) -> float:
    z = part["intercept"] + math.fsum(w * (v - m) / s for w, v, m, s in zip(part["weights"], x, part["mu"], part["sd"]))
    return rounded_probability(z)


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


def _pair(text: str, c: Scored) -> tuple:
    """(original item, substituted item) of a candidate: each a (text, start, end) of the word."""
    return (text, c.start, c.end), (text[:c.start] + c.new + text[c.end:], c.start, c.start + len(c.new))


def with_context(texts: Sequence[str], per_text: Sequence[List[Scored]]) -> List[List[Scored]]:
    """The candidates with the in-context features inserted (one batched MiniLM pass); a candidate
    whose span the encoder lost is dropped."""
    pairs = [_pair(texts[i], c) for i, cands in enumerate(per_text) for c in cands]
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


def prune_limit(model: dict, targets: int) -> int:
    """How many candidates of a text with ``targets`` targets go through MiniLM: ``model['prune']``, or
    ``model['prune_per_target']`` per target if that is more (a long text keeps as many)."""
    return max(int(model["prune"]), int(model.get("prune_per_target", 0)) * targets)


def pruned(texts: Sequence[str], docs, source: str, model: dict, only: Optional[Sequence[Optional[int]]] = None,
           refuse=None) -> List[List[Scored]]:
    """Per text, the :func:`prune_limit` best candidates by cheap score (ties: text order), in text
    order, without their full score."""
    per_text = []
    for i, (text, doc) in enumerate(zip(texts, docs)):
        cands = candidates_of(text, doc, source, None if only is None else only[i], refuse)
        cheap = [Scored(c.start, c.end, c.word, c.pos, c.new, c.lemma, logistic(model["cheap"], c.x), None, c.x)
                 for c in cands]
        limit = prune_limit(model, len({c.start for c in cands}))
        keep = sorted(range(len(cheap)), key=lambda j: (-cheap[j].cheap, j))[:limit]
        per_text.append([cheap[j] for j in sorted(keep)])
    return per_text


def full_scores(texts: Sequence[str], per_text: Sequence[List[Scored]], model: dict) -> List[List[Scored]]:
    """The candidates with their in-context features and full score (one batched MiniLM pass)."""
    return [[Scored(c.start, c.end, c.word, c.pos, c.new, c.lemma, c.cheap, logistic(model["full"], c.x), c.x)
             for c in row] for row in with_context(texts, per_text)]


def score(texts: Sequence[str], docs, source: str, model: dict, only: Optional[Sequence[Optional[int]]] = None,
          refuse=None) -> List[List[Scored]]:
    """Per text, its candidates scored: cheap score for all, full score for the :func:`prune_limit`
    best by cheap score (ties: text order), in text order."""
    return full_scores(texts, pruned(texts, docs, source, model, only, refuse), model)


GRID = 1e-4  # the step of a rounded score: a bound is trusted to within one step


def bound(model: dict, c: Scored) -> float:
    """The highest full score ``c`` can get: its context-free features and POS with each in-context
    cosine at 1 or -1, whichever its weight favours (:func:`logistic` rises with each feature that
    has a positive weight and falls with one that has a negative one)."""
    n = len(cs.FREE)
    weights = model["full"]["weights"][n:n + len(CONTEXT)]
    ends = tuple(1.0 if w >= 0 else -1.0 for w in weights)
    return logistic(model["full"], c.x[:n] + ends + c.x[n:])


def _rank_key(c: Scored, j: int, score: float) -> tuple:
    return (c.pos not in PREFERRED, -score, c.start, c.new, j)


def best(texts: Sequence[str], per_text: Sequence[List[Scored]], model: dict, threshold: float,
         accept: Optional[Callable[[int, Scored], bool]] = None) -> List[Optional[Scored]]:
    """Per text, the first of :func:`ranked` over ``per_text`` fully scored that ``accept`` (text index,
    scored candidate) takes (None: none reaches ``threshold`` and is accepted; no ``accept``: every
    candidate is), scoring only the candidates that can still be first. Each text's candidates are
    taken in order of (preferred POS first, highest :func:`bound`); one goes through MiniLM per text
    per round, in one batch over the texts, until the next one's bound cannot reach the threshold or
    beat the best found (a candidate of a later POS group never beats one found in an earlier)."""
    queues = []
    for cands in per_text:
        ub = [bound(model, c) for c in cands]
        order = sorted((j for j in range(len(cands)) if ub[j] + GRID >= threshold),
                       key=lambda j: _rank_key(cands[j], j, ub[j]))
        queues.append([(j, ub[j]) for j in order])
    found: List[Optional[tuple]] = [None] * len(per_text)  # (rank key, scored candidate)
    pending = [i for i, q in enumerate(queues) if q]
    while pending:
        asked = [(i, queues[i].pop(0)[0]) for i in pending]
        scored = full_scores([texts[i] for i, _ in asked], [[per_text[i][j]] for i, j in asked], model)
        for (i, j), row in zip(asked, scored):
            if row and row[0].score >= threshold:
                key = _rank_key(row[0], j, row[0].score)
                if (found[i] is None or key < found[i][0]) and (accept is None or accept(i, row[0])):
                    found[i] = (key, row[0])
        pending = [i for i, _ in asked if queues[i] and _may_beat(per_text[i][queues[i][0][0]], queues[i][0][1], found[i])]
    return [None if f is None else f[1] for f in found]


def _may_beat(c: Scored, ub: float, found: Optional[tuple]) -> bool:
    """Whether a candidate with bound ``ub`` may rank before the best ``found`` so far."""
    if found is None:
        return True
    (group, neg_score, *_), _ = found
    return (c.pos not in PREFERRED) == group and ub + GRID >= -neg_score


def ranked(cands: Sequence[Scored], threshold: float) -> List[Scored]:
    """The candidates scoring at least ``threshold``, best first: nouns, main verbs and adjectives
    before adverbs, then score, then position."""
    ok = [c for c in cands if c.score is not None and c.score >= threshold]
    return sorted(ok, key=lambda c: (c.pos not in PREFERRED, -c.score, c.start, c.new))
