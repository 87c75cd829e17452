"""Small text helpers shared by the generators: word spans, case transfer, stop words.

Nothing here imports a heavy library; the stop-word list is read once, on first use.
"""
from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import FrozenSet, List, Optional, Tuple

from perturb.base import Resource
from perturb.resources.memo import Memo

Span = Tuple[int, int]

# A "word" for the word-level generators (SWAPWORDS, NOSTOPWORD, ...): a run of word characters
# that may carry inner apostrophes, hyphens, asterisks and at signs, as TextAttack's
# ``words_from_text`` keeps them (they may not begin or end the word).
_WORD_CHUNK = re.compile(r"[\w'\-*@]+")
_EDGE = "'-_*@"


def word_spans(text: str) -> List[Span]:
    """Character spans of the words of ``text`` (TextAttack-style words, punctuation excluded)."""
    spans: List[Span] = []
    for m in _WORD_CHUNK.finditer(text):
        start, end = m.start(), m.end()
        while start < end and text[start] in _EDGE:
            start += 1
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        if start < end:
            spans.append((start, end))
    return spans


def match_case(template: str, word: str) -> str:
    """``word`` with the capitalisation pattern of ``template`` (lower, Title or UPPER)."""
    if not template or not word:
        return word
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[0].isupper():
        return word[:1].upper() + word[1:]
    if template.islower():
        return word.lower()
    return word


# The indefinite article follows the sound of the next word: a vowel letter -> "an", except a
# "you"/"w" sound (uni-, use, eu-, one); a silent h -> "an" (hour, honest, honour, heir).
_A_BEFORE_VOWEL = ("uni", "use", "usu", "uti", "ubiq", "ura", "uri", "uro", "eu", "ewe", "one", "once")
_AN_BEFORE_H = ("hour", "honest", "honou", "honor", "heir")
_ARTICLE_BEFORE = re.compile(r"(?:(?<=[^\w'-])|^)(a|an)(\s+)$", re.IGNORECASE)


def indefinite_article(word: str) -> str:
    """"a" or "an" before ``word`` (lower case; by its first letters, see the rule above)."""
    low = word.lower()
    if low.startswith(_AN_BEFORE_H):
        return "an"
    if low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(_A_BEFORE_VOWEL):
        return "an"
    return "a"


def with_article(text: str, start: int, end: int, new: str) -> str:
    """``text`` with ``text[start:end]`` replaced by ``new`` and an "a"/"an" right before it made to
    follow the new word's sound, in the original article's case ("A" in an ALL-CAPS query -> "AN")."""
    head = text[:start]
    m = _ARTICLE_BEFORE.search(head)
    if m:
        old = m.group(1)
        art = indefinite_article(new)
        if art != old.lower():
            if old.isupper() and (len(old) > 1 or case_style(text) == "upper"):
                art = art.upper()
            elif old[:1].isupper():
                art = art.capitalize()
            head = head[: m.start(1)] + art + m.group(2)
    return head + new + text[end:]


def is_number(word: str) -> bool:
    w = word.replace(",", "").replace(".", "", 1).lstrip("+-")
    return bool(w) and w.isdigit()


# --------------------------------------------------------------------------- stop words
_STOP_LOCK = threading.Lock()
_STOPWORDS: Optional[FrozenSet[str]] = None
_STOP_WHERE = ""
NLTK_STOPWORDS_SIZE = 179
STOPWORDS_INSTALL = "pip install bm25s"


def _find_stopwords() -> Tuple[Optional[FrozenSet[str]], str]:
    """NLTK's English stop-word list (179 words), from bm25s or an installed NLTK data package."""
    try:
        import bm25s.stopwords as bs  # a small numpy-only package that ships NLTK's list

        words = frozenset(w.lower() for w in bs.STOPWORDS_EN_PLUS)
        if len(words) == NLTK_STOPWORDS_SIZE:
            return words, "bm25s.stopwords.STOPWORDS_EN_PLUS (NLTK English list)"
    except Exception:  # noqa: BLE001 - any failure means "not here"
        pass
    try:  # an NLTK data folder the user installed (never downloaded here)
        import nltk.data

        path = nltk.data.find("corpora/stopwords/english")
        with open(path, encoding="utf-8") as fh:
            words = frozenset(line.strip().lower() for line in fh if line.strip())
        if len(words) == NLTK_STOPWORDS_SIZE:
            return words, str(path)
    except Exception:  # noqa: BLE001
        pass
    return None, ""


