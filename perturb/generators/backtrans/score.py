"""Generate, then verify, for BACKTRANS through several Apertium pivots (:mod:`perturb.generators.backtrans.generator`).

**Candidates** of one query: the word-level edits of each pivot's round trip (the ``difflib``
opcodes between the query's and the round trip's token sequences, case-folded), each applied
alone, and every subset of two or more of one round trip's edits (the whole round trip included;
pairs only beyond ``max_subsets`` edits, :data:`MAX_SUBSETS`), since a round trip often has one bad edit among good
ones. Candidates with the same text are one candidate proposed by several pivots.

**Score** of a candidate: the score of its *weakest* edit, each edit scored on explicit evidence
(:data:`WEIGHTS`, all in one table; the lexical tests are in :mod:`perturb.generators.backtrans.evidence`):

* ``leak``: a pivot-language word among the new words (apertium marks, wordfreq);
* ``name``: the edit touches a name (a word WordNet knows only as a proper noun, a capitalised
  word inside a mixed-case query) or respells a word next to one ("robert gray" -> "grey");
* ``pronoun``: a personal pronoun lost or added; ``question_form``: a leading do/does/did dropped;
  ``need_word``: no/not/only/without/... dropped, added or changed; ``wh_lost`` / ``wh_changed``: a
  question word replaced by a non-question word ("what" -> "than") or by another ("how" -> "what");
* ``article`` (a/an/the inserted, dropped or swapped), ``article_in_term`` (inserted after a
  content word: "african american the women"), ``function_indel`` (inserted before another
  determiner or "only"); ``wh``: which <-> what; ``leading_it`` / ``inner_it``: a dummy "it" added;
* one word for one word: ``preposition`` (one for another; ``preposition_argument`` when the old
  one is of/to/for/by), ``function_form`` (a function word in another form of its lemma: "are" ->
  "is"), ``function_word`` (other function words), ``article_one`` ("a" -> "one"), ``spelling`` (a spelling variant), ``form`` (one lemma in another form), ``derivation``
  (another word of the family: "fluid" -> "fluent"), else ``synonym`` (WordNet: the old word's first
  sense among the new word's two first, same inflection), ``related`` (a shared sense among the
  three first) or ``other_word``, with ``sense_strong`` / ``sense_mid`` / ``sense_weak`` from the
  SemCor share of the shared sense (>= 0.3, else >= 0.1, else less), ``in_term`` when the word is
  inside a multi-word term, ``pos_changed`` and ``rare`` (Zipf under 3);
* several words: ``content_lost`` / ``content_added`` / ``reordered`` (content lemmas kept) /
  ``rebuilt``;
* ``agreement`` per further pivot proposing the same edit (at most two).

The weights were set by reading the tuning half's misfires (docs/methods.md, BACKTRANS), never
the held half's. A candidate passes :data:`WEAKEST_EDIT` (score >= its threshold), chosen on the labelled tuning
half of ``benchmarks/data/validity/BACKTRANS.tsv`` (:mod:`benchmarks.tuning`).
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

from perturb.resources.words import ARTICLES, case_style, stopwords, zipf
from perturb.generators.backtrans.rules import same_lemma, synonym_same_form
from perturb.resources.lexicon import is_proper_noun
from perturb.resources.senses import forms_of, ranked_synsets, synonymy
from perturb.generators.backtrans import evidence as ev
from perturb.spec import Param, Tuning, Veto, threshold_constraint
from perturb.generators.backtrans.edits import Candidate, WordEdit, apply_edits, edits_of, sentence_case, tokens

WEIGHTS: Dict[str, float] = {
    "leak": -6.0, "name": -6.0, "pronoun": -4.0, "question_form": -3.0, "article": 1.0, "wh": 1.0,
    "article_in_term": -3.0, "leading_it": 0.0, "inner_it": 0.0, "spelling": 2.0, "form": 0.0,
    "derivation": -4.0, "synonym": 1.0, "related": 0.0, "other_word": -2.5, "sense_strong": 1.0,
    "sense_mid": 0.0, "sense_weak": -1.5, "in_term": -1.5, "pos_changed": -1.5, "rare": -1.0,
    "function_word": -0.5, "preposition": 0.0, "function_indel": -1.0, "content_lost": -3.0, "content_added": -2.5,
    "reordered": -1.0, "rebuilt": -3.0, "agreement": 1.0,
    # set from the tuning half's labels (docs/methods.md, BACKTRANS)
    "wh_lost": -3.0, "wh_changed": -3.0, "function_form": 0.5, "need_word": -4.0, "article_one": 0.0,
    "preposition_argument": -1.5, "contraction": 0.5,
}
WEAKEST_EDIT = threshold_constraint(
    "weakest-edit evidence", 0.0,
    description="every edit of the round trip keeps the need (the candidate's weakest edit)",
    evidence="weighted evidence sum of the weakest edit (WEIGHTS)",
    tuning=Tuning("benchmarks/data/validity/BACKTRANS.tsv", "choose", {"min_validity": 0.9}))


class WordLeft(Veto):
    """A candidate that leaves no word to search for ("a" -> "") is no candidate."""

    name = "a word left"
    description = "the candidate keeps a word character"

    def refuses(self, text: str) -> bool:
        return not re.search(r"\w", text)

    def reason(self, edit, context=None):
        return "nothing left to search for" if self.refuses(edit.apply(context["text"])) else None


WORD_LEFT = WordLeft()
WH = frozenset({"what", "which"})
AUX = frozenset("do does did".split())
ARGUMENT_PREPOSITIONS = frozenset("of to for by".split())  # they mark an argument, not a place
DETERMINERS = frozenset({"only"}) | ARTICLES | frozenset("my our your his her its their this that these those some any no each every".split())


def _words(toks: Sequence[str]) -> List[str]:
    return [t for t in toks if t[:1].isalpha()]


def _upos(word: str) -> Set[str]:
    return {u for u, _, _ in forms_of(word)}


def _related(a: str, b: str) -> bool:
    """A sense among each word's three most frequent, in one part of speech."""
    return bool(synonymy(a, b, top_a=3, top_b=3))


