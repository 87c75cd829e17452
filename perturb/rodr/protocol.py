"""What every generator of the paper protocol (``--protocol rodr``) shares: its recorded config
and spec (:func:`rodr_config`, :func:`rodr_spec`), TextAttack's stop-word skip
(:data:`STOPWORD_SKIP`) and the content hash a config names a resource file by."""
from __future__ import annotations

import hashlib
from typing import Any, Optional, Sequence

from perturb.resources.words import stopwords
from perturb.spec import Constraint, Spec, Veto

PROTOCOL = "rodr"

#: Where ``--protocol rodr`` still differs from the operations the RoDR authors ran (their
#: query_variation_generation.py: TextFlint's Ocr/Keyboard/SpellingError/Typos, BackTrans,
#: SwapSynWordEmbedding, SwapSynWordNet and Tense; NLTK for NOSTOPWORD, TextAttack for SWAPWORDS).
#: A rodr run prints these and records them in result.json's notes; docs/methods.md ("The paper
#: protocol") lists the same, with counts.
TEXTFLINT_DEVIATIONS = {
    "MISSPELL": "rodr MISSPELL: the stop words skipped are NLTK's 179 (TextFlint's own STOP_WORDS list may differ); "
                "nlpaug 1.1.11's OCR/keyboard/spelling tables read directly; the keyboard table's other-case "
                "neighbours can put a lower-case letter into a capitalised word (CoRCUIT), as its table allows",
    "BACKTRANS": "rodr BACKTRANS: Apertium's Spanish pivot offline instead of TextFlint's FSMT wmt19 en-de/de-en "
                 "(German); its output mixes case (title queries) and can keep untranslated Spanish tokens",
    "SWAPSYN-GLOVE": "rodr SWAPSYN-GLOVE: no part-of-speech filter and GloVe 6B 50d neighbours with cosine >= 0.8 "
                     "(TextFlint's SwapSynWordEmbedding: a part-of-speech filter and a top-20 GloVe neighbour list)",
    "SWAPSYN-WNET": "rodr SWAPSYN-WNET: no part-of-speech filter, lemmas of every synset (TextFlint's SwapSynWordNet "
                    "keeps the lemmas of the word's part of speech)",
    "TRANSTENSE": "rodr TRANSTENSE: the new form by lemminflect (past <-> present of the spaCy lemma) instead of "
                  "TextFlint's verb table; spaCy's tagger instead of TextFlint's",
    "NOSTOPWORD": "rodr NOSTOPWORD: stop words cut out of the text in place (TextAttack words); the authors' "
                  "script joins NLTK's word_tokenize tokens with spaces (punctuation detached)",
}


def textflint_deviations(names: Sequence[str]) -> list:
    """The remaining differences from the authors' operations for the rodr sets ``names``."""
    return [TEXTFLINT_DEVIATIONS[n] for n in names if n in TEXTFLINT_DEVIATIONS]


def rodr_config(operation: str, **settings) -> dict:
    """A paper-protocol config: ``protocol`` and the operation named first, then the settings."""
    return {"protocol": PROTOCOL, "operation": operation, **settings}


def rodr_spec(name: str, operation: str, *, transformation: str, picker: str,
              constraints: Sequence[Constraint] = (), version: int = 1, **facts: Any) -> Spec:
    """A paper-protocol :class:`Spec`: its facts are :func:`rodr_config` (``protocol``, the recorded
    ``operation``, then ``facts``); ``transformation`` says what it proposes."""
    return Spec(name=name, version=version, protocol=PROTOCOL, transformation=transformation,
                constraints=tuple(constraints), picker=picker, facts=rodr_config(operation, **facts))


class StopwordSkip(Veto):
    """TextAttack's ``StopwordModification`` (TextFlint's stop-word skip): a stop word is never a
    target. The one constraint the paper's synonym swaps apply besides the embedding distance."""

    name = "stop word skip"
    description = "a word whose lower-cased form is an NLTK stop word is not a target"

    def skips(self, word: str) -> bool:
        return word.lower() in stopwords()

    def reason(self, edit, context=None) -> Optional[str]:
        word = (context or {}).get("word", "")  # the target word, as the swap's context names it
        return f"{word!r} is a stop word" if self.skips(word) else None

    def config(self) -> dict:
        return {"stopwords": "nltk-english-179 (not targets)"}


STOPWORD_SKIP = StopwordSkip()


def file_sha256(paths) -> str:
    """SHA-256 (16 hex) over the named files' bytes: a config names its resource by content."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]