def stopwords() -> FrozenSet[str]:
    """The stop-word set; raises ResourceMissing when it cannot be found."""
    global _STOPWORDS, _STOP_WHERE
    if _STOPWORDS is None:
        with _STOP_LOCK:
            if _STOPWORDS is None:
                words, where = _find_stopwords()
                if words is None:
                    from perturb.base import ResourceMissing

                    raise ResourceMissing(
                        f"NLTK's 179-word English stop-word list not found (install: {STOPWORDS_INSTALL})"
                    )
                _STOPWORDS, _STOP_WHERE = words, where
    return _STOPWORDS


def stopwords_resource() -> Resource:
    try:
        stopwords()
    except Exception:  # noqa: BLE001
        return Resource("NLTK English stop words (179)", False, install=STOPWORDS_INSTALL)
    return Resource("NLTK English stop words (179)", True, where=_STOP_WHERE)


def package_folders(module: str) -> List[Path]:
    """The folders of an installed package, found without importing it (empty when it is not installed)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def module_resource(name: str, module: str, install: str, note: str = "") -> Resource:
    """A Resource for an importable module, found without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return Resource(name, False, install=install, note=note)
    where = spec.origin or (list(spec.submodule_search_locations or [""])[0])
    return Resource(name, True, where=str(where), note=note)


# --------------------------------------------------------------------------- whitespace
def collapse_spaces(text: str) -> str:
    """Runs of whitespace collapsed to one space, ends stripped."""
    return " ".join(text.split())


# --------------------------------------------------------------------------- case styles
def case_style(text: str) -> str:
    """The query's case style: "upper" (ALL-CAPS), "lower", "title" (Every Word Capitalised) or "mixed".

    Only words with at least two cased letters decide upper vs title ("A", "I" are neutral).
    """
    words = [w for w in text.split() if any(c.isalpha() for c in w)]
    letters = [c for c in text if c.isalpha() and (c.isupper() or c.islower())]
    if not letters:
        return "mixed"
    if all(c.islower() for c in letters):
        return "lower"
    long_words = [w for w in words if sum(c.isalpha() for c in w) >= 2]
    if long_words and all(c.isupper() for c in letters):
        return "upper"
    firsts = [next(c for c in w if c.isalpha()) for w in words]
    if len(words) >= 2 and all(f.isupper() for f in firsts) and not all(c.isupper() for c in letters):
        return "title"
    return "mixed"


def apply_case_style(text: str, style: str) -> str:
    """``text`` in ``style`` (see :func:`case_style`); "mixed" leaves it as it is."""
    if style == "upper":
        return text.upper()
    if style == "lower":
        return text.lower()
    if style == "title":
        return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
    return text


_SENTENCE_END = re.compile(r"[.?!:]\s+$")


def _first_word(text: str) -> Optional[re.Match]:
    return re.search(r"[^\W\d_][\w'’-]*", text)


def starts_capitalised(text: str) -> bool:
    """``text`` is in sentence case: mixed case (:func:`case_style`) and its first word begins with a
    capital ("Robots are stupid", "What is AI?"). An edit before or of that word must leave the
    query's new first word capitalised."""
    m = _first_word(text)
    return bool(m) and case_style(text) == "mixed" and m.group(0)[:1].isupper()


