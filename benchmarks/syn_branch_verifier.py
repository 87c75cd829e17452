"""Branch syn's synonym verifier (rounds 1-2 of docs/methods.md, SWAPSYN), kept as it was for
``benchmarks/syn_evidence.py`` (the ``old_verifier`` feature) and for the scores of the
``branch-syn-sample`` and ``ceiling-sample`` rows of perturb/data/validity/SWAPSYN-*.tsv; nothing
of perturb/ uses it. Its docstring as written then:

The verifier of the synonym generators: evidence on one (target, candidate) pair in its query,
as features, combined by a logistic model fitted on labelled candidates (issue 22: generate, then
verify).

Context-free evidence (:class:`Evidence`, cached per (target lemma, POS, candidate lemma); the
WordNet links of a target are computed once per (lemma, POS), :func:`links`):

* ``relation``: the closest WordNet relation between the two lemmas for the POS: ``synonym``
  (a shared synset), ``similar`` (adjective satellites / "also see"), ``hypernym`` or ``hyponym``
  (one link), ``cohyponym`` (siblings under one hypernym: white/black, wing/tail: usually a
  different thing), ``none`` (both in WordNet, no such link) or ``unknown`` (the candidate is not
  in WordNet for the POS);
* ``t_share`` / ``c_share``: the target's and the candidate's SemCor share of the linking sense
  (``cntlist.rev``; a word without SemCor tags gets the uniform share 1/its number of senses):
  whether the link is through the usual sense of each word;
* ``cos``: GloVe 6B-50d cosine of the two lemmas;
* ``drop``: how much rarer the candidate is (wordfreq Zipf of the lemmas, 0 when not rarer).

Per query (:class:`Context`): ``fit`` = cos(candidate, the query's other content words) -
cos(target, the same words); ``in_context`` = the linking sense is the one the query's other
words point to (:func:`perturb.resources.lexicon.sense_in_context`); ``in_term`` (compound, adjective + noun)
and ``in_collocation`` (verb + particle/preposition, "X of Y", adverb + participle), where a
synonym often breaks the term.

Score: the logistic model's probability that the swap keeps the need,
``1 / (1 + exp(-(INTERCEPT + WEIGHTS . features)))``; weights fitted (L2-regularised) on the tuning
half of the labelled development sets (``benchmarks/syn_validity_dev.py fit``), the threshold of
each generator chosen on the same half. Strong negative evidence excludes the pair outright (never
a variation): a WordNet antonym, a derivation or inflection of the target (calculate/calculation),
a number, a stop word, a light verb as a verb candidate, a non-alphabetic or very rare candidate
(Zipf < ``MIN_CAND_ZIPF``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, NamedTuple, Optional, Tuple

from perturb.resources.words import is_number, stopwords, zipf
from perturb.resources.lexicon import antonyms, base_forms, is_derivation, ranked_synsets, sense_counts
from perturb.resources.vectors import cosine, is_inflection

RELATIONS = ("synonym", "similar", "hypernym", "hyponym", "cohyponym", "none", "unknown")
FEATURES = ("synonym", "similar", "hypernym", "hyponym", "cohyponym", "unknown",  # "none" = 0
            "t_share", "c_share", "in_context", "cos", "fit", "drop", "in_term", "in_collocation")
# fitted by benchmarks/syn_validity_dev.py fit (L2 1.0) on the tuning half of docs/validity/dev-SWAPSYN-*.tsv
INTERCEPT = -3.491
WEIGHTS = (0.912, 0.495, 0.550, 0.204, -0.327, -0.473, 1.618, 1.218, -0.180, 0.865, 0.988, -0.478, -0.360, -0.370)
MIN_CAND_ZIPF = 2.0
FORMULA = "logistic(" + ", ".join(f"{w:+.3f}*{f}" for f, w in zip(FEATURES, WEIGHTS)) + f", {INTERCEPT:+.3f})"
# Light verbs: their synonyms depend on the object ("made a study" / "made of steel").
LIGHT_VERBS = frozenset("be have do make take get give go come put set keep let become seem".split())


@dataclass(frozen=True)
class Evidence:
    relation: str
    share: float  # geometric mean of t_share and c_share
    cos: float
    drop: float
    t_share: float = 0.0  # the target's share of the linking sense
    c_share: float = 0.0  # the candidate's share of it
    sense: str = ""  # the target's linking synset


class Context(NamedTuple):
    """The per-query evidence on a pair."""

    fit: float = 0.0
    in_context: bool = False
    in_term: bool = False
    in_collocation: bool = False


def features(ev: Evidence, ctx: Context) -> Tuple[float, ...]:
    rel = tuple(float(ev.relation == r) for r in FEATURES[:6])
    return rel + (ev.t_share, ev.c_share, float(ctx.in_context), ev.cos, ctx.fit, ev.drop,
                  float(ctx.in_term), float(ctx.in_collocation))


def logit(ev: Evidence, ctx: Context, weights=None, intercept=None) -> float:
    w = WEIGHTS if weights is None else weights
    b = INTERCEPT if intercept is None else intercept
    return b + sum(x * y for x, y in zip(w, features(ev, ctx)))


def score(ev: Evidence, ctx: Context = Context()) -> float:
    """The model's probability that the swap keeps the query's need."""
    z = logit(ev, ctx)
    return 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0


def bound(ev: Evidence, ctx: Context) -> float:
    """The highest score the pair can reach whatever ``ctx.in_context`` (the sense in context is
    costly to find: it is looked up only for pairs that may pass a threshold)."""
    w = WEIGHTS[FEATURES.index("in_context")]
    return max(score(ev, ctx._replace(in_context=False)), score(ev, ctx._replace(in_context=True))) if w else score(ev, ctx)


def describe(ev: Evidence, ctx: Context) -> str:
    flags = [n for n, v in (("in context", ctx.in_context), ("term", ctx.in_term),
                            ("collocation", ctx.in_collocation)) if v]
    return (f"score {score(ev, ctx):.3f}: {ev.relation}, shares {ev.t_share:.2f}/{ev.c_share:.2f}, "
            f"cos {ev.cos:.2f}, fit {ctx.fit:+.2f}, drop {ev.drop:.1f}" + "".join(", " + f for f in flags))


_SHARES: Dict[Tuple[str, str], Dict[str, float]] = {}


def shares(word: str, pos: str) -> Dict[str, float]:
    """Synset name -> the word's SemCor share of it (uniform over its senses when it has no tags)."""
    key = (word, pos)
    if key not in _SHARES:
        counts = sense_counts()
        forms = base_forms(word, pos)
        forms = forms[1:] if len(forms) > 1 else forms
        syns = ranked_synsets(word, pos)
        n = {s.name(): max((counts.get(l.key(), 0) for l in s.lemmas() if l.name().lower() in forms), default=0)
             for s in syns}
        total = sum(n.values())
        _SHARES[key] = {k: (v / total if total else 1.0 / len(syns)) for k, v in n.items()}
    return _SHARES[key]


