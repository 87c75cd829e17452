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

import importlib.util
import json
import os
import string
import threading
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import has_digit, match_case, stopwords, stopwords_resource, word_spans, wordfreq_resource, zipf
from perturb.base import Generator, Perturbation, Resource, ResourceMissing, edit_type  # noqa: F401 (re-export)
from perturb.spec import Edit, Param, Spec, Veto

TYPES = ("typos", "ocr", "keyboard", "spelling")
NLPAUG_INSTALL = "pip install nlpaug==1.1.11"
_TABLE_FILES = {
    "ocr": ("char", "ocr", "en.json"),
    "keyboard": ("char", "keyboard", "en.json"),
    "spelling": ("word", "spelling", "spelling_en.txt"),
}


def nlpaug_res_dir() -> Optional[Path]:
    """nlpaug's resource folder (``$DRBENCH_NLPAUG_RES`` overrides), located without importing it."""
    env = os.environ.get("DRBENCH_NLPAUG_RES")
    if env:
        return Path(env)
    try:
        spec = importlib.util.find_spec("nlpaug")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "res"


def table_paths() -> Dict[str, Optional[Path]]:
    """The path of each nlpaug table file (``ocr``, ``keyboard``, ``spelling``; None without nlpaug)."""
    res = nlpaug_res_dir()
    return {name: res.joinpath(*parts) if res else None for name, parts in _TABLE_FILES.items()}


def table_resources() -> List[Resource]:
    """One :class:`Resource` per nlpaug table file (both protocols' MISSPELL read the three)."""
    out = []
    for name, path in table_paths().items():
        found = bool(path and path.is_file())
        out.append(Resource(f"nlpaug {'/'.join(_TABLE_FILES[name])}", found, where=str(path) if found else "",
                            install="" if found else NLPAUG_INSTALL))
    return out


def _bidirectional(mapping: Dict[str, List[str]]) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {k: list(v) for k, v in mapping.items()}
    for k, values in mapping.items():
        for v in values:
            out.setdefault(v, [])
            if k not in out[v]:
                out[v].append(k)
    return out


def _clean(mapping: Dict[str, List[str]], single_char: bool) -> Dict[str, Tuple[str, ...]]:
    """Sorted, de-duplicated values without the key itself, blanks or (if asked) multi-char values."""
    out = {}
    for k, values in mapping.items():
        vals = sorted({v for v in values if v and v != k and not any(c.isspace() for c in v)
                       and (not single_char or len(v) == 1)})
        if vals and k and not any(c.isspace() for c in k):
            out[k] = tuple(vals)
    return out


def load_ocr(path: Path) -> Dict[str, Tuple[str, ...]]:
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    return _clean(_bidirectional({k: list(v) for k, v in raw.items()}), single_char=True)


def load_keyboard(path: Path) -> Dict[str, Tuple[str, ...]]:
    """nlpaug's QWERTY table expanded as its ``Keyboard.get_model`` defaults do (upper case added)."""
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    result: Dict[str, List[str]] = {}
    for key, values in raw.items():
        if isinstance(values, str):  # the file has '%': '$'
            values = [values]
        result.setdefault(key, [])
        result.setdefault(key.upper(), [])
        for v in values:
            result[key] += [v, v.upper()]
            result[key.upper()] += [v, v.upper()]
    return _clean(result, single_char=True)


def load_spelling(path: Path) -> Dict[str, Tuple[str, ...]]:
    """``word miss1 miss2 ...`` lines (the shipped file is CRLF), made bidirectional."""
    mapping: Dict[str, List[str]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for line in fh:
            tokens = line.split()  # split() also drops the '\r'
            if len(tokens) < 2:
                continue
            mapping.setdefault(tokens[0], []).extend(tokens[1:])
    return _clean(_bidirectional(mapping), single_char=False)


_TABLES: Dict[str, Dict[str, Tuple[str, ...]]] = {}
_TABLE_LOCK = threading.Lock()


def tables() -> Dict[str, Dict[str, Tuple[str, ...]]]:
    """The three tables, loaded once per process."""
    if not _TABLES:
        with _TABLE_LOCK:
            if not _TABLES:
                loaders = {"ocr": load_ocr, "keyboard": load_keyboard, "spelling": load_spelling}
                loaded = {}
                for name, path in table_paths().items():
                    parts = _TABLE_FILES[name]
                    if path is None or not path.is_file():
                        raise ResourceMissing(
                            f"MISSPELL: nlpaug resource file {'/'.join(parts)} not found "
                            f"(install: {NLPAUG_INSTALL})"
                        )
                    loaded[name] = loaders[name](path)
                _TABLES.update(loaded)
    return _TABLES


def is_latin_word(word: str) -> bool:
    """Letters only, all of the Latin script (typos are not injected into CJK, Cyrillic, ...)."""
    return word.isalpha() and all(c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in word)


def edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count 1)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


