"""TRANSTENSE: the tense of one random finite verb flipped (past <-> present), subject agreement kept.

spaCy (en_core_web_sm) finds the finite verbs (tags VBD, VBZ, VBP, auxiliaries included: "how
*do* the romans build ..."), one is drawn uniformly, and lemminflect inflects its lemma:

* present (VBZ/VBP) -> past (VBD): "is"/"am" -> "was", "are" -> "were", "does" -> "did";
* past (VBD) -> present: the subject's number decides VBZ vs VBP. The subject is the verb's
  ``nsubj``/``nsubjpass``/``expl`` child, or its head's when the verb is an auxiliary; plural
  when tagged NNS/NNPS, coordinated ("A and B"), or a plural/second-person pronoun; "I" takes
  "am"/VBP; no subject found -> third person singular. "was"/"were" -> "is"/"are"/"am" by the subject (by the past form itself when no subject is found).

Modals: "will + VB" -> the verb in the present, agreeing with the subject ("what will happen"
-> "what happens"); "can" <-> "could" ("can a criterion be developed" -> "could a criterion be
developed"). VB, VBG and VBN forms change through their auxiliary ("has been solved" -> "had been
solved", "how do they build" -> "how did they build", "is flowing" -> "was flowing"): changing
them alone, as TextFlint's Tense does, makes the query ungrammatical (its own docstring warns of
it), so they are not changed on their own. Contracted forms ("'s", "'re") are skipped.

Evidence (:func:`finite_evidence`, version 2): a form after a fronted auxiliary is a participle or
an infinitive ("why are dead cockroaches always *found*", "why do teens *find*"); a plural noun or
participle reading in a title-like clause of its own ("COSMIC RAY *RESULTS* THAT WE OBTAINED");
"would" before like/love/prefer/rather/mind/care is a request, not a tense ("I would like").

Constraints (ours): the word must be a verb form in lemminflect's dictionary (the lemma's
inflection table lists it under the token's tag: a noun tagged VBZ such as "diabetes" is
refused), the new form comes from that dictionary (never from lemminflect's out-of-vocabulary
rules: no "diabeted", "reflectioned"), and it must be a known English word (wordfreq Zipf > 0).
ALL-CAPS and Title Case queries are tagged on a lower-cased copy and the case pattern of the word
is restored ("SAMPLED" -> "SAMPLES", not "SAMPLEDED"). Not applicable when nothing can change.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import FINITE_TAGS, WH_WORDS, match_case, wordfreq_resource
from perturb.base import Generator, Perturbation, Resource
from perturb.engine import Candidate, SpecGenerator, judge
from perturb.spec import Edit, Spec, Threshold, Tuning, threshold_constraint
from perturb.generators.verb_forms import (DICTIONARY_NEW_FORM, DICTIONARY_VERB_FORM, NEGATED_FUTURE,
                                           dictionary_forms, verb_lemma)

FINITE = ("VBD", "VBZ", "VBP")
PLURAL_PRONOUNS = {"we", "they", "you", "these", "those", "us", "them", "ye", "both", "many", "few", "several"}
SUBJECT_DEPS = ("nsubj", "nsubjpass", "expl", "csubj")


def tense_resources() -> List[Resource]:
    """What both tense swaps read: spaCy's model, lemminflect, wordfreq."""
    return [*parsing.resources(), parsing.lemminflect_resource(), wordfreq_resource()]


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


def flip_forms(tok, word: str, lemma: str) -> List[Tuple[Optional[str], str, str]]:
    """The flips of the finite verb ``tok`` (``word``: its text in the query, ``lemma``: its
    dictionary lemma), in the dictionary's order: (the dictionary form :data:`DICTIONARY_NEW_FORM`
    judges, None for a form of "be", which a table gives; the new form; the description)."""
    low = word.lower()
    if tok.tag_ in ("VBZ", "VBP"):
        if lemma == "be":
            new = {"is": "was", "am": "was", "are": "were"}.get(low)
            return [(None, new, "present->past")] if new else []
        return [(f, f, "present->past") for f in dictionary_forms(lemma, "VBD")]
    subj = subject_of(tok)  # VBD
    person = subject_person(subj)
    how = f"past->present ({person})"
    if lemma != "be":
        return [(f, f, how) for f in dictionary_forms(lemma, "VBZ" if person == "3sg" else "VBP")]
    if low not in ("was", "were"):
        return []
    if subj is None:  # the past form itself agreed with the subject
        return [(None, "is" if low == "was" else "are", how)]
    return [(None, {"1sg": "am", "pl": "are", "3sg": "is"}[person], how)]


