"""MISSPELL: one spelling error of one of four TextFlint types injected into one random word.

The four types follow TextFlint's ``Typos``, ``Ocr``, ``Keyboard`` and ``SpellingError``
transformations, restricted (as RoDR does) to a single error in a single word:

* ``typos``: one character-level edit (insert / delete / substitute / swap with the right
  neighbour) inside a word of 3+ Latin letters; the first and last letters are never touched
  (TextFlint's ``skip_first_char=True, skip_last_char=True``).
* ``ocr``: one character replaced by an OCR confusion from nlpaug's ``ocr/en.json``, mapping
  made bidirectional as TextFlint/nlpaug do (``o``->``0``... and ``0``->``o``...).
* ``keyboard``: one character of a word of 4+ characters (TextFlint's ``min_char=4``) replaced by
  a QWERTY neighbour from nlpaug's ``keyboard/en.json`` (special characters, digits and upper
  case included, as TextFlint's defaults).
* ``spelling``: the word replaced by a common misspelling from nlpaug's ``spelling_en.txt``
  (bidirectional, as TextFlint's ``include_reverse=True``).

The tables are read from the files nlpaug 1.1.11 ships (nlpaug itself is never imported: its
augmenters draw from the global ``random`` module, which would break seeding). A type is drawn
uniformly; if it cannot change the query, the remaining types are tried in a seeded order.

Constraints (ours; a misspelling must leave the information need readable):

* targets are content words only: never an NLTK stop word ("and" -> "ad", "THE" -> "TH" are
  refused), never a number or a token with a digit ("1994" -> "@994"), letters only;
* an edit whose result is itself a frequent real word is refused (wordfreq Zipf >=
  ``real_word_zipf``, default 3.0): "following" -> "flowing", "that" -> "what", "cause" ->
  "because" are real-word swaps, not misspellings. This also removes the spelling table's
  real-word pairs and its reverse direction (misspelling -> correct word); a table entry more
  than 2 edits away from the word (a misspelling of a related word: "sharp" -> "shrply") is refused;
* the word keeps its case pattern: OCR and keyboard replacements are letters of the same case
  as the replaced letter (or, for OCR, a digit), so "do" never becomes "DO"; a table misspelling is
  put in the word's case pattern ("Many" -> "Meny", never the table's "meny"); a case-only change
  is never counted as applied (:func:`perturb.base.settle`).

Deviation from TextFlint: its keyboard table also offers digits, specials and the other case.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import has_digit, stopwords, stopwords_resource, word_spans, wordfreq_resource, zipf
from bench.core.seeding import rng_for
from perturb.base import Perturbation, Resource, query_rng, settle
from perturb.engine import Candidate, SpecGenerator, count_refusals, judge
from perturb.spec import Edit, Param, Spec, Veto
from perturb.resources.memo import Memo

from perturb.generators.typos import (CASE_ONLY, TYPES, TYPO_OPS, CharOptions, char_edit, char_positions, edit_distance,
                                      is_latin_word, pick_misspelling, table_edit, table_misspellings, table_resources,
                                      tables, type_order, typo)

_SPELLING_CACHE: Dict[tuple, Tuple[str, ...]] = Memo()


# The edit types a row's ``detail`` starts with (``<type>: <edit>``, :func:`perturb.base.edit_type`):
# TextFlint's ``Typos`` split by its four operations, then its ``Ocr``, ``Keyboard`` and
# ``SpellingError`` types.
EDIT_TYPES = ("insert", "delete", "substitute", "swap", "ocr", "keyboard", "spelling")


def describe(kind: str, how: str, word: str, new: str, fallback_from: str = "") -> str:
    """The uniform ``<type>: <edit>`` detail of one misspelling, e.g. ``ocr: 'systems'->'sy8tems' (s->8)``."""
    etype = how if kind == "typos" else kind
    extra = f" ({how})" if kind in ("ocr", "keyboard") else ""
    fallback = f" (fallback from {fallback_from})" if fallback_from else ""
    return f"{etype}: {word!r}->{new!r}{extra}{fallback}"


class ContentTarget(Veto):
    """A misspelling goes into a content word only: Latin letters, no NLTK stop word ("and" -> "ad"),
    no digit ("1994" -> "@994")."""

    name = "content-word target"
    description = "the misspelt word is a content word: Latin letters only, no stop word, no digit"
    judges = "target"

    def allows(self, word: str) -> bool:
        return bool(word) and is_latin_word(word) and not has_digit(word) and word.lower() not in stopwords()

    def reason(self, edit, context=None):
        word = context["word"]
        return None if self.allows(word) else f"{word!r} is not a content word"


class SameCase(Veto):
    """An OCR or keyboard replacement is a letter of the replaced letter's case (or, for OCR, a
    digit): "do" never becomes "dO" (a deviation from TextFlint's keyboard table). A table
    misspelling, put in the word's case pattern, is letters only. It judges the options a draw is
    made from, before the draw."""

    name = "same case"
    description = "an OCR or keyboard replacement is a letter of the replaced letter's case (OCR: or a digit)"
    judges = "option"

    def keeps(self, ch: str, options: Sequence[str], allow_digits: bool) -> Tuple[str, ...]:
        """The replacements of ``ch`` among ``options`` that pass, in their order."""
        out = []
        for o in options:
            if o.isalpha() and o.isupper() == ch.isupper() and o.lower() != ch.lower():
                out.append(o)
            elif allow_digits and o.isdigit():
                out.append(o)
        return tuple(out)

    def reason(self, edit, context=None):
        if "char" not in context:  # a whole-word replacement: a table misspelling
            new = edit.spans[0][2]
            return None if new.isalpha() else f"{new!r} is not letters only"
        ch, new = context["char"], context["new"]
        ok = self.keeps(ch, (new,), context.get("allow_digits", False))
        return None if ok else f"{ch!r}->{new!r} changes the letter's case"


CONTENT_TARGET = ContentTarget()
SAME_CASE = SameCase()


class RealWord(Veto):
    """Refuses a misspelling that is itself a frequent English word ("following" -> "flowing")."""

    name = "not a real word"
    description = "the misspelt word is not itself a frequent English word"
    params = (Param("max_zipf", float, 3.0, "a result with wordfreq Zipf at or above this is a real word"),)

    def is_real_word(self, word: str) -> bool:
        return zipf(word.lower()) >= self.values["max_zipf"]

    def reason(self, edit, context=None):
        new = edit.spans[0][2]
        return f"{new!r} is a real word" if self.is_real_word(new) else None

    def config(self) -> dict:
        return {"reject_real_word_results": f"wordfreq 3.1.1 zipf >= {self.values['max_zipf']}"}


class TableDistance(Veto):
    """Refuses a table misspelling of *another* word ("sharp" -> "shrply", of "sharply"); a typo,
    OCR or keyboard error is one edit away and always passes."""

    name = "table edit distance"
    description = "a misspelling from nlpaug's table is close to the word it replaces"
    params = (Param("max_distance", int, 2, "the most edits between the word and its table misspelling",
                    key="table_max_edit_distance"),)

    def reason(self, edit, context=None):
        if edit.kind not in ("", "spelling"):
            return None  # a typo, OCR or keyboard error: one edit
        word, new = context["word"], edit.spans[0][2]
        too_far = edit_distance(new.lower(), word.lower()) > self.values["max_distance"]
        return f"{new!r} is {edit_distance(new.lower(), word.lower())} edits from {word!r}" if too_far else None


SPEC = Spec(
    name="MISSPELL", version=2, protocol="validated",
    transformation="one content word misspelt: a typo (insert, delete, substitute, swap), an OCR or keyboard "
                   "confusion, or a common misspelling from nlpaug's tables; the next type when one cannot apply",
    constraints=(CONTENT_TARGET, SAME_CASE, CASE_ONLY, RealWord(), TableDistance()),
    picker="type uniform, then target word uniform (query rng)",
    params=(Param("types", str, ",".join(TYPES), "the error types drawn from, comma-separated"),
            Param("max_attempts", int, 4, "draws per type before the next type (a drawn edit may be refused)"),
            Param("keyboard_min_chars", int, 4, "the shortest word a keyboard error edits"),
            Param("ocr_min_chars", int, 1, "the shortest word an OCR error edits"),
            Param("typo_min_letters", int, 3, "the shortest word a typo edits"),
            Param("keep_case", bool, True, "spelling-table look-ups of the word or its lower case, put in the "
                                           "word's case pattern (False: the exact token's entries as they are)"),
            Param("set_fallback", str, "", "empty: the type order drawn per query; else one type drawn per set "
                                           "(run seed), then these types, comma-separated, in this order")),
    facts={"tables": "nlpaug==1.1.11 res (ocr/en.json, keyboard/en.json, spelling_en.txt), bidirectional",
           "errors_per_query": 1,
           "targets": "content words: letters only, no stop word (NLTK 179), no digit",
           "case": "kept (same-case replacement letters; table misspellings in the word's case pattern)"})


class Misspell(SpecGenerator):
    """One misspelling in one word, both protocols: the transformation (the four error types'
    draws, :mod:`perturb.generators.typos`) with the spec's constraints and parameters. Targets
    pass the spec's ``target`` constraints; the OCR and keyboard replacements and the table
    misspellings a draw is made from pass its ``option`` constraints (a table entry its ``edit``
    constraints too); each drawn edit passes its ``edit`` constraints or is drawn again."""

    name = "MISSPELL"
    spec = SPEC

    def __init__(self, types: Optional[Sequence[str]] = None, keyboard_min_chars: Optional[int] = None,
                 ocr_min_chars: Optional[int] = None, typo_min_letters: Optional[int] = None,
                 real_word_zipf: Optional[float] = None):
        self._params = self.spec.param_values(keyboard_min_chars=keyboard_min_chars, ocr_min_chars=ocr_min_chars,
                                              typo_min_letters=typo_min_letters,
                                              types=None if types is None else ",".join(types))
        self.types = tuple(t for t in self._params["types"].split(",") if t)
        unknown = [t for t in self.types if t not in TYPES]
        if unknown or not self.types:
            raise ValueError(f"unknown misspelling types {unknown}; choose from {TYPES}")
        self._constraints = self.spec.constraints_with(
            **({"not a real word": {"max_zipf": real_word_zipf}} if real_word_zipf is not None else {}))
        self._options: Dict[Tuple[str, str], CharOptions] = Memo()

    real_word_zipf = property(lambda self: self.spec_constraint("not a real word").max_zipf)
    max_table_distance = property(lambda self: self.spec_constraint("table edit distance").max_distance)

    def spec_constraint(self, name: str):
        """The constraint ``name`` this generator runs (the spec's, or the one it was made with)."""
        return next(c for c in self.constraints if c.name == name)

    def config(self) -> dict:
        return self.spec.config(
            self.constraints, types=list(self.types),
            typos={"ops": list(TYPO_OPS), "min_letters": self.param("typo_min_letters"),
                   "skip_first_char": True, "skip_last_char": True},
            keyboard_min_chars=self.param("keyboard_min_chars"), ocr_min_chars=self.param("ocr_min_chars"))

    def resources(self) -> List[Resource]:
        return table_resources() + [stopwords_resource(), wordfreq_resource()]

    # ------------------------------------------------------------------ the four error types
    _typos = staticmethod(typo)  # the one typo operation (both protocols)

    @staticmethod
    def _same_case(ch: str, options: Sequence[str], allow_digits: bool) -> Tuple[str, ...]:
        """Replacement characters of ``ch``'s case: letters of the same case (digits for OCR): :data:`SAME_CASE`."""
        return SAME_CASE.keeps(ch, options, allow_digits)

    def _char_options(self, kind: str, word: str) -> CharOptions:
        """The table's replacements of ``word``'s characters that pass the ``option`` constraints."""
        key = (kind, word)
        if key not in self._options:
            self._options[key] = char_positions(word, tables()[kind], keep=self._keep(kind, word))
        return self._options[key]

    def _keep(self, kind: str, word: str):
        if not any(c.judges == "option" for c in self.constraints):
            return None  # every replacement of the table

        def keep(ch: str, options: Sequence[str]) -> List[str]:
            cands = [Candidate(Edit.replace(0, 1, o), {"char": ch, "new": o, "allow_digits": kind == "ocr",
                                                       "word": word}) for o in options]
            return [c.edit.spans[0][2] for c in judge(self.constraints, cands, "option").passed]
        return keep

    def target_ok(self, word: str) -> bool:
        """A word a misspelling may be injected into (the ``target`` constraints)."""
        return bool(judge(self.constraints, [Candidate(Edit(()), {"word": word})], "target").passed)

    def is_real_word(self, word: str) -> bool:
        """A frequent English word (:class:`RealWord`): not a misspelling."""
        return self.spec_constraint("not a real word").is_real_word(word)

    def _spelling_options(self, word: str) -> Tuple[str, ...]:
        """The table's misspellings of ``word`` that pass the ``option`` and ``edit`` constraints."""
        key = (word, self.constraints, self.param("keep_case"))
        cached = _SPELLING_CACHE.get(key)
        if cached is None:
            cands = [Candidate(Edit.replace(0, len(word), new, kind="spelling"), {"word": word})
                     for new in table_misspellings(word, keep_case=self.param("keep_case"))]
            passed = judge(self.constraints, cands, ("option", "target", "edit")).passed
            cached = _SPELLING_CACHE[key] = tuple(c.edit.spans[0][2] for c in passed)
        return cached

    def _reach(self, kind: str, words: Sequence[str], targets: Sequence[int]) -> List[int]:
        """The targets the error type ``kind`` can edit."""
        if kind == "typos":
            return [k for k in targets if len(words[k]) >= self.param("typo_min_letters")]
        if kind in ("ocr", "keyboard"):
            least = self.param(f"{kind}_min_chars")
            return [k for k in targets if len(words[k]) >= least and self._char_options(kind, words[k])]
        return [k for k in targets if self._spelling_options(words[k])]

    def _draw(self, kind: str, word: str, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
        """The transformation's draw of one error of type ``kind`` in ``word``: ``(new word, how)``."""
        if kind == "typos":
            return self._typos(word, rng)
        if kind in ("ocr", "keyboard"):
            return char_edit(word, self._char_options(kind, word), rng)
        return table_edit(self._spelling_options(word), rng)

    # ------------------------------------------------------------------ the picker
    def set_type(self, seed: int) -> str:
        """The set's one error type: uniform over ``types``, from the run seed."""
        return self.types[int(rng_for(seed, self.name, "set type").integers(len(self.types)))]

    def order_for(self, seed: int) -> List[str]:
        """The set's type order (spec's ``set_fallback``): its type, then the fallback types."""
        first = self.set_type(seed)
        return [first] + [t for t in self.param("set_fallback").split(",") if t != first and t in self.types]

    def perturb_batch(self, items, seed: int) -> List[Perturbation]:
        if not self.param("set_fallback"):
            return super().perturb_batch(items, seed)
        order = self.order_for(seed)
        return [settle(text, self._perturb(text, query_rng(seed, self.name, text), order)) for _, text in items]

    def describe(self, kind: str, how: str, word: str, new: str, first: str) -> str:
        return describe(kind, how, word, new, fallback_from="" if kind == first else first)

    def _perturb(self, text: str, rng: np.random.Generator, order: Optional[Sequence[str]] = None) -> Perturbation:
        spans = word_spans(text)
        words = [text[s:e] for s, e in spans]
        order = list(order) if order is not None else type_order(self.types, rng)  # no set order: a per-query type
        judged = judge(self.constraints, [Candidate(Edit(()), {"word": w, "group": k}) for k, w in enumerate(words)],
                       "target")
        targets, refused = [c.group for c in judged.passed], list(judged.refused)
        done = pick_misspelling(words, order, rng, lambda kind: self._reach(kind, words, targets), self._draw,
                                self.param("max_attempts"), self.constraints, refused)
        if done is None:
            return Perturbation(text, False, "", count_refusals(refused))
        kind, k, new, how = done
        s, e = spans[k]
        return Perturbation(text[:s] + new + text[e:], True, self.describe(kind, how, words[k], new, order[0]),
                            count_refusals(refused))
