"""SWAPSYN-GLOVE and SWAPSYN-WNET: one content word of the query replaced by the substitute the
fitted chooser (:mod:`perturb.generators.swapsyn.chooser`) scores best, if it reaches the set's
threshold; otherwise the query is left unchanged.

The two sets differ only in where their candidates come from (the paper's definitions): GloVe
neighbours (SWAPSYN-GLOVE) or WordNet synonyms (SWAPSYN-WNET). The substitute takes the target's
inflection (lemminflect) and case; an ``a``/``an`` before it follows the new word. A set-level cap
(:meth:`ChosenSwap.cap_set`) keeps any word to at most ``max_word_share`` of a set's swaps.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from perturb.base import Generator, Perturbation, Resource, settle
from perturb.engine import Candidate, first_refusal
from perturb.generators.swapsyn import check, chooser, context
from perturb.generators.swapsyn.candidates import in_term
from perturb.resources import parsing
from perturb.resources.words import (INDEFINITE_PRONOUNS, PARTICIPLE_PREPOSITIONS, stopwords_resource, tagging_copy,
                                     with_article, wordfreq_resource)
from perturb.spec import Edit, Param, Threshold, Tuning, Veto, threshold_constraint

MAX_WORD_SHARE = 0.05
#: the sets' measured validity on held-out text (the census of benchmarks/lexsub/blind.py: every change the shipped
#: sets make to held-out questions and claim-like sentences, labelled blind; docs/methods.md, "SWAPSYN-GLOVE and SWAPSYN-WNET")
CAVEAT = ("blind validity on held-out text: %s of its variations keep the information need, "
          "so its drop rate mixes robustness with changes of the need (docs/methods.md)")


@dataclass(frozen=True)
class Target:
    """One place to fill in a lexical-substitution file: ``text[start:end]`` is the target word."""

    tid: str
    text: str
    start: int
    end: int
    pos: str
    context_id: str = ""


@dataclass(frozen=True)
class Pick:
    """A set's answer for one target: the substitute as it would appear in the text, its lemma and its score."""

    substitute: str
    lemma: str
    score: float

CAP_ROUNDS = 4


def query_words(doc, skip: int) -> frozenset:
    """The lower-cased words of the text and their lemmas, the token starting at ``skip`` left out."""
    out = set()
    for t in doc:
        if t.idx != skip and t.is_alpha:
            out.update((t.lower_, t.lemma_.lower()))
    return frozenset(out)


def _new_word(edit) -> str:
    """The lower-cased text a swap's edit puts in."""
    return "".join(span[2] for span in edit.spans).lower()


class NotAnotherQueryWord(Veto):
    """The replacement must not be a word the query already has, as a form or a lemma
    ("publishing and printing" -> "publishing and publishing" is refused)."""

    name = "not another query word"
    description = "the replacement is not a word (or the lemma of a word) the query already has"

    def reason(self, edit, context=None) -> Optional[str]:
        new = _new_word(edit)
        words = context.get("words", frozenset()) if context else frozenset()
        lemma = (context or {}).get("lemma", "")
        if new in words or (lemma and lemma.lower() in words):
            return f"{new!r} is already a word of the query"
        return None


class WordShareCap(Veto):
    """A set-level rule: no word (the replaced word, or the substitute's lemma) takes more than
    ``max_share`` of a set's swaps (at least one swap each). Where a word has more, its swaps with
    the lowest scores are re-picked without it (another target or substitute of the query, or none)."""

    name = "word share cap"
    description = "no word is replaced, or brought in, by more than this share of the set's swaps"
    params = (Param("max_share", float, MAX_WORD_SHARE, "the largest share of a set's swaps one word may take",
                    key="max_word_share"),)

    def reason(self, edit, context=None) -> Optional[str]:
        banned = (context or {}).get("banned", frozenset())
        keys = (context or {}).get("keys", ())
        hit = [k for k in keys if k in banned]
        return f"{hit[0]!r} already takes its share of the set's swaps" if hit else None


