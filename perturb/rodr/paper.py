"""``--protocol rodr``: RoDR's operations (IJCAI 2022, Sec. 2.1) as TextFlint / TextAttack define them, each a
:class:`perturb.spec.Spec` of protocol ``rodr`` naming a transformation (the validated generators' own where the
operation is shared; a change to it changes both protocols and bumps both specs' versions) with TextFlint's
constraints and picker. What each does and where it departs from the paper: docs/methods.md, "The paper protocol"."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import collapse_spaces, stopwords, stopwords_resource, word_spans
from bench.core.seeding import rng_for
from perturb.base import Generator, Perturbation, Resource, ResourceMissing, query_rng, settle
from perturb.engine import Candidate, first_refusal, judge
from perturb.spec import Edit, Param
from perturb.generators.backtrans.generator import RoundTrip
from perturb.generators.tense import WordTenseSwap
from perturb.generators.typos import (CASE_ONLY, TYPO_OPS, TYPES, char_edit, char_positions, pick_misspelling, table_edit,
                                      table_misspellings, table_paths, table_resources, tables, type_order, typo)
from perturb.generators.punctuation import PARAMS as PUNCTUATION_PARAMS, append_marks
from perturb.generators.swapwords.generator import random_swap_perturbation
from perturb.rodr.protocol import STOPWORD_SKIP, file_sha256, rodr_spec

MISSPELL_TYPES = TYPES


# --------------------------------------------------------------------------- MISSPELL
# the order the RoDR authors' query_variation_generation.py tries the types in when the set's type
# cannot change a query
FALLBACK_ORDER = ("ocr", "keyboard", "spelling", "typos")

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
    params=(Param("max_attempts", int, 4, "target draws per error type before the next type"),
            Param("typo_min_chars", int, 3, "the shortest word a typo edits (an interior character is needed)")),
    tables="nlpaug res ocr/en.json, keyboard/en.json, spelling_en.txt (bidirectional, looked up by the exact token)",
    errors_per_query=1, targets="any word not skipped by TextFlint's WordSubstitute (its stop list as written, "
                                "punctuation); keyboard errors on words of any length",
    fallback="ocr, keyboard, spelling, typos (the authors' order)")


class PaperMisspell(Generator):
    """One TextFlint misspelling in one random word, unconstrained.

    ``typos``: insert / delete / substitute / swap one interior character (TextFlint's
    ``skip_first_char`` and ``skip_last_char``), words of 3+ characters; ``ocr``: one character
    replaced by an nlpaug OCR confusion (bidirectional); ``keyboard``: one character of a word of
    any length replaced by a QWERTY neighbour from nlpaug's table (digits, specials and the other
    case included, as TextFlint); ``spelling``: the word replaced by a misspelling that nlpaug's
    table lists for the exact token (both directions). Targets: as TextFlint's ``WordSubstitute``
    skip (:data:`STOPWORD_SKIP`), any word but one of TextFlint's 55 stop words as written (``The``
    and ``the`` are skipped, ``THE`` is not) or punctuation; numbers and results that are real
    words are allowed. One type is drawn for the
    whole set from the run seed (the RoDR authors' script draws one per set); a query it cannot
    change tries ocr, keyboard, spelling and typos in that order (theirs). A draw whose result
    equals the word up to case is redrawn (at most 4 times).

    The operations, the type order and the picker are the validated MISSPELL's
    (:mod:`perturb.generators.misspell`); what the validated generator adds is left out: its
    target rule (content words only), its same-case narrowing of the OCR and keyboard
    replacements, and its constraints (not a real word, table edit distance).
    """

    name = "MISSPELL"
    spec = MISSPELL_SPEC

    def __init__(self, types: Sequence[str] = MISSPELL_TYPES, typo_min_chars: Optional[int] = None):
        unknown = [t for t in types if t not in MISSPELL_TYPES]
        if unknown or not types:
            raise ValueError(f"unknown misspelling types {unknown}; choose from {MISSPELL_TYPES}")
        self.types = tuple(types)
        values = self.spec.param_values(typo_min_chars=typo_min_chars)
        self.typo_min_chars, self.max_attempts = values["typo_min_chars"], values["max_attempts"]
        self._spelling: Dict[str, Tuple[str, ...]] = {}

    def config(self) -> dict:
        paths = list(table_paths().values())
        if not all(p is not None and p.is_file() for p in paths):
            raise ResourceMissing("MISSPELL: nlpaug resource files not found (install: pip install nlpaug==1.1.11)")
        return self.spec.config(
            types=list(self.types), tables_sha256=file_sha256(paths),
            typos={"ops": list(TYPO_OPS), "min_chars": self.typo_min_chars,
                   "skip_first_char": True, "skip_last_char": True})

    def resources(self) -> List[Resource]:
        return table_resources()

    def spelling_options(self, word: str) -> Tuple[str, ...]:
        if word not in self._spelling:
            self._spelling[word] = tuple(o for o in table_misspellings(word) if o.lower() != word.lower())
        return self._spelling[word]

    def set_type(self, seed: int) -> str:
        """The set's one error type: uniform over ``types``, from the run seed."""
        return self.types[int(rng_for(seed, self.name, "set type").integers(len(self.types)))]

    def order_for(self, seed: int) -> List[str]:
        first = self.set_type(seed)
        return [first] + [t for t in FALLBACK_ORDER if t != first and t in self.types]

    def perturb_batch(self, items, seed: int) -> List[Perturbation]:
        order = self.order_for(seed)
        return [settle(text, self._perturb(text, query_rng(seed, self.name, text), order)) for _, text in items]

    def _applicable(self, kind: str, word: str) -> bool:
        """Whether the error type ``kind`` can edit ``word`` at all (the transformation's reach)."""
        if kind == "typos":
            return len(word) >= self.typo_min_chars
        if kind == "spelling":
            return bool(self.spelling_options(word))
        return bool(char_positions(word, tables()[kind]))

    def _apply(self, kind: str, word: str, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
        if kind == "spelling":
            done = table_edit(self.spelling_options(word), rng)
        elif kind in ("ocr", "keyboard"):
            done = char_edit(word, char_positions(word, tables()[kind]), rng)
        else:
            done = typo(word, rng)
        if done is None:
            return None
        edit = Candidate(Edit.replace(0, len(word), done[0]), {"word": word})
        return None if first_refusal(self.spec.constraints, edit) else done  # the spec's edit constraints

    def _perturb(self, text: str, rng: np.random.Generator, order: Optional[Sequence[str]] = None) -> Perturbation:
        spans = word_spans(text)
        words = [text[s:e] for s, e in spans]
        order = list(order) if order is not None else type_order(self.types, rng)  # no set: a per-query type
        targets = [c.group for c in judge(self.spec.constraints, [Candidate(Edit(()), {"word": w, "group": k})
                                                                   for k, w in enumerate(words)], "target").passed]
        done = pick_misspelling(words, order, rng, lambda kind: [k for k in targets if self._applicable(kind, words[k])],
                                self._apply, self.max_attempts)
        if done is None:
            return Perturbation(text, False, "")
        kind, k, new, how = done
        s, e = spans[k]
        fallback = "" if kind == order[0] else f" (fallback from {order[0]})"
        return Perturbation(text[:s] + new + text[e:], True, f"{kind}: {how} {words[k]!r}->{new!r}{fallback}")


# --------------------------------------------------------------------------- EXTRAPUNC, SWAPWORDS, NOSTOPWORD
EXTRAPUNC_SPEC = rodr_spec(
    "EXTRAPUNC", "1-3 identical marks appended",
    transformation="k copies of one mark appended after the last non-space character "
                   "(punctuation.append_marks, the validated EXTRAPUNC's operation)",
    picker="mark uniform over the marks, k uniform in 1..max_repeat (words.draw_marks, query rng)",
    params=PUNCTUATION_PARAMS,
    position="end")


class PaperExtraPunc(Generator):
    """``k`` copies (``k`` uniform in 1..3) of one mark (uniform over ``, . ? !``) appended.

    The validated EXTRAPUNC's operation (:func:`perturb.generators.punctuation.append_marks`);
    neither protocol has a constraint here, the two differ in the detail text only."""

    name = "EXTRAPUNC"
    spec = EXTRAPUNC_SPEC

    def __init__(self):
        values = self.spec.param_values()
        self.marks, self.max_repeat = tuple(values["marks"]), values["max_repeat"]

    def config(self) -> dict:
        return self.spec.config(marks="".join(self.marks), max_repeat=self.max_repeat)

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        done = append_marks(text, self.marks, self.max_repeat, rng)
        if done is None:
            return Perturbation(text, False, "")
        out, marks = done
        return Perturbation(out, True, f"appended: {marks!r}")


SWAPWORDS_SPEC = rodr_spec(
    "SWAPWORDS", "TextAttack WordInnerSwapRandom",
    transformation="two words exchange places (swapwords.generator.random_swap, the validated SWAPWORDS' random "
                   "mode) on TextAttack words (words.word_spans: dotted abbreviations split at their dots)",
    picker="uniform i, uniform j != i; identical words redrawn among the pairs of differing words "
           "(words.draw_word_pair)",
    words="textattack-words", pairs="uniform i, uniform j != i; identical words redrawn")


class PaperSwapWords(Generator):
    """TextAttack ``WordInnerSwapRandom``: word ``i`` uniform, ``j != i`` uniform, the two swap places
    (punctuation stays); a pair of identical words is redrawn among the pairs of differing words.

    The operation of ``SwapWords(mode="random")``
    (:func:`perturb.generators.swapwords.generator.random_swap`), on TextAttack's words: the
    random mode keeps a dotted abbreviation ("i.e.", "U.S.") one word, the paper's tokenizer
    splits it, so the two draw over different word lists and the paper's spans stay its own."""

    name = "SWAPWORDS"
    spec = SWAPWORDS_SPEC

    def config(self) -> dict:
        return self.spec.config()

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        return random_swap_perturbation(text, word_spans(text), rng, label="swapped:")


NOSTOPWORD_SPEC = rodr_spec(
    "NOSTOPWORD", "remove NLTK stop words",
    transformation="every TextAttack word (words.word_spans) that is an NLTK stop word as written (case-sensitive, "
                   "as the RoDR authors' `w not in stop_words`) cut out, whitespace collapsed",
    picker="deterministic (every stop word)", version=2,  # 2: case-sensitive match
    stopwords="nltk-english-179", match="the word as written")


class PaperNoStopword(Generator):
    """Every word (TextAttack words: ``and/or`` is two) that is an NLTK stop word as written removed
    (case-sensitive, as the RoDR authors' script: ``What`` stays, ``what`` goes), whitespace collapsed. Not applied when no word would remain (an empty query cannot
    be searched).

    Not the validated NOSTOPWORD's code (:mod:`perturb.generators.stopwords`) with its kept words
    left out: the two tokenize differently. The validated one removes whole whitespace tokens
    (punctuation around them kept, "and/or" and "(i.e.," never cut), takes the whitespace before
    a removed word along and tidies orphaned punctuation; the paper cuts TextAttack words out
    wherever they are ("heat and/or (it) flow" -> "heat / () flow"). Sharing the removal would
    change one protocol's output, so each keeps its own; both read the one stop-word list
    (:func:`perturb.resources.words.stopwords`) and :func:`~perturb.resources.words.collapse_spaces`."""

    name = "NOSTOPWORD"
    spec = NOSTOPWORD_SPEC

    def config(self) -> dict:
        return self.spec.config()

    def resources(self) -> List[Resource]:
        return [stopwords_resource()]

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        stops = stopwords()
        spans = word_spans(text)
        gone = [(s, e) for s, e in spans if text[s:e] in stops]
        if not gone or len(gone) == len(spans):
            return Perturbation(text, False, "")
        pieces, last = [], 0
        for s, e in gone:
            pieces.append(text[last:s])
            last = e
        pieces.append(text[last:])
        words = [text[s:e] for s, e in gone]
        return Perturbation(collapse_spaces("".join(pieces)), True, f"removed {len(words)}: " + " ".join(words))


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