@dataclass(frozen=True)
class Context:
    """What the scorer knows about the query besides its tokens: name and term positions."""
    names: frozenset = frozenset()
    near_names: frozenset = frozenset()
    terms: frozenset = frozenset()


def warm() -> None:
    """Load the lexicons the scorer reads (WordNet, SemCor counts, lemminflect, wordfreq), so a batch
    can load them while its round trips run."""
    from perturb.resources.senses import sense_counts

    ranked_synsets("flow", "n")
    sense_counts()
    same_lemma("flows", "flow")
    zipf("flow")


def context_of(old: Sequence[str], original: Sequence[str], mixed_case: bool, touched: Optional[Set[int]] = None) -> Context:
    core, near = ev.name_positions(old, original, mixed_case, touched)
    return Context(frozenset(core), frozenset(near), frozenset(ev.term_positions(old)))


CONTRACTIONS = {"i'm": ("i", "am"), "let's": ("let", "us"), "won't": ("will", "not"), "can't": ("can", "not"),
                "shan't": ("shall", "not"), "ain't": ("am", "not")}
_SUFFIXES = (("n't", ("not",)), ("'re", ("are",)), ("'ve", ("have",)), ("'ll", ("will",)), ("'d", ("would",)))
_IS_HOSTS = frozenset("it that there here what who where how when he she".split())  # "'s" = "is" after these


def expand(words: Sequence[str]) -> List[str]:
    """``words`` with English contractions spelled out ("i'm" -> "i am", "don't" -> "do not",
    "what's" -> "what is", "you're" -> "you are"); a possessive "'s" ("earth's") is kept."""
    out: List[str] = []
    for w in words:
        if w in CONTRACTIONS:
            out += CONTRACTIONS[w]
            continue
        for suf, rest in _SUFFIXES:
            if w.endswith(suf) and len(w) > len(suf):
                out += [w[:-len(suf)]] + list(rest)
                break
        else:
            if w.endswith("'s") and w[:-2] in _IS_HOSTS:
                out += [w[:-2], "is"]
            else:
                out.append(w)
    return out


