"""Targets and candidate substitutes of the synonym swaps, with their context-free features.

A *target* is a token the tagger (spaCy ``en_core_web_sm``) calls NOUN, VERB, ADJ or ADV, letters
only, not a stop word, not part of a hyphen/slash compound, not a name (capitalised inside a lower-
or mixed-case text, an acronym inside a mixed-case one, a word WordNet knows only capitalised).

Candidates per source (the paper's definition of each set):

* ``wordnet``: the one-word lemmas of every WordNet sense of the target's base form for its POS, and
  the ``PIVOT_TOP`` most probable paraphrases by German pivoting (FreeDict, :mod:`perturb.resources.pivot`)
  for the POS (they raise the share of SWORDS targets with an acceptable candidate);
* ``glove``: the ``K`` nearest GloVe 6B-50d neighbours of the base form (the restricted vocabulary
  of :func:`neighbours`; TextAttack's ``max_candidates``) that WordNet knows for the POS.

Refused for both: a form, derivation or spelling variant of the target (``color``/``colour``,
``calculate``/``calculation``), a WordNet antonym, a stop word, a number, a word lemminflect cannot
put in the target's inflection. Context-free features (:data:`FREE`): both words' wordfreq Zipf,
whether the two share a WordNet synset and the inverse rank of the target's first such sense
(SemCor order), the target's SemCor share of that sense, GloVe cosine, and how many of four
resources propose the pair (WordNet synset, GloVe top ``K``, Moby, FreeDict German pivot).
"""
from __future__ import annotations

import difflib
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.lexicon import antonyms, base_forms, inflect_like, is_derivation, is_proper_noun
from perturb.resources.senses import sense_share
from perturb.resources.memo import Memo
from perturb.resources.senses import ranked_synsets
from perturb.resources.vectors import cosine, glove, is_inflection
from perturb.resources.words import UPOS_WORDNET, is_number, stopwords, zipf

K = 50
PIVOT_TOP = 15
VOCAB = 60000
SOURCES = ("wordnet", "glove")
FREE = ("zipf_target", "zipf_cand", "wn_synonym", "sense_rank", "sense_share", "glove_cos", "sources")

_NB: Dict[str, Tuple[str, ...]] = Memo()
_CANDS: Dict[tuple, tuple] = Memo()
_REFUSED: Dict[tuple, bool] = Memo()
_VOCAB: list = []


def target_pos(tok, word: str, text: str, style: str) -> Optional[str]:
    """The WordNet POS of a replaceable target token, or None."""
    pos = UPOS_WORDNET.get(tok.pos_)
    if pos is None or not word.isalpha() or not word.isascii() or word.lower() in stopwords():
        return None
    end = tok.idx + len(word)
    if (tok.idx > 0 and text[tok.idx - 1] in "-/_'") or (end < len(text) and text[end] in "-/_'"):
        return None
    if style in ("lower", "mixed") and word[:1].isupper() and tok.i > 0 and not word.isupper():
        return None
    if style == "mixed" and word.isupper() and len(word) > 1:
        return None
    if is_proper_noun(word.lower()):
        return None
    return pos


def in_term(tok) -> bool:
    """The token is part of a multi-word term, whose words are not interchangeable one by one: a noun
    in a compound or with an adjective ("unit test", "analytical solution"), an attributive adjective
    ("turbulent flow"). SWAPSYN-WNET refuses such targets (measured on SWORDS: benchmarks/lexsub/rules.py)."""
    if tok.dep_ == "compound" or any(c.dep_ == "compound" for c in tok.children):
        return True
    if tok.pos_ == "NOUN" and any(c.dep_ == "amod" for c in tok.children):
        return True
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    attributive = tok.dep_ == "amod" or (tok.head.pos_ in ("NOUN", "PROPN") and tok.head.i > tok.i) or (
        nxt is not None and (nxt.pos_ in ("NOUN", "PROPN") or nxt.dep_ == "compound"))
    return tok.pos_ == "ADJ" and attributive


def _vocab() -> Tuple[np.ndarray, List[str]]:
    if not _VOCAB:
        g = glove()
        idx = [i for i, w in enumerate(g.words[:VOCAB]) if w.isalpha() and w.isascii() and w == w.lower()]
        _VOCAB.append((np.ascontiguousarray(g.unit[idx]), [g.words[i] for i in idx]))
    return _VOCAB[0]


def neighbours(words: Sequence[str], k: int = K, chunk: int = 512) -> Dict[str, Tuple[str, ...]]:
    """The ``k`` nearest neighbours of each word among the first ``VOCAB`` GloVe rows that are
    lower-case letters (itself left out), by cosine rounded to 4 decimals then row; one matrix
    product per ``chunk`` words, each word's answer independent of the others."""
    todo = sorted({w for w in words if w not in _NB})
    if todo:
        g = glove()
        mat, vw = _vocab()
        known = [w for w in todo if w in g.index]
        for w in todo:
            if w not in g.index:
                _NB[w] = ()
        for s in range(0, len(known), chunk):
            part = known[s:s + chunk]
            sims = np.round(g.unit[[g.index[w] for w in part]] @ mat.T, 4)
            for row, w in enumerate(part):
                _NB[w] = tuple(vw[j] for j in _top(sims[row], k + 1) if vw[j] != w)[:k]
    return {w: _NB[w] for w in words}


