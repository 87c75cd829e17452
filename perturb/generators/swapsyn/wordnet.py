"""SWAPSYN-WNET: one random content word replaced by a WordNet synonym of its most frequent sense.

POS tags come from spaCy (en_core_web_sm): NOUN -> n, VERB -> v, ADJ -> a (+ satellites),
ADV -> r; proper nouns are never replaced. Where TextAttack's ``WordSwapWordNet`` draws among the
lemmas of all synsets (a random sense), the candidates here are the lemmas of the word's most
frequent sense, filtered (see :class:`SwapSynWordNet`); the synonym is re-inflected with
lemminflect to the word's tag and takes the word's capitalisation.

WordNet files are found offline and read with NLTK (:mod:`perturb.resources.wordnet_reader`); the lexical
relations used here are in :mod:`perturb.resources.lexicon`.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from perturb.resources import parsing
from perturb.generators.swapsyn.swap import QUERY_WORD, SynonymSwap, VerifiedSynonymSwap
from perturb.resources.words import stopwords_resource, wordfreq_resource, zipf
from perturb.base import Generator, Resource
from perturb.spec import Spec, Tuning, threshold_constraint
from perturb.resources.lexicon import antonyms, base_forms, is_derivation, sense_synonyms
from perturb.resources.vectors import cosine
from perturb.resources.wordnet_reader import NLTK_INSTALL, find_wordnet, wordnet, wordnet_content_sha, wordnet_resource
from perturb.resources.words import module_resource
from perturb.resources.memo import Memo

_SYN_CACHE: Dict[Tuple[str, str], Tuple[str, ...]] = Memo()
_WCAND_CACHE: Dict[tuple, Tuple[Tuple[str, str], ...]] = Memo()


class SwapSynWordNet(SynonymSwap, Generator):
    """One content word replaced by a WordNet synonym *of the sense it most likely has*.

    RoDR/TextAttack draw among the lemmas of all the word's synsets, so a random sense comes out
    (direction -> commission, high -> gamey, power -> king). Here the sense is the word's most
    frequent sense for its POS in the query (SemCor counts, ``cntlist.rev``); its one-word,
    lower-case lemmas are the candidates, kept when frequent (Zipf >= ``min_zipf``: not
    "oftenness"), not a derivation of the word, and close enough in GloVe space (cosine >=
    ``min_cosine``, a sanity check that the sense is the word's usual one). A target is drawn
    uniformly among the replaceable words (:mod:`perturb.generators.swapsyn.swap`: no proper nouns, no rare terms),
    a candidate uniformly among its synonyms, re-inflected to the word's form (lemminflect), and
    kept only if the substituted query keeps the word's POS.
    """

    name = "SWAPSYN-WNET"

    def __init__(self, inflect: bool = True, min_zipf: float = 3.0, min_cosine: float = 0.45,
                 min_target_zipf: float = 3.0):
        self.inflect = bool(inflect)
        self.min_zipf = float(min_zipf)
        self.min_cosine = float(min_cosine)
        self.min_target_zipf = float(min_target_zipf)
        self._syn_cache: Dict[Tuple[str, str], Tuple[str, ...]] = _SYN_CACHE  # shared in the process
        self._cands = _WCAND_CACHE

    def config(self) -> dict:
        found = find_wordnet()
        cfg = {"pos_model": parsing.model_name() or "missing", "inflect": self.inflect,
               "wordnet": found[0] if found else "missing", "multiword": "excluded",
               "sense": "most frequent sense for the POS in context (cntlist.rev)", "min_zipf": self.min_zipf,
               "min_cosine_glove": self.min_cosine, "min_target_zipf": self.min_target_zipf,
               "pos_in_context": True, "proper_nouns": "excluded", "wordfreq": "3.1.1"}
        sha = wordnet_content_sha()  # of the files found: the same whether or not WordNet is loaded here
        if sha is not None:
            cfg["wordnet_sha256"] = sha
        return cfg

    def resources(self) -> List[Resource]:
        wn_res = wordnet_resource()
        nltk_res = _module("nltk", NLTK_INSTALL)
        return [*parsing.resources(), wn_res, nltk_res, stopwords_resource(), parsing.lemminflect_resource(),
                wordfreq_resource()]

    def synonyms(self, word: str, pos: str) -> Tuple[str, ...]:
        """Every one-word lemma of every sense (TextAttack's candidate set; kept for the audit)."""
        key = (word.lower(), pos)
        if key not in self._syn_cache:
            wn = wordnet()
            lemmas = set(base_forms(word, pos))
            names = set()
            for syn in wn.synsets(word.lower(), pos=pos) + (wn.synsets(word.lower(), pos="s") if pos == "a" else []):
                for name in syn.lemma_names():
                    if "_" in name or name.lower() in lemmas:
                        continue
                    names.add(name)
            self._syn_cache[key] = tuple(sorted(names))
        return self._syn_cache[key]

    def candidates(self, word: str, pos: str) -> List[Tuple[str, str, str]]:
        key = (word, pos, self.min_zipf, self.min_cosine)
        if key not in self._cands:
            base = base_forms(word, pos)[-1]
            ants = antonyms(word, pos)
            out = []
            for syn, _, sense in sense_synonyms(word, pos, 1):
                if syn in ants or zipf(syn) < self.min_zipf:
                    continue
                cos = cosine(base, syn)
                if self.min_cosine > 0 and (cos is None or cos < self.min_cosine):
                    continue
                if is_derivation(base, syn):
                    continue
                out.append((syn, f"sense {sense}, cos {cos:.3f}" if cos is not None else f"sense {sense}", sense))
            self._cands[key] = tuple(out)
        return list(self._cands[key])

    def order(self, per_target, rng):
        """A target uniformly, then a synonym uniformly; the rest after it (seeded) as fallbacks."""
        out = []
        for t in rng.permutation(len(per_target)).tolist():
            out.extend((t, c) for c in rng.permutation(len(per_target[t])).tolist())
        return out


def _module(name: str, install: str) -> Resource:
    return module_resource(name, name, install)


WNET_VERIFIER = threshold_constraint(
    "logistic verifier", 0.7202, description="the fitted model says the swap keeps the need",
    evidence="logistic model over the verifier's features (weights.MODELS['wordnet'])",
    tuning=Tuning("perturb/data/validity/SWAPSYN-WNET.tsv", "pooled_validity", {"min_validity": 0.95}))

VERIFIED_WNET_SPEC = Spec(
    name="SWAPSYN-WNET", version=2, protocol="validated",
    transformation="one content word replaced by a one-word lemma of one of its WordNet senses for its POS",
    constraints=(WNET_VERIFIER, QUERY_WORD), picker="uniform among candidates >= threshold (query rng)",
    facts={"candidates": "one-word lemmas of every sense for the POS, cheap filter",
           "pick": "uniform among candidates >= threshold (query rng)",
           "pos_in_context": True, "reinflect": "lemminflect dictionary", "wordfreq": "3.1.1"})


class VerifiedSwapSynWordNet(VerifiedSynonymSwap, SwapSynWordNet):
    """SWAPSYN-WNET, generate then verify: the candidates are the one-word lemmas of every WordNet
    sense of the target for its POS (TextAttack's set), each scored by the WordNet model of
    :mod:`perturb.generators.swapsyn.weights`; a seeded pick among those scoring >= ``threshold``."""

    source = "wordnet"

    spec = VERIFIED_WNET_SPEC

    def __init__(self, threshold: Optional[float] = None):
        super().__init__()
        self.verifier = WNET_VERIFIER.with_values(threshold=threshold)

    @property
    def threshold(self) -> float:
        return self.verifier.threshold

    def config(self) -> dict:
        from perturb.generators.swapsyn import verifier as sv
        from perturb.generators.swapsyn.weights import VERSION

        found = find_wordnet()
        cfg = self.spec.config([self.verifier], pos_model=parsing.model_name() or "missing",
                               wordnet=found[0] if found else "missing",
                               verifier=f"logistic {VERSION} ({self.source})", features=list(sv.FEATURES))
        sha = wordnet_content_sha()
        if sha is not None:
            cfg["wordnet_sha256"] = sha
        return cfg