def score_edit(old: Sequence[str], edit: WordEdit, leaks: Set[str], n_pivots: int,
               ctx: Context = Context()) -> Tuple[float, List[str]]:
    """Score of one edit (old: the query's case-folded tokens) and the evidence names used."""
    sw = ev.function_words()
    before, after = _words(old[edit.start:edit.end]), _words(edit.new)
    span = set(range(edit.start, edit.end))
    prev = old[edit.start - 1] if edit.start > 0 else ""
    why: List[str] = []
    if before != expand(before) or after != expand(after):
        xb, xa = expand(before), expand(after)
        if xb == xa:
            before = after = []
            contraction = True
        else:
            before, after, contraction = xb, xa, False  # "you're" -> "are": the pronoun is lost
    else:
        contraction = False
    if any(w in leaks for w in _words(edit.new)):
        why.append("leak")
    elif span & ctx.names:
        why.append("name")  # a name is never translated
    elif contraction:
        why.append("contraction")  # "i'm" -> "i am", "do not" -> "don't"
    elif not before and not after:
        why.append("function_word")  # punctuation only
    elif ev.pronoun_change(before, after):
        why.append("pronoun")
    elif (set(before) ^ set(after)) & ev.NEED_WORDS:
        why.append("need_word")  # "can only move" -> "can move", "no" -> "any"
    elif wh := ev.question_change(before, after, ev.which_asks(old, edit.start, edit.end)):
        why.append(wh)  # "what" -> "than", "how" -> "what"
    elif set(before) | set(after) <= ARTICLES:
        nxt = old[edit.end] if edit.end < len(old) else ""
        inside = not before and prev[:1].isalpha() and (prev not in sw or prev == "s")  # "american the women"
        why.append("article_in_term" if inside else
                   "function_indel" if not before and nxt in DETERMINERS else "article")
    elif before in (["a"], ["an"]) and after == ["one"]:
        why.append("article_one")
    elif before and after and set(before) <= WH and set(after) <= WH:
        why.append("wh")
    elif not before and after == ["it"]:
        why.append("leading_it" if edit.start == 0 else "inner_it")
    elif before and not after and edit.start == 0 and set(before) <= AUX:
        why.append("question_form")  # "Do you get mad" -> "you get mad"
    elif len(before) == 1 and len(after) == 1:
        why += _one_word_evidence(before[0], after[0], edit.start, ctx, sw)
    else:
        why.append(_phrase_evidence(before, after))
    why += ["agreement"] * min(2, max(0, n_pivots - 1))
    return sum(WEIGHTS[w] for w in why), why


def _one_word_evidence(a: str, b: str, start: int, ctx: Context, sw) -> List[str]:
    """The evidence names of a one-word replacement ``a`` -> ``b`` at token ``start``."""
    why: List[str] = []
    if a in ev.SIMPLE_PREPOSITIONS and b in ev.SIMPLE_PREPOSITIONS:
        why.append("preposition")  # "toward"->"to", "between"->"among", "on"->"in"
        if a in ARGUMENT_PREPOSITIONS:
            why.append("preposition_argument")  # "designed for" -> "designed by", "100kg to" -> "at"
    elif a in sw and b in sw:
        why.append("function_form" if same_lemma(a, b) else "function_word")  # "are" -> "is"
    elif a in sw or b in sw:
        why.append("rebuilt")
    elif ev.spelling_variant(a, b):
        why.append("name" if start in ctx.near_names else "spelling")
    elif same_lemma(a, b):
        why.append("form")
    elif ev.derived(a, b):
        why.append("derivation")
    else:
        why.append("synonym" if synonym_same_form(a, b) else "related" if _related(a, b) else "other_word")
        share = ev.shared_sense(a, b)
        why.append("sense_strong" if share >= 0.3 else "sense_weak" if share < 0.1 else "sense_mid")
        if start in ctx.terms:
            why.append("in_term")
    if a not in sw and b not in sw and not _upos(a) & _upos(b):
        why.append("pos_changed")
    if b not in sw and zipf(b) < 3.0:
        why.append("rare")
    return why


def _phrase_evidence(before: Sequence[str], after: Sequence[str]) -> str:
    """The evidence name of a replacement of several words (or of an insertion or deletion)."""
    sw = stopwords()
    ca = [w for w in before if w not in sw]
    cb = [w for w in after if w not in sw]
    if not cb and ca:
        return "content_lost"
    if not ca and cb:
        return "content_added"
    if not ca and not cb:
        return "function_indel" if not before or not after or len(before) != len(after) else "function_word"
    if sorted(ca) == sorted(cb) or all(any(same_lemma(x, y) for y in cb) for x in ca) and len(ca) == len(cb):
        return "reordered"
    return "rebuilt"


def independent(pivots: Set[str]) -> int:
    """How many of the round trips ``pivots`` proposing one edit are independent evidence: the most
    of them that share no translation direction (a chained pivot "spa-cat" shares eng->spa with
    "spa" and cat->eng with "cat", so the three count as two). Direct pivots share none."""
    return _independent(tuple(sorted(pivots)))