def capitalised_as_first(text: str) -> bool:
    """The first word of ``text`` has its capital only because it opens the query: ``text`` starts
    capitalised (:func:`starts_capitalised`), the word is Capitalised (one capital, then lower case:
    not an acronym such as "NASA", not "I" or "I'm"), the word after it is not capitalised (a name or
    title of several words: "God Save the Queen", "New York City"), and it is written with its
    capital nowhere else in the query except after a sentence end. Moved from the front ("the Robots
    are" -> "the robots are"), such a word is lower-cased; any other (a name, an acronym, "I") keeps
    its capital. Names a dictionary knows (WordNet proper nouns) are the caller's to check."""
    m = _first_word(text)
    if not m or not starts_capitalised(text):
        return False
    word = m.group(0)
    if not (word[:1].isupper() and word[1:] == word[1:].lower()) or re.fullmatch(r"I(?:['’]\w+)?", word):
        return False
    nxt = _first_word(text[m.end():])
    if nxt and nxt.group(0)[:1].isupper() and not re.fullmatch(r"I(?:['’]\w+)?", nxt.group(0)) and \
            not _SENTENCE_END.search(text[: m.end() + nxt.start()]):
        return False  # the first of several capitalised words: a name or a title
    for other in re.finditer(r"(?<![\w'’-])" + re.escape(word) + r"(?![\w'’-])", text[m.end():]):
        before = text[: m.end() + other.start()]
        if not _SENTENCE_END.search(before):
            return False  # capitalised inside a sentence too: a name ("Mad? Mad as in ...")
    return True


def tagging_copy(text: str) -> str:
    """A copy to POS-tag: ALL-CAPS and Title Case text lower-cased (taggers mis-read both), same
    offsets. Falls back to ``text`` when lower-casing would change its length."""
    if case_style(text) in ("upper", "title"):
        low = text.lower()
        if len(low) == len(text):
            return low
    return text


# --------------------------------------------------------------------------- word frequencies
WORDFREQ_INSTALL = "pip install wordfreq==3.1.1"
_ZIPF_CACHE: dict = Memo()


def zipf(word: str, lang: str = "en") -> float:
    """wordfreq's Zipf frequency of ``word`` (0 = unknown). Raises ResourceMissing without wordfreq."""
    key = (word, lang)
    val = _ZIPF_CACHE.get(key)
    if val is None:
        try:
            from wordfreq import zipf_frequency
        except ImportError as exc:
            from perturb.base import ResourceMissing

            raise ResourceMissing(f"wordfreq is not installed (install: {WORDFREQ_INSTALL})") from exc
        val = float(zipf_frequency(word, lang))
        _ZIPF_CACHE[key] = val
    return val


def wordfreq_resource() -> Resource:
    return module_resource("wordfreq 3.1.1 (word frequencies)", "wordfreq", WORDFREQ_INSTALL)


#: question words (lower case): a query starting with one is a question; BACKTRANS, TRANSTENSE and
#: SWAPWORDS read them
WH_WORDS = frozenset("what which who whom whose when where why how".split())

#: words whose loss or change changes the need: negations and the words of restriction and
#: quantity ("only move diagonally", "one or more blade rows"). NOSTOPWORD keeps them
#: (with "from"); BACKTRANS refuses an edit that drops, adds or changes one (with "less", "least")
NEED_WORDS = frozenset("no not nor never without against only few more most".split())
ARTICLES = frozenset({"a", "an", "the"})
# Light verbs: their synonyms depend on the object ("made a study" / "made of steel"), never swapped.
LIGHT_VERBS = frozenset("be have do make take get give go come put set keep let become seem".split())
# spaCy's universal POS -> WordNet's (content words; proper nouns are no target of a synonym swap)
UPOS_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
# WordNet's POS -> the universal POS (lemminflect's upos)
WORDNET_UPOS = {wn: upos for upos, wn in UPOS_WORDNET.items()}
# WordNet's four parts of speech, in its own order (adjective satellites "s" are read with "a")
WORDNET_POS = tuple(UPOS_WORDNET.values())
# Penn tags of a finite verb or auxiliary (past, present, modal): TRANSTENSE's and SWAPWORDS's
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
#: a Penn tag's first two letters -> WordNet's part of speech (noun, verb, adjective, adverb)
PENN_WORDNET = {"NN": "n", "VB": "v", "JJ": "a", "RB": "r"}
#: personal pronouns, subject and object forms: BACKTRANS refuses a round trip or an edit that loses
#: or adds one (Spanish drops subjects)
PERSONAL_PRONOUNS = ("i", "you", "we", "they", "he", "she", "me", "us", "them", "him", "her")
#: participles English uses as prepositions ("questions regarding tax", "symptoms following surgery"):
#: function words that a verb synonym breaks ("concerning" -> "pertaining"); the synonym sets never
#: replace them
PARTICIPLE_PREPOSITIONS = frozenset("according barring concerning considering excepting excluding failing following "
                                    "given granted including pending regarding respecting touching".split())