# --------------------------------------------------------------------------- the operations
# Shared with --protocol rodr (perturb.rodr.paper.PaperMisspell): the draws are the transformation;
# what a generator allows (targets, same-case letters, real words) is decided around them.
def random_like(ch: str, rng: np.random.Generator, exclude: str = "") -> str:
    """A random character of the same kind as ``ch`` (digit, upper or lower letter), != exclude."""
    pool = string.digits if ch.isdigit() else string.ascii_uppercase if ch.isupper() else string.ascii_lowercase
    if exclude:
        pool = pool.replace(exclude, "")
    return pool[int(rng.integers(len(pool)))]


def typo(word: str, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
    """TextFlint's ``Typos``, one error (``skip_first_char``, ``skip_last_char``): insert, delete,
    substitute or swap (words of 4+ characters) at an interior position; an inserted or substituted
    character is of the kind of the one it goes before or replaces (:func:`random_like`).
    ``(new word, operation)``, or None when the edit leaves the word as it was (a swap of two equal
    letters). Needs a word of 3+ characters."""
    n = len(word)
    lo, hi = 1, n - 2  # interior characters only
    ops = ["insert", "delete", "substitute"] + (["swap"] if hi - lo >= 1 else [])
    op = ops[int(rng.integers(len(ops)))]
    chars = list(word)
    if op == "delete":
        i = int(rng.integers(lo, hi + 1))
        del chars[i]
    elif op == "substitute":
        i = int(rng.integers(lo, hi + 1))
        chars[i] = random_like(word[i], rng, exclude=word[i])
    elif op == "insert":
        i = int(rng.integers(lo, hi + 2))  # before an interior char or before the last char
        chars.insert(i, random_like(word[min(i, n - 1)], rng))
    else:
        i = int(rng.integers(lo, hi))  # swap i and i+1, both interior
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    new = "".join(chars)
    return (new, op) if new != word else None


CharOptions = List[Tuple[int, Tuple[str, ...]]]


def char_positions(word: str, table: Dict[str, Tuple[str, ...]],
                   keep: Optional[Callable[[str, Tuple[str, ...]], Sequence[str]]] = None) -> CharOptions:
    """``(position, replacements)`` for each character of ``word`` the OCR or keyboard ``table``
    lists; ``keep(char, replacements)`` narrows the replacements (a position left with none is
    dropped). Without ``keep``, every replacement of the table (TextFlint's)."""
    out = []
    for i, c in enumerate(word):
        if c in table:
            opts = table[c] if keep is None else tuple(keep(c, table[c]))
            if opts:
                out.append((i, opts))
    return out


def char_edit(word: str, positions: CharOptions, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
    """TextFlint's ``Ocr`` / ``Keyboard``, one error: a position uniform among ``positions``
    (:func:`char_positions`), then a replacement uniform among its options. ``(new word, "a->b")``,
    or None when no position has one."""
    if not positions:
        return None
    i, options = positions[int(rng.integers(len(positions)))]
    new_ch = options[int(rng.integers(len(options)))]
    return word[:i] + new_ch + word[i + 1:], f"{word[i]}->{new_ch}"


def table_misspellings(word: str, keep_case: bool = False) -> Tuple[str, ...]:
    """TextFlint's ``SpellingError`` candidates of ``word``: its entries in nlpaug's (bidirectional)
    spelling table, or those of the lower-cased word in ``word``'s case pattern, in table order.

    The table's entry of a capitalised word may list lower-case misspellings ("Many" -> "meny"); the
    paper protocol takes them as they are (``keep_case=False``). ``keep_case=True`` (the validated
    MISSPELL) puts every candidate in ``word``'s case pattern ("Many" -> "Meny"), duplicates dropped."""
    sp = tables()["spelling"]
    if word in sp and not keep_case:
        return sp[word]
    options = sp[word] if word in sp else sp.get(word.lower(), ())
    return tuple(dict.fromkeys(match_case(word, o) for o in options))


def table_edit(options: Sequence[str], rng: np.random.Generator) -> Optional[Tuple[str, str]]:
    """TextFlint's ``SpellingError``, one error: a misspelling uniform among ``options``
    (:func:`table_misspellings`, narrowed by the generator); ``(misspelling, "table")``, None without one."""
    return (options[int(rng.integers(len(options)))], "table") if options else None


def type_order(types: Sequence[str], rng: np.random.Generator) -> List[str]:
    """The order the error types are tried in: the first uniform, the others in a seeded order."""
    first = int(rng.integers(len(types)))
    rest = [t for k, t in enumerate(types) if k != first]
    return [types[first]] + [rest[k] for k in rng.permutation(len(rest))]


def pick_misspelling(words: Sequence[str], order: Sequence[str], rng: np.random.Generator,
                     candidates: Callable[[str], Sequence[int]],
                     apply: Callable[[str, str, np.random.Generator], Optional[Tuple[str, str]]],
                     max_attempts: int) -> Optional[Tuple[str, int, str, str]]:
    """The picker: for each type of ``order``, up to ``max_attempts`` draws of a target word
    (uniform among ``candidates(type)``, indices into ``words``), each given to
    ``apply(type, word, rng)`` (None: refused or no change, draw again). The first edit made, as
    ``(type, word index, new word, how)``, or None when no type gives one."""
    for kind in order:
        cands = candidates(kind)
        for _ in range(max_attempts if cands else 0):
            k = cands[int(rng.integers(len(cands)))]
            done = apply(kind, words[k], rng)
            if done is not None:
                return kind, k, done[0], done[1]
    return None


_SPELLING_CACHE: Dict[tuple, Tuple[str, ...]] = {}


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
    """Refuses a table misspelling of *another* word ("sharp" -> "shrply", of "sharply")."""

    name = "table edit distance"
    description = "a misspelling from nlpaug's table is close to the word it replaces"
    params = (Param("max_distance", int, 2, "the most edits between the word and its table misspelling",
                    key="table_max_edit_distance"),)

    def reason(self, edit, context=None):
        word, new = context["word"], edit.spans[0][2]
        too_far = edit_distance(new.lower(), word.lower()) > self.values["max_distance"]
        return f"{new!r} is {edit_distance(new.lower(), word.lower())} edits from {word!r}" if too_far else None


SPEC = Spec(
    name="MISSPELL", version=2, protocol="validated",
    transformation="one content word misspelt: a typo (insert, delete, substitute, swap), an OCR or keyboard "
                   "confusion, or a common misspelling from nlpaug's tables; the next type when one cannot apply",
    constraints=(RealWord(), TableDistance()),
    picker="type uniform, then target word uniform (query rng)",
    facts={"tables": "nlpaug==1.1.11 res (ocr/en.json, keyboard/en.json, spelling_en.txt), bidirectional",
           "errors_per_query": 1,
           "targets": "content words: letters only, no stop word (NLTK 179), no digit",
           "case": "kept (same-case replacement letters; table misspellings in the word's case pattern)"})


class Misspell(Generator):
    name = "MISSPELL"
    spec = SPEC
    max_attempts = 4  # draws per type before falling back to the next type (a drawn edit may be refused)

    def __init__(self, types: Sequence[str] = TYPES, keyboard_min_chars: int = 4, ocr_min_chars: int = 1,
                 typo_min_letters: int = 3, real_word_zipf: Optional[float] = None):
        unknown = [t for t in types if t not in TYPES]
        if unknown or not types:
            raise ValueError(f"unknown misspelling types {unknown}; choose from {TYPES}")
        self.types = tuple(types)
        self.keyboard_min_chars = int(keyboard_min_chars)
        self.ocr_min_chars = int(ocr_min_chars)
        self.typo_min_letters = int(typo_min_letters)
        self.real_word = self.spec.constraint("not a real word").with_values(max_zipf=real_word_zipf)
        self.table_distance = self.spec.constraint("table edit distance")

    real_word_zipf = property(lambda self: self.real_word.max_zipf)
    max_table_distance = property(lambda self: self.table_distance.max_distance)

    def config(self) -> dict:
        return self.spec.config(
            [self.real_word, self.table_distance], types=list(self.types),
            typos={"ops": ["insert", "delete", "substitute", "swap"], "min_letters": self.typo_min_letters,
                   "skip_first_char": True, "skip_last_char": True},
            keyboard_min_chars=self.keyboard_min_chars, ocr_min_chars=self.ocr_min_chars)

    def resources(self) -> List[Resource]:
        return table_resources() + [stopwords_resource(), wordfreq_resource()]

    # ------------------------------------------------------------------ the four error types
    _typos = staticmethod(typo)  # the one typo operation (both protocols)

    @staticmethod
    def _same_case(ch: str, options: Sequence[str], allow_digits: bool) -> Tuple[str, ...]:
        """Replacement characters of ``ch``'s case: letters of the same case (digits for OCR)."""
        out = []
        for o in options:
            if o.isalpha() and o.isupper() == ch.isupper() and o.lower() != ch.lower():
                out.append(o)
            elif allow_digits and o.isdigit():
                out.append(o)
        return tuple(out)

    def _char_options(self, kind: str, word: str) -> CharOptions:
        """The table's replacements of ``word``'s characters, narrowed to the same case (:meth:`_same_case`)."""
        return char_positions(word, tables()[kind],
                              keep=lambda c, opts: self._same_case(c, opts, allow_digits=(kind == "ocr")))

    def _char_table(self, kind: str, word: str, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
        return char_edit(word, self._char_options(kind, word), rng)

    def target_ok(self, word: str) -> bool:
        """A word a misspelling may be injected into: letters only, no stop word, no digit."""
        return bool(word) and is_latin_word(word) and not has_digit(word) and word.lower() not in stopwords()

    def is_real_word(self, word: str) -> bool:
        """A frequent English word (:class:`RealWord`): not a misspelling."""
        return self.real_word.is_real_word(word)

    def _spelling_options(self, word: str) -> Tuple[str, ...]:
        key = (word, self.real_word_zipf, self.max_table_distance)
        cached = _SPELLING_CACHE.get(key)
        if cached is None:
            cached = _SPELLING_CACHE[key] = self._compute_spelling_options(word)
        return cached

    def _compute_spelling_options(self, word: str) -> Tuple[str, ...]:
        out = []
        for new in table_misspellings(word, keep_case=True):  # match_case keeps letters letters
            if new.isalpha() and new.lower() != word.lower() and not self.is_real_word(new) and \
                    self.table_distance.check(Edit.replace(0, len(word), new), {"word": word}).passed:
                out.append(new)
        return tuple(out)

    def _candidates(self, kind: str, words: List[str]) -> List[int]:
        ok = [k for k, w in enumerate(words) if self.target_ok(w)]
        if kind == "typos":
            return [k for k in ok if len(words[k]) >= self.typo_min_letters]
        if kind in ("ocr", "keyboard"):
            least = self.ocr_min_chars if kind == "ocr" else self.keyboard_min_chars
            return [k for k in ok if len(words[k]) >= least and self._char_options(kind, words[k])]
        return [k for k in ok if self._spelling_options(words[k])]

    def _apply(self, kind: str, word: str, rng: np.random.Generator) -> Optional[Tuple[str, str]]:
        if kind == "typos":
            done = self._typos(word, rng)
        elif kind in ("ocr", "keyboard"):
            done = self._char_table(kind, word, rng)
        else:
            done = table_edit(self._spelling_options(word), rng)
        if done is None or done[0].lower() == word.lower() or self.is_real_word(done[0]):
            return None  # no change, a case-only change, or a real word: not a misspelling
        return done

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        spans = word_spans(text)
        if not spans:
            return Perturbation(text, False, "")
        words = [text[s:e] for s, e in spans]
        order = type_order(self.types, rng)
        done = pick_misspelling(words, order, rng, lambda kind: self._candidates(kind, words), self._apply,
                                self.max_attempts)
        if done is None:
            return Perturbation(text, False, "")
        kind, k, new, how = done
        s, e = spans[k]
        return Perturbation(text[:s] + new + text[e:], True,
                            describe(kind, how, words[k], new, fallback_from="" if kind == order[0] else order[0]))
