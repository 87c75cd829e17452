"""BACKTRANS generate-then-verify (issue 22): candidates from several Apertium pivots, scored on
explicit evidence, one picked (seeded) among those passing the threshold."""
import pytest

from perturb.generators.backtrans.score import WEAKEST_EDIT, candidates

THRESHOLD = WEAKEST_EDIT.threshold


def _best(query, backs, leaks=None):
    cands = candidates(query, backs, leaks or {})
    return {c.text: c.score for c in cands}


def test_synonym_agreed_by_two_pivots_passes_and_garbled_round_trip_fails():
    q = "What is the largest planet in our solar system?"
    s = _best(q, {"spa": "What is the biggest planet in our solar system?",
                  "glg": "Than it is the biggest planet in the our solar system?"})
    assert s["What is the biggest planet in our solar system?"] >= THRESHOLD
    assert s["Than it is the biggest planet in the our solar system?"] < THRESHOLD  # sentence case kept (v2)
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
    from perturb.generators.backtrans.generator import BackTranslate

    gen = BackTranslate(backend="apertium")
    if not all(t.available() for t in gen._translators):
        pytest.skip("apertium pivots not installed")
    return gen


def test_label_config_and_determinism():
    gen = _gen()
    assert gen.label == "BACKTRANS[cat+cat-spa+epo+glg+spa,apertium]"
    cfg = gen.config()
    assert set(cfg["pivots"]) == {"cat", "cat-spa", "epo", "glg", "spa"} and cfg["threshold"] == THRESHOLD
    assert cfg["pivots"]["cat-spa"]["modes"] == ["eng-cat", "cat-spa", "spa-eng"]
    assert all(v["version"] for v in cfg["pivots"].values())
    items = [("1", "What is the largest planet in our solar system?"), ("2", "INVESTIGATION OF FREE TURBULENT MIXING ."),
             ("3", "what is a active margin"), ("4", "material properties of photoelastic materials .")]
    a, b = gen.perturb_batch(items, 3), gen.perturb_batch(items, 3)
    assert a == b and sum(p.applied for p in a) >= 2
    assert all(p.text.isupper() for p in a[1:2])  # the ALL-CAPS style is kept
    assert all(p.detail.startswith("pivot:") for p in a if p.applied)
    alone = [gen.perturb_batch([it], 3)[0] for it in items]
    assert alone == a


@pytest.mark.parametrize("query,back,bad", [
    ("a sublayer for fluid injection into the incompressible turbulent boundary layer .",
     "a sublayer for fluent injection into the incompressible turbulent boundary layer .", "derivation"),
    ("base pressure in supersonic flow .", "basic pressure in supersonic flow .", "derivation"),
    ("who is robert gray", "who is robert grey", "name"),
    ("how did african american women get the right to vote",
     "how did african american the women get the right to vote", "article_in_term"),
    ("can you write a regex in Python?", "can write a regex in Python?", "pronoun"),
    ("Do you get mad", "you get mad", "question_form"),
])
def test_misfires_of_the_first_round_now_refused(query, back, bad):
    cands = candidates(query, {"spa": back}, {}, original=query)
    whole = [c for c in cands if c.text.lower() == back.lower()]
    assert whole and whole[0].score < THRESHOLD and bad in whole[0].reasons


@pytest.mark.parametrize("query,back,bad", [
    # round 3 (issue 22), from the labelled dev rows: question words, need words, argument prepositions
    ("what is the lowest army rank of a US soldier?", "than it is the lowest army rank of a US soldier?", "wh_lost"),
    ("how can one detect transition phenomena in hypersonic wakes .",
     "as can one detect transition phenomena in hypersonic wakes .", "wh_lost"),
    ("how do i erase all the contacts in my phone", "what do i erase all the contacts in my phone", "wh_changed"),
    ("Which chess piece can only move diagonally?", "Which chess piece can move diagonally?", "need_word"),
    ("THE SHAPES AND LIFT-DEPENDENT DRAGS ON SOME SWEPTBACK WINGS DESIGNED FOR M= 1. 2.",
     "THE SHAPES AND LIFT-DEPENDENT DRAGS ON SOME SWEPTBACK WINGS DESIGNED BY M= 1. 2.", "preposition_argument"),
])
def test_question_words_need_words_and_argument_prepositions_refused(query, back, bad):
    n = 1 if bad == "preposition_argument" else 3  # question and need words: even when three pivots agree (+2)
    cands = candidates(query, {p: back for p in ["cat", "glg", "spa"][:n]}, {}, original=query)
    whole = [c for c in cands if c.text.lower() == back.lower()]
    assert whole and whole[0].score < THRESHOLD and bad in whole[0].reasons