MODAL_SWAP = {"can": "could", "could": "can", "would": "will"}


def modal_swap(tok, text: str) -> Optional[Tuple[int, int, str, str]]:
    """(start, end, replacement, description) for "can" <-> "could" and "would" -> "will", or None."""
    word = parsing.original(tok, text)
    low = word.lower()
    if low not in MODAL_SWAP:
        return None
    return tok.idx, tok.idx + len(word), match_case(word, MODAL_SWAP[low]), f"modal {low}->{MODAL_SWAP[low]}"


def future_verb(tok, text: str):
    """The verb of the ``will`` + VB future whose auxiliary is ``tok``, or None."""
    if parsing.original(tok, text).lower() != "will" or tok.dep_ != "aux" or tok.head.tag_ != "VB" or \
            tok.head.i <= tok.i:
        return None
    return tok.head


def future_forms(tok, text: str, lemma: str) -> List[Tuple[Optional[str], Tuple[int, int, str, str]]]:
    """The present of the ``will`` + VB future whose auxiliary is ``tok`` (``lemma``: the verb's
    dictionary lemma), one per dictionary form: (the form :data:`DICTIONARY_NEW_FORM` judges, None
    for "be"; (start, end, replacement, description)). "will the wing stall" -> "does the wing
    stall"; "X will fail" -> "X fails" ("will" and the space after it dropped)."""
    word, verb = parsing.original(tok, text), tok.head
    vword = parsing.original(verb, text)
    subj = subject_of(verb)
    person = subject_person(subj)
    if lemma == "be":
        forms = [(None, {"1sg": "am", "pl": "are", "3sg": "is"}[person])]
    else:
        forms = [(f, f) for f in dictionary_forms(lemma, "VBZ" if person == "3sg" else "VBP")]
    between = text[tok.idx + len(word): verb.idx]
    inverted = subj is not None and tok.i < subj.i < verb.i
    if not inverted and between.strip():
        return []
    out = []
    for judged, new in forms:
        if inverted:
            new = new if lemma == "be" else "does" if person == "3sg" else "do"
            edit = tok.idx, tok.idx + len(word), match_case(word, new), f"future->present ({person}) {word!r}->{new!r}"
        else:
            edit = (tok.idx, verb.idx + len(vword), match_case(vword, new),
                    f"future->present ({person}) {word + between + vword!r}->{new!r}")
        out.append((judged, edit))
    return out


def _is_question(doc) -> bool:
    words = [t for t in doc if not t.is_punct]
    return bool(words) and (words[0].lower_ in WH_WORDS or words[0].pos_ == "AUX" or doc.text.rstrip().endswith("?"))


def _keyword_style(doc) -> bool:
    """No determiner, pronoun or auxiliary anywhere: a keyword title, where a "verb" is usually a
    participle or a noun ("Government supported agencies", "COSMIC RAY RESULTS")."""
    return not any(t.pos_ in ("DET", "PRON", "AUX") for t in doc)


def _ambiguous_form(tok, low: str) -> bool:
    """A past form that is also the participle ("supported"), or a present form that is also a
    plural noun ("results", "flows")."""
    lm = _lemminflect()
    if tok.tag_ == "VBD":
        lemma = verb_lemma(low, "VBD")
        forms = lm.getAllInflections(lemma, upos="VERB") if lemma else {}
        return bool(lemma) and low in forms.get("VBN", forms.get("VBD", ()))  # regular verbs list no VBN
    return "NOUN" in lm.getAllLemmas(low)


def _title_like(tokens) -> bool:
    """No auxiliary, pronoun, wh-word, question mark or subordinator ("if", "because": a finite
    clause) among ``tokens``: a title or keyword query, even with determiners ("SOME ASPECTS OF
    NONEQUILIBRIUM FLOWS", "THE ... OF SOME JETS")."""
    return not any(t.pos_ in ("PRON", "AUX") or t.lower_ in WH_WORDS or t.text == "?" or t.dep_ == "mark"
                   for t in tokens)


