"""Lexical relations shared by the synonym generators, back-translation and the audit: WordNet
base forms, senses ranked by frequency, whether two words are synonyms (:func:`synonymy`, the one
place that answers it), synonyms of a sense, antonyms, derivations, proper nouns, lemminflect's
readings and re-inflection, and the sense a query's other words point to (GloVe).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from perturb.resources.words import UPOS_WORDNET, WORDNET_POS, WORDNET_UPOS, stopwords, zipf
from perturb.resources.vectors import glove, is_inflection
from perturb.resources.wordnet_reader import wordnet, wordnet_meta
from perturb.resources.memo import Memo

INFLECT_TAGS = {"NNS", "NNPS", "VBD", "VBG", "VBN", "VBZ", "JJR", "JJS", "RBR", "RBS"}


def inflect_like(base: str, tag: str, pos: str) -> Optional[str]:
    """``base`` (a WordNet lemma) in the inflection ``tag`` of the word it replaces, from
    lemminflect's dictionary; None when the dictionary has no such form (never an OOV guess)."""
    if tag not in INFLECT_TAGS:
        return base
    import lemminflect

    upos = WORDNET_UPOS[pos]
    forms = lemminflect.getAllInflections(base, upos=upos).get(tag, ())
    return forms[0] if forms else None


# --------------------------------------------------------------------------- lexical constraints
_WN_POS = {"n": ("n",), "v": ("v",), "a": ("a", "s"), "r": ("r",)}


_BASE: Dict[Tuple[str, str], Tuple[str, ...]] = Memo()


def base_forms(word: str, pos: str) -> List[str]:
    """``word`` and its WordNet base form for ``pos`` (morphy), lower-cased, distinct."""
    key = (word.lower(), pos)
    if key not in _BASE:
        _BASE[key] = tuple(_base_forms(word, pos))
    return list(_BASE[key])


def _base_forms(word: str, pos: str) -> List[str]:
    wn = wordnet()
    low = word.lower()
    out = [low]
    try:
        base = wn.morphy(low, pos)
    except Exception:  # noqa: BLE001 - morphy on odd input
        base = None
    if base and base.lower() not in out:
        out.append(base.lower())
    if len(out) == 1:  # morphy keeps lemmas of their own ("effects"): ask lemminflect for the base
        try:
            import lemminflect

            upos = WORDNET_UPOS[pos]
            for lemma in lemminflect.getLemma(low, upos=upos, lemmatize_oov=False):
                # the base must be the commoner word ("effect" for "effects"; not "physic" for "physics")
                if lemma.lower() != low and wn.synsets(lemma.lower(), pos=pos) and zipf(lemma.lower()) >= zipf(low):
                    out.append(lemma.lower())
                    break
        except ImportError:  # pragma: no cover
            pass
    return out


_COUNTS: Optional[Dict[str, int]] = None


def sense_counts() -> Dict[str, int]:
    """SemCor tag counts by sense key, read once from ``cntlist.rev`` ({} when the file is absent)."""
    global _COUNTS
    if _COUNTS is None:
        counts: Dict[str, int] = {}
        path = Path(wordnet_meta()["root"]) / "cntlist.rev"
        if path.is_file():
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    parts = line.split()
                    if len(parts) == 3 and parts[2].isdigit():
                        counts[parts[0]] = int(parts[2])
        _COUNTS = counts
    return _COUNTS


_RANKED: Dict[Tuple[str, str], list] = Memo()
_ANT: Dict[Tuple[str, str], set] = Memo()
_DERIV: Dict[Tuple[str, str], bool] = Memo()


def ranked_synsets(word: str, pos: str) -> list:
    """The synsets of ``word`` for ``pos``, most frequent sense first: by the SemCor count of the
    word's lemma in the synset (cntlist.rev), ties in WordNet's own order (also frequency-based)."""
    key = (word.lower(), pos)
    if key not in _RANKED:
        _RANKED[key] = _ranked_synsets(word, pos)
    return list(_RANKED[key])


def _ranked_synsets(word: str, pos: str) -> list:
    wn = wordnet()
    counts = sense_counts()
    forms = base_forms(word, pos)
    if len(forms) > 1:  # an inflected form: the senses of its lemma ("effects" -> effect, not belongings)
        forms = forms[1:]
    seen, synsets = set(), []
    for form in forms[::-1]:  # base form first
        for p in _WN_POS[pos]:
            for k, syn in enumerate(wn.synsets(form, pos=p)):
                if syn.name() not in seen:
                    seen.add(syn.name())
                    synsets.append(syn)
    def count(syn):
        return max((counts.get(l.key(), 0) for l in syn.lemmas() if l.name().lower() in forms), default=0)
    order = {s.name(): k for k, s in enumerate(synsets)}
    return sorted(synsets, key=lambda s: (-count(s), order[s.name()]))


