"""``--protocol rodr``: the paper's own, unconstrained operations (RoDR, IJCAI 2022, Sec. 2.1).

The default generators (``perturb/generators/misspell.py`` ...) are *validated* versions of RoDR's eight sets:
they refuse an edit that would change the information need. Users who compare with the paper's
tables need the operations as TextFlint / TextAttack define them, without those constraints. This
module (and :mod:`perturb.rodr.paper_swap` for the two synonym swaps) holds them, registered in
``perturb.PAPER_GENERATORS`` under the same set names so tables line up. Every ``config()``
records ``"protocol": "rodr"``, so a rodr set never has a validated set's fingerprint and a gate
never compares the two. Each class is written on its own (it does not subclass the validated
generator), so a change to a validated generator never changes what this protocol does.

Operations (the deviations from the paper are named in ``docs/methods.md`` ("The paper protocol")):

* MISSPELL: one TextFlint error of a uniformly drawn type (typos, OCR, keyboard, spelling table;
  nlpaug 1.1.11's tables) in one random word, any word (stop words, numbers, real-word results
  and case changes of other letters all allowed); a type that cannot change the query falls back
  to the others in a seeded order.
* EXTRAPUNC: 1-3 identical marks of ``, . ? !`` appended.
* BACKTRANS: an unchecked round trip English -> pivot -> English (Marian German when its weights
  are on disk, else Apertium Spanish); only apertium's unknown-word marks are removed.
* TRANSTENSE: one random verb (any VB* tag) flipped past <-> present by lemminflect, OOV rules
  allowed, no agreement or auxiliary handling (TextFlint's word-level tense swap).
* NOSTOPWORD: every NLTK stop word removed, as a word (also inside ``and/or``, ``(it)``).
* SWAPWORDS: two random words swap places (TextAttack ``WordInnerSwapRandom``).
"""
from __future__ import annotations

import hashlib
import re
import string
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.resources import parsing
from perturb.resources.words import (collapse_spaces, draw_marks, draw_word_pair, match_case, stopwords, stopwords_resource,
                           word_spans)
from perturb.base import Generator, Perturbation, Resource, ResourceMissing, settle

PROTOCOL = "rodr"
MISSPELL_TYPES = ("typos", "ocr", "keyboard", "spelling")
_MARKED = re.compile(r"(?<![\w*#@])[*#@](\w[\w'-]*)")
NLPAUG_FILES = (("char", "ocr", "en.json"), ("char", "keyboard", "en.json"), ("word", "spelling", "spelling_en.txt"))


def strip_marks(text: str) -> str:
    """Apertium's unknown / untranslated / not-generated marks removed (``*xyzzy`` -> ``xyzzy``)."""
    return _MARKED.sub(lambda m: m.group(1), text)


def rodr_config(operation: str, **settings) -> dict:
    """A paper-protocol config: ``protocol`` and the operation named first, then the settings."""
    return {"protocol": PROTOCOL, "operation": operation, **settings}