# the dependents that may open a clause of their own
CLAUSE_DEPS = frozenset({"relcl", "ccomp", "advcl", "acl", "conj", "parataxis", "csubj", "xcomp", "pcomp"})


def _finite_clause(tok) -> bool:
    """``tok`` heads a finite clause: it is a finite verb or auxiliary, or a finite auxiliary depends on it."""
    return tok.tag_ in FINITE_TAGS or any(c.dep_ in ("aux", "auxpass") and c.tag_ in FINITE_TAGS for c in tok.children)


PREDICATE_DEPS = frozenset({"ROOT", "ccomp", "conj", "advcl", "relcl", "parataxis", "xcomp", "csubj", "acl"})


def own_clause(tok) -> List:
    """The tokens of ``tok``'s own clause: its subtree without the finite clauses it governs
    (relative, complement, adverbial, coordinated clauses with a tense of their own). In "COSMIC
    RAY RESULTS THAT WE OBTAINED" the clause of "RESULTS" is "COSMIC RAY RESULTS THAT": a title,
    whatever the relative clause holds; "makes | me unhappy" keeps its small clause (a pronoun
    object: a verb). A token the parse attaches as a noun's dependent ("Saudi Arabia *imports*
    camels", a compound) heads no clause: the whole query is its context."""
    if tok.dep_ not in PREDICATE_DEPS:
        return list(tok.doc)
    out, todo = [], [tok]
    while todo:
        t = todo.pop()
        out.append(t)
        todo.extend(c for c in t.children if not (c.dep_ in CLAUSE_DEPS and _finite_clause(c)))
    return sorted(out, key=lambda t: t.i)


CLAUSE_MARKS = frozenset(",;:.?!()[]")
# a non-finite verb in one of these roles sits inside a noun phrase ("why was | wearing the colour
# green | considered"); in any other it heads a clause of its own
NOMINAL_DEPS = frozenset({"csubj", "csubjpass", "nsubj", "nsubjpass", "acl", "amod", "compound", "pobj", "dobj",
                          "npadvmod"})


def fronted_auxiliary(tok):
    """The finite auxiliary (do, be, have or a modal) that already carries the tense of ``tok``'s
    clause, or None: an ``aux``/``auxpass`` dependent before it ("how is light energy *turned*"),
    or, the parse aside, a finite auxiliary to its left with no clause boundary between (a
    wh-word, a subordinator, clause punctuation, a conjunction of predicates, a verb heading a
    clause of its own) and no finite verb of its own ("when *was* the salvation army *founded*",
    "why *do* teens today *find* it amusing", "how many sides *does* the home plate in baseball
    *have*"). A verb form after it is a participle or an infinitive, whatever its tag: never finite.
    Inverted, the auxiliary comes right before the verb's subject; one further away ("what is the
    correct form | i wear") is another clause's."""
    for c in tok.children:
        if c.dep_ in ("aux", "auxpass") and c.i < tok.i and c.tag_ in FINITE_TAGS:
            return c
    subj = subject_of(tok)
    k = tok.i - 1
    while k >= 0:
        t = tok.doc[k]
        if t.text in CLAUSE_MARKS or t.lower_ in WH_WORDS or t.tag_ in ("WDT", "WP", "WP$", "WRB") or \
                t.pos_ == "SCONJ" or (t.pos_ == "CCONJ" and t.head.pos_ in ("VERB", "AUX")):
            return None
        if t.pos_ == "AUX" and t.tag_ in FINITE_TAGS:
            return t if subj is None or _right_after(subj.left_edge, t) else None  # "what is the form | i wear"
        if t.pos_ == "VERB":
            if t.tag_ in FINITE:
                return fronted_auxiliary(t)  # a finite verb of its own, unless an auxiliary governs it too
            if t.dep_ not in NOMINAL_DEPS:
                return None  # an infinitive or participle heading a clause ("do we say | god bless you")
        k -= 1
    return None


