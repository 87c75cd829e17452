"""SWAPWORDS: two words of the query swap places.

Two modes (``config()["mode"]`` records which):

* ``verified`` (the default): every pair of swappable content words is a candidate, scored on
  parse evidence (:mod:`perturb.generators.swapwords.pairs`: coordinated conjuncts and co-modifiers keep the need,
  "X of Y" -> "Y of X" and subject/object swaps do not); a candidate passes at ``min_score``
  (chosen on the tuning half of ``benchmarks/data/validity/SWAPWORDS.tsv``), one passing pair is picked
  uniformly with the query's rng. Deviation from the paper: besides two words, two phrases may
  exchange places (:mod:`perturb.generators.swapwords.phrases`: coordinated phrases, sibling prepositional
  phrases, an adverb moved, subject and auxiliary in questions, a final prepositional phrase
  fronted); ``config()["operations"]`` names them. Stop words, abbreviations and punctuation stay in place. Not
  applicable when no pair passes.
* ``random``: the paper's operation (TextAttack's ``WordInnerSwapRandom``): a first position
  ``i`` uniform, then ``j != i`` uniform, the two words exchange places; identical words ->
  redrawn uniformly among the pairs of differing words. Dotted abbreviations ("i.e.", "U.S.",
  "etc.") are one word: never split at their dots.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import (Span, case_style, draw_word_pair, stopwords_resource, word_spans,
                                     word_spans_keeping_abbreviations)
from perturb.base import Generator, Perturbation, Resource
from perturb.engine import Candidate, SpecGenerator
from perturb.spec import Edit, Param, Spec, Threshold, Tuning, Verdict
from perturb.generators.swapwords.pairs import (CONTENT_WORDS, EVIDENCE, KIND_SCORES, UNLABELLED, WHOLE_TOKENS,
                                                TERM_FORMING_MIN, candidates, is_labelled, score_of, swappable_tokens)
from perturb.resources.wordnet_reader import find_wordnet, wordnet_content_sha, wordnet_resource

MODES = ("verified", "random")


class KindTable(Threshold):
    """The kind table as a threshold: a candidate's score is its kind's (:data:`pairs.KIND_SCORES`,
    every kind the parse can give; a kind no labelled exchange has scores the prior
    :data:`pairs.UNLABELLED` and is refused with that named as the reason). A kind the table does
    not list raises :class:`pairs.UnlistedKind`: never a silent score."""

    name = "kind table"
    description = "the exchange is of a kind whose labelled exchanges keep the need"
    evidence = "per-kind Laplace validity (pairs.EVIDENCE)"
    tuning = Tuning("benchmarks/data/validity/SWAPWORDS.tsv", "choose_by_kind", {"min_validity": 0.9})
    params = (Param("threshold", float, 0.83, "a candidate passes when its score is at least this", key="min_score"),)

    def score(self, edit: Edit, context=None) -> float:
        return score_of(edit.kind)

    def check(self, edit: Edit, context=None) -> Verdict:
        s = self.score(edit, context)
        ok = self.passes(s)
        labels = "" if is_labelled(edit.kind) else ", no labelled exchange: the prior"
        return Verdict(ok, f"kind {edit.kind!r} scores {s:g}{labels} {'>=' if ok else '<'} "
                           f"{self.values['threshold']:g}", s)

    @staticmethod
    def rows():
        """(kind, score, labelled) for every kind of the table, highest score first."""
        return sorted(((k, s, is_labelled(k)) for k, s in KIND_SCORES.items()), key=lambda r: (-r[1], r[0]))


KIND_TABLE = KindTable()

SPEC = Spec(
    name="SWAPWORDS", version=2, protocol="validated",
    transformation="two content words, or two phrases, exchange places (pairs.candidates)",
    constraints=(CONTENT_WORDS, WHOLE_TOKENS, KIND_TABLE), picker="uniform among passing pairs",
    facts={"mode": "verified",
           "words": "content words (NOUN PROPN VERB ADJ ADV), no NLTK stop word, no abbreviation",
           "operations": "two words exchanged (the paper) + phrase reorderings (deviation: coordinated "
                         "phrases, sibling prepositional phrases, adverb moved, subject and auxiliary, "
                         "prepositional phrase fronted, a pronoun statement's complement fronted; "
                         "perturb.generators.phraseorder)",  # the recorded text of version 1 (phrases.py now)
           "evidence": {reason: score for score, reason in EVIDENCE}, "unlisted_kind_score": UNLABELLED,
           "pick": "uniform among passing pairs", "case": "ALL-CAPS/Title Case tagged lower-cased",
           "spans": "whole whitespace tokens: symbols and quotes glued to a word move with it (10%, $5), "
                    "sentence punctuation and brackets stay; a span that would cut a token is dropped"},
    params=(TERM_FORMING_MIN, Param("max_query_chars", int, 1000, "longer queries keep their text (not applied)")))

# the paper's operation (TextAttack's WordInnerSwapRandom), the transformation of --protocol rodr too
RANDOM_SPEC = Spec(
    name="SWAPWORDS", version=2, protocol="validated",
    transformation="two words at uniform positions i != j exchange places (textattack-words)",
    picker="uniform i, uniform j != i",
    facts={"mode": "random", "words": "textattack-words, dotted abbreviations whole",
           "pairs": "uniform i, uniform j != i"},
    params=(Param("abbreviations", bool, True, "a dotted abbreviation (i.e., U.S.) is one word"),
            Param("max_query_chars", int, 1000, "longer queries keep their text (not applied)"),
            Param("label", str, "swapped", "the detail's first word")))


def _swap(text: str, sa: int, ea: int, sb: int, eb: int) -> str:
    return text[:sa] + text[sb:eb] + text[ea:sb] + text[sa:ea] + text[eb:]


def random_swap(text: str, spans: Sequence[Span], rng: np.random.Generator) -> Optional[Tuple[str, int, int]]:
    """The paper's operation (TextAttack's ``WordInnerSwapRandom``) on the words at ``spans``: a
    pair drawn by :func:`perturb.resources.words.draw_word_pair` exchanges places, the text
    between them untouched. ``(new text, a, b)`` with the two word indices ``a < b``, or None when
    no two different words exist."""
    pair = draw_word_pair([text[s:e] for s, e in spans], rng)
    if pair is None:
        return None
    a, b = pair
    return _swap(text, *spans[a], *spans[b]), a, b


class RandomSwapWords(SpecGenerator):
    """The paper's operation: :func:`random_swap` on the query's words (the spec's
    ``abbreviations``: dotted abbreviations one word, or split at their dots as TextAttack does),
    the detail ``{label} #a 'x' <-> #b 'y'``. ``SwapWords(mode="random")`` and ``--protocol
    rodr``'s SWAPWORDS (:class:`perturb.rodr.edits.PaperSwapWords`) run it with their specs."""

    name = "SWAPWORDS"
    spec = RANDOM_SPEC

    def config(self) -> dict:
        return self.spec.config()

    def propose(self, text: str, rng: np.random.Generator) -> List[Candidate]:
        spans = (word_spans_keeping_abbreviations if self.param("abbreviations") else word_spans)(text)
        done = random_swap(text, spans, rng)
        if done is None:
            return []
        _, a, b = done
        wa, wb = text[slice(*spans[a])], text[slice(*spans[b])]
        return [Candidate(Edit.exchange(text, *spans[a], *spans[b],
                                        detail=f"{self.param('label')} #{a} {wa!r} <-> #{b} {wb!r}"))]


