"""``--protocol rodr``'s TRANSTENSE and BACKTRANS (the synonym swaps: :mod:`perturb.rodr.paper_swap`; MISSPELL,
EXTRAPUNC, NOSTOPWORD, SWAPWORDS: :mod:`perturb.rodr.edits`): each a :class:`perturb.spec.Spec` of protocol ``rodr``
naming a transformation (the validated generators' own where the operation is shared; a change to it changes both
protocols and bumps both specs' versions) with TextFlint's constraints and picker. What each does and where it departs
from the paper: docs/methods.md, "The paper protocol"."""
from __future__ import annotations

from perturb.generators.backtrans.generator import RoundTrip
from perturb.generators.tense import WordTenseSwap
from perturb.rodr.protocol import STOPWORD_SKIP, rodr_spec


# --------------------------------------------------------------------------- TRANSTENSE, BACKTRANS
TRANSTENSE_SPEC = rodr_spec(
    "TRANSTENSE", "TextFlint-style tense swap of one random verb",
    version=3,  # 3: TextFlint's stop list, lower-case verbs only
    transformation="one verb (any VB* tag, POS VERB or AUX) inflected past <-> present by lemminflect's "
                   "getInflection of its lemma, the verb alone",
    picker="verbs in a seeded order (query rng); the first whose form changes",
    verbs=["VB", "VBD", "VBG", "VBN", "VBP", "VBZ"], flip="VBD/VBN -> VBZ; VB/VBG/VBP/VBZ -> VBD", agreement="none",
    constraints=(STOPWORD_SKIP,),
    targets="a verb written in lower case that is not on TextFlint's stop list (is/are/am/has/have skipped; "
            "do/does/did/was/were/be are targets)")


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