def _right_after(first, aux) -> bool:
    """``first`` follows ``aux`` with nothing but spaces and punctuation between."""
    return first.i > aux.i and all(t.is_space or t.is_punct for t in first.doc[aux.i + 1: first.i])


# "would like" is a request ("I would like a coffee", "would you like to ..."), not the past of
# "will like": the modal before these words is not a tense
REQUEST_VERBS = frozenset({"like", "love", "prefer", "rather", "mind", "care"})


def modal_evidence(tok) -> Tuple[float, str]:
    """How sure the parse is that the modal ``tok`` carries a tense (score, reason): "would"
    before like/love/prefer/rather/mind/care is the fixed request form (0.1), every other modal 1.0."""
    if tok.lower_ == "would":
        verb = tok.head if tok.dep_ in ("aux", "auxpass") and tok.head.i > tok.i else None
        nxt = next((t for t in tok.doc[tok.i + 1:] if t.pos_ not in ("PRON", "ADV", "PART") or t.lower_ == "rather"),
                   None)
        if any(v is not None and v.lower_ in REQUEST_VERBS for v in (verb, nxt)):
            return 0.1, "would + like: a request form, not a tense"
    return 1.0, "modal"


def finite_evidence(tok, low: str) -> Tuple[float, str]:
    """How sure the parse is that ``tok`` is a finite verb (score, reason), higher = surer.

    A form after a fronted auxiliary (:func:`fronted_auxiliary`) is a participle or an infinitive
    (0.1). A form that is also a plural noun or a participle ("FLOWS", "RESULTS", "SUPPORTED") in a
    title-like clause (:func:`_title_like` on :func:`own_clause`) counts as a keyword-query form
    whatever its subject looks like: titles name things, they rarely assert."""
    if tok.tag_ == "MD":
        return modal_evidence(tok)
    aux = fronted_auxiliary(tok)
    if aux is not None:
        return 0.1, f"after the auxiliary {aux.lower_!r}: a participle or infinitive"
    if tok.pos_ == "AUX":
        return 1.0, "auxiliary"
    subj = subject_of(tok)
    doc = tok.doc
    if _title_like(own_clause(tok)) and _ambiguous_form(tok, low):
        return 0.1, "title-like clause, participle/noun form"
    if subj is not None and (subj.pos_ == "PRON" or any(c.pos_ == "DET" for c in subj.children) or _is_question(doc)):
        return 0.8, "verb with a pronoun/determined subject or in a question"
    ambiguous = _ambiguous_form(tok, low)
    if subj is not None and not _keyword_style(doc):
        return (0.6, "verb with a subject") if not ambiguous else (0.4, "participle/noun form with a subject")
    if subj is not None:
        return (0.3, "keyword query, verb with a subject") if not ambiguous else (
            0.2, "keyword query, participle/noun form with a subject")
    return (0.3, "verb without subject") if not ambiguous else (0.1, "participle/noun form without subject")


CONTRACTED_BE = {"'s": ("VBZ", " was"), "'re": ("VBP", " were"), "'m": ("VBP", " was")}


FINITE_VERB = threshold_constraint(
    "finite-verb evidence", 0.3, key="min_score",
    description="the edited word is a finite verb, auxiliary or modal (not a participle or a noun)",
    evidence="hand-set evidence levels (finite_evidence)",
    tuning=Tuning("benchmarks/data/validity/TRANSTENSE.tsv", "choose", {"min_validity": 0.9}))

SPEC = Spec(
    name="TRANSTENSE", version=2, protocol="validated",
    transformation="a finite verb, auxiliary or modal flipped present <-> past (will + VB -> present)",
    constraints=(DICTIONARY_VERB_FORM, DICTIONARY_NEW_FORM, NEGATED_FUTURE, FINITE_VERB),
    facts={"inflector": "lemminflect (dictionary forms only)",
           "verbs": list(FINITE), "modals": "can<->could, will<->would; will+VB -> present",
           "contracted_be": "'s->was, 're->were, 'm->was", "real_word": "wordfreq zipf > 0",
           "case": "ALL-CAPS/Title Case tagged lower-cased, case restored",
           "evidence": "auxiliary or modal 1.0, pronoun/determined subject or question 0.8, "
           "subject 0.6, ambiguous form with subject 0.4, keyword query 0.3/0.2, no subject 0.3/0.1; "
           "ambiguous form in a title-like clause (no aux/pronoun/wh-word/?/subordinator in the verb's "
           "own clause) 0.1; a form after a fronted auxiliary (participle or infinitive) 0.1; "
           "would + like/love/prefer/rather/mind/care (a request) 0.1"})