def sense_share(word: str, pos: str, synset_name: str) -> float:
    """The share of ``word``'s SemCor tags (cntlist.rev, its lemma in any of its senses for ``pos``)
    that are tags of the sense ``synset_name``; 0.0 when the word has no tags (no evidence)."""
    counts = sense_counts()
    forms = base_forms(word, pos)
    if len(forms) > 1:
        forms = forms[1:]
    total = mine = 0
    for syn in ranked_synsets(word, pos):
        n = max((counts.get(l.key(), 0) for l in syn.lemmas() if l.name().lower() in forms), default=0)
        total += n
        if syn.name() == synset_name:
            mine = n
    return mine / total if total else 0.0


def sense_synonyms(word: str, pos: str, n_senses: int = 1, mutual: int = 1) -> List[Tuple[str, int, str]]:
    """(lemma, sense rank, synset name) of the one-word lemmas of the word's ``n_senses`` most frequent senses,
    the word's own forms excluded. Capitalised lemmas (proper names: "Italia") are left out.

    With ``mutual`` > 0 a lemma is kept only when the shared sense is also among *its own*
    ``mutual`` most frequent senses (default 1: its most frequent sense): "job" is a lemma of
    problem's first sense, but that sense is not what "job" usually means, so problem -> job is
    refused; so are kind -> form, practice -> pattern, vary -> alter, reason -> ground."""
    forms = set(base_forms(word, pos))
    out, seen = [], set()
    for rank, syn in enumerate(ranked_synsets(word, pos)[:n_senses]):
        for lemma in syn.lemmas():
            name = lemma.name()
            if "_" in name or "-" in name or not name.isalpha() or not name.islower():
                continue
            if name in forms or name in seen:
                continue
            if mutual > 0 and syn.name() not in synonymy(word, name, pos, top_a=n_senses, top_b=mutual).synsets:
                continue
            seen.add(name)
            out.append((name, rank, syn.name()))
    return out


_PROPER: Dict[str, bool] = Memo()


def is_proper_noun(word: str) -> bool:
    """True when WordNet knows ``word`` only as a capitalised noun (a name: "Italy", "Wang")."""
    low = word.lower()
    if low not in _PROPER:
        _PROPER[low] = _is_proper_noun(low)
    return _PROPER[low]


def _is_proper_noun(word: str) -> bool:
    wn = wordnet()
    low = word.lower()
    syns = wn.synsets(low, pos="n")
    if not syns:
        return False
    names = [l.name() for s in syns for l in s.lemmas() if l.name().lower() == low]
    return bool(names) and all(n[:1].isupper() for n in names) and not any(
        wn.synsets(low, pos=p) for p in WORDNET_POS[1:])


def antonyms(word: str, pos: str) -> set:
    """Every WordNet antonym of any sense of ``word`` (direct antonyms and those of similar-to satellites)."""
    key = (word.lower(), pos)
    if key not in _ANT:
        _ANT[key] = _antonyms(word, pos)
    return set(_ANT[key])


def _antonyms(word: str, pos: str) -> set:
    out = set()
    for syn in ranked_synsets(word, pos):
        related = [syn] + (syn.similar_tos() if pos == "a" else [])
        for s in related:
            for lemma in s.lemmas():
                for ant in lemma.antonyms():
                    out.add(ant.name().lower())
    return out


def is_derivation(a: str, b: str) -> bool:
    """``a`` and ``b`` are forms or derivations of one word: a shared lemma or inflection
    ("calculated"/"calculate"), WordNet derivational links ("calculate"/"calculation"), or a
    shared stem (common prefix of all but the last three letters of the shorter, >= 4 letters)."""
    key = (a.lower(), b.lower())
    if key not in _DERIV:
        _DERIV[key] = _is_derivation(*key)
    return _DERIV[key]


