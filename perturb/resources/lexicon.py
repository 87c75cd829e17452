"""Lexical relations shared by the synonym generators, back-translation and the audit, built on the
ranked WordNet senses of :mod:`perturb.resources.senses` (where :func:`~perturb.resources.senses.synonymy`
says whether two words are synonyms): synonyms of a sense, antonyms, derivations, proper nouns,
re-inflection (lemminflect) and the lemmas of a word.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from perturb.resources.words import WORDNET_POS, WORDNET_UPOS
from perturb.resources.vectors import is_inflection
from perturb.resources.wordnet_reader import wordnet
from perturb.resources.memo import Memo
from perturb.resources.senses import base_forms, ranked_synsets, synonymy

INFLECT_TAGS = {"NNS", "NNPS", "VBD", "VBG", "VBN", "VBZ", "JJR", "JJS", "RBR", "RBS"}


def inflect_like(base: str, tag: str, pos: str) -> Optional[str]:
    """``base`` (a WordNet lemma) in the inflection ``tag`` of the word it replaces, from
    lemminflect's dictionary; None when the dictionary has no such form (never an OOV guess)."""
    if tag not in INFLECT_TAGS:
        return base
    return _INFLECTED.get_or_compute((base, tag, pos), lambda: _inflected(base, tag, pos))


def _inflected(base: str, tag: str, pos: str) -> Optional[str]:
    import lemminflect

    forms = lemminflect.getAllInflections(base, upos=WORDNET_UPOS[pos]).get(tag, ())
    return forms[0] if forms else None


_INFLECTED: Dict[Tuple[str, str, str], Optional[str]] = Memo()


# --------------------------------------------------------------------------- lexical constraints
_ANT: Dict[Tuple[str, str], set] = Memo()
_DERIV: Dict[Tuple[str, str], bool] = Memo()


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
    return set(_ANT.get_or_compute((word.lower(), pos), lambda: _antonyms(word, pos)))


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
    return not _derived_names(a).isdisjoint(_readings(b))


_DERIVED: Dict[str, frozenset] = Memo()
_READINGS: Dict[str, frozenset] = Memo()


def _derived_names(word: str) -> frozenset:
    """The lower-cased names of the derivationally related forms and pertainyms of ``word``'s own
    lemmas in any of its WordNet senses (a lemma is its own when it is ``word`` or the base form
    morphy gives ``word`` for the sense's POS)."""
    if word not in _DERIVED:
        wn, out = wordnet(), set()
        for pos in WORDNET_POS:
            for syn in wn.synsets(word, pos=pos):
                for lemma in syn.lemmas():
                    if lemma.name().lower() != word and not _lemma_matches(lemma.name(), word, pos):
                        continue
                    out.update(rel.name().lower() for rel in lemma.derivationally_related_forms() + lemma.pertainyms())
        _DERIVED[word] = frozenset(out)
    return _DERIVED[word]


def _readings(word: str) -> frozenset:
    """``word`` and its morphy base form for each POS: the lemma names it matches (:func:`_lemma_matches`)."""
    if word not in _READINGS:
        wn, out = wordnet(), {word}
        for pos in WORDNET_POS:
            try:
                out.add(wn.morphy(word, pos))
            except Exception:  # noqa: BLE001 - as _lemma_matches: the POS after a failing one are not asked
                break
        out.discard(None)
        _READINGS[word] = frozenset(out)
    return _READINGS[word]


def _lemma_matches(name: str, word: str, pos) -> bool:
    wn = wordnet()
    name = name.lower()
    if name == word:
        return True
    try:
        return any(wn.morphy(word, p) == name for p in ((pos,) if pos else WORDNET_POS))
    except Exception:  # noqa: BLE001
        return False


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