@pytest.mark.parametrize("query,back,good", [
    ("How many children does Oprah Winfrey have?", "How many children does Oprah Winfrey has?", "function_form"),
    ("what are the general effects on flow fields", "what is the general effects on flow fields", "function_form"),
    ("INVESTIGATION OF A SYSTEMATIC GROUP OF COWLINGS .", "INVESTIGATION OF ONE SYSTEMATIC GROUP OF COWLINGS .",
     "article_one"),
    ("what is the biggest artery in the human body?", "what is the biggest artery at the human body?", "preposition"),
    ("what effect has the boundary layer", "which effect has the boundary layer", "wh"),
])
def test_agreement_slips_one_and_place_prepositions_pass_from_one_pivot(query, back, good):
    cands = candidates(query, {"cat": back}, {}, original=query)
    whole = [c for c in cands if c.text.lower() == back.lower()]
    assert whole and whole[0].score >= THRESHOLD and good in whole[0].reasons


def test_short_words_two_letters_apart_are_not_spelling_variants():
    from perturb.generators.backtrans.evidence import spelling_variant

    assert not spelling_variant("flow", "flux") and not spelling_variant("wakes", "awake")
    assert spelling_variant("color", "colour") and spelling_variant("analyzed", "analysed")
    s = _best("THE DEVELOPMENT OF THE BOUNDARY LAYER IN SUPERSONIC SHEAR FLOW .",
              {"cat": "THE DEVELOPMENT OF THE BOUNDARY LAYER IN SUPERSONIC SHEAR FLUX ."})
    assert max(s.values()) < THRESHOLD


def test_a_name_capitalised_in_a_mixed_case_query_is_not_translated():
    q = "The Candlestick, Lead Pipe, Knife and Rope are weapons in Clue?"
    cands = candidates(q, {"spa": "The Candlestick, Lead tube, Knife and Rope are weapons in Clue?"}, {}, original=q)
    assert all(c.score < THRESHOLD and "name" in c.reasons for c in cands)


def test_good_edits_of_one_round_trip_combine_and_a_bad_one_is_left_out():
    q = "what are the effects of a small amount of gas on the characteristics of boundary layers ."
    back = "which are the effects of small amount of gas on the characteristics of limaj deposits ."
    s = _best(q, {"epo": back}, {"epo": {"limaj"}})
    assert s["which are the effects of small amount of gas on the characteristics of boundary layers ."] >= THRESHOLD
    assert s[back] < THRESHOLD


def test_synonym_in_the_query_sense_passes_and_a_weak_sense_does_not():
    s = _best("reaction tests of turbine nozzles for supersonic velocities .",
              {"spa": "reaction tests of turbine nozzles for supersonic speeds .",
               "glg": "reaction tests of turbine nozzles for supersonic speeds ."})
    assert s["reaction tests of turbine nozzles for supersonic speeds ."] >= THRESHOLD
    s = _best("what general solutions for the stresses in shells are available .",
              {"spa": "what general solutions for the tensions in shells are available ."})
    assert s["what general solutions for the tensions in shells are available ."] < THRESHOLD


def test_the_dev_set_has_a_reason_per_pair_and_the_threshold_meets_its_tuning_half():
    from benchmarks.tuning.rules import labelled_path
    from perturb.checks.devset import DEVELOPMENT, point, read_devset

    rows = read_devset(labelled_path("BACKTRANS"), DEVELOPMENT)
    assert len(rows) >= 200 and len({c.style for c in rows}) >= 4
    assert len({c.reason for c in rows}) >= 0.8 * len(rows)  # one-line reasons, not a generic label
    p = point([c for c in rows if c.split == "tune"], THRESHOLD)
    assert p.validity >= 0.95


# --------------------------------------------------------------------------- round 6
@pytest.mark.parametrize("query,back", [
    ("I'm sorry, but I don't have any.", "I am sorry, but I don't have any."),
    ("I'm sorry, but I don't have any.", "I'm sorry, but I do not have any."),
    ("My computer won't turn on.", "My computer will not turn on."),
    ("So what's your favorite color?", "So what is your favorite color?"),
])
def test_a_contraction_spelled_out_is_one_valid_edit(query, back):
    from perturb.generators.backtrans.score import WEIGHTS

    s = {c.text.lower(): c for c in candidates(query, {"epo": back}, {})}  # edits come case-folded
    assert s[back.lower()].score >= THRESHOLD and "contraction" in s[back.lower()].reasons
    assert WEIGHTS["contraction"] >= THRESHOLD  # one pivot is enough


@pytest.mark.parametrize("query,back", [
    ("The thing you're using to talk to me is a computer.", "The thing are using to talk to me is a computer."),
    ("I'm also good.", "am also good."),
    ("I don't know.", "I do know."),
])
def test_a_contraction_half_lost_is_a_lost_pronoun_or_negation(query, back):
    c = {c.text.lower(): c for c in candidates(query, {"epo": back, "spa": back}, {})}[back.lower()]
    assert c.score < THRESHOLD and ({"pronoun", "need_word"} & set(c.reasons))


