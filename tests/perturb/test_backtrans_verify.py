"""BACKTRANS generate-then-verify (issue 22): candidates from several Apertium pivots, scored on
explicit evidence, one picked (seeded) among those passing the threshold."""
import pytest

from perturb.backtrans_score import THRESHOLD, candidates


def _best(query, backs, leaks=None):
    cands = candidates(query, backs, leaks or {})
    return {c.text: c.score for c in cands}


def test_synonym_agreed_by_two_pivots_passes_and_garbled_round_trip_fails():
    q = "What is the largest planet in our solar system?"
    s = _best(q, {"spa": "What is the biggest planet in our solar system?",
                  "glg": "Than it is the biggest planet in the our solar system?"})
    assert s["What is the biggest planet in our solar system?"] >= THRESHOLD
    assert s["than it is the biggest planet in the our solar system?"] < THRESHOLD
    assert s["What is the largest planet in the our solar system?"] < THRESHOLD  # article before "our"


@pytest.mark.parametrize("query,back,leaks", [
    ("what papers are available on the buckling of empty cylindrical shells under non-uniform pressure .",
     "what papers are available on the buckling of empty cylindrical shells below presiónnouniforme .",
     {"presiónnouniforme"}),
    ("how can one detect transition phenomena in boundary layers .",
     "how can one detects phenomena of transition in layers of border .", set()),
    ("who is spider man", "who is aranea man", {"aranea"}),
    ("what is the theoretical heat transfer rate at the stagnation point of a blunt body .",
     "what is the tax of transfer of theoretical heat in the point of stagnation of a blunt body .", set()),
])
def test_real_bad_round_trips_refused_by_score(query, back, leaks):
    s = _best(query, {"spa": back}, {"spa": leaks})
    assert s.get(" ".join(back.split()), -99) < THRESHOLD


def test_article_and_form_edits_accepted():
    s = _best("what is a active margin", {"spa": "what is an active margin"})
    assert s["what is an active margin"] >= THRESHOLD
    s = _best("material properties of photoelastic materials .", {"glg": "material properties of photoelastic material ."})
    assert max(s.values()) >= THRESHOLD


def _gen():
    from perturb.backtrans import BackTranslate

    gen = BackTranslate(backend="apertium")
    if not all(t.available() for t in gen._translators):
        pytest.skip("apertium pivots not installed")
    return gen


def test_label_config_and_determinism():
    gen = _gen()
    assert gen.label == "BACKTRANS[epo+glg+spa,apertium]"
    cfg = gen.config()
    assert set(cfg["pivots"]) == {"epo", "glg", "spa"} and cfg["threshold"] == THRESHOLD
    assert all(v["version"] for v in cfg["pivots"].values())
    items = [("1", "What is the largest planet in our solar system?"), ("2", "INVESTIGATION OF FREE TURBULENT MIXING ."),
             ("3", "what is a active margin"), ("4", "material properties of photoelastic materials .")]
    a, b = gen.perturb_batch(items, 3), gen.perturb_batch(items, 3)
    assert a == b and sum(p.applied for p in a) >= 2
    assert all(p.text.isupper() for p in a[1:2])  # the ALL-CAPS style is kept
    assert all(p.detail.startswith("pivot:") for p in a if p.applied)
    alone = [gen.perturb_batch([it], 3)[0] for it in items]
    assert alone == a