#: indefinite pronouns: WordNet lists some as nouns ("person" -> "someone"), but they are function
#: words; the synonym sets never bring one in
INDEFINITE_PRONOUNS = frozenset("anybody anyone anything everybody everyone everything nobody nothing somebody "
                                "someone something".split())
#: auxiliaries and modals, finite forms: a query opening with one is a yes/no question
AUXILIARIES = frozenset("do does did are is was were am have has had can could will would shall should may might "
                        "must".split())


def has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


# --------------------------------------------------------------------------- abbreviations
# Dotted abbreviations are one word: "i.e.", "e.g.", "U.S.", "U.S.A." (letter-dot runs) and the
# common ones that end with a single dot. Used where a word must not be cut at its dots.
ABBREVIATIONS = ("etc", "vs", "cf", "al", "approx", "dr", "mr", "mrs", "ms", "prof", "st", "no", "fig", "figs",
                 "eq", "inc", "ltd", "co", "jr", "sr", "dept", "univ", "vol", "ca", "resp", "viz")
_ABBREV = re.compile(r"(?<![\w.])(?:(?:[A-Za-z]\.)+[A-Za-z]\.?(?!\w)|(?:" + "|".join(ABBREVIATIONS) + r")\.(?=\s|$|[,;:)\]]))",
                     re.IGNORECASE)


def abbreviation_spans(text: str) -> List[Span]:
    """Spans of the dotted abbreviations of ``text`` (dots included): "i.e.", "U.S.", "etc.", "vs."."""
    return [m.span() for m in _ABBREV.finditer(text)]


def is_abbreviation(word: str) -> bool:
    """``word`` is one dotted abbreviation ("i.e.", "e.g", "U.S.", "etc.")."""
    w = word if word.endswith(".") else word + "."
    m = _ABBREV.fullmatch(w)
    return m is not None


def word_spans_keeping_abbreviations(text: str) -> List[Span]:
    """:func:`word_spans`, except that each dotted abbreviation is one word, dots included
    ("(i.e. its" -> "i.e.", "its"; "U.S. policy" -> "U.S.", "policy"), never split at its dots."""
    abbrevs = abbreviation_spans(text)
    spans: List[Span] = []
    last = 0
    for a, b in abbrevs + [(len(text), len(text))]:
        spans += [(s + last, e + last) for s, e in word_spans(text[last:a])]
        if a < b:
            spans.append((a, b))
        last = b
    return spans


def draw_word_pair(words, rng):
    """The paper's SWAPWORDS draw (TextAttack's WordInnerSwapRandom): word ``i`` uniform, ``j != i``
    uniform; when the two are the same word, a pair of different words uniformly instead. Returns
    ``(a, b)`` with ``a < b``, or None when no two different words exist."""
    n = len(words)
    if n < 2:
        return None
    i = int(rng.integers(n))
    j = int(rng.integers(n - 1))
    j = j + 1 if j >= i else j
    if words[i] == words[j]:
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if words[a] != words[b]]
        if not pairs:
            return None
        i, j = pairs[int(rng.integers(len(pairs)))]
    return (min(i, j), max(i, j))


def draw_marks(marks, max_repeat: int, rng) -> str:
    """EXTRAPUNC's draw: one of ``marks`` uniformly, repeated 1..``max_repeat`` times uniformly."""
    mark = marks[int(rng.integers(len(marks)))]
    return mark * int(rng.integers(1, max_repeat + 1))
