"""Reading the FreeDict English-German and German-English dictd files (Debian
``dict-freedict-eng-deu``, ``dict-freedict-deu-eng``) with gzip, and building the translation tables
of :mod:`perturb.resources.pivot` from them (see that module for the model and the cache)."""
from __future__ import annotations

import gc
import gzip
import hashlib
import os
import re
import threading
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Set, Tuple

from perturb.base import Resource, ResourceMissing
from perturb.resources.memo import Memo
from perturb.resources.words import PENN_WORDNET, WORDNET_POS

DICT_DIR = Path("/usr/share/dictd")  # where Debian puts the dictd files (tests point elsewhere)
ENG_DEU, DEU_ENG = "freedict-eng-deu", "freedict-deu-eng"
FILES = (f"{ENG_DEU}.index", f"{ENG_DEU}.dict.dz", f"{DEU_ENG}.index", f"{DEU_ENG}.dict.dz")
INSTALL = "apt-get install -y dict-freedict-eng-deu dict-freedict-deu-eng"
NAME = "FreeDict English-German / German-English (Ding 1.9) dictd files"
POS = WORDNET_POS  # the coarse parts of speech of an entry: WordNet's letters
ANY = "*"  # "any part of speech" in lookups (never stored)

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_MARK_POS = {"n": "n", "masc": "n", "fem": "n", "neut": "n", "v": "v", "adj": "a", "adv": "r",
             "prep": "x", "conj": "x", "int": "x", "pron": "x", "num": "x", "art": "x"}  # x: other
_NUMBER = {"pl", "sg", "sg only"}  # a noun's number, unless a pronoun's, numeral's, article's
# Ding's object placeholders, always with their dot (sb. sth. sb.'s sb./sth. etw. jdm. jdn./etw.)
_PLACEHOLDER = re.compile(r"^(?:(?:sb|sth|etw|jd|jdm|jdn|jds|jdr)\.(?:'s)?/?)+$")
_LOOSE_PLACEHOLDER = re.compile(r"^(?:sbs?|sths?|etw|jd[mnsr]?)+$")  # in index keys (letters, digits)
_NOT_KEY = re.compile(r"[^\w ]|_")
SINGLE_WORD = re.compile(r"^[^\W\d_]+(?:['-][^\W\d_]+)*$")
_MARKER = re.compile(r"<([^<>]*)>")
_GROUPS = (("[", re.compile(r"\[[^\[\]]*\]")), ("(", re.compile(r"\([^()]*\)")), ("{", re.compile(r"\{[^{}]*\}")))
_STRAY = re.compile(r"[\[\]()]")
_REF = re.compile(r"\{([^{}]*)\}")
_ITEM = re.compile(r"(?:[^,(\[{<]+|\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|[(\[{<])+")  # top-level commas
_NOTE = "         Note:"

_LOCK = threading.Lock()
_SHA_MEMO: Dict[tuple, str] = {}
_MARKS_MEMO: Dict[str, FrozenSet[str]] = Memo()
_TAIL_MEMO: Dict[str, Tuple[FrozenSet[str], bool]] = Memo()


def folder_of(dict_dir=None) -> Path:
    return Path(dict_dir) if dict_dir is not None else Path(DICT_DIR)


def require(folder: Path) -> None:
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        raise ResourceMissing(f"{NAME}: {', '.join(missing)} not found in {folder}. Install: {INSTALL}")


