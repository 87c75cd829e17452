"""Text analysis of the BM25 baselines.

``lucene-english`` (the default ``bm25``): the analysis chain of Anserini's default English
analyzer (``DefaultEnglishAnalyzer``, the one its BEIR "flat" regressions index with): a
StandardTokenizer-like split, English possessive ``'s`` removed, lower case, Lucene's English
stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``, 33 words), Porter stemming (NLTK's
``PorterStemmer`` in Martin Porter's own variant, the one Lucene's ``PorterStemmer`` ports).
Differences from Lucene are named in docs/retrieval.md ("BM25"): the tokenizer is a regular
expression covering UAX#29's word rules for letters, digits, ``'``, ``.`` and ``,`` inside words,
not the full Unicode rule set.

``bm25s`` (``bm25-nostem``, the earlier default): bm25s' own tokenizer (words of two or more
characters), its English stop-word list, no stemming.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, List, Sequence

ANALYZERS = ("lucene-english", "bm25s")

#: org.apache.lucene.analysis.en.EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
LUCENE_ENGLISH_STOP_WORDS = frozenset("""a an and are as at be but by for if in into is it no not of on or such that
the their then there these they this to was will with""".split())

# letters/digits (\w, underscore included: ExtendNumLet), joined across one ' ’ . inside a word
# (MidNumLet) and across , ; between digits (MidNum)
_TOKEN = re.compile(r"\w+(?:(?:['’.]|(?<=\d)[,;](?=\d))\w+)*")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _porter() -> Callable[[str], str]:
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer(mode=PorterStemmer.MARTIN_EXTENSIONS)
    return lru_cache(maxsize=200_000)(lambda w: stemmer.stem(w, to_lowercase=False))


def lucene_english(text: str) -> List[str]:
    """Tokens of ``text`` as Anserini's default English analyzer makes them (see the module)."""
    stem = _porter()
    out = []
    for m in _TOKEN.finditer(text):
        tok = _POSSESSIVE.sub("", m.group()).lower()
        if tok and tok not in LUCENE_ENGLISH_STOP_WORDS:
            out.append(stem(tok))
    return out


def analyze(texts: Sequence[str], analyzer: str) -> List[List[str]]:
    if analyzer not in ANALYZERS or analyzer == "bm25s":
        raise ValueError(f"analyze() takes {ANALYZERS[0]!r}; 'bm25s' is bm25s.tokenize's own")
    return [lucene_english(t) for t in texts]
