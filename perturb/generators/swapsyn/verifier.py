"""Generate, then verify, for the synonym swaps (docs/methods.md, SWAPSYN).

Candidates per content word of the query (NOUN/VERB/ADJ/ADV, letters, not a stop word, not a name):

* ``glove``: the ``K`` nearest GloVe 6B-50d neighbours of the target's base form, searched by one
  matrix product over a restricted vocabulary (the first ``VOCAB`` GloVe rows that are lower-case
  letters), ranked by cosine rounded to 4 decimals, then by row (so the order does not depend on
  which other words share the batch's matrix product);
* ``wordnet``: the one-word lemmas of every WordNet sense of the base form for the POS.

Both pass the cheap filter (:func:`candidates`: letters, lower case, not the target or
an inflection of it, WordNet knows the candidate for the POS, lemminflect has its form for the
target's tag) and the exclusions (a WordNet antonym, a derivation of the target, a stop word, a
light verb, Zipf < 2). Each remaining pair gets :data:`FEATURES`, combined by a logistic model per
source whose weights (:mod:`perturb.generators.swapsyn.weights`) were fitted on every labelled row of
``perturb/data/validity/SWAPSYN-*.tsv`` (``python -m perturb.tuning fit``); nothing is fitted at run time.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import LIGHT_VERBS, is_number, stopwords, zipf
from perturb.resources.lexicon import (antonyms, base_forms, inflect_like, is_derivation, ranked_synsets,
                                       sense_in_context, sense_share)
from perturb.resources.vectors import cosine, glove, is_inflection
from perturb.resources.memo import Memo

K = 30
VOCAB = 60000
# context-free features first, per-query ones after
FEATURES = ("synonym", "linked", "t_share", "c_share", "cos", "lrank", "zipf_drop",
            "fit", "in_context", "in_term", "in_coll")
N_FREE = 7

_VOCAB: Optional[Tuple[np.ndarray, List[str]]] = None
_NB: Dict[str, Tuple[str, ...]] = Memo()
_FREE: Dict[tuple, Optional[Tuple[float, ...]]] = Memo()
_CANDS: Dict[tuple, Tuple[Tuple[str, Tuple[float, ...], str], ...]] = Memo()


def _vocab() -> Tuple[np.ndarray, List[str]]:
    global _VOCAB
    if _VOCAB is None:
        g = glove()
        idx = [i for i, w in enumerate(g.words[:VOCAB]) if w.isalpha() and w.isascii() and w == w.lower()]
        _VOCAB = (np.ascontiguousarray(g.unit[idx]), [g.words[i] for i in idx])
    return _VOCAB


def _top(sims: np.ndarray, cand: np.ndarray, k1: int) -> List[int]:
    """The ``k1`` best columns by (cosine rounded to 4 decimals, descending; column): from the
    unrounded top ``cand`` when no column outside it can tie in (a column outside has a cosine
    <= the least inside), else from the whole row."""
    r = np.round(sims[cand], 4)
    order = sorted(range(len(cand)), key=lambda a: (-float(r[a]), int(cand[a])))
    if float(r[order[k1 - 1]]) > float(np.round(sims[cand].min(), 4)):
        return [int(cand[a]) for a in order[:k1]]
    full = np.round(sims, 4)
    return [int(j) for j in np.lexsort((np.arange(len(full)), -full))[:k1]]


def neighbours_many(words: Sequence[str], k: int = K, chunk: int = 512) -> Dict[str, Tuple[str, ...]]:
    """The ``k`` nearest restricted-vocabulary neighbours of each word (itself left out), batched."""
    todo = sorted({w for w in words if w not in _NB})
    if todo:
        g = glove()
        mat, vw = _vocab()
        known = [w for w in todo if w in g.index]
        for w in todo:
            if w not in g.index:
                _NB[w] = ()
        k1, m = k + 1, 16
        for s in range(0, len(known), chunk):
            part = known[s:s + chunk]
            q = g.unit[[g.index[w] for w in part]]
            sims = q @ mat.T
            top = np.argpartition(-sims, k1 + m, axis=1)[:, : k1 + m]
            for row, w in enumerate(part):
                _NB[w] = tuple(vw[j] for j in _top(sims[row], top[row], k1) if vw[j] != w)[:k]
    return {w: _NB[w] for w in words}


def wordnet_lemmas(base: str, pos: str) -> Tuple[str, ...]:
    from perturb.resources.wordnet_reader import wordnet

    wn = wordnet()
    names = set()
    for syn in wn.synsets(base, pos=pos) + (wn.synsets(base, pos="s") if pos == "a" else []):
        for n in syn.lemma_names():
            if "_" not in n and "-" not in n:
                names.add(n)
    return tuple(sorted(names))


_LINKS: Dict[Tuple[str, str], Dict[str, Tuple[int, float, str, Tuple[str, ...]]]] = Memo()
_SYNLINKS: Dict[Tuple[str, str], Dict[str, Tuple[int, float, str, Tuple[str, ...]]]] = Memo()
_SHARE: Dict[Tuple[str, str, str], float] = Memo()


def synonym_links(base: str, pos: str) -> Dict[str, Tuple[int, float, str, Tuple[str, ...]]]:
    """The synonym part of :func:`links` (relation 2), without reading the linked synsets: a
    synonym always wins over a one-link relation, so this answers for every synonym."""
    key = (base, pos)
    if key not in _SYNLINKS:
        found: Dict[str, Tuple[int, float, str, Tuple[str, ...]]] = {}
        for syn in ranked_synsets(base, pos):
            ts = _share(base, pos, syn.name())
            for n in syn.lemma_names():
                n = n.lower()
                old = found.get(n)
                if old is None or ts > old[1]:
                    found[n] = (2, ts, syn.name(), (syn.name(),))
        _SYNLINKS[key] = found
    return _SYNLINKS[key]


def _share(word: str, pos: str, synset_name: str) -> float:
    return _SHARE.get_or_compute((word, pos, synset_name), lambda: _share1(word, pos, synset_name))


def _share1(word: str, pos: str, synset_name: str) -> float:
    """The word's SemCor share of the sense (uniform over its senses when it has no tags)."""
    s = sense_share(word, pos, synset_name)
    if s == 0.0 and all(sense_share(word, pos, x.name()) == 0.0 for x in ranked_synsets(word, pos)[:1]):
        n = len(ranked_synsets(word, pos))
        return 1.0 / n if n else 0.0
    return s


