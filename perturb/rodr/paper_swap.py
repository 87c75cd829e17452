"""``--protocol rodr`` SWAPSYN-WNET and SWAPSYN-GLOVE: TextFlint's ``SwapSynWordNet`` and
``SwapSynWordEmbedding`` (TextAttack's ``WordSwapEmbedding`` + ``WordEmbeddingDistance``), the word
substitutions of :mod:`perturb.generators.substitute` with TextFlint's constraints."""
from __future__ import annotations

from perturb.generators.substitute import GloveNeighbourSwap, WordNetLemmaSwap
from perturb.rodr.protocol import STOPWORD_SKIP, rodr_spec
from perturb.spec import Param, floor_veto, veto

#: TextAttack's ``WordEmbeddingDistance(min_cos_sim=0.8)``: a neighbour under the cosine is no candidate
EMBEDDING_DISTANCE = floor_veto("embedding distance", 0.8, key="min_cos", measure="GloVe 6B-50d cosine to the word",
                                description="TextAttack WordEmbeddingDistance: the neighbour is near the word")
#: TextFlint's ``filter_candidates_by_pos``: a neighbour is kept when, tagged alone, it has the word's part of speech
SAME_POS = veto("same part of speech",
                description="the neighbour, tagged alone, has the word's part of speech (TextFlint's filter_candidates_by_pos)",
                why=lambda edit, ctx: None if ctx.get("candidate pos") == ctx.get("pos") else
                f"{ctx.get('candidate pos')} is not {ctx.get('pos')}")

WNET_SPEC = rodr_spec(
    "SWAPSYN-WNET", "TextFlint SwapSynWordNet: a lemma of a synset of a random word's part of speech",
    transformation="one word replaced by a one-word lemma of any of its WordNet synsets of its part of speech "
                   "(spaCy tag: noun, verb, adjective, adverb; another tag: all; any sense), as WordNet writes it",
    constraints=(STOPWORD_SKIP,), version=2,  # 2: TextFlint's stop list, word then candidate
    picker="a word uniform among the words with a lemma, then a lemma uniform (query rng)",
    senses="all", pos="the word's (spaCy Penn tag NN/VB/JJ/RB -> synsets of pos n/v/a/r; other tags: all)",
    multiword="excluded", words_per_query=1,
    draw="word, then candidate", case="the lemma as WordNet writes it (a case-only candidate changes nothing)")

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


class PaperSwapSynWordNet(WordNetLemmaSwap):
    name = "SWAPSYN-WNET"
    spec = WNET_SPEC


class PaperSwapSynGlove(GloveNeighbourSwap):
    name = "SWAPSYN-GLOVE"
    spec = GLOVE_SPEC