def _top(sims: np.ndarray, n: int) -> np.ndarray:
    """The rows of the ``n`` highest ``sims``, highest first, ties by row: the first ``n`` of a full
    sort by (-sim, row), from the rows at or above the ``n``-th highest value only."""
    if n >= len(sims):
        return np.lexsort((np.arange(len(sims)), -sims))[:n]
    neg = -sims
    cut = np.partition(neg, n - 1)[n - 1]
    rows = np.flatnonzero(neg <= cut)
    return rows[np.lexsort((rows, neg[rows]))][:n]


def inflect(base: str, tag: str, pos: str) -> Optional[str]:
    """``base`` in the inflection ``tag`` (lemminflect's dictionary); a past participle its dictionary
    omits is its past tense (the dictionary lists VBN only where it differs from VBD: ``computed``)."""
    form = inflect_like(base, tag, pos)
    if form is None and tag == "VBN":
        form = inflect_like(base, "VBD", pos)
    return form


def _wordnet_lemmas(base: str, pos: str) -> Tuple[str, ...]:
    names = set()
    for syn in ranked_synsets(base, pos):
        names.update(n.lower() for n in syn.lemma_names() if n.isalpha())
    return tuple(sorted(names))


def spelling_variant(a: str, b: str) -> bool:
    """Two spellings of one word (``colour``/``color``, ``analyse``/``analyze``): same first letter,
    lengths within 2, and at most two characters differ."""
    if a[:1] != b[:1] or abs(len(a) - len(b)) > 2:
        return False
    sm = difflib.SequenceMatcher(None, a, b)
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal") <= 2


def _refused(word: str, base: str, pos: str, cand: str) -> bool:
    """Whether ``cand`` is refused as a substitute of ``word`` (base form ``base``): see the module's text."""
    return _REFUSED.get_or_compute((word, base, pos, cand), lambda: _refuses(word, base, pos, cand))


def _refuses(word: str, base: str, pos: str, cand: str) -> bool:
    if cand in (word, base) or cand in stopwords() or is_number(cand) or zipf(cand) < 1.5:
        return True
    if is_inflection(word, cand) or is_inflection(base, cand) or spelling_variant(base, cand):
        return True
    return cand in antonyms(base, pos) or is_derivation(base, cand) or is_derivation(word, cand)


def _pivot(base: str, pos: str, table=None) -> Tuple[str, ...]:
    """The ``PIVOT_TOP`` most probable pivot paraphrases (``table``: the pivot table, read when None)."""
    from perturb.resources.pivot import pivot_table

    return tuple(w for w, _ in (table or pivot_table()).paraphrases(base, pos, top=PIVOT_TOP))


def _sense(base: str, pos: str, cand: str) -> Tuple[float, float]:
    """(inverse rank of the target's first sense listing ``cand``, the target's SemCor share of it);
    (0, 0) when no sense of the target lists it."""
    for rank, syn in enumerate(ranked_synsets(base, pos), start=1):
        if cand in (n.lower() for n in syn.lemma_names()):
            return 1.0 / rank, sense_share(base, pos, syn.name())
    return 0.0, 0.0


def _sources(base: str, pos: str, cand: str, in_wordnet: bool, in_glove: bool, table) -> int:
    """How many of the four resources propose the pair (``table``: the pivot table)."""
    from perturb.resources.thesaurus import moby_related

    return int(in_wordnet) + int(in_glove) + int(moby_related(base, cand)) + int(table.prob(base, cand, pos) > 0)


def candidates(word: str, pos: str, tag: str, source: str) -> Tuple[Tuple[str, str, Tuple[float, ...]], ...]:
    """(base form, form in the target's inflection, context-free features) of one target's candidates."""
    key = (word, pos, tag, source)
    if key not in _CANDS:
        _CANDS[key] = tuple(_candidates(word, pos, tag, source))
    return _CANDS[key]


def _candidates(word: str, pos: str, tag: str, source: str):
    from perturb.resources.pivot import pivot_table
    from perturb.resources.wordnet_reader import wordnet

    base = base_forms(word, pos)[-1]
    nb = neighbours([base])[base]
    lemmas = _wordnet_lemmas(base, pos)
    table = pivot_table()
    pool = lemmas + _pivot(base, pos, table) if source == "wordnet" else nb
    wn, seen = wordnet(), set()
    for c in pool:
        if not c.isalpha() or not c.isascii() or c != c.lower():
            continue
        cb = wn.morphy(c, pos)
        if cb is None or cb in seen or _refused(word, base, pos, cb):
            continue
        form = inflect(cb, tag, pos)
        if not form or form.lower() == word:
            continue
        seen.add(cb)
        inv_rank, share = _sense(base, pos, cb)
        cos = cosine(base, cb)
        yield cb, form, (zipf(base), zipf(cb), float(inv_rank > 0), inv_rank, share,
                         round(cos, 4) if cos is not None else 0.0,
                         float(_sources(base, pos, cb, cb in lemmas, c in nb or cb in nb, table)))


def targets_of(doc, text: str) -> List[Tuple[object, str, str]]:
    """(token, word as written, WordNet POS) of each target of a parsed text."""
    from perturb.resources.words import case_style

    style = case_style(text)
    out = []
    for tok in doc:
        word = parsing.original(tok, text)
        pos = target_pos(tok, word, text, style)
        if pos is not None:
            out.append((tok, word, pos))
    return out
