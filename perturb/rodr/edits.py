"""``--protocol rodr``'s MISSPELL, EXTRAPUNC, NOSTOPWORD and SWAPWORDS: each the validated
generator's transformation with the paper's spec (TextFlint's constraints, the paper's parameters
and picker); what each runs is in docs/methods.md ("The paper protocol")."""
from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

from perturb.base import Resource, ResourceMissing
from perturb.engine import every
from perturb.spec import Param
from perturb.generators.misspell import Misspell
from perturb.generators.punctuation import PARAMS as PUNCTUATION_PARAMS, ExtraPunc
from perturb.generators.stopwords import WORDS_LEFT, NoStopword
from perturb.generators.swapwords.generator import RandomSwapWords
from perturb.generators.typos import CASE_ONLY, TYPES, TYPO_OPS, table_paths, table_resources
from perturb.rodr.protocol import STOPWORD_SKIP, file_sha256, rodr_spec

MISSPELL_SPEC = rodr_spec(
    "MISSPELL", "TextFlint Typos/Ocr/Keyboard/SpellingError: one error in one random word, one type per set",
    version=3,  # 3: TextFlint's stop list, no keyboard minimum, exact-token spelling look-ups
    transformation="one error in one word: a typo (typos.typo), an OCR or keyboard confusion with every "
                   "replacement of nlpaug's table (typos.char_positions without a filter, typos.char_edit), "
                   "or a spelling-table entry (typos.table_misspellings, typos.table_edit); the validated "
                   "MISSPELL's operations",
    picker="one type for the whole set, uniform (seeded by the run seed), as the RoDR authors' script draws it; "
           "a query it cannot change tries ocr, keyboard, spelling, typos in that order; target word uniform among "
           "the words the type applies to, up to 4 draws per type (typos.pick_misspelling)",
    constraints=(STOPWORD_SKIP, CASE_ONLY),
    params=(Param("types", str, ",".join(TYPES), "the error types drawn from, comma-separated"),
            Param("max_attempts", int, 4, "target draws per error type before the next type"),
            Param("typo_min_letters", int, 3, "the shortest word a typo edits (an interior character is needed)"),
            Param("keyboard_min_chars", int, 1, "the shortest word a keyboard error edits"),
            Param("ocr_min_chars", int, 1, "the shortest word an OCR error edits"),
            Param("keep_case", bool, False, "False: the spelling table's entries of the exact token, as they are"),
            Param("set_fallback", str, "ocr,keyboard,spelling,typos", "the RoDR authors' order after the set's type")),
    tables="nlpaug res ocr/en.json, keyboard/en.json, spelling_en.txt (bidirectional, looked up by the exact token)",
    errors_per_query=1, targets="any word not skipped by TextFlint's WordSubstitute (its stop list as written, "
                                "punctuation); keyboard errors on words of any length",
    fallback="ocr, keyboard, spelling, typos (the authors' order)")


class PaperMisspell(Misspell):
    """One TextFlint misspelling in one random word: the validated MISSPELL's draws, targets as
    TextFlint's ``WordSubstitute`` skips them, every replacement of nlpaug's tables, one type per set."""

    spec = MISSPELL_SPEC

    def __init__(self, types: Optional[Sequence[str]] = None, typo_min_chars: Optional[int] = None):
        super().__init__(types, typo_min_letters=typo_min_chars)

    def config(self) -> dict:
        paths = list(table_paths().values())
        if not all(p is not None and p.is_file() for p in paths):
            raise ResourceMissing("MISSPELL: nlpaug resource files not found (install: pip install nlpaug==1.1.11)")
        return self.spec.config(
            types=list(self.types), tables_sha256=file_sha256(paths),
            typos={"ops": list(TYPO_OPS), "min_chars": self.param("typo_min_letters"),
                   "skip_first_char": True, "skip_last_char": True})

    def resources(self) -> List[Resource]:
        return table_resources()

    def describe(self, kind: str, how: str, word: str, new: str, first: str) -> str:
        return f"{kind}: {how} {word!r}->{new!r}" + ("" if kind == first else f" (fallback from {first})")


class PaperExtraPunc(ExtraPunc):
    """``k`` copies (``k`` uniform in 1..3) of one mark (uniform over ``, . ? !``) appended: the
    validated EXTRAPUNC without its constraint (a blank query is left as it is either way)."""

    spec = rodr_spec(
        "EXTRAPUNC", "1-3 identical marks appended",
        transformation="k copies of one mark appended after the last non-space character "
                       "(punctuation.append_marks, the validated EXTRAPUNC's operation)",
        picker="mark uniform over the marks, k uniform in 1..max_repeat (words.draw_marks, query rng)",
        params=PUNCTUATION_PARAMS + (Param("label", str, "appended:", "the detail's first word"),), position="end")


class PaperSwapWords(RandomSwapWords):
    """TextAttack ``WordInnerSwapRandom``: the validated random mode's swap on TextAttack's words
    (a dotted abbreviation split at its dots)."""

    spec = rodr_spec(
        "SWAPWORDS", "TextAttack WordInnerSwapRandom",
        transformation="two words exchange places (swapwords.generator.random_swap, the validated SWAPWORDS' random "
                       "mode) on TextAttack words (words.word_spans: dotted abbreviations split at their dots)",
        picker="uniform i, uniform j != i; identical words redrawn among the pairs of differing words "
               "(words.draw_word_pair)",
        params=(Param("abbreviations", bool, False, "a dotted abbreviation is one word"),
                Param("label", str, "swapped:", "the detail's first word")),
        words="textattack-words", pairs="uniform i, uniform j != i; identical words redrawn")


class PaperNoStopword(NoStopword):
    """Every TextAttack word (``and/or`` is two) that is an NLTK stop word as written (``What``
    stays, ``what`` goes) cut out, whitespace collapsed; never every word of the query."""

    spec = replace(rodr_spec(
        "NOSTOPWORD", "remove NLTK stop words",
        transformation="every TextAttack word (words.word_spans) that is an NLTK stop word as written (case-sensitive, "
                       "as the RoDR authors' `w not in stop_words`) cut out, whitespace collapsed",
        picker="deterministic (every stop word)", version=2,  # 2: case-sensitive match
        constraints=(WORDS_LEFT,), params=(Param("as_written", bool, True, "TextAttack words matched as written and "
                                                                         "cut out in place"),),
        stopwords="nltk-english-179", match="the word as written"), choose=every)
