"""SWAPSYN-WNET: one content word replaced by a WordNet synonym, chosen by the fitted chooser.

Candidates: the one-word lemmas of every WordNet sense of the target for its POS (TextAttack's
``WordSwapWordNet`` draws one of them at random); see :mod:`perturb.generators.swapsyn.generator`."""
from __future__ import annotations

from perturb.generators.swapsyn.generator import CAVEAT, FUNCTION_WORD, IN_TERM, QUERY_WORD, WORD_CAP, ChosenSwap, check_threshold, chooser_threshold
from perturb.spec import Spec

WNET_SPEC = Spec(
    name="SWAPSYN-WNET", version=11, protocol="validated",
    transformation="one content word replaced by a one-word lemma of one of its WordNet senses for its POS",
    constraints=(chooser_threshold("wordnet"), check_threshold("wordnet"), check_threshold("wordnet", "verb"),
                 check_threshold("wordnet", "long"),
                 IN_TERM, FUNCTION_WORD, QUERY_WORD, WORD_CAP),
    picker=("the best-scoring candidate at or above the threshold (nouns, main verbs, adjectives before adverbs) "
            "whose pick check reaches its class's threshold"),
    facts={"candidates": "one-word lemmas of every WordNet sense of the target for its POS",
           "pos_in_context": False, "reinflect": "lemminflect dictionary", "wordfreq": "3.1.1",
           "context_model": "all-MiniLM-L6-v2 layers 4 and 6"},
    caveat=CAVEAT % "319 of 348 = 91.7% (Wilson 95% 88.3-94.1%; MS MARCO questions 153 of 165, Cranfield titles 6 of 6, long abstract sentences 78 of 84, dictionary example sentences 82 of 93)")


class SwapSynWordNet(ChosenSwap):
    """SWAPSYN-WNET (:data:`WNET_SPEC`)."""

    name = "SWAPSYN-WNET"
    source = "wordnet"
    spec = WNET_SPEC
