"""English paraphrase probabilities by pivoting through German (Bannard & Callison-Burch, ACL 2005),
from the FreeDict English-German and German-English dictd files (Debian ``dict-freedict-eng-deu``,
``dict-freedict-deu-eng``, both from the TU Chemnitz Ding dictionary), read directly with gzip.

    p(e2 | e1, pos) = sum_f p(f | e1, pos) * p(e2 | f, pos),    e2 != e1

``p(f | e1, pos)`` is uniform over e1's distinct German translations for that part of speech that
the German-English side has as headwords of it (sense order is not used: Ding orders a word's
entries alphabetically by German, not by frequency); ``p(e2 | f, pos)`` uniform over f's distinct
English translations, phrases included though only single words are returned, so a distribution
sums to at most 1. ``pos``: "n", "v", "a", "r" or None (any), from the markers (``<fem>``, ``<pl>``,
``<n>``: noun; ``<v, trans>``; ``<adj>``; ``<adv>``; an unmarked item takes its entry's). Unmarked
entries, nearly all inflected forms (``causes: verursacht``), are left out. Words are normalised:
English lower-cased, placeholders (``provide sth.``, ``etw. (für jdn.) bereitstellen``) and bracketed
notes dropped. An English entry whose headword is an inflection (lemminflect) of a word it points to
(``effects: Wirkungen <pl>, see: {effect}``) is a form entry: no source of p(f | e1), but the lemma
for :meth:`PivotTable.lemma_of` (then the word itself if a headword, then lemminflect's lemma, else
the word unchanged: the caller lemmatises) and for translations back (``Auswirkungen <pl>:
implications`` counts for ``implication``). The table is lemma to lemma; forms of e1 are never its
paraphrases. :func:`pivot_table` builds it once (about 10 s on a core) into one file under
``cache_home()/resources/`` named by the SHA-256 of the four files, :data:`FORMAT` and lemminflect's
version, written atomically: a JSON header line (with the payload's SHA-256, checked on reading:
a corrupt file is rebuilt with a warning) and a compact sorted JSON line (same files, same bytes;
no pickle). Reading takes ~0.3 s, a lookup microseconds. :func:`build_table` gives a few words'
table in seconds, in memory, with the full table's distributions for them.
"""
from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

from bench.core.io import atomic_write_bytes
from bench.core.paths import cache_home
from perturb.base import Resource
from perturb.resources.freedict import (ANY, DICT_DIR, POS, SINGLE_WORD, build_payload, dictionaries_resource,
                                        dictionaries_sha256, require)

FORMAT = 1  # of the cache file's content: raise it whenever what is built, or how, changes
_LOCK = threading.Lock()
_TABLES: Dict[Tuple[str, str], "PivotTable"] = {}  # (dictionary folder, cache home) -> table


def _dir(dict_dir=None) -> Path:
    """``dict_dir``, or this module's :data:`DICT_DIR` (which tests may point elsewhere)."""
    return Path(dict_dir) if dict_dir is not None else Path(DICT_DIR)


def pivot_sha256(dict_dir=None) -> str:
    """SHA-256 of the four dictionary files (a function of their bytes only)."""
    return dictionaries_sha256(_dir(dict_dir))


def pivot_resource(dict_dir=None) -> Resource:
    return dictionaries_resource(_dir(dict_dir))


def _header(dict_sha: str, body: bytes) -> dict:
    from importlib import metadata  # (lemminflect's version without importing it, which imports spaCy)

    try:
        infl = metadata.version("lemminflect")
    except metadata.PackageNotFoundError:  # then no form entries: another table, another key
        infl = "none"
    key = hashlib.sha256(f"{FORMAT}\0{dict_sha}\0lemminflect={infl}".encode("utf-8")).hexdigest()
    return {"format": FORMAT, "dictionaries_sha256": dict_sha, "lemminflect": infl, "cache_key": key,
            "payload_sha256": hashlib.sha256(body).hexdigest(), "what": "drbench perturb.resources.pivot table"}


def cache_path(dict_dir=None) -> Path:
    """The cache file of the table of the dictionaries in ``dict_dir``."""
    dict_sha = pivot_sha256(_dir(dict_dir))
    key = _header(dict_sha, b"")["cache_key"]
    return cache_home() / "resources" / f"freedict-pivot-v{FORMAT}-{dict_sha[:16]}-{key[:16]}.json"


def serialise(payload: dict, dict_sha: str) -> bytes:
    """The cache file's bytes: a JSON header line, then the compact JSON payload (sorted keys)."""
    body = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return json.dumps(_header(dict_sha, body), sort_keys=True, separators=(",", ":")).encode() + b"\n" + body + b"\n"


