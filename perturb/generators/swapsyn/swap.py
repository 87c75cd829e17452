"""Shared machinery of the two synonym-swap generators (SWAPSYN-GLOVE, SWAPSYN-WNET).

A query is POS-tagged (spaCy, on the case-normalised copy). A *target* is a content word that may
be replaced: NOUN, VERB, ADJ or ADV (never PROPN), letters only, not a stop word, a frequent word
(wordfreq Zipf >= ``min_target_zipf``: rare domain terms are not replaced), not a name (WordNet
knows it only capitalised, or it is capitalised inside a lower/mixed-case query), not a light
verb (make, take, get, ...: their synonyms depend on the object), not part of a multi-word term
(:meth:`SynonymSwap.in_term`: compounds, adjective + noun terms), not fixed by a neighbour
(:meth:`SynonymSwap.in_collocation`: verb + particle/preposition, adverb + participle, "X of Y"
nouns). A candidate must keep to usual senses (:meth:`SynonymSwap.usual_sense`: the sense is the
most of both words' SemCor tags, the synonym not much rarer and not a light verb). Each generator
lists, per target, its synonym candidates in its preference order; a *proposal* is (target,
candidate) whose sense is the sense the query's other words point to (an embedding Lesk:
:func:`perturb.resources.lexicon.sense_in_context`), re-inflected to the target's form (lemminflect dictionary only). Proposals are checked
in order and the first whose new word keeps the target's POS when the substituted query is tagged
again is used ("synonym in context"). No proposal passes -> the query is left unchanged. An "a"/"an"
right before the swapped word is made to follow the new word's sound
(:func:`perturb.resources.words.with_article`: "a project" -> "an undertaking").
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import LIGHT_VERBS, UPOS_WORDNET, case_style, match_case, stopwords, tagging_copy, with_article, zipf
from perturb.base import Perturbation, query_rng, settle
from perturb.spec import Edit, Veto
from perturb.resources.lexicon import base_forms, inflect_like, is_proper_noun, sense_in_context, sense_share
from perturb.resources.memo import Memo

SPACY_TO_WN = UPOS_WORDNET

_USUAL: dict = Memo()  # usual_sense results, shared in the process

# proposal: (start, end, replacement text, detail)
Proposal = Tuple[int, int, str, str]


def query_words(doc, skip: int) -> frozenset:
    """The lower-cased words of the query and their lemmas, the token ``skip`` (the target) left out."""
    out = set()
    for t in doc:
        if t.i != skip and t.is_alpha:
            out.update((t.lower_, t.lemma_.lower()))
    return frozenset(out)


class NotAnotherQueryWord(Veto):
    """The replacement must not be a word the query already has, as a form or a lemma
    ("publishing and printing" -> "publishing and publishing" is refused)."""

    name = "not another query word"
    description = "the replacement is not a word (or the lemma of a word) the query already has"

    def reason(self, edit, context=None) -> Optional[str]:
        new = "".join(span[2] for span in edit.spans).lower()
        words = context.get("words", frozenset()) if context else frozenset()
        lemma = (context or {}).get("lemma", "")
        if new in words or (lemma and lemma.lower() in words):
            return f"{new!r} is already a word of the query"
        return None


QUERY_WORD = NotAnotherQueryWord()


class SynonymSwap(parsing.SpacyGenerator):
    min_target_zipf = 3.0
    context_sense = True  # the synonym's sense must be the sense the query's other words point to
    max_checks = 6  # proposals tagged in context per query
    min_sense_share = 0.5  # the sense must be the usual one of the target and of the synonym (SemCor share)
    max_zipf_drop = 0.5  # the synonym at most this much rarer than the target (wordfreq Zipf of the lemmas)

    def candidates(self, word: str, pos: str) -> List[Tuple[str, str, str]]:  # pragma: no cover - abstract
        """(base-form synonym, note, WordNet sense name) in preference order."""
        raise NotImplementedError

    def order(self, per_target: list, rng: np.random.Generator) -> List[Tuple[int, int]]:  # pragma: no cover
        """(target index, candidate index) pairs in the order they are proposed."""
        raise NotImplementedError

    def target_ok(self, tok, word: str, text: str, style: str) -> Optional[str]:
        """The WordNet POS of a replaceable target, or None."""
        pos = SPACY_TO_WN.get(tok.pos_)
        if pos is None or not word.isalpha() or not word.isascii():
            return None
        end = tok.idx + len(word)
        if (tok.idx > 0 and text[tok.idx - 1] in "-/_'") or (end < len(text) and text[end] in "-/_'"):
            return None  # part of a compound ("closed-form", "and/or"): a term, not a word
        low = word.lower()
        if low in stopwords() or zipf(low) < self.min_target_zipf:
            return None
        if pos == "v" and (tok.lemma_.lower() in LIGHT_VERBS or low in LIGHT_VERBS):
            return None
        if style in ("lower", "mixed") and word[:1].isupper() and tok.i > 0 and not word.isupper():
            return None  # capitalised inside the query: a name
        if style == "mixed" and word.isupper() and len(word) > 1:
            return None  # an acronym inside a mixed-case query
        if is_proper_noun(low):
            return None
        if self.in_term(tok) or self.in_collocation(tok):
            return None
        return pos

    def in_collocation(self, tok) -> bool:
        """The word's meaning is fixed by a neighbour, so a synonym does not fit ("referring to" ->
        "mentioning to", "simply supported" -> "merely supported", "effect of X on Y" -> "result of X
        on Y", "angle of attack"): a verb with a particle or a preposition right after it; an adverb
        modifying a past participle or a light verb ("arbitrarily assumed", "to put it simply"); a
        noun on either side of an "X of Y" phrase or followed by its participle ("results obtained")."""
        nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
        if tok.pos_ == "VERB":
            if any(c.dep_ == "prt" for c in tok.children) or (
                    nxt is not None and nxt.head.i == tok.i and nxt.dep_ in ("prep", "prt", "agent", "dative")):
                return True
        if tok.pos_ == "ADV":
            head = tok.head
            if head.i != tok.i and (head.tag_ == "VBN" or head.lemma_.lower() in LIGHT_VERBS):
                return True
        if tok.pos_ == "NOUN":
            if any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children) or (nxt is not None and nxt.tag_ == "VBN"):
                return True
            head = tok.head
            if tok.dep_ == "pobj" and head.lower_ == "of" and head.head.pos_ in ("NOUN", "PROPN"):
                return True
        return False

    def usual_sense(self, word: str, syn: str, pos: str, sense: str) -> bool:
        """The swap keeps to words' usual senses: ``sense`` holds at least ``min_sense_share`` of the
        target's SemCor tags (so a general-English sense choice is likely right: not "model",
        "class", "sphere" in a technical text) and of the synonym's ("stuff" is material.n.01 in 5
        of 13 tags, "apply" is use.v.01 in 45 of 107); the synonym is not a light verb ("allow" ->
        "let", "move" -> "go") and at most ``max_zipf_drop`` rarer than the target ("city" ->
        "metropolis", "government" -> "regime", "project" -> "undertaking")."""
        key = (word, syn, pos, sense, self.min_sense_share, self.max_zipf_drop)
        if key not in _USUAL:
            _USUAL[key] = self._usual_sense(word, syn, pos, sense)
        return _USUAL[key]

    def _usual_sense(self, word: str, syn: str, pos: str, sense: str) -> bool:
        if pos == "v" and syn in LIGHT_VERBS:
            return False
        base = base_forms(word, pos)[-1]
        if zipf(syn) < zipf(base) - self.max_zipf_drop:
            return False
        return sense_share(base, pos, sense) >= self.min_sense_share and sense_share(syn, pos, sense) >= self.min_sense_share

    term_adjective_zipf = 99.0  # attributive adjectives are never swapped ("potential flow", "single theory")

    def in_term(self, tok) -> bool:
        """The word is part of a multi-word term, whose words are not interchangeable one by one:
        a noun in a compound ("unit test", "context manager", "TV show") or modified by an adjective
        ("analytical solution", "linear theory", "indirect problem"), or a less common adjective
        modifying a noun ("turbulent flow", "potential flow", "single theory"): every attributive
        adjective with Zipf below ``term_adjective_zipf`` (default: all of them - the blind sample
        found common adjectives in terms too)."""
        if tok.dep_ == "compound" or any(c.dep_ == "compound" for c in tok.children):
            return True
        if tok.pos_ == "NOUN" and any(c.dep_ == "amod" for c in tok.children):
            return True
        nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
        attributive = tok.dep_ == "amod" or (tok.head.pos_ in ("NOUN", "PROPN") and tok.head.i > tok.i) or (
            nxt is not None and (nxt.pos_ in ("NOUN", "PROPN") or nxt.dep_ == "compound"))
        if tok.pos_ == "ADJ" and attributive and zipf(tok.lower_) < self.term_adjective_zipf:
            return True
        return False

    def proposals(self, doc, text: str, rng: np.random.Generator) -> List[Proposal]:
        style = case_style(text)
        stops = stopwords()
        content = [t for t in doc if t.is_alpha and t.lower_ not in stops]
        targets = []
        for tok in doc:
            if self.__dict__.get("_only") is not None and tok.idx != self._only:
                continue
            word = parsing.original(tok, text)
            pos = self.target_ok(tok, word, text, style)
            if pos is None:
                continue
            # usual senses first (cached, and most candidates fail it), the sense in context after
            cands = [c for c in self.candidates(word.lower(), pos) if self.usual_sense(word.lower(), c[0], pos, c[2])]
            if cands and self.context_sense:
                sense = sense_in_context(word.lower(), pos, [t.lower_ for t in content if t.i != tok.i])
                if sense is not None:
                    cands = [c for c in cands if c[2] == sense]
            if cands:
                targets.append((tok, word, pos, cands))
        out: List[Proposal] = []
        for ti, ci in self.order([t[3] for t in targets], rng):
            tok, word, pos, cands = targets[ti]
            syn, note, _ = cands[ci]
            form = inflect_like(syn, tok.tag_, pos)
            if not form or form.lower() == word.lower():
                continue
            new = match_case(word, form)
            if not QUERY_WORD.check(Edit.replace(tok.idx, tok.idx + len(word), new),
                                    {"words": query_words(doc, tok.i), "lemma": syn}).passed:
                continue
            out.append((tok.idx, tok.idx + len(word), new, f"{pos}:{word!r}->{new!r} ({note})"))
            if len(out) >= self.max_checks:
                break
        return out

    def _substituted(self, text: str, prop: Proposal) -> str:
        start, end, new, _ = prop
        return tagging_copy(text[:start] + new + text[end:])

    def _keeps_pos(self, doc_before, doc_after, prop: Proposal) -> bool:
        start = prop[0]
        old = next((t for t in doc_before if t.idx == start), None)
        new = next((t for t in doc_after if t.idx == start), None)
        return old is not None and new is not None and new.pos_ == old.pos_ and len(new.text) == len(prop[2])

    def _resolve(self, texts: Sequence[str], docs, rngs) -> List[Perturbation]:
        plans = [self.proposals(doc, text, rng) for text, doc, rng in zip(texts, docs, rngs)]
        chosen: List[Optional[Proposal]] = [None] * len(texts)
        pending = [i for i, p in enumerate(plans) if p]
        r = 0
        while pending:
            subs = [self._substituted(texts[i], plans[i][r]) for i in pending]
            # POS only: the parser is not needed (tags do not depend on it in en_core_web_sm)
            after = parsing.parse(subs, self.pipe_batch_size, disable=("parser",))
            still = []
            for i, doc2 in zip(pending, after):
                if self._keeps_pos(docs[i], doc2, plans[i][r]):
                    chosen[i] = plans[i][r]
                elif r + 1 < len(plans[i]):
                    still.append(i)
            pending = still
            r += 1
        out = []
        for text, prop in zip(texts, chosen):
            if prop is None:
                out.append(Perturbation(text, False, ""))
            else:
                start, end, new, detail = prop
                out.append(settle(text, Perturbation(with_article(text, start, end, new), True, detail)))
        return out

    def _perturb_doc(self, doc, text, rng):
        return self._resolve([text], [doc], [rng])[0]

    def lexsub(self, targets):
        """The substitute this generator would put in place of each target (``perturb.checks.lexsub.Target``):
        the query path with the target restricted to the target's span; None where it abstains."""
        from lemminflect import getLemma
        from perturb.checks.lexsub import Pick

        out = []
        for t in targets:
            doc = parsing.parse([tagging_copy(t.text)], self.pipe_batch_size)[0]
            self._only = t.start
            try:
                if hasattr(self, "prepare"):
                    self.prepare([t.text], [doc])
                res = self._resolve([t.text], [doc], [query_rng(0, self.name, t.text)])[0]
            finally:
                self._only = None
                self.__dict__.pop("_targets", None)
            if not res.applied:
                out.append(None)
                continue
            new = res.text[t.start:].split()[0].strip(".,;:!?\"')(")
            tok = next(x for x in doc if x.idx == t.start)
            lemma = (getLemma(new.lower(), upos=tok.pos_) or (new.lower(),))[0]
            out.append(Pick(new, lemma, 1.0))
        return out

    def perturb_batch(self, items, seed):
        items = list(items)
        docs = parsing.parse([tagging_copy(t) for _, t in items], self.pipe_batch_size)
        return self._resolve([t for _, t in items], docs, [query_rng(seed, self.name, t) for _, t in items])