class TransTense(parsing.SpacyGenerator, Generator):
    """Generate, then verify: every finite verb, auxiliary and modal gives a candidate edit,
    scored on the evidence that the word really is finite (:func:`finite_evidence`: auxiliaries
    1.0; main verbs with a pronoun or determined subject 0.8; down to 0.1 for a participle-like
    form in a keyword title); candidates passing :data:`FINITE_VERB` (``min_score``) are kept and
    one is picked with the query's rng."""

    name = "TRANSTENSE"
    spec = SPEC

    def __init__(self, min_score: Optional[float] = None):
        self.finite_verb = FINITE_VERB.with_values(threshold=min_score)

    @property
    def min_score(self) -> float:
        return self.finite_verb.threshold

    def config(self) -> dict:
        return self.spec.config([self.finite_verb], pos_model=parsing.model_name() or "missing")

    def resources(self) -> List[Resource]:
        return tense_resources()

    @property
    def constraints(self) -> tuple:
        """The spec's constraints, the finite-verb threshold as this instance sets it."""
        return tuple(self.finite_verb if c.name == self.finite_verb.name else c for c in self.spec.constraints)

    def targets(self, doc, text: str) -> List[Candidate]:
        """The verb forms the transformation would re-inflect, before any edit (what the spec's
        target constraints judge): each finite verb (``word``, ``tag``) and the verb of each ``will`` +
        VB future (tag VB; ``verb``: its token), grouped by the index of the token that changes."""
        out = []
        for tok in doc:
            word = parsing.original(tok, text)
            if not word.isalpha():
                continue
            verb = future_verb(tok, text) if tok.tag_ == "MD" else None
            if verb is not None:
                out.append(Candidate(Edit(()), {"word": parsing.original(verb, text), "tag": "VB", "verb": verb,
                                                "group": tok.i}))
            elif tok.tag_ in FINITE and tok.pos_ in ("VERB", "AUX"):
                out.append(Candidate(Edit(()), {"word": word, "tag": tok.tag_, "group": tok.i}))
        return out

    def proposals(self, doc, text: str, verbs) -> List[Candidate]:
        """Every candidate edit, in token order: a contracted "be" to its past, a modal swap, and one
        per dictionary form of each verb of ``verbs`` (the targets that passed, by token index: a
        finite verb's flip, a future's present), each scored on the evidence that the word is finite
        (:func:`finite_evidence`); ``unchanged``: a flip that gives the word back."""
        out = []
        for tok in doc:
            word = parsing.original(tok, text)
            low = word.lower()
            if low in CONTRACTED_BE and tok.lemma_ == "be" and tok.tag_ == CONTRACTED_BE[low][0] and tok.i > 0:
                new = match_case(word[1:], CONTRACTED_BE[low][1].strip())
                out.append(Candidate(Edit.replace(tok.idx, tok.idx + len(word), " " + new, score=1.0,
                                                  detail=f"present->past {word!r}->{new!r}"), {"group": tok.i}))
                continue
            if not word.isalpha() or (tok.i not in verbs and (tok.tag_ != "MD" or modal_swap(tok, text) is None)):
                continue
            score, why = finite_evidence(tok, low)
            if tok.tag_ == "MD":
                swap = modal_swap(tok, text)
                forms = [(None, swap)] if swap is not None else \
                    future_forms(tok, text, verb_lemma(verbs[tok.i].context["word"].lower(), "VB"))
                for form, (start, end, new, desc) in forms:
                    out.append(Candidate(Edit.replace(start, end, new, score=score,
                                                      detail=desc if score == 1.0 else f"{desc} ({why})"),
                                         {"group": tok.i, "form": form}))
                continue
            for form, new, how in flip_forms(tok, word, verb_lemma(low, tok.tag_)):
                new = match_case(word, new)
                out.append(Candidate(Edit.replace(tok.idx, tok.idx + len(word), new, score=score,
                                                  detail=f"{how} {word!r}->{new!r} ({why})"),
                                     {"group": tok.i, "form": form, "unchanged": new.lower() == low}))
        return out

    def judged(self, doc, text: str) -> List[Tuple[Edit, bool]]:
        """The spec's constraints in order (:func:`perturb.engine.judge`) on the targets, then on the
        proposals: per token its first form no veto refuses (the dictionary's first known word), with
        whether it also reaches the threshold; a flip that gives the word back is left out."""
        verbs = {c.group: c for c in judge(self.constraints, self.targets(doc, text), "target").passed}
        cands = self.proposals(doc, text, verbs)
        outcome = judge(self.constraints, cands)
        thresholds = {c.name for c in self.constraints if isinstance(c, Threshold)}
        kept = {id(c): True for c in outcome.passed}
        kept.update({id(r.candidate): False for r in outcome.refused if r.constraint in thresholds})
        first: dict = {}
        for c in cands:
            if id(c) in kept:
                first.setdefault(c.group, c)
        return [(c.edit, kept[id(c)]) for c in first.values() if not c.context.get("unchanged")]

    def scored(self, doc, text: str) -> List[Edit]:
        """Every candidate edit the vetoes pass (:class:`perturb.spec.Edit`: one span replaced,
        ``detail`` its description, ``score`` its finite-verb evidence), threshold not asked."""
        return [e for e, _ in self.judged(doc, text)]

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        cands = [e for e, passed in self.judged(doc, text) if passed]
        if not cands:
            return Perturbation(text, False, "")
        pick = cands[int(rng.integers(len(cands)))]  # the spec's picker: uniform among the passing
        return Perturbation(pick.apply(text), True, pick.detail)