def links(base: str, pos: str) -> Dict[str, Tuple[int, float, str, Tuple[str, ...]]]:
    """lemma -> (relation, the target's share of its linking sense, that sense, the candidate's
    synsets) for every one-word lemma of the target's senses (relation 2: a synonym) and of the
    synsets one WordNet link away (1: similar-to, also-see, hypernym, hyponym); the closest
    relation wins, then the target's more usual sense; every candidate synset of the winning
    (relation, sense) is kept, sorted (NLTK returns linked synsets in a set's order, which
    changes from process to process)."""
    key = (base, pos)
    if key not in _LINKS:
        found: Dict[str, Tuple[int, float, str, Tuple[str, ...]]] = {}
        for syn in ranked_synsets(base, pos):
            ts = _share(base, pos, syn.name())
            groups = [(2, [syn])] + [(1, syn.similar_tos() + syn.also_sees() + syn.hypernyms() + syn.hyponyms())]
            for rel, syns in groups:
                for t in syns:
                    for n in t.lemma_names():
                        n = n.lower()
                        old = found.get(n)
                        if old is None or (rel, ts) > (old[0], old[1]):
                            found[n] = (rel, ts, syn.name(), (t.name(),))
                        elif (rel, ts, syn.name()) == old[:3] and t.name() not in old[3]:
                            found[n] = old[:3] + (tuple(sorted(old[3] + (t.name(),))),)
        _LINKS[key] = found
    return _LINKS[key]


def _linking(base: str, cand: str, pos: str) -> Tuple[str, int]:
    """The target's sense that lists ``cand`` as a lemma (the most usual one), and the relation
    (2 synonym, 1 one link away, 0 none: sense "")."""
    hit = synonym_links(base, pos).get(cand) or links(base, pos).get(cand)
    return (hit[2], hit[0]) if hit else ("", 0)


_EXCL: Dict[tuple, bool] = Memo()


def excluded(word: str, base: str, pos: str, cand: str) -> bool:
    """The costly exclusions (a WordNet antonym, a derivation of the target), asked only of pairs
    whose score bound reaches the floor."""
    return _EXCL.get_or_compute((word, base, pos, cand), lambda: cand in antonyms(base, pos) or is_derivation(base, cand)
                                or is_derivation(word, cand))


def free_features(word: str, base: str, pos: str, cand: str, rank: int) -> Optional[Tuple[float, ...]]:
    """The context-free features of target ``word`` (base form ``base``) -> ``cand`` (a base form);
    None when the pair is excluded. ``rank``: 1-based rank among the GloVe neighbours (K+1: not one)."""
    return _FREE.get_or_compute((word, base, pos, cand, rank), lambda: _free(word, base, pos, cand, rank))


def _free(word, base, pos, cand, rank):
    if cand in stopwords() or is_number(cand) or (pos == "v" and cand in LIGHT_VERBS) or zipf(cand) < 2.0:
        return None
    hit = synonym_links(base, pos).get(cand) or links(base, pos).get(cand)
    rel, ts, cs = 0, 0.0, 0.0
    if hit is not None:
        rel, ts, _, csyns = hit
        cs = max(_share(cand, pos, c) for c in csyns)  # the candidate's most usual linked sense
    cos = cosine(base, cand)
    return (float(rel == 2), float(rel == 1), ts, cs, cos if cos is not None else 0.0,
            math.log(rank), max(0.0, zipf(base) - zipf(cand)))


