"""Apertium batches: every text translates as it does alone, whatever the other texts of the call
(perturb.resources.translators.ApertiumTranslator, perturb.resources.apertium_steps.null_separated).

Plain apertium carried state from one text to the next: a text whose last word took the full stop
apertium-destxt adds ("vs" -> "vs.", "un" -> "un.") ended no sentence, so the next text continued
it (tagger, lexical selection, transfer); and the transfer steps kept their variables over the
whole run. The batches below are the smallest found (by bisecting a 7,000-query batch) that
changed a text's translation."""
from __future__ import annotations

import json
import random

import pytest

from perturb_helpers import shared_data

# (pivot, a text that changed the next one, the text it changed): round trips from English
CASES = [
    ("spa", "why there is a chinese map but then you can split it in english i e wei ni how ma vs",
     "why don't you eat"),  # "... cómo ma vs" + "Por qué  no  comes": "Why do not eat" (alone "Why you do not eat")
    ("glg", "how can such a negative go to havana if there is one",
     "how can one detect transition phenomena in hypersonic wakes ."),  # "... se hai un": Galician "un." (a noun)
    ("glg", "how can such a negative go to havana if there is one",
     "how can one detect transition phenomena in boundary layers ."),
    ("glg", "studies of transition over a flat plate at mach number 1.76 were carried out using a",
     "experimental studies of creep buckling ."),  # "experimental Studies" after it
    ("cat", "how can such a negative go to havana if there is one",
     "how can one detect transition phenomena in hypersonic wakes ."),  # Catalan "un." too
    ("cat", "(1) a relatively simple turbulent theory which is based on recent theoretical work and which takes",
     "do grow goldfish"),  # a transfer variable: "duu goldfish" after it, " goldfish" alone
]
# The pivot-language batches themselves (one direction)
PIVOT_CASES = [
    ("spa", "from", "Por qué  hay un chinese mapa pero entonces  puedes partir él en english i e wei ni cómo ma vs",
     "Por qué  no  comes", "Why    you do not eat"),
    ("glg", "from", "Como pode tal negativo vai a havana se hai  un",
     "Como pode un detecta transición phenomena en capas de fronteira .", None),
    ("cat", "from", "com pot tal negatiu anar a havana si hi ha un",
     "com pot u detectar transició phenomena dins hipersònic desperta .", None),
    ("cat", "to", "(1) a relatively simple turbulent theory which is based on recent theoretical work and which takes",
     "do grow goldfish", None),
]


def _apertium(pivot):
    from perturb.resources.translators import ApertiumTranslator

    tr = ApertiumTranslator(pivot)
    if not tr.available():
        pytest.skip(f"apertium pair for {pivot} not installed")
    return tr


def round_trips(tr, texts):
    """text -> (pivot text, back-translation), as BACKTRANS makes them (marks removed in between)."""
    from perturb.generators.backtrans.generator import round_trip

    return dict(zip(texts, round_trip(tr, texts)))


def shuffled(texts, seed):
    out = list(texts)
    random.Random(seed).shuffle(out)
    return out


@pytest.mark.parametrize("pivot,direction,before,text,expected", PIVOT_CASES)
def test_a_pivot_text_translates_as_alone_after_the_text_that_changed_it(pivot, direction, before, text, expected):
    tr = _apertium(pivot)
    run = tr.to_pivot if direction == "to" else tr.from_pivot
    alone = run([text])[0]
    assert alone is not None and alone.strip()
    if expected is not None:
        assert alone == expected
    assert run([before, text])[1] == alone
    assert run([text, before])[0] == alone


@pytest.mark.parametrize("pivot,before,text", CASES)
def test_a_query_round_trips_as_alone_in_the_batch_that_changed_it(pivot, before, text):
    tr = _apertium(pivot)
    alone = round_trips(tr, [text])[text]
    assert alone[1] is not None
    assert round_trips(tr, [before, text])[text] == alone


def test_the_reported_queries_round_trip_as_alone_in_a_shuffled_batch(cranfield):
    """The texts above in one batch with Cranfield queries, in two orders: as alone."""
    texts = sorted({t for _, b, t in CASES} | {b for _, b, _ in CASES} | {t for _, t in cranfield[:40]})
    for pivot in sorted({p for p, _, _ in CASES}):
        tr = _apertium(pivot)
        targets = sorted({t for p, _, t in CASES if p == pivot})
        alone = {t: round_trips(tr, [t])[t] for t in targets}
        for order in (texts, shuffled(texts, 5)):
            batch = round_trips(tr, order)
            assert {t: batch[t] for t in targets} == alone, pivot


# --------------------------------------------------------------------------- property
def real_queries(n, seed=0):
    """``n`` real queries, half Cranfield, half chatterbot (judged), and the texts of the cases above."""
    from bench.data.collections import load_dataset

    with open(shared_data() / "cranfield" / "queries.jsonl", encoding="utf-8") as fh:
        cran = sorted({json.loads(line)["text"] for line in fh})
    ds = load_dataset("chatterbot")
    chat = sorted({ds.queries[q].text for q in ds.judged_query_ids()})
    rng = random.Random(seed)
    picked = rng.sample(cran, n // 2) + rng.sample(chat, n - n // 2)
    return sorted(set(picked) | {t for _, _, t in CASES} | {b for _, b, _ in CASES})


def check_batch_equals_alone(pivot, texts, alone_texts):
    """Round trips of ``texts`` in sorted and shuffled batches agree; those of ``alone_texts`` are
    as alone."""
    tr = _apertium(pivot)
    batch = round_trips(tr, texts)
    assert round_trips(tr, shuffled(texts, 3)) == batch
    for t in alone_texts:
        assert round_trips(tr, [t])[t] == batch[t], (pivot, t)


PIVOTS = ["spa", "cat", "cat-spa", "epo", "glg"]  # backtrans.generator.APERTIUM_PIVOTS, and "spa" the paper's


@pytest.mark.parametrize("pivot", PIVOTS)
def test_real_queries_round_trip_as_alone_fast(pivot):
    texts = real_queries(24)
    check_batch_equals_alone(pivot, texts, random.Random(1).sample(texts, 3))


@pytest.mark.slow
@pytest.mark.parametrize("pivot", PIVOTS)
def test_real_queries_round_trip_as_alone(pivot):
    texts = real_queries(100)
    check_batch_equals_alone(pivot, texts, texts)


def test_the_pivots_are_the_generators():
    from perturb.generators.backtrans.generator import APERTIUM_PIVOTS

    assert set(APERTIUM_PIVOTS) | {"spa"} == set(PIVOTS)