def _is_derivation(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    if is_inflection(a, b):
        return True
    short = min(len(a), len(b))
    prefix = 0
    while prefix < short and a[prefix] == b[prefix]:
        prefix += 1
    if prefix >= max(4, short - 3):
        return True
    wn = wordnet()
    for pos in WORDNET_POS:
        for syn in wn.synsets(a, pos=pos):
            for lemma in syn.lemmas():
                if lemma.name().lower() != a and not _lemma_matches(lemma.name(), a, pos):
                    continue
                for rel in lemma.derivationally_related_forms() + lemma.pertainyms():
                    if rel.name().lower() in (b,) or _lemma_matches(rel.name(), b, None):
                        return True
    return False


def _lemma_matches(name: str, word: str, pos) -> bool:
    wn = wordnet()
    name = name.lower()
    if name == word:
        return True
    try:
        return any(wn.morphy(word, p) == name for p in ((pos,) if pos else WORDNET_POS))
    except Exception:  # noqa: BLE001
        return False


# --------------------------------------------------------------------------- sense in context
_SIG_CACHE: Dict[str, Optional[np.ndarray]] = Memo()


def _mean_unit(words) -> Optional[np.ndarray]:
    g = glove()
    rows = [g.index[w] for w in words if w in g.index]
    if not rows:
        return None
    v = g.unit[rows].mean(axis=0)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else None


def synset_signature(syn) -> Optional[np.ndarray]:
    """Mean GloVe vector of a sense's gloss, examples, lemmas and hypernym lemmas (content words)."""
    key = syn.name()
    if key not in _SIG_CACHE:
        import re

        stops = stopwords()
        text = " ".join([syn.definition(), *syn.examples(), *syn.lemma_names(),
                         *[n for h in syn.hypernyms() for n in h.lemma_names()]])
        words = [w for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if w not in stops]
        _SIG_CACHE[key] = _mean_unit(words)
    return _SIG_CACHE[key]


def sense_in_context(word: str, pos: str, context: List[str], k: int = 40) -> Optional[str]:
    """The name of the sense of ``word`` (among its ``k`` most frequent for ``pos``) whose
    signature is closest to the query's other content words (an embedding Lesk); None without
    context. Used to refuse a synonym whose sense is not the one the query means ("wake" in an
    aerodynamics query is not "aftermath")."""
    ctx = _mean_unit([w.lower() for w in context])
    if ctx is None:
        return None
    best, best_score = None, -2.0
    for syn in ranked_synsets(word, pos)[:k]:
        sig = synset_signature(syn)
        if sig is None:
            continue
        score = float(sig @ ctx)
        if score > best_score:
            best, best_score = syn.name(), score
    return best


_LEMMAS: Dict[str, frozenset] = Memo()


def lemma_set(word: str) -> frozenset:
    """``word`` lower-cased and every lemma lemminflect's dictionary gives it, of any part of speech."""
    low = word.lower()
    if low not in _LEMMAS:
        out = {low}
        try:
            import lemminflect

            for forms in lemminflect.getAllLemmas(low).values():
                out.update(f.lower() for f in forms)
        except ImportError:  # pragma: no cover - lemminflect is a dependency
            pass
        _LEMMAS[low] = frozenset(out)
    return _LEMMAS[low]


_TAGS: Dict[str, FrozenSet[Tuple[str, str, str]]] = Memo()


def forms_of(word: str) -> FrozenSet[Tuple[str, str, str]]:
    """(upos, lemma, tag) readings of ``word`` in lemminflect's dictionary ("wakes": (NOUN, wake, NNS),
    (VERB, wake, VBZ)); an unknown word reads as itself with no tag."""
    if word not in _TAGS:
        import lemminflect

        out = set()
        for upos, lemmas in lemminflect.getAllLemmas(word).items():
            for lemma in lemmas:
                for tag, forms in lemminflect.getAllInflections(lemma, upos=upos).items():
                    if word in forms:
                        out.add((upos, lemma.lower(), tag))
        _TAGS[word] = frozenset(out) if out else frozenset({("X", word, "")})
    return _TAGS[word]


# --------------------------------------------------------------------------- synonymy
LOOKUPS = ("lemma", "surface")


@dataclass(frozen=True)
class SharedSense:
    """One WordNet sense two words share: the synset's name, its part of speech (``a`` with its
    satellites), the sense's rank among each word's senses of that part of speech (0: the most
    frequent) and, when the words were compared reading by reading (``same_form``), the
    lemminflect tag both readings carry."""

    synset: str
    pos: str
    rank_a: int
    rank_b: int
    tag: str = ""


@dataclass(frozen=True)
class Synonymy:
    """What :func:`synonymy` found: every sense ``a`` and ``b`` share within the cut-offs asked,
    in WordNet's part-of-speech order, then by ``a``'s rank; true when there is one."""

    a: str
    b: str
    senses: Tuple[SharedSense, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.senses)

    @property
    def synsets(self) -> FrozenSet[str]:
        return frozenset(s.synset for s in self.senses)


_SYNONYMY: Dict[tuple, Synonymy] = Memo()
_SENSE_NAMES: Dict[Tuple[str, str, str], Tuple[str, ...]] = Memo()


def synonymy(a: str, b: str, pos: Optional[str] = None, *, top_a: Optional[int] = None,
             top_b: Optional[int] = None, same_form: bool = False, lookup: str = "lemma") -> Synonymy:
    """Are ``a`` and ``b`` synonyms? The WordNet senses they share, with the evidence each caller
    weighs: the synset, its part of speech and its rank among each word's senses.

    * ``pos``: one WordNet part of speech (``n``, ``v``, ``a``, ``r``); None: each of the four
      (a sense is shared within one part of speech).
    * ``top_a`` / ``top_b``: only the ``top_a`` most frequent senses of ``a`` and the ``top_b`` of
      ``b`` count (None: every sense). The callers' cut-offs: BACKTRANS's same-form synonym
      1 / 2 (``a``'s first sense among ``b``'s first two), its content-word counterpart 2 / 2, a
      related word 3 / 3, a spelling variant 1 / 1, its shared-sense share none; the synonym
      swaps' mutual sense n / ``mutual`` (:func:`sense_synonyms`); the audit none.
    * ``same_form``: compare the words reading by reading (:func:`forms_of`): a part of speech
      in which both carry the same lemminflect tag ("large"/"big" JJ), the senses being their
      lemmas'; "made"/"done" are synonyms as VBN, "answer"/"responds" never.
    * ``lookup``: ``lemma`` (the generators'): the senses of the word's base form, most frequent
      first (:func:`ranked_synsets`, SemCor counts); ``surface`` (the audit's proxy): every synset
      WordNet lists for the word as written or its morphy base form, in WordNet's order, which
      keeps the senses of an inflected form's own entry ("found" as the verb of "establish",
      which the lemma lookup reads as "find" only).

    Memoised by its arguments (as given: ``same_form`` reads the words' case)."""
    key = (a, b, pos, top_a, top_b, same_form, lookup)
    hit = _SYNONYMY.get(key)
    if hit is None:
        if pos is not None and pos not in WORDNET_POS:
            raise ValueError(f"synonymy: pos {pos!r} is not one of WordNet's {', '.join(WORDNET_POS)} (or None)")
        if lookup not in LOOKUPS:
            raise ValueError(f"synonymy: lookup {lookup!r} is not one of {', '.join(LOOKUPS)}")
        if same_form and lookup != "lemma":
            raise ValueError("synonymy: same_form compares lemmas' senses: use lookup='lemma'")
        hit = _SYNONYMY[key] = _synonymy(*key)
    return hit


def _synonymy(a: str, b: str, pos: Optional[str], top_a: Optional[int], top_b: Optional[int],
              same_form: bool, lookup: str) -> Synonymy:
    parts = WORDNET_POS if pos is None else (pos,)
    found = set()
    if same_form:
        readings_b = forms_of(b)
        for upos, lem_a, tag in forms_of(a):
            p = UPOS_WORDNET.get(upos)
            if p is None or p not in parts:
                continue
            for upos_b, lem_b, tag_b in readings_b:
                if upos_b == upos and tag_b == tag:
                    found.update(_shared(lem_a, lem_b, p, top_a, top_b, lookup, tag))
    else:
        for p in parts:
            found.update(_shared(a, b, p, top_a, top_b, lookup, ""))
    order = {p: k for k, p in enumerate(WORDNET_POS)}
    senses = sorted(found, key=lambda s: (order[s.pos], s.rank_a, s.rank_b, s.synset, s.tag))
    return Synonymy(a, b, tuple(senses))


def _shared(a: str, b: str, pos: str, top_a: Optional[int], top_b: Optional[int], lookup: str, tag: str):
    names_b = _sense_names(b, pos, lookup)[:top_b]
    if not names_b:
        return []
    rank_b = {name: k for k, name in enumerate(names_b)}
    return [SharedSense(name, pos, k, rank_b[name], tag)
            for k, name in enumerate(_sense_names(a, pos, lookup)[:top_a]) if name in rank_b]


def _sense_names(word: str, pos: str, lookup: str) -> Tuple[str, ...]:
    key = (word, pos, lookup)
    if key not in _SENSE_NAMES:
        if lookup == "lemma":
            names = [s.name() for s in ranked_synsets(word, pos)]
        else:
            wn = wordnet()
            low = word.lower()
            names = []
            for form in dict.fromkeys((low, wn.morphy(low, pos) or low)):
                names.extend(s.name() for s in wn.synsets(form, pos=pos))
        _SENSE_NAMES[key] = tuple(dict.fromkeys(names))
    return _SENSE_NAMES[key]