def candidates(word: str, pos: str, tag: str, source: str) -> Tuple[Tuple[str, Tuple[float, ...], str], ...]:
    """(candidate base form, context-free features, linking sense) of one target for one source,
    after the cheap filter and the exclusions; in the source's order."""
    key = (word, pos, tag, source)
    if key not in _CANDS:
        from perturb.resources.wordnet_reader import wordnet

        wn = wordnet()
        base = base_forms(word, pos)[-1]
        nb = _NB[base] if base in _NB else neighbours_many([base])[base]
        pool = nb if source == "glove" else wordnet_lemmas(base, pos)
        out, seen = [], set()
        for c in pool:
            if not c.isalpha() or c != c.lower() or c in (word, base) or is_inflection(word, c) or is_inflection(base, c):
                continue
            if not _known(c, pos):
                continue
            cb = wn.morphy(c, pos) or c
            if cb in (word, base) or cb in seen:
                continue
            form = inflect_like(cb, tag, pos)
            if not form or form.lower() == word:
                continue
            seen.add(cb)
            rank = (nb.index(c) + 1) if c in nb else K + 1
            f = free_features(word, base, pos, cb, rank)
            if f is not None:
                out.append((cb, f, _linking(base, cb, pos)[0]))  # exclusions: score_pairs
        _CANDS[key] = tuple(out)
    return _CANDS[key]


_KNOWN: Dict[Tuple[str, str], bool] = Memo()


def _known(word: str, pos: str) -> bool:
    """WordNet knows the word for the POS (adjectives: or as a satellite)."""
    key = (word, pos)
    if key not in _KNOWN:
        from perturb.resources.wordnet_reader import wordnet

        wn = wordnet()
        _KNOWN[key] = bool(wn.synsets(word, pos=pos) or (pos == "a" and wn.synsets(word, pos="s")))
    return _KNOWN[key]


def context_vector(others: Sequence[str]) -> Optional[np.ndarray]:
    """The unit mean GloVe vector of the query's other content words (None when none is known)."""
    g = glove()
    vec = [g.unit[g.index[w]] for w in others if w in g.index]
    if not vec:
        return None
    c = np.mean(vec, axis=0)
    c /= np.linalg.norm(c) or 1.0
    return c


def fit_with(c: Optional[np.ndarray], base: str, cand: str) -> float:
    g = glove()
    if c is None or cand not in g.index or base not in g.index:
        return 0.0
    return float(c @ g.unit[g.index[cand]] - c @ g.unit[g.index[base]])


def context_fit(base: str, cand: str, others: Sequence[str]) -> float:
    """cos(candidate, mean of the query's other content words) - cos(target, the same)."""
    return fit_with(context_vector(others), base, cand)


def logistic(weights: Sequence[float], intercept: float, mu: Sequence[float], sd: Sequence[float],
             x: Sequence[float]) -> float:
    z = intercept + sum(w * (v - m) / s for w, v, m, s in zip(weights, x, mu, sd))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def bound(model: dict, free: Sequence[float], fit: float, in_term: bool, in_coll: bool) -> float:
    """The highest score the pair can reach whichever sense the query's words point to (the
    sense in context is looked up only for pairs whose bound reaches the floor); a pruning
    test only, the score itself is :func:`logistic` of every feature."""
    w, mu, sd = model["weights"], model["mu"], model["sd"]
    z = model["intercept"] + sum(w[i] * (free[i] - mu[i]) / sd[i] for i in range(N_FREE))
    rest = (fit, None, float(in_term), float(in_coll))
    for i, v in enumerate(rest, start=N_FREE):
        if v is None:
            z += max(w[i] * (0.0 - mu[i]) / sd[i], w[i] * (1.0 - mu[i]) / sd[i])
        else:
            z += w[i] * (v - mu[i]) / sd[i]
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def score_pairs(model: dict, word: str, base: str, pos: str, cands, others: Sequence[str], in_term: bool, in_coll: bool,
                floor: float) -> List[Tuple[str, float, Tuple[float, ...]]]:
    """(candidate, score rounded to 4 decimals, all features) of the candidates whose score is >=
    ``floor`` and that are not excluded (:func:`excluded`, asked of passing pairs only)."""
    out = []
    sense_ctx = None
    ctx = context_vector(others) if cands else None
    for cand, free, sense in cands:
        fit = fit_with(ctx, base, cand)
        if bound(model, free, fit, in_term, in_coll) < floor - 1e-4:
            continue
        if sense and sense_ctx is None:
            sense_ctx = sense_in_context(base, pos, list(others)) or ""
        x = tuple(free) + (fit, float(bool(sense) and sense == sense_ctx), float(in_term), float(in_coll))
        s = round(logistic(model["weights"], model["intercept"], model["mu"], model["sd"], x), 4)
        if s >= floor and not excluded(word, base, pos, cand):
            out.append((cand, s, x))
    return out