class VerifiedSynonymSwap(SynonymSwap):
    """Generate, then verify: every candidate of every content word from the
    generator's ``source`` (``glove`` neighbours or ``wordnet`` lemmas,
    :mod:`perturb.generators.swapsyn.verifier`) is scored by the fitted logistic model of that source;
    the pick is uniform (the query's rng) among the candidates scoring >= ``threshold``, the rest
    after it in the same seeded order as fallbacks when the substituted query loses the word's POS.
    No candidate passes -> the query is left unchanged. Targets: NOUN/VERB/ADJ/ADV tokens, letters,
    not a stop word, not part of a hyphen/slash compound, not a name (capitalised inside a
    lower/mixed-case query, an acronym inside a mixed-case one, a word WordNet knows only
    capitalised). Terms and collocations are features of the model, not vetoes."""

    source = "glove"
    max_checks = 6

    def model(self) -> dict:
        from perturb.generators.swapsyn.weights import MODELS

        return MODELS[self.source]

    def verified_target(self, tok, word: str, text: str, style: str) -> Optional[str]:
        pos = SPACY_TO_WN.get(tok.pos_)
        if pos is None or not word.isalpha() or not word.isascii():
            return None
        end = tok.idx + len(word)
        if (tok.idx > 0 and text[tok.idx - 1] in "-/_'") or (end < len(text) and text[end] in "-/_'"):
            return None
        if word.lower() in stopwords():
            return None
        if style in ("lower", "mixed") and word[:1].isupper() and tok.i > 0 and not word.isupper():
            return None
        if style == "mixed" and word.isupper() and len(word) > 1:
            return None
        if is_proper_noun(word.lower()):
            return None
        return pos

    def targets(self, doc, text: str) -> List[tuple]:
        """(token, original word, WordNet POS) of the query's targets (:meth:`verified_target`),
        kept per text for the batch (the doc is the text's parse, so they depend on the text only)."""
        cache = self.__dict__.setdefault("_targets", {})
        if text not in cache:
            style = case_style(text)
            found = []
            for tok in doc:
                if self.__dict__.get("_only") is not None and tok.idx != self._only:
                    continue
                word = parsing.original(tok, text)
                pos = self.verified_target(tok, word, text, style)
                if pos is not None:
                    found.append((tok, word, pos))
            cache[text] = found
        return cache[text]

    def scored_candidates(self, doc, text: str, floor: float) -> List[Tuple[int, int, str, float, str]]:
        """(start, end, new text, score, detail) of every candidate scoring >= ``floor``, in text
        order then candidate order (independent of the rng and of the batch)."""
        from perturb.generators.swapsyn import verifier as sv

        stops = stopwords()
        model = self.model()
        content = [(t.i, t.lower_) for t in doc if t.is_alpha and t.lower_ not in stops]
        out = []
        for tok, word, pos in self.targets(doc, text):
            low = word.lower()
            cands = sv.candidates(low, pos, tok.tag_, self.source)
            if not cands:
                continue
            base = base_forms(low, pos)[-1]
            others = [w for i, w in content if i != tok.i]
            words = query_words(doc, tok.i)
            for cand, s, x in sv.score_pairs(model, low, base, pos, cands, others, self.in_term(tok),
                                             self.in_collocation(tok), floor):
                form = inflect_like(cand, tok.tag_, pos)
                if not form or form.lower() == low:
                    continue
                new = match_case(word, form)
                if not QUERY_WORD.check(Edit.replace(tok.idx, tok.idx + len(word), new),
                                        {"words": words, "lemma": cand}).passed:
                    continue
                ev = ", ".join(f"{n} {v:.2f}" for n, v in zip(sv.FEATURES, x))
                out.append((tok.idx, tok.idx + len(word), new, s,
                            f"{pos}:{word!r}->{new!r} (score {s:.3f} >= {self.threshold:g}; {self.source}; {ev})"))
        return out

    def prepare(self, texts: Sequence[str], docs) -> None:
        """One batched GloVe neighbour search for every target base form of the batch (the rank
        is a feature of both sources); each word's neighbours do not depend on the batch."""
        from perturb.generators.swapsyn import verifier as sv

        bases = set()
        for text, doc in zip(texts, docs):
            for tok, word, pos in self.targets(doc, text):
                bases.add(base_forms(word.lower(), pos)[-1])
        sv.neighbours_many(sorted(bases))

    def perturb_batch(self, items, seed):
        items = list(items)
        texts = [t for _, t in items]
        docs = parsing.parse([tagging_copy(t) for t in texts], self.pipe_batch_size)
        try:
            self.prepare(texts, docs)
            return self._resolve(texts, docs, [query_rng(seed, self.name, t) for t in texts])
        finally:
            self.__dict__.pop("_targets", None)

    def proposals(self, doc, text: str, rng: np.random.Generator) -> List[Proposal]:
        passing = self.scored_candidates(doc, text, self.threshold)
        return [passing[k][:3] + (passing[k][4],) for k in rng.permutation(len(passing)).tolist()][: self.max_checks]

    def scored(self, texts: Sequence[str], floor: float) -> List[List[Tuple[int, int, str, float, str]]]:
        """Every candidate of each text scoring >= ``floor`` that keeps the word's POS when the
        query is tagged again (what a pick at any threshold >= ``floor`` can choose)."""
        docs = parsing.parse([tagging_copy(t) for t in texts], self.pipe_batch_size)
        try:
            self.prepare(texts, docs)
            per = [self.scored_candidates(d, t, floor) for t, d in zip(texts, docs)]
        finally:
            self.__dict__.pop("_targets", None)
        flat = [(i, c) for i, cs in enumerate(per) for c in cs]
        after = parsing.parse([self._substituted(texts[i], (c[0], c[1], c[2], c[4])) for i, c in flat],
                             self.pipe_batch_size, disable=("parser",))
        out: List[List[Tuple[int, int, str, float, str]]] = [[] for _ in texts]
        for (i, c), d2 in zip(flat, after):
            if self._keeps_pos(docs[i], d2, (c[0], c[1], c[2], c[4])):
                out[i].append(c)
        return out