class SwapWords(parsing.SpacyGenerator, RandomSwapWords):
    name = "SWAPWORDS"
    max_query_reason = ("its candidates are every exchange of two words or phrases, a number that grows with the "
                        "square of the query's length (4,340 characters: 26 s; 100,000: minutes)")

    spec = SPEC

    def __init__(self, mode: str = "verified", min_score: Optional[float] = None):
        if mode not in MODES:
            raise ValueError(f"SWAPWORDS mode {mode!r}: choose from {MODES}")
        self.mode = mode
        if mode == "random":
            self.spec = RANDOM_SPEC
        else:
            self._constraints = self.spec.constraints_with(**{KIND_TABLE.name: {"threshold": min_score}})

    @property
    def kind_table(self) -> KindTable:
        """The kind table this generator runs (the spec's; the random mode runs none)."""
        return next((c for c in self.constraints if c.name == KIND_TABLE.name), KIND_TABLE)

    @property
    def min_score(self) -> float:
        return self.kind_table.threshold

    def config(self) -> dict:
        if self.mode == "random":
            return self.spec.config()
        term = {"lexicon": "WordNet index.adj + index.noun (perturb.resources.wordnet_index)",
                "wordnet": (find_wordnet() or ("missing",))[0], "term_forming_min": self.param("term_forming_min")}
        sha = wordnet_content_sha()  # of the files found, as SWAPSYN-WNET records it
        if sha is not None:
            term["wordnet_sha256"] = sha
        return self.spec.config(self.constraints, pos_model=parsing.model_name() or "missing", term_evidence=term)

    def resources(self) -> List[Resource]:
        if self.mode == "random":
            return []
        return [*parsing.resources(), stopwords_resource(), wordnet_resource()]

    # ------------------------------------------------------------------ generate, then verify
    def scored(self, doc, text: str) -> List[Edit]:
        """Every candidate exchange of two character spans of ``text`` (:func:`pairs.candidates`) among
        the words that pass the spec's target constraints, its ``kind`` and ``score`` from the kind table."""
        return candidates(doc, text, swappable_tokens(doc, text, self.constraints), self.param("term_forming_min"))

    def apply(self, doc, text: str, edit: Edit) -> str:
        """``text`` with the two spans of ``edit`` exchanged; a sentence-initial capital stays at the
        start ("How do I ..." -> "In a microwave how do I ...") unless the first word is "I" or a name."""
        (sa, ea, _), (sb, eb, _) = edit.spans
        out = _swap(text, sa, ea, sb, eb)
        if sa != 0 or case_style(text) not in ("lower", "mixed"):
            return out
        first = doc[0]
        word = text[:len(first.text)]
        if word[:1].isupper() and word[1:].islower() and word != "I" and first.pos_ != "PROPN" and \
                text[sb:sb + 1].islower():
            pos = (eb - sb) + (sb - ea)  # where the first word lands
            out = out[:1].upper() + out[1:pos] + out[pos].lower() + out[pos + 1:]
        return out

    def realise(self, text: str, chosen: List[Candidate]) -> Perturbation:
        pick = chosen[0].edit
        if self.mode == "random":
            return super().realise(text, chosen)
        (sa, ea, _), (sb, eb, _) = pick.spans
        return Perturbation(self.apply(chosen[0].context["doc"], text, pick), True,
                            f"swapped {text[sa:ea]!r} <-> {text[sb:eb]!r} ({pick.kind}, score {pick.score:g})")

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        return self.engine(text, [Candidate(e, {"text": text, "doc": doc}) for e in self.scored(doc, text)], rng)

    def _perturb(self, text, rng):
        if self.mode == "random":
            return SpecGenerator._perturb(self, text, rng)
        return super()._perturb(text, rng)

    def perturb_batch(self, items, seed):
        if self.mode == "random":
            return Generator.perturb_batch(self, items, seed)
        return super().perturb_batch(items, seed)