class NotInTerm(Veto):
    """The target is not part of a multi-word term (:func:`perturb.generators.swapsyn.candidates.in_term`).
    Kept for SWAPSYN-WNET only: on SWORDS it raises the coverage at >= 0.90 cross-validated precision
    (benchmarks/lexsub/rules.py); for SWAPSYN-GLOVE it lowers it."""

    name = "not in a term"
    description = "the target is not a noun in a compound or with an adjective, nor an attributive adjective"

    def reason(self, edit, context=None) -> Optional[str]:
        tok = (context or {}).get("token")
        return f"{tok.text!r} is part of a term" if tok is not None and in_term(tok) else None


class NotAFunctionWord(Veto):
    """Neither the target nor the substitute is a function word the stop-word list lacks: the target is
    not a participle used as a preposition (:data:`PARTICIPLE_PREPOSITIONS`, "concerning" -> "pertaining"),
    the substitute not an indefinite pronoun (:data:`INDEFINITE_PRONOUNS`, "per person" -> "per someone").
    Of the labelled rows of benchmarks/data/validity/SWAPSYN-*.tsv it refuses 34 (31 distinct pairs), 32
    (29) of them labelled invalid (docs/methods.md)."""

    name = "not a function word"
    description = "the target is not a participle used as a preposition, the substitute not an indefinite pronoun"

    def reason(self, edit, context=None) -> Optional[str]:
        tok = (context or {}).get("token")
        if tok is not None and tok.text.lower() in PARTICIPLE_PREPOSITIONS:
            return f"{tok.text!r} is used as a preposition"
        new = _new_word(edit)
        lemma = (context or {}).get("lemma", "").lower()
        hit = next((w for w in (new, lemma) if w in INDEFINITE_PRONOUNS), None)
        return f"{hit!r} is an indefinite pronoun" if hit else None


QUERY_WORD = NotAnotherQueryWord()
IN_TERM = NotInTerm()
FUNCTION_WORD = NotAFunctionWord()
#: the vetoes that read the target only: a target one of them refuses gets no candidates
TARGET_VETOES = (IN_TERM.name, FUNCTION_WORD.name)
WORD_CAP = WordShareCap()


def chooser_threshold(source: str) -> Threshold:
    """The chooser's score (:mod:`perturb.generators.swapsyn.chooser`) as a threshold of the spec."""
    model = chooser.load_model()
    return threshold_constraint(
        "fitted chooser", float(model["thresholds"][source]),
        description="the chooser's score of the swap in its context reaches the threshold",
        evidence=f"logistic model over context-free and MiniLM in-context features (chooser.json, {model['fitted_on']})",
        tuning=Tuning("perturb/generators/swapsyn/chooser.json", "chooser_cv",
                      {"min_precision": 0.9, "source": source}, note=model["tuned_by"]))


#: the spec's name and the generator's keyword of the check threshold of each target class
CHECKS = {"other": ("pick check", "check_threshold"), "verb": ("pick check on verbs", "verb_check_threshold"),
          "long": ("pick check in long texts", "long_check_threshold")}
#: the targets each class of pick (:data:`check.CLASSES`) holds, in words
CLASS_TARGETS = {"other": f"targets other than verbs in texts of fewer than {check.LONG_WORDS} words",
                 "verb": f"verb targets in texts of fewer than {check.LONG_WORDS} words",
                 "long": f"every target in texts of {check.LONG_WORDS} words or more"}


def check_threshold(source: str, target_class: str = "other") -> Threshold:
    """The pick check (:mod:`perturb.generators.swapsyn.check`) on picks of ``target_class``
    (:func:`check.target_class`) as a threshold of the spec."""
    model = chooser.load_model()
    part = model["check"]
    name, key = CHECKS[target_class]
    targets, threshold = CLASS_TARGETS[target_class], check.thresholds_of(model, source)[target_class]
    closed = (f" (closed: {check.CLOSED:g} is above every probability, so no such pick is made)"
              if threshold >= check.CLOSED else "")
    return threshold_constraint(
        name, threshold, key=key,
        description=f"on {targets}, the pick check's probability that the chosen swap keeps the information need "
                    f"reaches the threshold{closed}",
        evidence=f"boosted trees over the pick's score, its parse and the chooser's features (chooser.json, {part['fitted_on']})",
        tuning=Tuning("perturb/generators/swapsyn/chooser.json", "chooser_cv",
                      {"min_precision": 0.9, "source": source, "part": "check", "pos": target_class},
                      note=part["rule"]))