_ORDER = {r: k for k, r in enumerate(RELATIONS)}
_LINKS: Dict[Tuple[str, str], Dict[Tuple[str, int], Tuple[str, str]]] = {}
_POINTERS = (("similar", ("&", "^")), ("hypernym", ("@", "@i")), ("hyponym", ("~", "~i")))


def _key(syn) -> Tuple[str, int]:
    return _norm((syn.pos(), syn.offset()))


def _norm(k: Tuple[str, int]) -> Tuple[str, int]:
    return ("a", k[1]) if k[0] == "s" else k  # satellites: the data files' pointers say "a"


def links(word: str, pos: str) -> Dict[Tuple[str, int], Tuple[str, str]]:
    """(synset POS, offset) -> (relation, the word's synset it is linked from) for every synset one
    WordNet link away from the word's senses (the closest relation; among equals, the word's more
    usual sense). Computed once per (word, POS) from the synsets' pointers, without building the
    linked synsets (the co-hyponym sets were the cost of the verifier); only the hypernyms are read."""
    key = (word, pos)
    if key not in _LINKS:
        from perturb.resources.wordnet_reader import wordnet

        st = shares(word, pos)
        found: Dict[Tuple[str, int], Tuple[str, str]] = {}

        def put(rel: str, k: Tuple[str, int], src: str) -> None:
            old = found.get(k)
            if old is None or _ORDER[rel] < _ORDER[old[0]] or (rel == old[0] and st[src] > st[old[1]]):
                found[k] = (rel, src)

        wn = wordnet()
        for t in ranked_synsets(word, pos):
            src, ptr = t.name(), getattr(t, "_pointers", {})
            put("synonym", _key(t), src)
            for rel, symbols in _POINTERS:
                for sym in symbols:
                    for k in ptr.get(sym, ()):
                        put(rel, _norm(k), src)
            for hp, ho in ptr.get("@", ()):
                hyper = wn.synset_from_pos_and_offset(hp, ho)
                for k in getattr(hyper, "_pointers", {}).get("~", ()):
                    if _norm(k) != _key(t):
                        put("cohyponym", _norm(k), src)
        _LINKS[key] = found
    return _LINKS[key]


