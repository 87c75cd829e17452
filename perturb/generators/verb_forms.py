"""TRANSTENSE's constraints on the verb forms it reads and writes, from lemminflect's dictionary:
the edited word is a verb form the dictionary lists under its tag (:data:`DICTIONARY_VERB_FORM`),
the new form is a dictionary form that is a known English word (:data:`DICTIONARY_NEW_FORM`), and
a negated future stays (:data:`NEGATED_FUTURE`). The engine runs them in the spec's order on what
:class:`perturb.generators.tense.TransTense` proposes: the first and the last judge the verb (a
target: context ``word``, ``tag`` and, for a ``will`` future, its ``verb``), the second each
dictionary form proposed for it (context ``form``); a candidate without those keys is not theirs."""
from __future__ import annotations

from typing import Optional, Tuple

from perturb.resources.words import zipf
from perturb.spec import Veto


def _lemminflect():
    import lemminflect

    return lemminflect


class DictionaryVerbForm(Veto):
    """The word is a verb form lemminflect's dictionary lists under the token's tag (a noun tagged
    VBZ, "diabetes", "reflections", is refused)."""

    name = "dictionary verb form"
    description = "the edited word is the tagged form of a verb in lemminflect's dictionary"
    judges = "target"

    def lemma(self, low: str, tag: str) -> Optional[str]:
        """The dictionary lemma of which ``low`` is the ``tag`` form, or None (refused)."""
        lm = _lemminflect()
        lemmas = lm.getAllLemmas(low)
        for upos in ("AUX", "VERB"):
            for lemma in lemmas.get(upos, ()):
                if low in lm.getAllInflections(lemma, upos="VERB").get(tag, ()) or (
                        lemma == "be" and tag in ("VBD", "VBZ", "VBP")):
                    return lemma
        return None

    def reason(self, edit, context=None):
        if "tag" not in (context or {}):
            return None
        low, tag = context["word"].lower(), context["tag"]
        return None if self.lemma(low, tag) else f"{low!r} is no {tag} form in lemminflect's dictionary"


class DictionaryNewForm(Veto):
    """The new form is the lemma's form from lemminflect's dictionary (never its out-of-vocabulary
    rules: no "diabeted") and a known English word (wordfreq Zipf > 0)."""

    name = "dictionary new form"
    description = "the new form comes from lemminflect's dictionary and is a known English word (Zipf > 0)"

    def refuses(self, form: str) -> bool:
        return not (form.isalpha() and zipf(form) > 0)

    def reason(self, edit, context=None):
        form = (context or {}).get("form")
        return f"{form!r} is not a known word" if form is not None and self.refuses(form) else None


class NegatedFuture(Veto):
    """"will not go" stays: a negated future is not flipped to the present."""

    name = "no negated future"
    description = "a will + VB future with a negation is left alone"
    judges = "target"

    def refuses(self, verb) -> bool:
        return any(c.dep_ == "neg" for c in verb.children)

    def reason(self, edit, context=None):
        verb = (context or {}).get("verb")
        return "a negated future" if verb is not None and self.refuses(verb) else None


DICTIONARY_VERB_FORM = DictionaryVerbForm()
DICTIONARY_NEW_FORM = DictionaryNewForm()
NEGATED_FUTURE = NegatedFuture()


def verb_lemma(low: str, tag: str) -> Optional[str]:
    """The dictionary lemma of which ``low`` is the ``tag`` form, or None when ``low`` is not a
    known verb form (nouns mis-tagged as verbs, non-words): :data:`DICTIONARY_VERB_FORM`."""
    return DICTIONARY_VERB_FORM.lemma(low, tag)


def dictionary_forms(lemma: str, tag: str) -> Tuple[str, ...]:
    """The ``tag`` forms of ``lemma`` in lemminflect's dictionary (no OOV rules), in its order: the
    forms TRANSTENSE proposes (:data:`DICTIONARY_NEW_FORM` judges each)."""
    return tuple(_lemminflect().getAllInflections(lemma, upos="VERB").get(tag, ()))