_DETAIL = re.compile(r"^\w:'(?P<word>[^']*)'->'(?P<new>[^']*)' \(score (?P<score>[0-9.]+); lemma (?P<lemma>\w+)"
                     r"; check [0-9.]+\)$")


class ChosenSwap(parsing.SpacyGenerator, Generator):
    """One content word replaced by the chooser's best substitute from ``source``."""

    source = "wordnet"
    spec = None  # set by the subclasses

    def __init__(self, threshold: Optional[float] = None, max_word_share: Optional[float] = None,
                 check_threshold: Optional[float] = None, verb_check_threshold: Optional[float] = None,
                 long_check_threshold: Optional[float] = None):
        self.verifier = self.spec.constraint("fitted chooser").with_values(threshold=threshold)
        self.checker = self.spec.constraint(CHECKS["other"][0]).with_values(threshold=check_threshold)
        self.verb_checker = self.spec.constraint(CHECKS["verb"][0]).with_values(threshold=verb_check_threshold)
        self.long_checker = self.spec.constraint(CHECKS["long"][0]).with_values(threshold=long_check_threshold)
        self.cap = WORD_CAP.with_values(max_share=max_word_share)

    @property
    def threshold(self) -> float:
        return self.verifier.threshold

    @property
    def checkers(self) -> Dict[str, Threshold]:
        """The check threshold of each class of pick (:data:`check.CLASSES`)."""
        return {"other": self.checker, "verb": self.verb_checker, "long": self.long_checker}

    def config(self) -> dict:
        from perturb.resources.wordnet_reader import find_wordnet, wordnet_content_sha

        found = find_wordnet()
        cfg = self.spec.config([self.verifier, *(self.checkers[c] for c in check.CLASSES), *self.vetoes()],
                               pos_model=parsing.model_name() or "missing",
                               wordnet=found[0] if found else "missing", chooser_sha256=_model_sha(),
                               features=list(chooser.FEATURES))
        sha = wordnet_content_sha()
        if sha is not None:
            cfg["wordnet_sha256"] = sha
        return cfg

    def resources(self) -> List[Resource]:
        from perturb.resources.freedict import dictionaries_resource
        from perturb.resources.thesaurus import moby_resource
        from perturb.resources.vectors import EMB_FILE, GLOVE_INSTALL, INDEX_FILE, glove_dir
        from perturb.resources.wordnet_reader import wordnet_resource

        folder = glove_dir()
        found = bool(folder and (folder / EMB_FILE).is_file() and (folder / INDEX_FILE).is_file())
        return [Resource("GloVe 6B 50d", found, where=str(folder) if found else "",
                         install="" if found else GLOVE_INSTALL), wordnet_resource(), *parsing.resources(),
                parsing.lemminflect_resource(), stopwords_resource(), wordfreq_resource(), context.resource(),
                moby_resource(), dictionaries_resource()]

    # ------------------------------------------------------------------ choosing
    def choose(self, texts: Sequence[str], docs, only: Optional[Sequence[Optional[int]]] = None,
               banned: frozenset = frozenset()) -> List[Optional[chooser.Scored]]:
        """The pick of each text (``only``: restricted to the target at that offset): the first candidate in
        the chooser's order (:func:`chooser.ranked`) that reaches the chooser's threshold and whose pick-check
        probability reaches its target class's check threshold (:meth:`check_passes`), with that probability;
        None: no candidate passes both. A target the spec's target vetoes refuse (:data:`TARGET_VETOES`) gets
        no candidates; every candidate then asks each veto of the spec (:meth:`vetoes`) with the context
        ``words``, ``lemma``, ``token``, ``banned``, ``keys``. The vetoes do not read the score, so they are
        asked first and only the candidates they let through are scored (:func:`chooser.best`); so is a
        candidate's class of pick: one whose class is closed (no probability reaches its threshold) cannot be
        taken, so it is never scored."""
        return self._checked_picks(texts, docs, self.allowed(texts, docs, only, banned))

    def _checked_picks(self, texts: Sequence[str], docs, allowed) -> List[Optional[chooser.Scored]]:
        """:meth:`choose` over the candidates ``allowed`` (:meth:`allowed`'s answer for the texts)."""
        model = chooser.load_model()
        allowed = [[c for c in row if self.check_passes(c.pos, texts[i], 1.0)] for i, row in enumerate(allowed)]
        checked = {}

        def accept(i: int, c: chooser.Scored) -> bool:
            checked[(i, c.start, c.new)] = p = self.check_probability(model, texts[i], docs[i], c)
            return self.check_passes(c.pos, texts[i], p)

        picks = chooser.best(texts, allowed, model, self.threshold, accept)
        return [None if p is None else replace(p, check=checked[(i, p.start, p.new)]) for i, p in enumerate(picks)]

    def allowed(self, texts: Sequence[str], docs, only: Optional[Sequence[Optional[int]]] = None,
                banned: frozenset = frozenset()) -> List[List[chooser.Scored]]:
        """Per text, the pruned candidates (:func:`chooser.pruned`) the spec's vetoes let through, not yet
        fully scored."""
        vetoes = self.vetoes()
        on_target = tuple(v for v in vetoes if v.name in TARGET_VETOES)
        refuse = None
        if on_target:
            refuse = lambda tok: first_refusal(on_target, Candidate(Edit.replace(tok.idx, tok.idx, ""),  # noqa: E731
                                                                   {"token": tok})) is not None
        out = []
        for doc, cands in zip(docs, chooser.pruned(texts, docs, self.source, chooser.load_model(), only, refuse)):
            tokens = {t.idx: t for t in doc}
            out.append([c for c in cands if self._passes(vetoes, doc, tokens, c, banned)])
        return out

    def check_probability(self, model: dict, text: str, doc, c: chooser.Scored) -> float:
        """The pick check's probability for a fully scored candidate ``c`` of ``text`` (parsed as ``doc``)."""
        return check.probability(model, c, next(t for t in doc if t.idx == c.start), text, self.source)

    def check_passes(self, pos: str, text: str, probability: float) -> bool:
        """Whether a pick of POS ``pos`` (the chooser's tag) in ``text`` with this check probability passes its
        class's threshold."""
        return self.checker_of(pos, text).passes(probability)

    def checker_of(self, pos: str, text: str) -> Threshold:
        """The check threshold of a pick of POS ``pos`` (the chooser's tag) in ``text``: :data:`CHECKS` by
        :func:`check.target_class`."""
        return self.checkers[check.target_class(pos, text)]

    @staticmethod
    def _passes(vetoes, doc, tokens, c: chooser.Scored, banned: frozenset) -> bool:
        edit = Edit.replace(c.start, c.end, c.new)
        ctx = {"words": query_words(doc, c.start), "lemma": c.lemma, "token": tokens.get(c.start),
               "banned": banned, "keys": _keys(c.word, c.lemma)}
        return first_refusal(vetoes, Candidate(edit, ctx)) is None

    def vetoes(self) -> List[Veto]:
        """The spec's vetoes, as this instance sets them (the word cap with its share)."""
        return [self.cap if v.name == WORD_CAP.name else v for v in self.spec.constraints if isinstance(v, Veto)]

    def _perturbations(self, texts: Sequence[str], banned: frozenset = frozenset()) -> List[Perturbation]:
        docs = parsing.parse([tagging_copy(t) for t in texts], self.pipe_batch_size)
        out = []
        for text, pick in zip(texts, self.choose(texts, docs, banned=banned)):
            if pick is None:
                out.append(Perturbation(text, False, ""))
                continue
            detail = (f"{pick.pos}:{pick.word!r}->{pick.new!r} (score {pick.score:.4f}; lemma {pick.lemma}; "
                      f"check {pick.check:.4f})")
            out.append(settle(text, Perturbation(with_article(text, pick.start, pick.end, pick.new), True, detail)))
        return out

    def perturb_batch(self, items, seed):
        """Each query's pick (deterministic: no draw, so the seed does not change it)."""
        return self._perturbations([t for _, t in items])

    def _perturb(self, text, rng):
        return self._perturbations([text])[0]

    def lexsub(self, targets) -> list:
        """The substitute this set would put in place of each target (:class:`Target`),
        through :meth:`choose` restricted to the target's span; None where it abstains."""
        texts, docs, allowed = self._targets_allowed(targets)
        return _answers(self._checked_picks(texts, docs, allowed))

    def lexsub_answers(self, targets) -> Tuple[list, List[Optional[str]]]:
        """(:meth:`lexsub`'s answers, per target the class of pick (:data:`check.CLASSES`) of the chooser's own
        answer where the set abstains because the pick check refuses every candidate that reaches the chooser's
        threshold, else None): why a set answers few targets of a file."""
        texts, docs, allowed = self._targets_allowed(targets)
        picks = self._checked_picks(texts, docs, allowed)
        own = chooser.best(texts, allowed, chooser.load_model(), self.threshold)
        refused = [check.target_class(o.pos, text) if p is None and o is not None else None
                   for p, o, text in zip(picks, own, texts)]
        return _answers(picks), refused

    def _targets_allowed(self, targets) -> tuple:
        """(texts, parses, :meth:`allowed` restricted to each target's span) of lexical-substitution targets."""
        texts = [t.text for t in targets]
        docs = parsing.parse([tagging_copy(t) for t in texts], self.pipe_batch_size)
        return texts, docs, self.allowed(texts, docs, [t.start for t in targets])

    # ------------------------------------------------------------------ the set-level cap
    def cap_set(self, texts: Sequence[str], results: List[Perturbation]) -> List[Perturbation]:
        """The set with :data:`WORD_CAP` applied over its distinct texts: while a word takes more than
        ``max_share`` of the swaps (at least one), its lowest-scoring swaps (ties: SHA-256 of the text)
        are re-picked with the over-cap words banned; after ``CAP_ROUNDS`` rounds the rest are left
        unchanged. Deterministic: depends on the set's texts, not on their order or ids."""
        first = {}
        for t, r in zip(texts, results):
            first.setdefault(t, r)
        uniq = sorted(first, key=_sha)
        done = [first[t] for t in uniq]
        banned: set = set()
        for rnd in range(CAP_ROUNDS + 1):
            redo = self._over_cap(uniq, done, banned)
            if not redo:
                break
            if rnd == CAP_ROUNDS:
                for i in redo:
                    done[i] = Perturbation(uniq[i], False, "")
                break
            for i, r in zip(redo, self._perturbations([uniq[i] for i in redo], frozenset(banned))):
                done[i] = r
        by_text = dict(zip(uniq, done))
        return [by_text[t] for t in texts]

    def _over_cap(self, texts, results, banned: set) -> List[int]:
        swaps = {i: _DETAIL.match(r.detail) for i, r in enumerate(results) if r.applied}
        swaps = {i: m for i, m in swaps.items() if m is not None}
        limit = max(1, math.floor(self.cap.max_share * len(swaps)))
        by_key: Dict[str, List[int]] = defaultdict(list)
        for i, m in swaps.items():
            for k in _keys(m["word"], m["lemma"]):
                by_key[k].append(i)
        redo = set()
        for k, idx in sorted(by_key.items()):
            if len(idx) > limit:
                banned.add(k)
                ranked = sorted(idx, key=lambda i: (-float(swaps[i]["score"]), _sha(texts[i])))
                redo.update(ranked[limit:])
        return sorted(redo)


def _answers(picks) -> List[Optional[Pick]]:
    """The lexical-substitution answers of scored picks (None where a set abstains)."""
    return [None if p is None else Pick(p.new, p.lemma, p.score) for p in picks]


def _keys(word: str, lemma: str) -> Tuple[str, ...]:
    return tuple(sorted({word.lower(), lemma.lower()}))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _model_sha() -> str:
    return hashlib.sha256(chooser.MODEL_FILE.read_bytes()).hexdigest()