def _relation(word: str, cand: str, pos: str) -> Tuple[str, float, float, str]:
    """(relation, target share, candidate share, target's linking synset)."""
    sc = shares(cand, pos)
    if not sc:
        return "unknown", 0.0, 0.0, ""
    st, lk = shares(word, pos), links(word, pos)
    best: Optional[Tuple[str, float, float, str]] = None
    for syn in ranked_synsets(cand, pos):
        hit = lk.get(_key(syn))
        if hit is None:
            continue
        rel, src = hit
        cand_ = (rel, st[src], sc[syn.name()], src)
        if best is None or _ORDER[rel] < _ORDER[best[0]] or (
                rel == best[0] and cand_[1] * cand_[2] > best[1] * best[2]):
            best = cand_
    return best if best is not None else ("none", 0.0, 0.0, "")


_EV: Dict[Tuple[str, str, str], Optional[Evidence]] = {}


def evidence(lemma: str, pos: str, cand: str) -> Optional[Evidence]:
    """The evidence on ``lemma`` -> ``cand`` (both lower-case lemmas), None when excluded
    (cheap exclusions only: :func:`excluded` holds the costly ones, asked of passing pairs)."""
    key = (lemma, pos, cand)
    if key not in _EV:
        _EV[key] = _evidence(lemma, pos, cand)
    return _EV[key]


def _evidence(lemma: str, pos: str, cand: str) -> Optional[Evidence]:
    if cand == lemma or not cand.isalpha() or not cand.isascii() or cand in stopwords() or is_number(cand):
        return None
    if pos == "v" and cand in LIGHT_VERBS:
        return None
    zc = zipf(cand)
    if zc < MIN_CAND_ZIPF:
        return None
    rel, ts, cs, sense = _relation(lemma, cand, pos)
    cos = cosine(lemma, cand)
    return Evidence(rel, round(math.sqrt(ts * cs), 4), round(cos if cos is not None else 0.0, 4),
                    round(max(0.0, zipf(lemma) - zc), 2), round(ts, 4), round(cs, 4), sense)


_EXCL: Dict[Tuple[str, str, str, str], bool] = {}


def excluded(word: str, lemma: str, pos: str, cand: str) -> bool:
    """Strong negative evidence: an antonym, an inflection or derivation of the target."""
    key = (word, lemma, pos, cand)
    if key not in _EXCL:
        _EXCL[key] = (cand in antonyms(lemma, pos) or is_inflection(word, cand) or is_inflection(lemma, cand)
                      or is_derivation(lemma, cand) or is_derivation(word, cand))
    return _EXCL[key]
