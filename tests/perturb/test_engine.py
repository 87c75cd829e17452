"""The one engine (perturb/engine.py): a transformation's candidates through the spec's constraints
in order, the spec's picker, the result constraints; the refusals counted on the way."""
from __future__ import annotations

import numpy as np
import pytest

import perturb
from perturb.base import Perturbation
from perturb.engine import Candidate, SpecGenerator, draw_passing, every, judge, run, uniform
from perturb.spec import Edit, Param, Spec, veto

SHORT = veto("short", description="the replacement is short",
             why=lambda edit, ctx: None if len(edit.spans[0][2]) <= 3 else f"{edit.spans[0][2]!r} is long")
NOT_X = veto("no x", description="the replacement has no x",
             why=lambda edit, ctx: "an x" if "x" in edit.spans[0][2] else None)


def cands(*words):
    return [Candidate(Edit.replace(0, 1, w), {"group": k}) for k, w in enumerate(words)]


def test_run_judges_in_order_picks_and_counts_refusals():
    out = run((SHORT, NOT_X), cands("ab", "abcdx", "ax", "cd"), every, np.random.default_rng(0))
    assert [c.edit.spans[0][2] for c in out.chosen] == ["ab", "cd"]
    assert out.why() == {"short": 1, "no x": 1}  # "abcdx" stops at the first constraint that refuses it
    assert run((SHORT,), [], uniform, np.random.default_rng(0)).chosen == []


def test_a_result_constraint_refuses_the_picked_edits_as_one():
    few = veto("few", description="at most two edits", why=lambda edit, ctx: "too many" if ctx["n"] > 2 else None)
    type(few).judges = "result"
    whole = lambda chosen: Candidate(Edit(()), {"n": len(chosen)})  # noqa: E731
    assert len(run((few,), cands("a", "b"), every, None, whole).chosen) == 2
    out = run((few,), cands("a", "b", "c"), every, None, whole)
    assert out.chosen == [] and out.why() == {"few": 1}


def test_judge_takes_several_stages_and_draw_passing_redraws():
    assert judge((SHORT,), cands("abcd"), ("option", "target")).passed  # SHORT judges edits only
    seq = iter(cands("abcdef", "ax", "ok"))
    refused = []
    got = draw_passing((SHORT, NOT_X), lambda: next(seq), 3, refused)
    assert got.edit.spans[0][2] == "ok" and [r.constraint for r in refused] == ["short", "no x"]
    seq = iter(cands("abcdef", "ok"))
    assert draw_passing((SHORT,), lambda: next(seq), 1) is None  # attempts bound the draws


def test_a_generator_is_its_spec_and_its_transformation():
    """A new generator: a proposal and a spec; changing the spec's constraints changes what it does."""

    class Upper(SpecGenerator):
        name = "UPPER"
        spec = Spec(name="UPPER", version=1, protocol="validated", transformation="one word upper-cased",
                    constraints=(SHORT,), params=(Param("label", str, "up", "detail"),))

        def propose(self, text, rng):
            return [Candidate(Edit.replace(s, s + len(w), w.upper() + "!", detail=f"{self.param('label')} {w}"))
                    for s, w in ((text.index(w), w) for w in text.split())]

    gen = Upper()
    out = gen.perturb("a long word", np.random.default_rng(1))
    assert out.applied and out.text == "A! long word" and out.detail == "up a"
    assert out.refused == {"short": 2}  # "LONG!" and "WORD!" are long
    Upper.spec = Spec(name="UPPER", version=1, protocol="validated", transformation="t", constraints=(NOT_X,),
                      params=Upper.spec.params)
    assert Upper().perturb("a long word", np.random.default_rng(1)).refused == {}


def test_refusal_counts_ride_on_the_perturbation_and_are_not_compared():
    nostop = perturb.make("NOSTOPWORD")
    p = nostop.perturb("do not stop the car", None)
    assert p.text == "not stop car" and p.refused == {"need words kept": 1}
    empty = nostop.perturb("what is it", None)
    assert not empty.applied and empty.refused == {"a word left": 1}
    blank = perturb.make("EXTRAPUNC").perturb("   ", np.random.default_rng(0))
    assert not blank.applied and blank.refused == {"not blank": 1}
    miss = perturb.make("MISSPELL").perturb("the of and", np.random.default_rng(0))
    assert not miss.applied and miss.refused == {"content-word target": 3}
    assert Perturbation("a", False, "", {"x": 1}) == Perturbation("a", False, "")


@pytest.mark.parametrize("name", ["MISSPELL", "EXTRAPUNC", "NOSTOPWORD", "SWAPWORDS"])
def test_the_paper_version_is_the_validated_transformation_with_the_paper_spec(name):
    paper, valid = type(perturb.make(name, protocol="rodr")), type(perturb.make(name))
    assert paper.spec.protocol == "rodr" and isinstance(perturb.make(name, protocol="rodr"), SpecGenerator)
    assert "propose" not in vars(paper) and "_perturb" not in vars(paper)
    assert paper._perturb is valid._perturb or paper.propose is valid.propose  # one transformation
