"""TRANSTENSE: the tense of one random finite verb flipped (past <-> present), subject agreement kept.

spaCy (en_core_web_sm) finds the finite verbs (tags VBD, VBZ, VBP, auxiliaries included: "how
*do* the romans build ..."), one is drawn uniformly, and lemminflect inflects its lemma:

* present (VBZ/VBP) -> past (VBD): "is"/"am" -> "was", "are" -> "were", "does" -> "did";
* past (VBD) -> present: the subject's number decides VBZ vs VBP. The subject is the verb's
  ``nsubj``/``nsubjpass``/``expl`` child, or its head's when the verb is an auxiliary; plural
  when tagged NNS/NNPS, coordinated ("A and B"), or a plural/second-person pronoun; "I" takes
  "am"/VBP; no subject found -> third person singular. "was"/"were" -> "is"/"are"/"am" by the subject (by the past form itself when no subject is found).

Modals (MD: can/could, will/would) and non-finite forms are not changed; contracted forms
("'s", "'re") are skipped. Not applicable when the query has no finite verb.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from perturb import _spacy
from perturb._text import match_case
from perturb.base import Generator, Perturbation, Resource

FINITE = ("VBD", "VBZ", "VBP")
PLURAL_PRONOUNS = {"we", "they", "you", "these", "those", "us", "them", "ye", "both", "many", "few", "several"}
SUBJECT_DEPS = ("nsubj", "nsubjpass", "expl", "csubj")


def _lemminflect():
    import lemminflect

    return lemminflect


def subject_of(tok):
    for child in tok.children:
        if child.dep_ in SUBJECT_DEPS:
            return child
    if tok.dep_ in ("aux", "auxpass") and tok.head is not tok:
        for child in tok.head.children:
            if child.dep_ in SUBJECT_DEPS:
                return child
    return None


def subject_person(subj) -> str:
    """'1sg' for I, 'pl' for plural (or you), else '3sg'."""
    if subj is None:
        return "3sg"
    low = subj.text.lower()
    if low == "i":
        return "1sg"
    if low in PLURAL_PRONOUNS or subj.tag_ in ("NNS", "NNPS"):
        return "pl"
    if any(c.dep_ == "conj" for c in subj.children) and any(c.dep_ == "cc" and c.lower_ == "and" for c in subj.children):
        return "pl"
    return "3sg"


def _lemma(tok) -> str:
    lemma = tok.lemma_.lower() if tok.lemma_ else ""
    if not lemma or not lemma.isalpha():
        lem = _lemminflect().getLemma(tok.text.lower(), upos="VERB")
        lemma = lem[0] if lem else tok.text.lower()
    return lemma


def flip(tok) -> Optional[Tuple[str, str]]:
    """(new form, description) for a finite verb token, or None when it cannot be flipped."""
    word = tok.text
    low = word.lower()
    lemma = _lemma(tok)
    if tok.tag_ in ("VBZ", "VBP"):
        if lemma == "be":
            new = {"is": "was", "am": "was", "are": "were"}.get(low)
        else:
            forms = _lemminflect().getInflection(lemma, tag="VBD")
            new = forms[0] if forms else None
        how = "present->past"
    else:  # VBD
        subj = subject_of(tok)
        person = subject_person(subj)
        if lemma == "be":
            if low not in ("was", "were"):
                new = None
            elif subj is None:  # the past form itself agreed with the subject
                new = "is" if low == "was" else "are"
            else:
                new = {"1sg": "am", "pl": "are", "3sg": "is"}[person]
        else:
            tag = "VBZ" if person == "3sg" else "VBP"
            forms = _lemminflect().getInflection(lemma, tag=tag)
            new = forms[0] if forms else None
        how = f"past->present ({person})"
    if not new or new.lower() == low:
        return None
    return match_case(word, new), how


class TransTense(_spacy.SpacyGenerator, Generator):
    name = "TRANSTENSE"

    def config(self) -> dict:
        return {"pos_model": _spacy.model_name() or "missing", "inflector": "lemminflect",
                "verbs": list(FINITE), "modals": "unchanged"}

    def resources(self) -> List[Resource]:
        return [*_spacy.resources(), _spacy.lemminflect_resource()]

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        cands = []
        for tok in doc:
            if tok.tag_ in FINITE and tok.pos_ in ("VERB", "AUX") and tok.text.isalpha():
                done = flip(tok)
                if done is not None:
                    cands.append((tok, done))
        if not cands:
            return Perturbation(text, False, "")
        tok, (new, how) = cands[int(rng.integers(len(cands)))]
        out = text[: tok.idx] + new + text[tok.idx + len(tok.text):]
        return Perturbation(out, True, f"{how} {tok.text!r}->{new!r}")