def file_sha256(paths) -> str:
    """SHA-256 (16 hex) over the named files' bytes: a config names its resource by content."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------- MISSPELL
def _random_char(ch: str, rng: np.random.Generator, exclude: str = "") -> str:
    pool = string.digits if ch.isdigit() else string.ascii_uppercase if ch.isupper() else string.ascii_lowercase
    pool = pool.replace(exclude, "") if exclude else pool
    return pool[int(rng.integers(len(pool)))]


class PaperMisspell(Generator):
    """One TextFlint misspelling in one random word, unconstrained.

    ``typos``: insert / delete / substitute / swap one interior character (TextFlint's
    ``skip_first_char`` and ``skip_last_char``), words of 3+ characters; ``ocr``: one character
    replaced by an nlpaug OCR confusion (bidirectional); ``keyboard``: one character of a word of
    4+ characters replaced by a QWERTY neighbour from nlpaug's table (digits, specials and the
    other case included, as TextFlint); ``spelling``: the word replaced by a misspelling from
    nlpaug's table (both directions). Any word is a target: stop words, numbers, a result that
    is a real word. A draw whose result equals the word up to case is redrawn (at most 4 times),
    then the other types are tried in a seeded order.
    """

    name = "MISSPELL"
    max_attempts = 4

    def __init__(self, types: Sequence[str] = MISSPELL_TYPES, keyboard_min_chars: int = 4, typo_min_chars: int = 3):
        unknown = [t for t in types if t not in MISSPELL_TYPES]
        if unknown or not types:
            raise ValueError(f"unknown misspelling types {unknown}; choose from {MISSPELL_TYPES}")
        self.types = tuple(types)
        self.keyboard_min_chars = int(keyboard_min_chars)
        self.typo_min_chars = int(typo_min_chars)
        self._spelling: Dict[str, Tuple[str, ...]] = {}

    def _table_paths(self):
        from perturb.generators.misspell import nlpaug_res_dir

        res = nlpaug_res_dir()
        return [res.joinpath(*parts) if res else None for parts in NLPAUG_FILES]

    def config(self) -> dict:
        paths = self._table_paths()
        if not all(p is not None and p.is_file() for p in paths):
            raise ResourceMissing("MISSPELL: nlpaug resource files not found (install: pip install nlpaug==1.1.11)")
        return rodr_config(
            "TextFlint Typos/Ocr/Keyboard/SpellingError: one error in one random word, type uniform",
            types=list(self.types), tables="nlpaug res ocr/en.json, keyboard/en.json, spelling_en.txt (bidirectional)",
            tables_sha256=file_sha256(paths), typos={"ops": ["insert", "delete", "substitute", "swap"],
                                                     "min_chars": self.typo_min_chars, "skip_first_char": True,
                                                     "skip_last_char": True},
            keyboard_min_chars=self.keyboard_min_chars, errors_per_query=1, targets="any word",
            fallback="other types in a seeded order")

    def resources(self) -> List[Resource]:
        out = []
        for parts, path in zip(NLPAUG_FILES, self._table_paths()):
            found = bool(path and path.is_file())
            out.append(Resource(f"nlpaug {'/'.join(parts)}", found, where=str(path) if found else "",
                                install="" if found else "pip install nlpaug==1.1.11"))
        return out

    @staticmethod
    def _tables():
        from perturb.generators.misspell import tables

        return tables()

    def spelling_options(self, word: str) -> Tuple[str, ...]:
        if word not in self._spelling:
            sp = self._tables()["spelling"]
            if word in sp:
                opts = sp[word]
            else:
                opts = tuple(match_case(word, o) for o in sp.get(word.lower(), ()))
            self._spelling[word] = tuple(o for o in opts if o.lower() != word.lower())
        return self._spelling[word]

    def _applicable(self, kind: str, word: str) -> bool:
        if kind == "typos":
            return len(word) >= self.typo_min_chars
        if kind == "spelling":
            return bool(self.spelling_options(word))
        if kind == "keyboard" and len(word) < self.keyboard_min_chars:
            return False
        table = self._tables()[kind]
        return any(c in table for c in word)

    def _edit(self, kind: str, word: str, rng: np.random.Generator) -> Tuple[str, str]:
        if kind == "spelling":
            opts = self.spelling_options(word)
            return opts[int(rng.integers(len(opts)))], "table"
        if kind in ("ocr", "keyboard"):
            table = self._tables()[kind]
            positions = [i for i, c in enumerate(word) if c in table]
            i = positions[int(rng.integers(len(positions)))]
            opts = table[word[i]]
            new = opts[int(rng.integers(len(opts)))]
            return word[:i] + new + word[i + 1:], f"{word[i]}->{new}"
        n = len(word)
        ops = ["insert", "delete", "substitute"] + (["swap"] if n >= 4 else [])
        op = ops[int(rng.integers(len(ops)))]
        chars = list(word)
        if op == "swap":
            i = int(rng.integers(1, n - 2))
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == "insert":
            i = int(rng.integers(1, n))
            chars.insert(i, _random_char(word[i], rng))
        else:
            i = int(rng.integers(1, n - 1))
            if op == "delete":
                del chars[i]
            else:
                chars[i] = _random_char(word[i], rng, exclude=word[i])
        return "".join(chars), op

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        spans = word_spans(text)
        words = [text[s:e] for s, e in spans]
        first = int(rng.integers(len(self.types)))
        rest = [t for k, t in enumerate(self.types) if k != first]
        order = [self.types[first]] + [rest[k] for k in rng.permutation(len(rest))]
        for kind in order:
            cands = [k for k, w in enumerate(words) if self._applicable(kind, w)]
            for _ in range(self.max_attempts if cands else 0):
                k = cands[int(rng.integers(len(cands)))]
                new, how = self._edit(kind, words[k], rng)
                if new.lower() != words[k].lower():
                    s, e = spans[k]
                    fallback = "" if kind == order[0] else f" (fallback from {order[0]})"
                    return Perturbation(text[:s] + new + text[e:], True, f"{kind}: {how} {words[k]!r}->{new!r}{fallback}")
        return Perturbation(text, False, "")


# --------------------------------------------------------------------------- EXTRAPUNC, SWAPWORDS, NOSTOPWORD
class PaperExtraPunc(Generator):
    """``k`` copies (``k`` uniform in 1..3) of one mark (uniform over ``, . ? !``) appended."""

    name = "EXTRAPUNC"
    marks = (",", ".", "?", "!")
    max_repeat = 3

    def config(self) -> dict:
        return rodr_config("1-3 identical marks appended", marks="".join(self.marks), max_repeat=self.max_repeat,
                           position="end")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        base = text.rstrip()
        if not base:
            return Perturbation(text, False, "")
        marks = draw_marks(self.marks, self.max_repeat, rng)
        return Perturbation(base + marks, True, f"appended: {marks!r}")


class PaperSwapWords(Generator):
    """TextAttack ``WordInnerSwapRandom``: word ``i`` uniform, ``j != i`` uniform, the two swap places
    (punctuation stays); a pair of identical words is redrawn among the pairs of differing words."""

    name = "SWAPWORDS"

    def config(self) -> dict:
        return rodr_config("TextAttack WordInnerSwapRandom", words="textattack-words",
                           pairs="uniform i, uniform j != i; identical words redrawn")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        spans = word_spans(text)
        words = [text[s:e] for s, e in spans]
        pair = draw_word_pair(words, rng)
        if pair is None:
            return Perturbation(text, False, "")
        a, b = pair
        (sa, ea), (sb, eb) = spans[a], spans[b]
        out = text[:sa] + words[b] + text[ea:sb] + words[a] + text[eb:]
        return Perturbation(out, True, f"swapped: #{a} {words[a]!r} <-> #{b} {words[b]!r}")


class PaperNoStopword(Generator):
    """Every word (TextAttack words: ``and/or`` is two) whose lower-cased form is an NLTK stop word
    removed, whitespace collapsed. Not applied when no word would remain (an empty query cannot
    be searched)."""

    name = "NOSTOPWORD"

    def config(self) -> dict:
        return rodr_config("remove NLTK stop words", stopwords="nltk-english-179", match="lower-cased word")

    def resources(self) -> List[Resource]:
        return [stopwords_resource()]

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        stops = stopwords()
        spans = word_spans(text)
        gone = [(s, e) for s, e in spans if text[s:e].lower() in stops]
        if not gone or len(gone) == len(spans):
            return Perturbation(text, False, "")
        pieces, last = [], 0
        for s, e in gone:
            pieces.append(text[last:s])
            last = e
        pieces.append(text[last:])
        words = [text[s:e] for s, e in gone]
        return Perturbation(collapse_spaces("".join(pieces)), True, f"removed {len(words)}: " + " ".join(words))


# --------------------------------------------------------------------------- TRANSTENSE
VERB_TAGS = ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")


class PaperTransTense(parsing.SpacyGenerator, Generator):
    """One random verb (spaCy tag VB*, POS VERB or AUX) flipped: past forms (VBD, VBN) to the
    present (VBZ), the others (VB, VBG, VBP, VBZ) to the past (VBD), by lemminflect's
    ``getInflection`` of the spaCy lemma (out-of-vocabulary rules allowed). No agreement, no
    auxiliary: the verb alone changes, as a word-level tense swap does. Verbs whose flipped form is
    the same word are skipped (the next verb in a seeded order is tried)."""

    name = "TRANSTENSE"

    def config(self) -> dict:
        from importlib import metadata

        try:
            lem = metadata.version("lemminflect")
        except metadata.PackageNotFoundError:
            lem = "missing"
        return rodr_config("TextFlint-style tense swap of one random verb", pos_model=parsing.model_name() or "missing",
                           inflector=f"lemminflect=={lem} getInflection (OOV rules allowed)",
                           verbs=list(VERB_TAGS), flip="VBD/VBN -> VBZ; VB/VBG/VBP/VBZ -> VBD",
                           agreement="none")

    def resources(self) -> List[Resource]:
        return [*parsing.resources(), parsing.lemminflect_resource()]

    def _perturb_doc(self, doc, text: str, rng: np.random.Generator) -> Perturbation:
        import lemminflect

        verbs = [t for t in doc if t.tag_ in VERB_TAGS and t.pos_ in ("VERB", "AUX") and t.text.isalpha()]
        for k in rng.permutation(len(verbs)).tolist():
            tok = verbs[k]
            word = parsing.original(tok, text)
            target = "VBZ" if tok.tag_ in ("VBD", "VBN") else "VBD"
            forms = lemminflect.getInflection(tok.lemma_.lower() or word.lower(), tag=target)
            if not forms or forms[0].lower() == word.lower():
                continue
            new = match_case(word, forms[0])
            how = "past->present" if target == "VBZ" else "present->past"
            return Perturbation(text[:tok.idx] + new + text[tok.idx + len(word):], True,
                                f"{how}: {tok.tag_} {word!r}->{new!r}")
        return Perturbation(text, False, "")


# --------------------------------------------------------------------------- BACKTRANS
class PaperBackTranslate(Generator):
    """English -> pivot -> English, unchecked: whatever the translator returns (apertium's
    ``*``/``@``/``#`` unknown-word marks removed, whitespace collapsed). ``backend``: "marian"
    (German, the paper's pivot), "apertium" (Spanish) or None (Marian when its weights are on
    disk, else Apertium). A query apertium cannot translate as it would alone (its tagger state
    depends on the batch: :class:`perturb.resources.translators.ApertiumTranslator`) is left unchanged."""

    name = "BACKTRANS"

    def __init__(self, backend: Optional[str] = None):
        from perturb.resources.translators import ApertiumTranslator, MarianTranslator

        if backend not in (None, "marian", "apertium"):
            raise ValueError(f"unknown back-translation backend {backend!r}; choose marian or apertium")
        marian = MarianTranslator() if backend in (None, "marian") else None
        if backend == "apertium" or (backend is None and not marian.available()):
            self.translator = ApertiumTranslator()
        else:
            self.translator = marian

    @property
    def label(self) -> str:
        return f"{self.name}[{self.translator.pivot},{self.translator.backend}]"

    def config(self) -> dict:
        cfg = rodr_config("round trip through a pivot language, unchecked", source="eng", **self.translator.config(),
                          whitespace="collapsed", case="as translated")
        if self.translator.marks:
            cfg["unknown_marks"] = "removed from the output (nothing is refused)"
        return cfg

    def resources(self) -> List[Resource]:
        return self.translator.resources()

    def round_trip(self, texts: Sequence[str]) -> List[Tuple[str, Optional[str]]]:
        """(pivot text, back-translation or None when it could not be made alone) per text."""
        send = [i for i, t in enumerate(texts) if t.strip()]
        mid = self.translator.to_pivot([texts[i] for i in send]) if send else []
        if self.translator.marks:
            mid = [None if m is None else strip_marks(m) for m in mid]
        ok = [k for k, m in enumerate(mid) if m is not None]
        back = dict(zip(ok, self.translator.from_pivot([mid[k] for k in ok]) if ok else []))
        out: List[Tuple[str, Optional[str]]] = [("", None)] * len(texts)
        for k, i in enumerate(send):
            b = back.get(k)
            if b is not None and self.translator.marks:
                b = strip_marks(b)
            out[i] = (mid[k] or "", None if b is None else collapse_spaces(b))
        return out

    def _result(self, text: str, mid: str, back: Optional[str]) -> Perturbation:
        if back is None or not back.strip():
            return Perturbation(text, False, "")
        return Perturbation(back, True, f"via {self.translator.pivot} ({self.translator.backend}): {mid!r}")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        (mid, back), = self.round_trip([text])
        return self._result(text, mid, back)

    def perturb_batch(self, items, seed):
        texts = [t for _, t in items]
        return [settle(t, self._result(t, m, b)) for t, (m, b) in zip(texts, self.round_trip(texts))]
