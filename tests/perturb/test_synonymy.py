"""perturb.resources.senses.synonymy: the one place that says whether two words are synonyms,
checked against WordNet 3.0 facts, and the modules that used to answer it on their own asking it."""
import ast
from pathlib import Path

import pytest

from perturb.resources.senses import SharedSense, synonymy

ROOT = Path(__file__).resolve().parents[2]


def test_words_of_one_synset_are_synonyms_with_their_ranks():
    found = synonymy("car", "automobile")
    assert found and found.synsets == {"car.n.01"}
    assert found.senses[0] == SharedSense("car.n.01", "n", 0, 0)


def test_antonyms_and_unrelated_words_are_not_synonyms():
    assert not synonymy("hot", "cold")
    assert not synonymy("car", "banana")
    assert synonymy("hot", "cold").senses == ()


def test_the_part_of_speech_restricts_the_senses():
    assert synonymy("car", "automobile", "n")
    assert not synonymy("car", "automobile", "v")
    assert not synonymy("car", "automobile", "a")


def test_the_sense_cut_offs_are_the_callers():
    """respond/answer share answer.v.01, respond's second sense (react.v.01 is its first)."""
    found = synonymy("respond", "answer")
    assert [(s.synset, s.rank_a, s.rank_b) for s in found.senses] == [("answer.v.01", 1, 0)]
    assert not synonymy("respond", "answer", top_a=1)
    assert synonymy("respond", "answer", top_a=2, top_b=1)
    assert synonymy("answer", "respond", top_a=1, top_b=2)
    assert not synonymy("respond", "answer", top_a=0)


def test_same_form_compares_readings_of_one_inflection():
    assert synonymy("big", "larger")  # the lemma "large" shares large.a.01 with "big"
    assert not synonymy("big", "larger", same_form=True)  # JJ against JJR
    same = synonymy("bigger", "larger", same_form=True)
    assert same and {s.tag for s in same.senses} == {"JJR"}
    assert synonymy("large", "big", top_a=1, top_b=2, same_form=True).senses[0] == SharedSense(
        "large.a.01", "a", 0, 0, "JJ")


def test_the_surface_lookup_keeps_an_inflected_forms_own_entry():
    """"found" is a verb of its own (establish.v.01) and the past of "find": the generators read
    its lemma "find", the audit's proxy reads both."""
    assert not synonymy("found", "establish")
    assert "establish.v.01" in synonymy("found", "establish", lookup="surface").synsets


@pytest.mark.parametrize("kwargs, words", [
    ({"pos": "x"}, "pos 'x'"), ({"lookup": "gloss"}, "lookup 'gloss'"),
    ({"same_form": True, "lookup": "surface"}, "same_form"),
])
def test_unknown_arguments_are_refused_by_name(kwargs, words):
    with pytest.raises(ValueError, match=words):
        synonymy("car", "automobile", **kwargs)


def test_the_answer_is_the_same_for_the_same_question():
    assert synonymy("car", "automobile", top_a=1) is synonymy("car", "automobile", top_a=1)


def test_the_callers_give_their_old_answers():
    from perturb.checks.audit import _share_synset
    from perturb.generators.backtrans import evidence, rules, score
    from perturb.generators.backtrans.generator import unmatched_content
    from perturb.resources.lexicon import sense_synonyms

    assert rules.synonym_same_form("large", "big") and not rules.synonym_same_form("respond", "answer")
    assert score._related("respond", "answer") and not score._related("hot", "cold")
    assert evidence.spelling_variant("color", "colour") and not evidence.spelling_variant("flow", "flux")
    assert evidence.shared_sense("velocity", "speed") == pytest.approx(0.66, abs=0.01)
    assert _share_synset("Found", "establish") and not _share_synset("hot", "cold")
    assert unmatched_content("car repair", "automobile repair") == []
    assert unmatched_content("hot soup", "cold soup") == ["hot", "cold"]
    assert "job" not in [name for name, _, _ in sense_synonyms("problem", "n", 1)]  # not job's own first sense


# modules that once compared WordNet senses themselves; each now asks synonymy()
ASKERS = ("perturb/generators/backtrans/rules.py", "perturb/generators/backtrans/score.py",
          "perturb/generators/backtrans/evidence.py", "perturb/generators/backtrans/generator.py",
          "perturb/checks/audit.py")


def test_no_other_module_compares_senses_itself():
    found = []
    for rel in ASKERS:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or fn.name == "warm":  # warm() loads WordNet, asks nothing
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if name in ("ranked_synsets", "synsets", "top_senses"):
                        found.append(f"{rel}:{node.lineno} {fn.name} calls {name}")
    assert not found, "; ".join(found) + " (ask perturb.resources.senses.synonymy)"
