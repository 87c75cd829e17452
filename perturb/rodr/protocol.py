"""What the paper protocol's generators share: spec and config (:func:`rodr_spec`), TextFlint's
stop-word skip (:data:`STOPWORD_SKIP`), the deviations list, a resource file's content hash."""
from __future__ import annotations

import hashlib
from typing import Any, Optional, Sequence

from perturb.spec import Constraint, Param, Spec, Veto

PROTOCOL = "rodr"

#: TextFlint's ``STOP_WORDS`` (``textflint/common/settings.py``): 55 tokens, matched as written
TEXTFLINT_STOP_WORDS = frozenset("""
    I my My mine you your You Your He he him Him His his She she her Her it It they They their Their
    am Are are Is is And and or nor A a An an the The Have have Has has in In by By on On of Of at At
    from From""".split())

#: Where ``--protocol rodr`` differs from the RoDR authors' operations: the one list, printed by a rodr
#: run, recorded in result.json's notes, listed in docs/methods.md ("The paper protocol")
TEXTFLINT_DEVIATIONS = {
    "MISSPELL": "rodr MISSPELL: one error in one word per query (TextFlint's WordSubstitute changes 20-30% of "
                "the words, at least one); nlpaug 1.1.11's OCR/keyboard/spelling tables read directly (TextFlint "
                "downloads its own copies); a draw equal to the word up to case is redrawn (up to 4 times); words "
                "are TextAttack-style words, not TextFlint's spaCy tokens (which split deen's into deen and 's)",
    "BACKTRANS": "rodr BACKTRANS: Apertium's Spanish pivot offline instead of TextFlint's FSMT wmt19 en-de/de-en "
                 "(German): it turns noun compounds round (\"headaches of tension\"), adds a subject \"it\", drops "
                 "do-support and can keep untranslated Spanish tokens; FSMT adds a \"?\" to questions, Apertium never "
                 "does",
    "SWAPSYN-GLOVE": "rodr SWAPSYN-GLOVE: GloVe 6B 50d neighbours (the 50 nearest with cosine >= 0.8) instead of "
                     "TextFlint's precomputed list (the top 20 of 17,433 common words, sim_words_dic.json); parts of "
                     "speech from spaCy en_core_web_sm (a neighbour tagged alone) instead of TextFlint's tagger and "
                     "NLTK's; one word per query (TextFlint: 10% of the words, at least one)",
    "SWAPSYN-WNET": "rodr SWAPSYN-WNET: the part of speech from spaCy en_core_web_sm (title-case and upper-case "
                    "queries tagged lower-cased) instead of TextFlint's en_core_web_lg tags; a candidate drawn "
                    "uniformly (TextFlint takes the first of an unordered set); one-word lemmas only; one word per "
                    "query (TextFlint: 10% of the words, at least one)",
    "TRANSTENSE": "rodr TRANSTENSE: spaCy's tagger and the past <-> present form by lemminflect instead of "
                  "TextFlint's tagger and verb table (which gives any tense of the verb); only verbs written in "
                  "lower case (TextFlint looks the exact token up in its lower-case table); one verb per query "
                  "(TextFlint: 10% of the words, at least one); TextFlint's downloaded verb table is unavailable "
                  "offline, so a verb counts as in it when its lemma's wordfreq Zipf is at least 4.4 (fitted to "
                  "the authors' MS MARCO set: changed 0.396 against their 0.395 on the half not fitted)",
    "NOSTOPWORD": "rodr NOSTOPWORD: stop words cut out of the text in place (TextAttack words); the authors' "
                  "script joins NLTK's word_tokenize tokens with spaces (punctuation detached)",
}


def textflint_deviations(names: Sequence[str]) -> list:
    """The remaining differences from the authors' operations for the rodr sets ``names``."""
    return [TEXTFLINT_DEVIATIONS[n] for n in names if n in TEXTFLINT_DEVIATIONS]


def rodr_spec(name: str, operation: str, *, transformation: str, picker: str,
              constraints: Sequence[Constraint] = (), version: int = 1, params: Sequence[Param] = (),
              **facts: Any) -> Spec:
    """A paper-protocol :class:`Spec`: its facts are ``protocol``, the recorded ``operation``, then ``facts``."""
    return Spec(name=name, version=version, protocol=PROTOCOL, transformation=transformation,
                constraints=tuple(constraints), picker=picker,
                facts={"protocol": PROTOCOL, "operation": operation, **facts}, params=tuple(params))


class StopwordSkip(Veto):
    """TextFlint's ``WordSubstitute`` skip: a token of :data:`TEXTFLINT_STOP_WORDS` or punctuation is no target."""

    name = "stop word skip"
    description = "a word on TextFlint's 55-token stop list (as written) or punctuation is not a target"
    judges = "target"

    def skips(self, word: str) -> bool:
        return word in TEXTFLINT_STOP_WORDS or not any(c.isalnum() for c in word)

    def reason(self, edit, context=None) -> Optional[str]:
        word = (context or {}).get("word", "")  # the target word, as the swap's context names it
        return f"{word!r} is a stop word or punctuation" if self.skips(word) else None

    def config(self) -> dict:
        return {"stopwords": "textflint-55 as written (not targets)"}


STOPWORD_SKIP = StopwordSkip()


def file_sha256(paths) -> str:
    """SHA-256 (16 hex) over the named files' bytes: a config names its resource by content."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]