def _read_cache(path: Path, dict_sha: str) -> Optional[dict]:
    """A valid cache file's payload; None without a file; ValueError for a corrupt one."""
    try:
        head, sep, body = path.read_bytes().partition(b"\n")
    except FileNotFoundError:
        return None
    if not sep or not body.endswith(b"\n"):
        raise ValueError("truncated")
    try:
        header = json.loads(head)
    except ValueError as exc:
        raise ValueError(f"unreadable header ({exc})") from None
    want = _header(dict_sha, body[:-1])
    for key in ("format", "dictionaries_sha256", "cache_key", "payload_sha256"):
        if not isinstance(header, dict) or header.get(key) != want[key]:
            raise ValueError(f"{key} does not match")
    payload = json.loads(body)
    if not isinstance(payload, dict) or not all(isinstance(payload.get(k), dict) for k in ("e2f", "f2e", "forms")):
        raise ValueError("payload without its tables")
    return payload


def pivot_table(dict_dir=None) -> "PivotTable":
    """The full table: from the cache file, built and cached when there is none or it is corrupt
    (with a warning); :class:`ResourceMissing` without the files. Memoised per process by folder and
    cache home (a dictionary changed meanwhile is seen after :func:`clear_memory`)."""
    folder = _dir(dict_dir)
    memo_key = (str(folder), str(cache_home()))
    with _LOCK:
        if memo_key not in _TABLES:
            require(folder)
            dict_sha, path, payload = pivot_sha256(folder), cache_path(folder), None
            try:
                payload = _read_cache(path, dict_sha)
            except ValueError as exc:
                warnings.warn(f"pivot table cache {path} is corrupt ({exc}); rebuilding it", RuntimeWarning, 2)
            if payload is None:
                payload = build_payload(folder)
                try:
                    atomic_write_bytes(path, serialise(payload, dict_sha))
                except OSError as exc:  # a read-only cache home: the table stays in memory
                    warnings.warn(f"pivot table cache {path} not written ({exc})", RuntimeWarning, 2)
            _TABLES[memo_key] = PivotTable(payload, dict_sha=dict_sha, path=path)
        return _TABLES[memo_key]


def build_table(words=None, dict_dir=None) -> "PivotTable":
    """A table built now, in memory, never cached: of every headword, or of ``words`` only (seconds;
    the full table's distributions for them)."""
    return PivotTable(build_payload(_dir(dict_dir), words), dict_sha=pivot_sha256(_dir(dict_dir)))


def clear_memory() -> None:
    """Forget the tables read in this process (the cache files stay)."""
    with _LOCK:
        _TABLES.clear()


def _check_pos(pos: Optional[str]) -> str:
    if pos is not None and pos not in POS:
        raise ValueError(f"pos must be one of {', '.join(POS)} or None, not {pos!r}")
    return ANY if pos is None else pos


