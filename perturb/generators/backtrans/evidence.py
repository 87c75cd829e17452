"""Lexical evidence for scoring BACKTRANS edits (:mod:`perturb.generators.backtrans.score`), each a small,
inspectable test on WordNet (with SemCor sense counts, :mod:`perturb.resources.senses`), lemminflect and
the query's own spelling:

* :func:`name_positions`: tokens of the query that belong to a name (a name is never translated):
  a word WordNet knows only as a capitalised noun ("robert", "jamaica"), a word capitalised inside
  a mixed-case query ("Lead Pipe"); and the content words next to such a word, where a spelling
  change is a name change ("robert *gray*" -> "grey");
* :func:`term_positions`: content words inside a multi-word term (two or more adjacent content
  words, "base pressure", "aileron buzz"), where a synonym of one word rarely keeps the term;
* :func:`derived`: another word of the same family ("fluid" -> "fluent", "elliptic" ->
  "elliptical", "base" -> "basic", "live" -> "alive"): a derivation, not a synonym;
* :func:`spelling_variant`: one word in another spelling ("analyzed"/"analysed", "color"/"colour");
* :func:`shared_sense`: how much of each word's SemCor usage the sense they share covers
  ("velocity"/"speed": 1.0 and 0.66; "stress"/"tension": 0.06 and 0.47; "force"/"strength": 0.19
  and 0.07); the smaller share is the evidence that the query's sense is the shared one.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from perturb.resources.words import NEED_WORDS as _BASE_NEED_WORDS
from perturb.resources.words import PERSONAL_PRONOUNS, WH_WORDS, stopwords
from perturb.resources.lexicon import is_derivation, is_proper_noun
from perturb.resources.senses import sense_share, synonymy
from perturb.resources.memo import Memo

_SHARE: Dict[Tuple[str, str], float] = Memo()


def name_positions(tokens: Sequence[str], original: Sequence[str], mixed_case: bool,
                   only: Optional[Set[int]] = None) -> Tuple[Set[int], Set[int]]:
    """Indices of ``tokens`` (case-folded) that are names, and of the content words next to them
    (which may be part of the name: "robert *gray*"); ``original``: the same tokens in the query's
    own case, used when the query is in mixed case (capitals mean something). ``only``: the
    positions worth looking at (near an edit); the others are not looked up."""
    sw = stopwords()
    core = set()
    for i, t in enumerate(tokens):
        if (only is not None and i not in only) or not t[:1].isalpha() or t in sw:
            continue
        first = i == 0 or not tokens[i - 1][:1].isalnum()  # sentence or clause start
        if is_proper_noun(t) or (mixed_case and original[i][:1].isupper() and not first):
            core.add(i)
    near = set()
    for i in core:
        for j in (i - 1, i + 1):
            if 0 <= j < len(tokens) and tokens[j][:1].isalpha() and tokens[j] not in sw and j not in core:
                near.add(j)
    return core, near


PREPOSITIONS = frozenset("toward towards among amongst upon within inside during via onto across along around behind "
                         "beside besides beyond near per since unlike like despite throughout underneath till unto "
                         "versus vs amid".split())


SIMPLE_PREPOSITIONS = frozenset("in on at of from to by for with into onto toward towards among between within inside "
                                "during while upon about over under below above across through".split())


def function_words() -> frozenset:
    """NLTK's stop words and the prepositions it lacks ("toward", "among", "during", "like")."""
    return frozenset(stopwords()) | PREPOSITIONS


def term_positions(tokens: Sequence[str]) -> Set[int]:
    """Indices of content words with a content-word neighbour (inside a multi-word term)."""
    sw = function_words()
    content = [t[:1].isalpha() and t not in sw for t in tokens]
    return {i for i in range(len(tokens)) if content[i] and ((i > 0 and content[i - 1]) or
                                                              (i + 1 < len(tokens) and content[i + 1]))}


def _prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def spelling_variant(a: str, b: str) -> bool:
    """Same word, another spelling: at most two letters differ (edit distance; one in words of
    under six letters, where two is a third of the word: "flow"/"flux", "wakes"/"awake") and the
    words share their most frequent WordNet sense."""
    if a == b or abs(len(a) - len(b)) > 2:
        return False
    if _distance(a, b) > (1 if min(len(a), len(b)) < 6 else 2):
        return False
    return bool(synonymy(a, b, top_a=1, top_b=1))


def _distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def derived(a: str, b: str) -> bool:
    """``b`` is another word of ``a``'s family (not a spelling variant, checked first by the
    caller): WordNet derivation links or a shared stem, a shared beginning of all but two letters
    of the shorter word, or one word inside the other ("live"/"alive")."""
    if is_derivation(a, b):
        return True
    short = min(len(a), len(b))
    return (short >= 4 and _prefix(a, b) >= max(3, short - 2)) or (short >= 4 and (a in b or b in a))


def shared_sense(a: str, b: str) -> float:
    """The largest, over senses shared by ``a`` and ``b`` (one part of speech), of the smaller of
    the two words' SemCor shares of that sense (:func:`perturb.resources.senses.sense_share`); 0.0 when
    they share no sense or SemCor has no counts for one of them."""
    key = (a, b)
    if key not in _SHARE:
        best = 0.0
        for sense in synonymy(a, b).senses:
            best = max(best, min(sense_share(a, sense.pos, sense.synset), sense_share(b, sense.pos, sense.synset)))
        _SHARE[key] = best
    return _SHARE[key]


# words whose loss or change changes the need (perturb.resources.words.NEED_WORDS, which NOSTOPWORD
# keeps too), and the comparatives of restriction
NEED_WORDS = _BASE_NEED_WORDS | {"less", "least"}


def question_change(before: List[str], after: List[str], which_asks: bool = False) -> str:
    """``wh_lost``: a question word (not "which") replaced or dropped with no question word left
    ("what" -> "than", "how" -> "as", "who" -> "that it"); ``wh_changed``: one question word for
    another, which <-> what aside ("how" -> "what"); "" otherwise. ``which_asks``: the edit's
    "which" opens the question ("which city ...", "in which city ..."), so it counts as a
    question word too ("in which city did ..." -> "in that city did ..."); a relative "which"
    inside a sentence ("papers which discuss" -> "papers that discuss") does not."""
    def wh(words: List[str]) -> List[str]:
        return sorted("what" if w == "which" else w for w in words if w in WH_WORDS)

    old, new = wh(before), wh(after)
    if not [w for w in before if w in WH_WORDS and (w != "which" or which_asks)]:
        return ""
    return "wh_lost" if not new else "" if old == new else "wh_changed"


def which_asks(old: List[str], start: int, end: int) -> bool:
    """The span [start, end) of the query's tokens ``old`` holds a "which" that opens the question:
    the first word, or the second after a preposition ("in which city ...")."""
    return any(old[i] == "which" and (i == 0 or (i == 1 and old[0] in SIMPLE_PREPOSITIONS))
               for i in range(start, min(end, 2)))


def pronoun_change(before: List[str], after: List[str]) -> bool:
    """A personal pronoun lost or added ("can you write" -> "can write", "us" -> "we")."""
    return any(before.count(p) != after.count(p) for p in PERSONAL_PRONOUNS)