def test_expand_keeps_possessives():
    from perturb.generators.backtrans.score import expand

    assert expand(["i'm", "don't", "it's", "earth's", "they're", "can't"]) == [
        "i", "am", "do", "not", "it", "is", "earth's", "they", "are", "can", "not"]


def test_a_word_one_pivot_leaks_is_no_leak_when_another_gives_it_plainly():
    q, back = "So what's your favorite color?", "So what is your favorite color?"
    both = {c.text: c for c in candidates(q, {"cat": back, "epo": back}, {"cat": {"what"}, "epo": set()})}
    assert "leak" not in both[back].reasons and both[back].score >= THRESHOLD
    one = {c.text: c for c in candidates(q, {"cat": back}, {"cat": {"what"}})}
    assert "leak" in one[back].reasons and one[back].score < THRESHOLD


def test_agreement_counts_independent_round_trips_only():
    from perturb.generators.backtrans.score import independent
    from perturb.resources.translators import route_directions

    assert route_directions("cat-spa") == {("eng", "cat"), ("cat", "spa"), ("spa", "eng")}
    assert independent({"cat", "epo", "glg", "spa"}) == 4
    assert independent({"spa", "cat-spa"}) == 1  # both end with spa->eng
    assert independent({"cat", "spa", "cat-spa"}) == 2
    assert independent({"epo", "cat-spa"}) == 2
    q = "what is a active margin"
    s = {c.text: c for c in candidates(q, {"spa": "what is an active margin", "cat-spa": "what is an active margin"}, {})}
    t = {c.text: c for c in candidates(q, {"spa": "what is an active margin", "epo": "what is an active margin"}, {})}
    assert s["what is an active margin"].score < t["what is an active margin"].score


def test_a_chained_pivot_runs_its_hops_in_order_and_shares_the_first_with_the_direct_pivot(monkeypatch):
    from perturb.resources import translators as T

    calls = []

    def fake(self, mode, texts):
        calls.append((self.pivot, mode))
        return [f"*{mode}({t})" for t in texts]

    monkeypatch.setattr(T.ApertiumTranslator, "_run_alone", fake)
    chain, direct = T.ApertiumTranslator("cat-spa"), T.ApertiumTranslator("cat")
    memo = T.RunMemo()
    chain.shared = direct.shared = memo
    assert direct.to_pivot(["a b"]) == ["*eng-cat(a b)"]
    assert chain.to_pivot(["a b"]) == ["*cat-spa(eng-cat(a b))"]  # marks removed between hops
    assert chain.from_pivot(["x"]) == ["*spa-eng(x)"]
    assert calls == [("cat", "eng-cat"), ("cat-spa", "cat-spa"), ("cat-spa", "spa-eng")]  # eng-cat ran once


def test_run_memo_computes_once_for_threads_asking_together():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from perturb.resources.translators import RunMemo

    memo, n, gate = RunMemo(), [], threading.Event()

    def compute():
        gate.wait(5)
        n.append(1)
        return ["x"]

    with ThreadPoolExecutor(4) as pool:
        futs = [pool.submit(memo.run, ("m", ("t",)), compute) for _ in range(4)]
        gate.set()
        assert [f.result() for f in futs] == [["x"]] * 4
    assert n == [1]


def test_a_round_trip_that_leaves_no_word_is_refused_by_the_engine():
    from perturb.engine import Candidate, judge
    from perturb.generators.backtrans.generator import SPEC

    def passing(backs):
        judged = judge(SPEC.constraints, [Candidate(c, {"text": "a"}) for c in candidates("a", backs, {})])
        return [c.edit.text for c in judged.passed], judged.why()

    assert passing({"epo": "", "cat-spa": "one"})[0] == ["one"]
    assert passing({"epo": ""}) == ([], {"a word left": 1})  # proposed, and refused: nothing left to search for


@pytest.mark.parametrize("back", ["In that city did Hitler commit suicide?", "In that city Hitler commit suicide?"])
def test_an_opening_which_replaced_is_a_question_word_lost_even_with_agreement(back):
    # round 7: "which" opening the question ("in which city ...") counts for wh_lost; before, "which"
    # -> "that" was a function word (-0.5) and passed as soon as two pivots agreed
    query = "In which city did Hitler commit suicide?"
    cands = candidates(query, {p: back for p in ["cat", "epo", "glg"]}, {}, original=query)
    whole = [c for c in cands if c.text == back]
    assert whole and whole[0].score < THRESHOLD and "wh_lost" in whole[0].reasons


def test_a_relative_which_for_that_is_still_a_function_word():
    query = "papers which discuss the heat transfer of a cylinder ."
    back = "papers that discuss the heat transfer of a cylinder ."
    cands = candidates(query, {p: back for p in ["cat", "epo", "glg"]}, {}, original=query)
    whole = [c for c in cands if c.text == back]
    assert whole and "wh_lost" not in whole[0].reasons and whole[0].score >= THRESHOLD
