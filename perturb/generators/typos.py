"""The misspelling operations and nlpaug's tables, shared by MISSPELL of both protocols.

The draws (a typo, an OCR or keyboard confusion, a spelling-table entry, the type order and the
picker) are the transformation; what a generator allows (targets, same-case letters, real words)
is decided by the spec's constraints (:class:`perturb.generators.misspell.Misspell`, both protocols)."""
from __future__ import annotations

import json
import os
import string
import threading
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources.words import match_case, package_folders
from perturb.base import Resource, ResourceMissing
from perturb.engine import Candidate, Refusal, draw_passing
from perturb.spec import Constraint, Edit, Veto


TYPES = ("typos", "ocr", "keyboard", "spelling")
# the operations of a typo, in the order it draws them (a swap needs two interior characters)
TYPO_OPS = ("insert", "delete", "substitute", "swap")
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
    folders = package_folders("nlpaug")
    return folders[0] / "res" if folders else None


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


class CaseOnlyChange(Veto):
    """A misspelling must change more than case: a draw whose result equals the word up to case is
    refused (and drawn again). Both protocols' MISSPELL have it."""

    name = "more than case"
    description = "the misspelt word differs from the word beyond case"

    def refuses(self, word: str, new: str) -> bool:
        return new.lower() == word.lower()

    def reason(self, edit, context=None):
        word, new = context["word"], edit.spans[0][2]
        return f"{word!r}->{new!r} changes case only" if self.refuses(word, new) else None


CASE_ONLY = CaseOnlyChange()


# --------------------------------------------------------------------------- the operations
# Both protocols' MISSPELL: the draws are the transformation; what a generator allows (targets,
# same-case letters, real words) is its spec's constraints.
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
    ops = TYPO_OPS if hi - lo >= 1 else TYPO_OPS[:-1]
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
    """``word``'s entries in nlpaug's (bidirectional) spelling table, in table order.

    ``keep_case=False`` (the paper protocol): TextFlint's ``SpellingError``, the exact token's entries
    as they are ("Many" -> "meny"; a word the table lists only in another case has none).
    ``keep_case=True`` (the validated MISSPELL): the entries of the word, else of the lower-cased
    word, each in ``word``'s case pattern ("Many" -> "Meny"), duplicates dropped."""
    sp = tables()["spelling"]
    if not keep_case:
        return sp.get(word, ())
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
                     max_attempts: int, constraints: Sequence[Constraint] = (),
                     refused: Optional[List[Refusal]] = None) -> Optional[Tuple[str, int, str, str]]:
    """The picker: for each type of ``order``, up to ``max_attempts`` draws of a target word
    (uniform among ``candidates(type)``, indices into ``words``), each given to
    ``apply(type, word, rng)`` (None: no change, draw again) and its edit judged by the edit
    constraints of ``constraints`` (:func:`perturb.engine.draw_passing`: a refused edit is drawn
    again, its refusal added to ``refused``). The first edit that passes, as ``(type, word index,
    new word, how)``, or None when no type gives one."""
    for kind in order:
        cands = candidates(kind)
        if not cands:
            continue

        def draw(kind: str = kind, cands: Sequence[int] = cands) -> Optional[Candidate]:
            k = cands[int(rng.integers(len(cands)))]
            done = apply(kind, words[k], rng)
            return None if done is None else Candidate(
                Edit.replace(0, len(words[k]), done[0], kind=kind, detail=done[1]), {"word": words[k], "group": k})

        cand = draw_passing(constraints, draw, max_attempts, refused)
        if cand is not None:
            return kind, cand.group, cand.edit.spans[0][2], cand.edit.detail
    return None