def dictionaries_sha256(dict_dir=None) -> str:
    """SHA-256 (hex) of the four dictionary files (names, sizes, bytes, in :data:`FILES` order), a
    function of the files only; memoised per process by file identity (size, mtime, inode)."""
    folder = folder_of(dict_dir)
    require(folder)
    stats = [(name, os.stat(folder / name)) for name in FILES]
    memo = tuple((str(folder / name), st.st_size, st.st_mtime_ns, st.st_ino) for name, st in stats)
    if memo not in _SHA_MEMO:
        h = hashlib.sha256()
        for name, st in stats:
            h.update(name.encode("utf-8") + b"\0" + st.st_size.to_bytes(8, "little"))
            with open(folder / name, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        _SHA_MEMO[memo] = h.hexdigest()
    return _SHA_MEMO[memo]


def dictionaries_resource(dict_dir=None) -> Resource:
    """The dictionary files, for `bench doctor`."""
    folder, note = folder_of(dict_dir), "paraphrases by pivoting through German; table cached in cache_home()/resources/"
    try:
        require(folder)
    except ResourceMissing as exc:
        return Resource(NAME, False, install=INSTALL, note=f"{exc}; {note}")
    return Resource(NAME, True, where=str(folder), note=note)


def _loose(key: str) -> str:
    """An index key (only letters, digits, spaces) less its placeholders (``provide sth``: ``provide``)."""
    return " ".join(t for t in key.split() if not _LOOSE_PLACEHOLDER.match(t))


def _one_word(key: str) -> bool:
    return " " not in key or " " not in _loose(key)


def _marker_pos(inner: str) -> FrozenSet[str]:
    """The coarse parts of speech of one marker's text (``v, trans``); memoised."""
    got = _MARKS_MEMO.get(inner)
    if got is None:
        tokens = [t.strip() for t in inner.split(",") if t.strip()]
        mapped = {_MARK_POS[t] for t in tokens if t in _MARK_POS}
        number = {"n"} if "x" not in mapped and _NUMBER & set(tokens) else set()
        got = _MARKS_MEMO[inner] = frozenset(mapped | number)
    return got


def _marks(text: str) -> FrozenSet[str]:
    """The coarse parts of speech of the markers in ``text`` (``<fem>``, ``<v, trans>``, ``<pron, pl>``)."""
    inners = _MARKER.findall(text)
    if len(inners) == 1:  # (the common case: one marker)
        return _marker_pos(inners[0])
    return frozenset(p for inner in inners for p in _marker_pos(inner))


def _clean(text: str, lower: bool) -> str:
    """A headword or translation without markers, bracketed notes, placeholders; "" for a prefix
    (``Schnell…``) or a pronunciation."""
    if "<" in text:
        text = _MARKER.sub(" ", text)
    if "[" in text or "(" in text or "{" in text:
        for _ in range(3):  # three rounds: a group inside another of its kind goes in a later one
            for opener, group in _GROUPS:
                if opener in text:  # (a group starts with its opener)
                    text = group.sub(" ", text)
        text = _STRAY.sub(" ", text)
    if "…" in text or "..." in text or text.lstrip().startswith("/"):
        return ""
    tokens = text.split()
    if "." in text:
        tokens = [t for t in tokens if "." not in t or not _PLACEHOLDER.match(t.lower())]
    out = " ".join(tokens).strip(" ,;:")
    return out.lower() if lower else out


def _memo_clean(text: str, lower: bool, memo: dict) -> str:
    """:func:`_clean` through ``memo`` (headwords and references recur; one ``memo`` per ``lower``)."""
    got = memo.get(text)
    if got is None:
        got = memo[text] = _clean(text, lower)
    return got


def _items(line: str, lower: bool, memo: dict) -> List[Tuple[str, str]]:
    """``[(translation, its own parts of speech)]`` on ``line``, the parts of speech as a string of
    their letters (``memo``: raw items recur; string pairs, which the garbage collector skips)."""
    out = []
    for raw in _ITEM.findall(line):
        got = memo.get(raw)
        if got is None:
            pos = _marks(raw) if "<" in raw else ()
            got = memo[raw] = (_clean(raw, lower), "".join(sorted(pos)) if len(pos) > 1 else "".join(pos))
        if got[0]:
            out.append(got)
    return out


def _tail_marks(tail: str) -> Tuple[FrozenSet[str], bool]:
    """``(parts of speech, plural entry)`` of the markers after a headword's pronunciation (a few
    hundred distinct tails: memoised)."""
    got = _TAIL_MEMO.get(tail)
    if got is None:
        plural = any("pl" in t and "n" not in t
                     for t in ({s.strip() for s in i.split(",")} for i in _MARKER.findall(tail)))
        got = _TAIL_MEMO[tail] = (_marks(tail), plural)
    return got


def _parse(text: str, lower: bool, memo: dict, with_refs: bool = True):
    """``(headword as printed, entry pos, [(translation, own pos)], references, plural entry)``
    (references ``[]`` unless ``with_refs``)."""
    lines = text.split("\n")
    head, _, tail = lines[0].partition(" /")
    tail_pos, plural = _tail_marks(tail[tail.rfind("/") + 1:])  # the markers after the pronunciation(s)
    entry_pos = set(tail_pos)
    trans = _items(lines[1], lower, memo) if len(lines) > 1 else []
    for line in lines[2:]:  # translations going on in a note ("Note: in Zusammensetzungen, Wirkung <fem>")
        if not line.startswith(_NOTE):
            break
        if "<" in line:
            trans.extend(_items(",".join(_ITEM.findall(line[len(_NOTE):])[1:]), lower, memo))
    refs = [r for line in lines[2:] if line.startswith(("   Synonym", " see:")) for r in _REF.findall(line)] \
        if with_refs and "{" in text else []
    for item in trans:
        entry_pos.update(item[1])
    return head, entry_pos, trans, refs, plural


def _decode(digits: str) -> int:
    n = 0
    for c in digits:  # base 64, most significant digit first
        n = n * 64 + _B64[c]
    return n


class _Dictd:
    """One dictd dictionary: the index read on each pass, the data decompressed once."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name, self._data = folder, name, None

    def entries(self, keep_key=None, keep_head=None) -> Iterator[str]:
        """The entries whose index key passes ``keep_key`` and whose printed headword ``keep_head``,
        in file order, each once (an entry can have several keys)."""
        spans = set()  # offset << 64 | length (< 2**64): one int per entry, ints sort faster than pairs
        with open(self.folder / f"{self.name}.index", encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and not parts[0].startswith("00database") and (not keep_key or keep_key(parts[0])):
                    spans.add(_decode(parts[1]) << 64 | _decode(parts[2]))
        if self._data is None:
            with gzip.open(self.folder / f"{self.name}.dict.dz", "rb") as fh:
                self._data = fh.read()
        data, mask = self._data, (1 << 64) - 1
        for span in sorted(spans):
            start = span >> 64
            end = start + (span & mask)
            if keep_head is not None:
                stop = data.find(b"\n", start, end)
                stop = end if stop == -1 else stop
                cut = data.find(b" /", start, stop)
                if not keep_head(data[start:stop if cut == -1 else cut].decode("utf-8", "replace")):
                    continue
            yield data[start:end].decode("utf-8", errors="replace")


class _Builder:
    """What the dictionaries say, gathered entry by entry (so a pass over some headwords gives them
    what the full pass gives)."""

    def __init__(self) -> None:
        try:
            from lemminflect import getAllInflections, getLemma
        except ImportError:
            getAllInflections = getLemma = None
        self._all_infl, self._get_lemma, self._infl = getAllInflections, getLemma, {}
        self.e2f: Dict[str, Dict[str, Set[str]]] = defaultdict(lambda: defaultdict(set))
        self.forms: Dict[str, Dict[str, Set[str]]] = defaultdict(lambda: defaultdict(set))
        self.stats: Dict[str, int] = defaultdict(int)
        self._memo_de, self._memo_en, self._words, self._as_form = {}, {}, {}, {}

    def inflections(self, lemma: str) -> Dict[str, Tuple[str, ...]]:
        if lemma not in self._infl:  # lexicon only (lemminflect's guesses for unknown words: slow, loose)
            self._infl[lemma] = dict(self._all_infl(lemma)) if self._all_infl else {}
        return self._infl[lemma]

    def read_english(self, eng: _Dictd, keep_key) -> None:
        """Lemma entries into ``e2f``, form entries into ``forms``. (Index keys choose, so the few
        headwords one word only without their words in parentheses, ``light (up) sth.``, are out.)"""
        for text in eng.entries(keep_key=keep_key):
            printed, entry_pos, trans, refs, _ = _parse(text, False, self._memo_de)
            head = self._word_of(printed)
            if not head:
                continue
            self.stats["eng_entries"] += 1
            form_of = self._form_of(head, entry_pos, refs) if refs else None
            if form_of:
                self.stats["eng_form_entries"] += 1
                for p, lemmas in form_of.items():
                    self.forms[head][p] |= lemmas
            elif not entry_pos:
                self.stats["eng_unmarked_entries"] += 1
            elif trans:
                by_pos = self.e2f[head]
                for f, own in trans:
                    for p in (own or entry_pos):
                        by_pos[p].add(f)

    def _form_of(self, head: str, entry_pos: Set[str], refs: List[str]) -> Dict[str, Set[str]]:
        """``{pos: lemmas}`` among the words ``head``'s entry points to of which it is an inflection
        (lemminflect; ``effects``: ``see: {effect}``), for the entry's parts of speech; empty for a lemma."""
        near = (r for r in refs if r[:1].lower() == head[0] and (" " not in r or "." in r and r.count(" ") < 3))
        form_of: Dict[str, Set[str]] = defaultdict(set)
        targets = {t for t in map(self._word_of, near) if t and t != head}
        for target in sorted(targets):
            tag_pos = self._pos_as_form(target).get(head, frozenset())
            for p in (tag_pos & entry_pos if entry_pos else tag_pos):
                form_of[p].add(target)
        return form_of

    def _word_of(self, printed: str) -> str:
        """A headword or reference cleaned and lower-cased when one word (:data:`SINGLE_WORD`), else ""
        (memoised: they recur)."""
        got = self._words.get(printed)
        if got is None:
            got = _clean(printed, True)
            got = self._words[printed] = got if SINGLE_WORD.match(got) else ""
        return got

    def _pos_as_form(self, lemma: str) -> Dict[str, FrozenSet[str]]:
        """``{inflection: the parts of speech in which it is one of lemma's}`` (lemminflect; memoised)."""
        got = self._as_form.get(lemma)
        if got is None:
            by_form: Dict[str, Set[str]] = defaultdict(set)
            for tag, forms in self.inflections(lemma).items():
                if tag[:2] in PENN_WORDNET:
                    for form in forms:
                        by_form[form].add(PENN_WORDNET[tag[:2]])
            got = self._as_form[lemma] = {form: frozenset(pos) for form, pos in by_form.items()}
        return got

    def read_german(self, deu: _Dictd, needed: Set[str]) -> Dict[str, Set[Tuple[str, str, bool]]]:
        """``{f: {(English translation, pos, unmarked in a plural entry)}}`` of the German ``needed``,
        chosen by headword (index keys keep words in parentheses: ``jdn. (an einem Ort) antreffen``)."""
        raw: Dict[str, Set[Tuple[str, str, bool]]] = defaultdict(set)
        heads: Dict[str, str] = {}  # headword as printed -> cleaned

        def keep_head(printed: str) -> bool:
            return _memo_clean(printed, False, heads) in needed

        for text in deu.entries(keep_head=keep_head):
            printed, entry_pos, trans, _, plural = _parse(text, True, self._memo_en, with_refs=False)
            self.stats["deu_entries"] += 1
            self.stats["deu_unmarked_entries" if not entry_pos else "deu_plural_entries"] += not entry_pos or plural
            if entry_pos and trans:
                got = raw[_memo_clean(printed, False, heads)]
                for e, own in trans:
                    for p in (own or entry_pos):
                        got.add((e, p, plural and not own and p == "n"))
        return raw

    def lemma(self, word: str, p: str, plural_form: bool) -> str:
        """An English translation as a lemma: by form entries unless a headword itself; an unmarked
        plural noun of a German plural entry always (its last word: form entries, lemminflect, endings)."""
        if not plural_form:
            listed = self.forms.get(word, {}).get(p) if p not in self.e2f.get(word, ()) else None
            return sorted(listed)[0] if listed and SINGLE_WORD.match(word) else word
        *first, last = word.split(" ")
        if "n" in self.forms.get(last, ()):
            return " ".join(first + [sorted(self.forms[last]["n"])[0]])
        for lemma in self._get_lemma(last, upos="NOUN", lemmatize_oov=False) if self._all_infl and last else ():
            if lemma != last and last in self.inflections(lemma).get("NNS", ()):
                return " ".join(first + [lemma])
        if self._all_infl and not self.inflections(last) and last.endswith("s") and not last.endswith("ss"):
            for ending, repl in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x"), ("s", "")):
                if last.endswith(ending) and len(last) > len(ending) + 2:  # an unknown word's regular plural
                    return " ".join(first + [last[: -len(ending)] + repl])
        return word


def _pack(by_pos) -> str:
    """``{pos: words}`` as ``pos<TAB>word<TAB>...`` lines, sorted (strings load far faster than lists)."""
    return "\n".join(p + "\t" + "\t".join(sorted(words)) for p, words in sorted(by_pos.items()) if words)


@contextmanager
def _collector_paused():
    """The cyclic garbage collector off meanwhile (as it was after): a build keeps about a million
    containers and makes no reference cycles, so the collector's full passes over them would only
    cost time (over a second of a full build)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def build_payload(dict_dir=None, words=None) -> dict:
    """The table (seconds), JSON-ready, :func:`_pack` per key: ``e2f`` (English lemma -> German per
    pos; ``x``: other parts of speech), ``f2e`` (German -> English lemmas and phrases), ``forms``
    (English form -> lemmas), ``stats``. ``words``: these English headwords only (list a form,
    ``effects``, for its form entry), with what the full table gives them (then in the payload)."""
    folder = folder_of(dict_dir)
    require(folder)
    with _collector_paused():
        return _build(folder, words)


def _build(folder: Path, words) -> dict:
    """:func:`build_payload` of the dictionaries in ``folder``."""
    eng, deu, built = _Dictd(folder, ENG_DEU), _Dictd(folder, DEU_ENG), _Builder()
    only = None if words is None else {_loose(_NOT_KEY.sub("", w.lower())) for w in words}
    built.read_english(eng, _one_word if only is None else lambda key: _one_word(key) and _loose(key) in only)
    heads = set(built.e2f)
    raw = built.read_german(deu, {f for by_pos in built.e2f.values() for fs in by_pos.values() for f in fs})
    if only is not None:  # the English entries of the words translated back, for their lemmas
        seen = {_loose(_NOT_KEY.sub("", e.split(" ")[-1])) for items in raw.values() for e, _, _ in items} - only
        built.read_english(eng, lambda key: _one_word(key) and _loose(key) in seen)
    f2e: Dict[str, Dict[str, Set[str]]] = defaultdict(lambda: defaultdict(set))
    lemmas: Dict[Tuple[str, str, bool], str] = {}  # (built.lemma is a function of the item once the reading is done)
    for f, items in raw.items():
        by_pos = f2e[f]
        for item in items:
            lemma = lemmas.get(item)
            if lemma is None:
                lemma = lemmas[item] = built.lemma(*item)
            by_pos[item[1]].add(lemma)
    payload = {"e2f": {e: _pack(by_pos) for e, by_pos in built.e2f.items() if e in heads},
               "f2e": {f: _pack(by_pos) for f, by_pos in f2e.items()},
               "forms": {w: _pack(by_pos) for w, by_pos in built.forms.items()}, "stats": dict(built.stats)}
    if words is not None:
        payload["words"] = sorted({w.lower() for w in words})
    return payload