class PivotTable:
    """Paraphrase probabilities of English lemmas (lower-cased; :meth:`lemma_of` maps a form to its
    lemma), ``pos`` "n", "v", "a", "r" or None; see the module's documentation."""

    def __init__(self, payload: dict, dict_sha: str = "", path: Optional[Path] = None) -> None:
        self._packed = {name: payload[name] for name in ("e2f", "f2e", "forms")}
        self._unpacked: Dict[str, Dict[str, Dict[str, Tuple[str, ...]]]] = {name: {} for name in self._packed}
        self.stats: Dict[str, int] = payload.get("stats", {})
        self.words = frozenset(payload["words"]) if payload.get("words") is not None else None  # (build_table)
        self.dict_sha256, self.path = dict_sha, path
        self._dist: Dict[Tuple[str, str], Dict[str, float]] = {}
        self._e_memo: Dict[Tuple[str, str], Tuple[FrozenSet[str], int]] = {}
        self._get_lemma = None

    def _get(self, name: str, key: str) -> Dict[str, Tuple[str, ...]]:
        if key not in self._unpacked[name]:
            packed = self._packed[name].get(key)
            self._unpacked[name][key] = {p: tuple(ws.split("\t")) for p, _, ws in
                                         (line.partition("\t") for line in packed.split("\n"))} if packed else {}
        return self._unpacked[name][key]

    def _word(self, e1: str) -> str:
        if self.words is not None and e1.lower() not in self.words:
            raise ValueError(f"this table was built for {len(self.words)} words only, not {e1!r} (build_table)")
        return e1.lower()

    def _f_list(self, e1: str, pos: str) -> List[str]:
        """The German translations of ``e1`` that can pivot (German-English headwords for ``pos``)."""
        by_pos = self._get("e2f", e1)
        fs = sorted({f for p in by_pos for f in by_pos[p]}) if pos == ANY else by_pos.get(pos, ())
        return [f for f in fs if self._get("f2e", f) and (pos == ANY or pos in self._get("f2e", f))]

    def _e_of(self, f: str, pos: str) -> Tuple[FrozenSet[str], int]:
        """``(single-word English lemmas, number of distinct English translations)`` of ``f``."""
        if (f, pos) not in self._e_memo:
            by_pos = self._get("f2e", f)
            words = set(by_pos.get(pos, ())) if pos != ANY else {e for p in by_pos for e in by_pos[p]}
            self._e_memo[(f, pos)] = (frozenset(e for e in words if SINGLE_WORD.match(e)), len(words))
        return self._e_memo[(f, pos)]

    def distribution(self, e1: str, pos: Optional[str] = None) -> Dict[str, float]:
        """``{e2: p(e2 | e1, pos)}``; empty when ``e1`` is no headword for ``pos``."""
        key = (e1.lower(), _check_pos(pos))
        if key not in self._dist:
            e1l, p = self._word(e1), key[1]
            fs, acc = self._f_list(e1l, p), defaultdict(float)
            for f in fs:
                singles, total = self._e_of(f, p)
                for e2 in sorted(singles):
                    forms = self._get("forms", e2)
                    if e2 != e1l and not any(e1l in forms[q] for q in forms if p in (ANY, q)):
                        acc[e2] += 1.0 / (len(fs) * total)
            self._dist[key] = dict(acc)
        return dict(self._dist[key])

    def prob(self, e1: str, e2: str, pos: Optional[str] = None) -> float:
        """``p(e2 | e1, pos)``; 0.0 when the dictionaries do not link them."""
        key = (e1.lower(), _check_pos(pos))
        return (self._dist[key] if key in self._dist else self.distribution(e1, pos)).get(e2.lower(), 0.0)

    def paraphrases(self, e1: str, pos: Optional[str] = None, top: Optional[int] = None) -> List[Tuple[str, float]]:
        """``[(e2, p)]``, most probable first (ties alphabetically)."""
        return sorted(self.distribution(e1, pos).items(), key=lambda item: (-item[1], item[0]))[:top]

    def translations(self, e1: str, pos: Optional[str] = None) -> Tuple[str, ...]:
        """The German translations of ``e1`` for ``pos`` (also those that cannot pivot), sorted."""
        p, by_pos = _check_pos(pos), self._get("e2f", self._word(e1))
        return tuple(sorted({f for q in by_pos if p in (ANY, q) for f in by_pos[q]}))

    def shared_translations(self, e1: str, e2: str, pos: Optional[str] = None) -> Tuple[str, ...]:
        """The German words through which ``e2`` is a paraphrase of ``e1`` (translations of ``e1``
        translated back as ``e2``), sorted: the evidence of :meth:`prob`."""
        p = _check_pos(pos)
        return tuple(f for f in self._f_list(self._word(e1), p) if e2.lower() in self._e_of(f, p)[0])

    def __contains__(self, e1: object) -> bool:
        return isinstance(e1, str) and e1.lower() in self._packed["e2f"]

    def __len__(self) -> int:
        return len(self._packed["e2f"])

    def forms_of(self, word: str) -> Dict[str, FrozenSet[str]]:
        """``{pos: lemmas}`` the dictionary's form entries give ``word``."""
        return {p: frozenset(ls) for p, ls in self._get("forms", word.lower()).items()}

    def _headword(self, word: str, pos: str) -> bool:
        by_pos = self._get("e2f", word)
        return bool(by_pos) and (pos == ANY or pos in by_pos)

    def lemma_of(self, word: str, pos: Optional[str] = None) -> str:
        """The table's lemma of ``word`` (lower-cased): by its form entries (a headword first), else
        ``word`` when a headword (``data``, ``glasses`` stay), else lemminflect's lemma when that is
        one (``went``: ``go``), else ``word`` (the caller lemmatises)."""
        p, w = _check_pos(pos), word.lower().strip()
        forms = self._get("forms", w)
        lemmas = sorted({lem for q in forms if p in (ANY, q) for lem in forms[q]})
        if lemmas:
            return ([lem for lem in lemmas if self._headword(lem, p)] or lemmas)[0]
        if self._headword(w, p):
            return w
        if self._get_lemma is None:
            try:
                from lemminflect import getLemma
            except ImportError:
                getLemma = False
            self._get_lemma = getLemma
        for upos in {"n": ["NOUN"], "v": ["VERB"], "a": ["ADJ"], "r": ["ADV"]}.get(p, ["NOUN", "VERB", "ADJ", "ADV"]):
            for lem in (self._get_lemma(w, upos=upos, lemmatize_oov=False) if self._get_lemma else ()):
                if lem.lower() != w and self._headword(lem.lower(), p):
                    return lem.lower()
        return w


def translations(e1: str, pos: Optional[str] = None) -> Tuple[str, ...]:
    return pivot_table().translations(e1, pos)


def shared_translations(e1: str, e2: str, pos: Optional[str] = None) -> Tuple[str, ...]:
    return pivot_table().shared_translations(e1, e2, pos)


def lemma_of(word: str, pos: Optional[str] = None) -> str:
    return pivot_table().lemma_of(word, pos)