class WordTenseSwap(parsing.SpacyGenerator, SpecGenerator):
    """A word-level tense swap (TextFlint's ``Tense``): one verb (a spaCy tag the spec's ``verbs`` list,
    POS VERB or AUX) written in lower case flipped alone, past forms (VBD, VBN) to the present
    (VBZ), the others to the past (VBD), by lemminflect's ``getInflection`` of its spaCy lemma (OOV
    rules allowed); no agreement, no auxiliary. The verbs the spec's target constraints pass are
    tried in a seeded order (query rng), the first whose form changes is taken. A subclass names its
    spec (:class:`perturb.rodr.paper.PaperTransTense`)."""

    def config(self) -> dict:
        from importlib import metadata

        try:
            lem = metadata.version("lemminflect")
        except metadata.PackageNotFoundError:
            lem = "missing"
        return self.spec.config(pos_model=parsing.model_name() or "missing",
                                inflector=f"lemminflect=={lem} getInflection (OOV rules allowed)")

    def resources(self) -> List[Resource]:
        return tense_resources()

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        lm, tags = _lemminflect(), frozenset(self.spec.facts["verbs"])
        verbs = [t for t in doc if t.tag_ in tags and t.pos_ in ("VERB", "AUX") and t.text.isalpha()
                 and parsing.original(t, text).islower()]  # TextFlint's verb table: lower-case entries
        proposed = [Candidate(Edit(()), {"word": parsing.original(t, text), "lemma": t.lemma_.lower(), "group": t})
                    for t in verbs]  # the lemma: for a spec's lemma constraint (the paper's verb table proxy)
        judged = judge(self.constraints, proposed, "target")
        verbs = [c.group for c in judged.passed]
        for k in rng.permutation(len(verbs)).tolist():
            tok = verbs[k]
            word = parsing.original(tok, text)
            target = "VBZ" if tok.tag_ in ("VBD", "VBN") else "VBD"
            forms = lm.getInflection(tok.lemma_.lower() or word.lower(), tag=target)
            if not forms or forms[0].lower() == word.lower():
                continue
            new = match_case(word, forms[0])
            how = "past->present" if target == "VBZ" else "present->past"
            return Perturbation(text[:tok.idx] + new + text[tok.idx + len(word):], True,
                                f"{how}: {tok.tag_} {word!r}->{new!r}", judged.why())
        return Perturbation(text, False, "", judged.why())
