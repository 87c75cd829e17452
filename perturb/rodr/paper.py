"""``--protocol rodr``'s TRANSTENSE and BACKTRANS (the synonym swaps: :mod:`perturb.rodr.paper_swap`; MISSPELL,
EXTRAPUNC, NOSTOPWORD, SWAPWORDS: :mod:`perturb.rodr.edits`): each a :class:`perturb.spec.Spec` of protocol ``rodr``
naming a transformation (the validated generators' own where the operation is shared; a change to it changes both
protocols and bumps both specs' versions) with TextFlint's constraints and picker. What each does and where it departs
from the paper: docs/methods.md, "The paper protocol"."""
from __future__ import annotations

from typing import Any

from perturb.generators.backtrans.generator import RoundTrip
from perturb.generators.tense import WordTenseSwap
from perturb.resources.words import zipf
from perturb.rodr.protocol import STOPWORD_SKIP, rodr_spec
from perturb.spec import Edit, Param, Threshold, Tuning


class VerbTableProxy(Threshold):
    """TextFlint's ``Tense`` changes only verbs its downloaded verb table holds, and that table is not
    available offline. The authors' MS MARCO set shows it by lemma (``define``, ``locate``, ``create``
    never change, ``cause``, ``use``, ``calculate`` always do), and the lemmas it lacks are mostly the
    rarer ones, so the lemma's wordfreq Zipf frequency stands in for membership: a verb whose lemma
    is rarer than the threshold is taken as one the table lacks. The threshold is the one whose
    changed share comes closest to the authors' on a fixed half of their queries
    (``benchmarks/rodr_tense_table.py``); the other half measures it."""

    name = "verb table proxy"
    description = ("a verb whose lemma is rarer than the threshold (wordfreq Zipf) is taken as one "
                   "TextFlint's downloaded verb table lacks (the table is not available offline)")
    judges = "target"
    evidence = "wordfreq 3.1.1 Zipf frequency of the verb's spaCy lemma, lower-cased"
    tuning = Tuning("benchmarks/data/rodr/transtense_verb_table.json", "closest_share",
                    {"half": "fit"}, note="the authors' TransTense set of MS MARCO dev (small), a fixed half of its queries")
    params = (Param("threshold", float, 4.4, "a verb passes when its lemma's Zipf frequency is at least this",
                    key="verb_table_min_zipf"),)

    def score(self, edit: Edit, context: Any = None) -> float:
        return zipf(context["lemma"])


VERB_TABLE_PROXY = VerbTableProxy()


# --------------------------------------------------------------------------- TRANSTENSE, BACKTRANS
TRANSTENSE_SPEC = rodr_spec(
    "TRANSTENSE", "TextFlint-style tense swap of one random verb",
    version=4,  # 4: the verb table proxy
    transformation="one verb (any VB* tag, POS VERB or AUX) inflected past <-> present by lemminflect's "
                   "getInflection of its lemma, the verb alone",
    picker="verbs in a seeded order (query rng); the first whose form changes",
    verbs=["VB", "VBD", "VBG", "VBN", "VBP", "VBZ"], flip="VBD/VBN -> VBZ; VB/VBG/VBP/VBZ -> VBD", agreement="none",
    constraints=(STOPWORD_SKIP, VERB_TABLE_PROXY),
    targets="a verb written in lower case that is not on TextFlint's stop list (is/are/am/has/have skipped; "
            "do/does/did/was/were/be are targets) and whose lemma the verb table proxy passes")


class PaperTransTense(WordTenseSwap):
    name = "TRANSTENSE"
    spec = TRANSTENSE_SPEC


BACKTRANS_SPEC = rodr_spec(
    "BACKTRANS", "round trip through a pivot language, unchecked", version=2,  # 2: batch-independent translation
    transformation="one round trip English -> pivot -> English (backtrans.generator.round_trip, the validated "
                   "BACKTRANS' Marian path), apertium's marks removed (backtrans.generator.strip_marks)",
    picker="deterministic (the translator's output)",
    source="eng", whitespace="collapsed", case="as translated")


class PaperBackTranslate(RoundTrip):
    name = "BACKTRANS"
    spec = BACKTRANS_SPEC
