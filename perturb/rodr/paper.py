"""``--protocol rodr``'s TRANSTENSE and BACKTRANS (the synonym swaps: :mod:`perturb.rodr.paper_swap`;
MISSPELL, EXTRAPUNC, NOSTOPWORD, SWAPWORDS: :mod:`perturb.rodr.edits`), registered in
``perturb.PAPER_GENERATORS`` under the validated sets' names so tables line up.

Each generator carries a :class:`perturb.spec.Spec` (protocol ``rodr``): a transformation, the
paper's constraints (:data:`perturb.rodr.protocol.STOPWORD_SKIP`, ...) and a seeded picker. Where
the paper's operation is one a validated generator also has, both run the one implementation, so a
change to it changes both protocols' output and bumps both specs' ``version``; each class's
docstring says what the paper does differently. Every ``config()`` records ``"protocol": "rodr"``,
so a rodr set never has a validated set's fingerprint. What each set runs, and where it departs
from the paper: docs/methods.md ("The paper protocol").
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import collapse_spaces, match_case
from perturb.base import Generator, Perturbation, Resource, settle
from perturb.engine import Candidate, judge
from perturb.spec import Edit
from perturb.generators.backtrans.generator import round_trip, strip_marks
from perturb.rodr.protocol import STOPWORD_SKIP, rodr_spec


# --------------------------------------------------------------------------- TRANSTENSE
VERB_TAGS = ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")

TRANSTENSE_SPEC = rodr_spec(
    "TRANSTENSE", "TextFlint-style tense swap of one random verb",
    version=3,  # 3: TextFlint's stop list, lower-case verbs only
    transformation="one verb (any VB* tag, POS VERB or AUX) inflected past <-> present by lemminflect's "
                   "getInflection of its lemma, the verb alone",
    picker="verbs in a seeded order (query rng); the first whose form changes",
    verbs=list(VERB_TAGS), flip="VBD/VBN -> VBZ; VB/VBG/VBP/VBZ -> VBD", agreement="none",
    constraints=(STOPWORD_SKIP,),
    targets="a verb written in lower case that is not on TextFlint's stop list (is/are/am/has/have skipped; "
            "do/does/did/was/were/be are targets)")


class PaperTransTense(parsing.SpacyGenerator, Generator):
    """One random verb (spaCy tag VB*, POS VERB or AUX) flipped: past forms (VBD, VBN) to the
    present (VBZ), the others (VB, VBG, VBP, VBZ) to the past (VBD), by lemminflect's
    ``getInflection`` of the spaCy lemma (out-of-vocabulary rules allowed). No agreement, no
    auxiliary: the verb alone changes, as a word-level tense swap does. As TextFlint's ``Tense``
    (a ``WordSubstitute`` looking the exact token up in a lower-case verb table), a target is a
    verb written in lower case that is not on TextFlint's stop list (:data:`STOPWORD_SKIP`):
    ``is``, ``are``, ``am``, ``has``, ``have`` are never changed, ``do``, ``does``, ``did``,
    ``was``, ``were``, ``be`` are. Verbs whose flipped form is
    the same word are skipped (the next verb in a seeded order is tried).

    Its own code, not the validated TRANSTENSE's (:mod:`perturb.generators.tense`) without its
    constraints: that one is another transformation (finite verbs only, VB/VBG/VBN changed through
    their auxiliary, the subject's number deciding VBZ/VBP, modals, dictionary forms only), so
    there is no common operation to call; both use spaCy through :mod:`perturb.resources.parsing`
    and :func:`~perturb.resources.words.match_case`."""

    name = "TRANSTENSE"
    spec = TRANSTENSE_SPEC

    def config(self) -> dict:
        from importlib import metadata

        try:
            lem = metadata.version("lemminflect")
        except metadata.PackageNotFoundError:
            lem = "missing"
        return self.spec.config(pos_model=parsing.model_name() or "missing",
                                inflector=f"lemminflect=={lem} getInflection (OOV rules allowed)")

    def resources(self) -> List[Resource]:
        return [*parsing.resources(), parsing.lemminflect_resource()]

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        import lemminflect

        verbs = [t for t in doc if t.tag_ in VERB_TAGS and t.pos_ in ("VERB", "AUX") and t.text.isalpha()
                 and parsing.original(t, text).islower()]  # TextFlint's verb table: lower-case entries
        proposed = [Candidate(Edit(()), {"word": parsing.original(t, text), "group": t}) for t in verbs]
        verbs = [c.group for c in judge(self.spec.constraints, proposed, "target").passed]
        for k in rng.permutation(len(verbs)).tolist():
            tok = verbs[k]
            word = parsing.original(tok, text)
            target = "VBZ" if tok.tag_ in ("VBD", "VBN") else "VBD"
            forms = lemminflect.getInflection(tok.lemma_.lower() or word.lower(), tag=target)
            if not forms or forms[0].lower() == word.lower():
                continue
            new = match_case(word, forms[0])
            how = "past->present" if target == "VBZ" else "present->past"
            return Perturbation(text[:tok.idx] + new + text[tok.idx + len(word):], True,
                                f"{how}: {tok.tag_} {word!r}->{new!r}")
        return Perturbation(text, False, "")


# --------------------------------------------------------------------------- BACKTRANS
BACKTRANS_SPEC = rodr_spec(
    "BACKTRANS", "round trip through a pivot language, unchecked", version=2,  # 2: batch-independent translation
    transformation="one round trip English -> pivot -> English (backtrans.generator.round_trip, the validated "
                   "BACKTRANS' Marian path), apertium's marks removed (backtrans.generator.strip_marks)",
    picker="deterministic (the translator's output)",
    source="eng", whitespace="collapsed", case="as translated")


class PaperBackTranslate(Generator):
    """English -> pivot -> English, unchecked: whatever the translator returns (apertium's
    ``*``/``@``/``#`` unknown-word marks removed, whitespace collapsed). ``backend``: "marian"
    (German, the paper's pivot), "apertium" (Spanish) or None (Marian when its weights are on
    disk, else Apertium). A query apertium cannot translate as it would alone (its tagger state
    depends on the batch: :class:`perturb.resources.translators.ApertiumTranslator`) is left unchanged.

    The round trip and the mark stripping are the validated BACKTRANS' own
    (:func:`perturb.generators.backtrans.generator.round_trip`, ``strip_marks``); its constraints
    (pivot leaks, content words, structure, form) and its case restoration are left out."""

    name = "BACKTRANS"
    spec = BACKTRANS_SPEC
    max_query_chars = 1000
    max_query_reason = "a round trip translates the whole query: a 100,000-character query takes about a minute"

    def __init__(self, backend: Optional[str] = None):
        from perturb.resources.translators import ApertiumTranslator, MarianTranslator

        if backend not in (None, "marian", "apertium"):
            raise ValueError(f"unknown back-translation backend {backend!r}; choose marian or apertium")
        marian = MarianTranslator() if backend in (None, "marian") else None
        if backend == "apertium" or (backend is None and not marian.available()):
            self.translator = ApertiumTranslator()
        else:
            self.translator = marian

    @property
    def label(self) -> str:
        return f"{self.name}[{self.translator.pivot},{self.translator.backend}]"

    def config(self) -> dict:
        runtime = self.translator.config()
        if self.translator.marks:  # the translator keeps them; this generator removes them
            runtime["unknown_marks"] = "removed from the output (nothing is refused)"
        return self.spec.config(**runtime)

    def resources(self) -> List[Resource]:
        return self.translator.resources()

    def round_trip(self, texts: Sequence[str]) -> List[Tuple[str, Optional[str]]]:
        """(pivot text, back-translation or None when it could not be made alone) per text."""
        marks = self.translator.marks
        return [(mid, None if back is None else collapse_spaces(strip_marks(back) if marks else back))
                for mid, back in round_trip(self.translator, texts)]

    def _result(self, text: str, mid: str, back: Optional[str]) -> Perturbation:
        if back is None or not back.strip():
            return Perturbation(text, False, "")
        return Perturbation(back, True, f"via {self.translator.pivot} ({self.translator.backend}): {mid!r}")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        (mid, back), = self.round_trip([text])
        return self._result(text, mid, back)

    def perturb_batch(self, items, seed):
        texts = [t for _, t in items]
        return [settle(t, self._result(t, m, b)) for t, (m, b) in zip(texts, self.round_trip(texts))]
