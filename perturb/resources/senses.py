"""WordNet senses: a word's base forms and senses ranked by frequency (SemCor counts), the share
of its usage one sense has, lemminflect's readings of a word, and whether two words are synonyms
(:func:`synonymy`, the one place that answers it). :mod:`perturb.resources.lexicon` builds the
other lexical relations (antonyms, derivations, synonyms of a sense, the sense in context) on them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

from perturb.resources.words import UPOS_WORDNET, WORDNET_POS, WORDNET_UPOS, zipf
from perturb.resources.wordnet_reader import wordnet, wordnet_meta
from perturb.resources.memo import Memo

# --------------------------------------------------------------------------- senses ranked
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


def ranked_synsets(word: str, pos: str) -> list:
    """The synsets of ``word`` for ``pos``, most frequent sense first: by the SemCor count of the
    word's lemma in the synset (cntlist.rev), ties in WordNet's own order (also frequency-based)."""
    return list(_RANKED.get_or_compute((word.lower(), pos), lambda: _ranked_synsets(word, pos)))


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