@functools.lru_cache(maxsize=None)
def _independent(pivots: Tuple[str, ...]) -> int:  # the pivots sorted; memoised (a few dozen sets)
    from perturb.resources.translators import APERTIUM_CHAINS, APERTIUM_PAIRS, route_directions

    dirs = [route_directions(p) if p in APERTIUM_PAIRS or p in APERTIUM_CHAINS else frozenset({(p,)})
            for p in pivots]
    if all(not (a & b) for i, a in enumerate(dirs) for b in dirs[i + 1:]):
        return len(dirs)
    best = 1
    for k in range(2, len(dirs)):
        for combo in itertools.combinations(dirs, k):
            if all(not (a & b) for i, a in enumerate(combo) for b in combo[i + 1:]):
                best = k
                break
    return best


#: the transformation's parameter (listed in the spec, :data:`perturb.generators.backtrans.generator.SPEC`)
MAX_SUBSETS = Param("max_subsets", int, 5, "a round trip of at most this many edits gives every subset of them "
                                           "as a candidate; a longer one its pairs and the whole round trip")


def combinations_of(edits: Sequence[WordEdit], max_subsets: int) -> List[Tuple[WordEdit, ...]]:
    """The multi-edit candidates of one round trip: every subset of two or more of its edits (the
    whole round trip included) when it has at most ``max_subsets`` edits, else the whole round
    trip and every pair. A subset passes when all its edits pass, so a round trip with one bad edit
    among good ones still offers the good ones together."""
    eds = tuple(edits)
    sizes = range(2, len(eds) + 1) if len(eds) <= max_subsets else (2,)
    out = [c for k in sizes for c in itertools.combinations(eds, k)]
    if len(eds) > max_subsets or len(eds) == 1:
        out.append(eds)
    return out


def candidates(query: str, backs: Dict[str, str], leaks: Dict[str, Set[str]], original: str = "",
               max_subsets: Optional[int] = None) -> List[Candidate]:
    """Scored candidates of ``query`` from the round trips ``backs`` (pivot -> back text, marks
    stripped, whitespace collapsed) and each pivot's leaked words (case-folded), as the
    transformation proposes them: the spec's constraints judge them (:data:`WORD_LEFT`,
    :data:`WEAKEST_EDIT`; :mod:`perturb.engine`). ``max_subsets``: :data:`MAX_SUBSETS` when None."""
    max_subsets = MAX_SUBSETS.default if max_subsets is None else max_subsets
    old = [t.lower() for t, _, _ in tokens(query)]
    per_pivot = {p: edits_of(query, b, old) for p, b in sorted(backs.items())}
    proposers: Dict[WordEdit, Set[str]] = {}
    for p, eds in per_pivot.items():
        for e in eds:
            proposers.setdefault(e, set()).add(p)
    orig = [t for t, _, _ in tokens(original)] if original else []
    mixed = len(orig) == len(old) and any(t[:1].isupper() for t in orig) and not all(
        t.isupper() for t in orig if t[:1].isalpha())
    touched = {i for e in proposers for i in range(e.start - 2, max(e.end, e.start + 1) + 2)}
    ctx = context_of(old, orig if mixed else old, mixed, touched)
    # a word is a leak for an edit when every pivot proposing the edit leaks it: a word one pivot
    # marks unknown ("*what" from "what's") is English when another gives it unmarked
    scored = {e: score_edit(old, e, set.intersection(*(set(leaks.get(p, ())) for p in sorted(ps))), independent(ps), ctx)
              for e, ps in proposers.items()}
    out: Dict[str, Candidate] = {}
    toks, same = tokens(query), " ".join(query.lower().split())
    texts: Dict[Tuple[WordEdit, ...], str] = {}  # one edit set proposed by several round trips: applied once
    cased = case_style(query) != "lower"

    def add(edits: Tuple[WordEdit, ...], pivots: Set[str]) -> None:
        if not edits:
            return
        text = texts.get(edits)
        if text is None:
            text = texts[edits] = sentence_case(query, apply_edits(query, edits, toks, cased), edits, is_proper_noun)
        if " ".join(text.lower().split()) == same:
            return  # unchanged
        have = out.get(text)
        if have is None:
            low = min(scored[e][0] for e in edits)
            why = tuple(sorted({w for e in edits for w in scored[e][1]}))
            out[text] = Candidate.of(query, text, edits, pivots, low, why)
        else:
            out[text] = dataclasses.replace(have, pivots=have.pivots | pivots)
    for p, eds in per_pivot.items():
        for combo in combinations_of(eds, max_subsets):
            add(combo, {p})
    for e, ps in sorted(proposers.items(), key=lambda kv: (kv[0].start, kv[0].end, kv[0].new)):
        add((e,), ps)
    return [c.described(old) for c in sorted(out.values(), key=lambda c: c.text)]
