"""BACKTRANS: English -> pivot -> English through a machine-translation backend.

Backends (a :class:`~perturb.resources.translators.Translator` each, in :mod:`perturb.resources.translators`; both
deterministic, so back-translation uses no rng):

* ``marian``: Hugging Face MarianMT ``Helsinki-NLP/opus-mt-en-de`` and ``opus-mt-de-en`` (a German
  pivot, as RoDR's; RoDR uses TextFlint's ``BackTrans``, whose default models are the FSMT
  ``facebook/wmt19-en-de`` and ``facebook/wmt19-de-en``, so Marian opus-mt is a stand-in for
  those, not the paper's exact models), loaded only from local files: folders given as arguments or by
  ``$DRBENCH_MARIAN_EN_DE`` / ``$DRBENCH_MARIAN_DE_EN``, else the Hugging Face cache with
  ``local_files_only=True``. Never downloads. Decoding uses each model's generation config
  (beam search for opus-mt), batched.
* ``apertium``: Debian ``apertium`` + ``apertium-eng-spa`` (rule-based, Spanish pivot); one
  process call per direction for all queries (distinct texts in sorted order, one paragraph
  each after a sentinel paragraph, NUL-separated, every step in null-flush mode), *without* ``-u``
  so unknown words come back marked (``*`` unknown, ``@`` untranslated, ``#`` not generated). Each
  query translates exactly as it would alone: no step keeps anything across a NUL, and a word of an
  ambiguity class apertium's HMM tagger does not know (which would change its state for the rest of
  the batch) keeps its first reading before the tagger (:meth:`perturb.resources.translators.ApertiumTranslator._run`).

Constraints (ours): a round trip is refused (query left unchanged, not applied) when the English
output keeps a pivot-language token: a word apertium marks as unknown/untranslated in the
pivot->English direction that was not in the query ("soluciónanalítica", "cual"), a ``#``
generation error, or an unmarked new word that is not English (wordfreq: unknown in English, or
much more frequent in the pivot language). The output's whitespace is collapsed (dropped words
leave no double spaces) and the query's case style is restored (an ALL-CAPS query comes back
ALL-CAPS, a lower-case one lower-case); a result equal to the query up to case and whitespace is
not a variation (:func:`perturb.base.settle`). Every content word (not a stop word) of the query
must have a counterpart in the output and vice versa: the same lemma or a WordNet synonym in one
of the two most frequent senses (:func:`unmatched_content`): the rule-based pivot mistranslates
technical terms ("boundary layer" -> "layer of border", "pump" -> "bomb"), and such round trips
are refused. So are round trips that lose or add a personal pronoun or turn an auxiliary-first
question into a statement (:func:`form_changes`; Spanish drops subject pronouns), and round trips
that change the query's structure: a function word, a word's place or form, a multi-word term
(:func:`perturb.generators.backtrans.rules.structure_changes`). What remains are articles, ``which`` for
``what``, a dummy leading ``it`` and same-form synonyms outside terms.

The backend and pivot are part of ``label`` (``BACKTRANS[deu,marian]``, ``BACKTRANS[spa,apertium]``)
and of ``config()``, so a Spanish rule-based number is never reported as the German setting.
Default: Marian German when its weights are on disk, else Apertium Spanish; when neither is
there, ``check()`` raises ResourceMissing naming both install routes.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

import numpy as np

from perturb.resources.words import apply_case_style, case_style, collapse_spaces, wordfreq_resource, zipf
from perturb.spec import Edit, Param, Spec, Veto, veto
from perturb.base import Generator, Perturbation, Resource, ResourceMissing, settle
from perturb.resources.translators import APERTIUM_INSTALL, MARIAN_INSTALL, ApertiumTranslator, MarianTranslator, RunMemo, Translator
from perturb.resources.words import AUXILIARIES, PERSONAL_PRONOUNS, stopwords
from perturb.resources.lexicon import lemma_set
from perturb.resources.senses import synonymy
from perturb.generators.backtrans.rules import structure_changes
from perturb.generators.backtrans import score as backtrans_score
from perturb.base import query_rng
from perturb.engine import Candidate, first_refusal, judge

_MARKED = re.compile(r"(?<![\w*#@])([*#@])(\w[\w'-]*)")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_SPACE = re.compile(r"\s+")
PIVOT_WFLANG = {"spa": "es", "deu": "de", "cat": "ca", "hbs": "sh", "glg": "pt",
                "spa-cat": "ca", "spa-glg": "pt", "cat-spa": "es", "glg-spa": "es"}  # a chain: its last language


def unmatched_content(original: str, back: str) -> List[str]:
    """Content words (letters, not stop words) of either text without a counterpart in the other:
    a round trip that loses or adds a content word ("panels" -> "signpost", "plato" -> "dish",
    "boundary layer" -> "layer of border") changes the need, whatever its fluency."""
    sw = stopwords()
    a = [w for w in _WORD.findall(original) if w.lower() not in sw]
    b = [w for w in _WORD.findall(strip_marks(back)) if w.lower() not in sw]
    # lemma matches first (cheap); WordNet senses only for the words left over
    a_lem = set().union(*(lemma_set(w) for w in a)) if a else set()
    b_lem = set().union(*(lemma_set(w) for w in b)) if b else set()
    a_left = [w for w in a if not lemma_set(w) & b_lem]
    b_left = [w for w in b if not lemma_set(w) & a_lem]
    # a synonym: a sense among each word's two most frequent, in one part of speech
    missing = [w for w in a_left if not any(synonymy(w, x, top_a=2, top_b=2) for x in b)]
    added = [w for w in b_left if not any(synonymy(w, x, top_a=2, top_b=2) for x in a)]
    return missing + added


def form_changes(original: str, back: str) -> List[str]:
    """What the round trip did to the query's persons and sentence type: a personal pronoun lost or
    added ("Have you heard the news?" -> "Has heard the news?", Spanish drops subjects), or a
    question opening with an auxiliary that no longer does ("Are you ashamed" -> "You are
    ashamed"; a leading "it" that apertium adds is ignored)."""
    a = [w.lower() for w in _WORD.findall(original)]
    b = [w.lower() for w in _WORD.findall(strip_marks(back))]
    out = [f"pronoun {p!r}" for p in PERSONAL_PRONOUNS if a.count(p) != b.count(p)]
    b_first = b[1:] if b[:1] == ["it"] and a[:1] != ["it"] else b
    if a and a[0] in AUXILIARIES and (not b_first or b_first[0] not in AUXILIARIES):
        out.append("question form")
    return out


def strip_marks(text: str) -> str:
    """Apertium's unknown-word marks removed ("*xyzzy" -> "xyzzy")."""
    return _MARKED.sub(lambda m: m.group(2), text)


def round_trip(translator: Translator, texts: Sequence[str]) -> List[tuple]:
    """``(pivot text, back-translation or None)`` per text through one translator: blank texts are
    not sent (``("", None)``); apertium's unknown-word marks are removed from the pivot text before
    it goes back (:func:`strip_marks`), not from the back-translation; None where the translator
    could not translate the text as it would alone (unstable), in either direction. Both protocols'
    single-translator BACKTRANS call it (:meth:`BackTranslate.translate_round_trip`,
    :class:`perturb.rodr.paper.PaperBackTranslate`)."""
    send = [i for i, t in enumerate(texts) if t.strip()]
    mid = translator.to_pivot([texts[i] for i in send]) if send else []
    if translator.marks:  # unknown English words pass through the pivot: unmark them
        mid = [None if m is None else strip_marks(m) for m in mid]
    ok = [k for k, m in enumerate(mid) if m is not None]  # None: the translation was unstable
    back = dict(zip(ok, translator.from_pivot([mid[k] for k in ok]) if ok else []))
    out: List[tuple] = [("", None)] * len(texts)
    for k, i in enumerate(send):
        out[i] = (mid[k] or "", back.get(k))
    return out


def pivot_leaks(original: str, back: str, pivot: str, marked: bool) -> List[str]:
    """Tokens of the back-translation that are not English and were not in the query: words marked
    unknown/untranslated/not generated by apertium, and new words wordfreq does not know as English
    or knows as much more frequent in the pivot language."""
    orig = {w.lower() for w in _WORD.findall(original)}
    leaks = []
    if marked:
        for mark, word in _MARKED.findall(back):
            if mark == "#" or word.lower() not in orig:
                leaks.append(mark + word)
    lang = PIVOT_WFLANG.get(pivot)
    for word in _WORD.findall(strip_marks(back)):
        low = word.lower()
        if low in orig or len(low) < 2:
            continue
        en = zipf(low)
        if en < 1.0 or (lang and en < 3.0 and zipf(low, lang) >= en + 1.0):
            leaks.append(word)
    return sorted(set(leaks))


# --------------------------------------------------------------------------- constraints of one round trip
# (the one-translator path, Marian: the round trip is the one candidate, judged at the stage
# ROUND_TRIP; context: the query ``text``, the ``back`` translation, the ``pivot`` and whether the
# translator ``marked`` unknown words)
ROUND_TRIP = "round trip"


def _named(what: str, found) -> Optional[str]:
    return f"{what}: {found}" if found else None


NO_PIVOT_LEAK = veto("no pivot leak", why=lambda e, c: _named(
    "pivot-language tokens", pivot_leaks(c["text"], c["back"], c["pivot"], c["marked"])),
    description="(one-translator path) no pivot-language token the query did not have: apertium marks, "
                "wordfreq unknown in English or much more frequent in the pivot language (pivot_leaks)")
STRUCTURE_KEPT = veto("structure kept", why=lambda e, c: _named(
    "structure changed", structure_changes(c["text"], strip_marks(c["back"]))),
    description="(one-translator path) function words, word order, word forms and multi-word terms kept "
                "(rules.structure_changes)")
CONTENT_KEPT = veto("content kept", why=lambda e, c: _named(
    "content changed", unmatched_content(c["text"], c["back"]) or form_changes(c["text"], c["back"])),
    description="(one-translator path) every content word has a counterpart (same lemma or top-2-sense synonym: "
                "unmatched_content); no personal pronoun lost or added, an auxiliary-first question stays one "
                "(form_changes)")
for _veto in (NO_PIVOT_LEAK, STRUCTURE_KEPT, CONTENT_KEPT):
    type(_veto).judges = ROUND_TRIP


# --------------------------------------------------------------------------- generator
SPEC = Spec(
    name="BACKTRANS", version=3, protocol="validated",  # 3: batch-independent translation
    transformation="round trips through every Apertium pivot; each edit (difflib) of a round trip alone and "
                   "every subset of one round trip's edits is a candidate",
    constraints=(backtrans_score.WORD_LEFT, backtrans_score.WEAKEST_EDIT, NO_PIVOT_LEAK, STRUCTURE_KEPT, CONTENT_KEPT),
    picker="uniform among passing (query_rng)",
    params=(backtrans_score.MAX_SUBSETS,
            # the default Apertium pivots (docs/methods.md, BACKTRANS): four pairs with English and one chain
            # through the Spanish-Catalan pair ("cat-spa": English -> Catalan -> Spanish -> English)
            Param("pivots", str, "cat cat-spa epo glg spa", "the Apertium pivots round-tripped through")),
    facts={"source": "eng", "backend": "apertium",
           "candidates": "each edit (difflib) of a round trip alone and every subset of one round trip's edits",
           "score": "weakest edit's evidence sum", "weights": dict(backtrans_score.WEIGHTS),
           "pick": "uniform among passing (query_rng)",
           "sent": "ALL-CAPS and Title Case queries lower-cased", "case": "query case style restored",
           "sentence_case": "an edit before or of a capitalised first word: the new first word capitalised, the "
                            "old one lower-cased unless a name, an acronym or I (words.capitalised_as_first); "
                            "the pronoun i written I outside lower-case queries",
           "punctuation": "a bare punctuation token a round trip adds is dropped from its edit"})
APERTIUM_PIVOTS = tuple(SPEC.param_values()["pivots"].split())


class BackTranslate(Generator):
    """Back-translation. With Apertium (the offline default) every pivot's round trip gives
    candidate edits, scored and verified (:data:`SPEC`); with Marian (the paper's German pivot,
    when its weights are on disk) one round trip, refused when it loses content or structure."""

    name = "BACKTRANS"
    spec = SPEC
    max_query_chars = 1000
    max_query_reason = ("every pivot's round trip translates the whole query and each edit is aligned and scored "
                        "against it: a 100,000-character query runs for minutes")

    def __init__(self, backend: Optional[str] = None, pivot: Optional[str] = None,
                 pivots: Optional[Sequence[str]] = None, **translator_kwargs):
        """``backend`` is "marian", "apertium" or None (Marian German if its weights exist, else Apertium).
        Apertium round-trips through every pivot of ``pivots`` (default :data:`APERTIUM_PIVOTS`, or
        ``pivot`` alone) and verifies the candidates (:mod:`perturb.generators.backtrans.score`)."""
        values = self.spec.param_values()
        self.max_subsets = values["max_subsets"]
        self.pivots: List[str] = list(pivots) if pivots else [pivot] if pivot else values["pivots"].split()
        self.weakest_edit = self.spec.constraint(backtrans_score.WEAKEST_EDIT.name)
        if backend is None:
            marian = MarianTranslator(**({"pivot": pivot} if pivot else {}), **translator_kwargs)
            if marian.available():
                self.translator: Translator = marian
            else:
                apertium = ApertiumTranslator(self.pivots[0])
                self.translator = apertium if apertium.available() else marian
            self._alternatives = [MarianTranslator(), ApertiumTranslator()]
        elif backend == "marian":
            self.translator = MarianTranslator(**({"pivot": pivot} if pivot else {}), **translator_kwargs)
            self._alternatives = []
        elif backend == "apertium":
            self.translator = ApertiumTranslator(self.pivots[0], **translator_kwargs)
            self._alternatives = []
        else:
            raise ValueError(f"unknown back-translation backend {backend!r}; choose marian or apertium")
        self._translators = ([ApertiumTranslator(p) for p in self.pivots]
                             if isinstance(self.translator, ApertiumTranslator) else [self.translator])

    @property
    def verified(self) -> bool:
        """Apertium: generate candidates through every pivot, then verify (score >= threshold)."""
        return self.translator.backend == "apertium"

    @property
    def label(self) -> str:
        if self.verified:
            return f"{self.name}[{'+'.join(sorted(self.pivots))},apertium]"
        return f"{self.name}[{self.translator.pivot},{self.translator.backend}]"

    def config(self) -> dict:
        if self.verified:
            return self.spec.config(pivots={t.pivot: t.config() for t in self._translators})
        return {"source": "eng", **self.translator.config(),
                "reject": "pivot-language leaks (apertium marks, wordfreq en/pivot)",
                "content_words": "each kept (same lemma or WordNet synonym in the top-2 senses)"
                if CONTENT_KEPT in self.spec.constraints else "unchecked",
                "structure": "words kept in place (articles, which/what, a leading 'it' free; synonyms in the "
                             "same inflection; adjacent words stay adjacent)"
                if STRUCTURE_KEPT in self.spec.constraints else "unchecked",
                "whitespace": "collapsed",
                "case": "query case style restored"}

    def resources(self) -> List[Resource]:
        return [r for t in self._translators for r in t.resources()] + [wordfreq_resource()]

    def check(self) -> None:
        if all(t.available() for t in self._translators):
            return
        if self._alternatives:
            raise ResourceMissing(
                "BACKTRANS: no offline translation backend. Either Marian German "
                f"({MARIAN_INSTALL}) or Apertium with the Catalan, Esperanto, Galician and Spanish pivots and the "
                f"Spanish-Catalan pair ({APERTIUM_INSTALL})."
            )
        super().check()

    def translate_round_trip(self, texts: Sequence[str]) -> List[tuple]:
        """(pivot text, back-translated text) for every input; blank inputs are not sent."""
        self.check()
        return [(m, t if b is None else b) for t, (m, b) in zip(texts, round_trip(self.translator, texts))]

    def _result(self, text: str, mid: str, back: str) -> Perturbation:
        if not text.strip() or _SPACE.sub("", back).lower() == _SPACE.sub("", text).lower():
            return Perturbation(text, False, "")  # unchanged up to case and spacing ("lie." -> "lie .")
        context = {"text": text, "back": back, "pivot": self.translator.pivot, "marked": self.translator.marks}
        if first_refusal(self.constraints, Candidate(Edit.replace(0, len(text), back), context), ROUND_TRIP):
            return Perturbation(text, False, "")  # a pivot leak, a term, function word, word form, content word,
            # person or the question form changed: refused
        out = apply_case_style(collapse_spaces(strip_marks(back)), case_style(text))
        return Perturbation(out, True, f"via {self.translator.pivot} ({self.translator.backend}): {mid!r}")

    @property
    def constraints(self) -> tuple:
        """The spec's constraints, the weakest-edit threshold as this instance holds it."""
        return tuple(self.weakest_edit if c.name == self.weakest_edit.name else c for c in self.spec.constraints)

    def round_trip_vetoes(self) -> List[Veto]:
        """The spec's constraints on a whole round trip (the one-translator path), in its order."""
        return [c for c in self.constraints if c.judges == ROUND_TRIP]

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        if self.verified:  # the pick draws from ``rng``, as the batch draws from query_rng(seed, name, text)
            return self._verified_batch([text], 0, rngs=[rng])[0]
        (mid, back), = self.translate_round_trip([text])
        return self._result(text, mid, back)

    def _round_trips(self, sent: Sequence[str], warm=None) -> Dict[str, List[Optional[tuple]]]:
        """pivot -> (pivot text, back text) per sent text (None: not sent or unstable); one apertium
        call per pivot and direction, the pivots in parallel threads (each waits on its own
        processes; results are gathered per pivot, so the order of completion does not matter).
        ``warm`` (optional) runs in this thread meanwhile (loading the scorer's lexicons)."""
        from concurrent.futures import ThreadPoolExecutor

        self.check()
        idx = [i for i, t in enumerate(sent) if t.strip()]

        def one(tr) -> List[Optional[tuple]]:
            mid = tr.to_pivot([sent[i] for i in idx]) if idx else []
            mid = [None if m is None else strip_marks(m) for m in mid]
            ok = [k for k, m in enumerate(mid) if m is not None]
            back = tr.from_pivot([mid[k] for k in ok]) if ok else []
            res: List[Optional[tuple]] = [None] * len(sent)
            for k, b in zip(ok, back):
                if b is not None:
                    res[idx[k]] = (mid[k], b)
            return res

        memo = RunMemo()  # a chained pivot reuses the first hop of the direct one ("spa-cat": eng-spa)
        for tr in self._translators:
            tr.shared = memo
        try:
            with ThreadPoolExecutor(max_workers=max(1, len(self._translators))) as pool:
                futures = {tr.pivot: pool.submit(one, tr) for tr in self._translators}
                if warm is not None and idx:
                    warm()
                return {p: f.result() for p, f in futures.items()}
        finally:
            for tr in self._translators:
                tr.shared = None

    # ------------------------------------------------------------------ round trips ahead of time
    # Each text's round trip does not depend on the batch or the seed (see ApertiumTranslator._run_alone),
    # so one computed ahead, or for another seed, is the one this batch would compute.
    def _trip_memo(self) -> Dict[str, Dict[str, Optional[tuple]]]:
        return self.__dict__.setdefault("_trips", {})

    def prefetch(self, items) -> bool:
        """Start the Apertium round trips of ``items`` in a background thread (Apertium runs in its
        own processes, so the generators that run meanwhile overlap with it); a later
        :meth:`perturb_batch` of these texts, for any seed, takes them instead of translating again.
        Only the translation runs there: scoring (which reads WordNet, not safe across threads)
        stays in the calling thread."""
        if not self.verified:
            return False
        sent = sorted({self._sent(t) for _, t in items} - set(self._trip_memo()))
        if not sent:
            return False
        import threading
        from concurrent.futures import Future

        fut: "Future" = Future()
        self.__dict__.setdefault("_pending", []).append(fut)

        def work():
            try:
                trips = self._round_trips(sent)
                fut.set_result({s: {p: r[i] for p, r in trips.items()} for i, s in enumerate(sent)})
            except BaseException as exc:  # noqa: BLE001 - raised again where the batch waits
                fut.set_exception(exc)

        threading.Thread(target=work, name="BACKTRANS-prefetch", daemon=True).start()
        return True

    def _trips_for(self, sent: Sequence[str]) -> Dict[str, Dict[str, Optional[tuple]]]:
        """text -> pivot -> round trip for every text of ``sent``: from :meth:`prefetch` or an
        earlier batch where available, the rest translated now."""
        memo = self._trip_memo()
        for fut in self.__dict__.pop("_pending", []):
            memo.update(fut.result())
        todo = sorted({s for s in sent if s not in memo})
        if todo:
            trips = self._round_trips(todo, warm=backtrans_score.warm)
            memo.update({s: {p: r[i] for p, r in trips.items()} for i, s in enumerate(todo)})
        else:
            backtrans_score.warm()
        return memo

    @staticmethod
    def _sent(text: str) -> str:
        """The text as sent to Apertium: ALL-CAPS and Title Case queries lower-cased."""
        return text.lower() if case_style(text) in ("upper", "title") else text

    def verified_candidates(self, text: str, sent: str, trips: Dict[str, Optional[tuple]]):
        """Scored candidates of ``sent`` (the text as sent) from its round trips."""
        backs, leaks = {}, {}
        for p, trip in sorted(trips.items()):
            if trip is None:
                continue
            back = trip[1]
            leaks[p] = {w.lower().lstrip("*#@") for w in pivot_leaks(sent, back, p, True)}
            backs[p] = collapse_spaces(strip_marks(back))
        return backtrans_score.candidates(sent, backs, leaks, original=text, max_subsets=self.max_subsets)

    def _verified_batch(self, texts: Sequence[str], seed: int,
                        rngs: Optional[Sequence[np.random.Generator]] = None) -> List[Perturbation]:
        sent = [self._sent(t) for t in texts]
        trips = self._trips_for(sent)
        out = []
        for i, (text, s) in enumerate(zip(texts, sent)):
            proposed = [Candidate(c, {"text": s}) for c in self.verified_candidates(text, s, trips[s])]
            passing = [c.edit for c in judge(self.constraints, proposed).passed]  # a word left, the threshold
            if not passing:
                out.append(Perturbation(text, False, ""))
                continue
            rng = rngs[i] if rngs is not None else query_rng(seed, self.name, text)
            pick = passing[int(rng.integers(len(passing)))]
            result = apply_case_style(pick.text, case_style(text))
            out.append(settle(text, Perturbation(result, True, pick.detail)))
        return out

    def perturb_batch(self, items, seed):
        texts = [t for _, t in items]
        if self.verified:
            return self._verified_batch(texts, seed)
        return [settle(t, self._result(t, m, b)) for t, (m, b) in zip(texts, self.translate_round_trip(texts))]


class RoundTrip(Generator):
    """One round trip English -> pivot -> English through one translator (:func:`round_trip`), kept as
    translated: apertium's unknown-word marks removed (:func:`strip_marks`), whitespace collapsed, no
    case restoration. The spec's :data:`ROUND_TRIP` constraints judge it, as on the validated
    one-translator path (context: ``text``, ``back``, ``pivot``, ``marked``); a query the
    translator cannot translate as it would alone, or an empty result, is left unchanged.
    ``backend``: "marian", "apertium" or None (Marian when its weights are on disk, else Apertium's
    default pivot). A subclass names its spec (:class:`perturb.rodr.paper.PaperBackTranslate`)."""

    max_query_chars = 1000
    max_query_reason = "a round trip translates the whole query: a 100,000-character query takes about a minute"

    def __init__(self, backend: Optional[str] = None):
        if backend not in (None, "marian", "apertium"):
            raise ValueError(f"unknown back-translation backend {backend!r}; choose marian or apertium")
        marian = MarianTranslator() if backend in (None, "marian") else None
        if backend == "apertium" or (backend is None and not marian.available()):
            self.translator: Translator = ApertiumTranslator()
        else:
            self.translator = marian

    @property
    def label(self) -> str:
        return f"{self.name}[{self.translator.pivot},{self.translator.backend}]"

    def config(self) -> dict:
        runtime = self.translator.config()
        if self.translator.marks:  # the translator keeps them; this generator removes them
            runtime["unknown_marks"] = "removed from the output (nothing is refused)"
        return self.spec.config(**runtime)

    def resources(self) -> List[Resource]:
        return self.translator.resources()

    def round_trip(self, texts: Sequence[str]) -> List[tuple]:
        """(pivot text, back-translation or None when it could not be made alone) per text."""
        marks = self.translator.marks
        return [(mid, None if back is None else collapse_spaces(strip_marks(back) if marks else back))
                for mid, back in round_trip(self.translator, texts)]

    def _result(self, text: str, mid: str, back: Optional[str]) -> Perturbation:
        if back is None or not back.strip():
            return Perturbation(text, False, "")
        context = {"text": text, "back": back, "pivot": self.translator.pivot, "marked": self.translator.marks}
        if first_refusal(self.spec.constraints, Candidate(Edit.replace(0, len(text), back), context), ROUND_TRIP):
            return Perturbation(text, False, "")
        return Perturbation(back, True, f"via {self.translator.pivot} ({self.translator.backend}): {mid!r}")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        (mid, back), = self.round_trip([text])
        return self._result(text, mid, back)

    def perturb_batch(self, items, seed):
        texts = [t for _, t in items]
        return [settle(t, self._result(t, m, b)) for t, (m, b) in zip(texts, self.round_trip(texts))]
