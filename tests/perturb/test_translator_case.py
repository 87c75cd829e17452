"""perturb.resources.translators.keep_original_case: the query's own spelling back on the words a
round trip changed in case only, nothing else touched."""
from __future__ import annotations

import pytest

from perturb.resources.translators import keep_original_case


@pytest.mark.parametrize("original, back, want", [
    ("what is paranoid", "What is paranoid", "what is paranoid"),  # apertium's capital on the first word
    ("weather in malaga in april", "Time in Malaga in April", "Time in malaga in april"),  # translated word kept
    ("What's IBM", "what's Ibm?", "What's IBM?"),  # the query's capitals come back, marks stay
    ("tension headaches", "Headaches of tension", "Headaches of tension"),  # moved apart: the translator's case
    ("how can i get water", "How I can get water", "how I can get water"),  # "i" moved: kept as translated
    ("", "Anything", "Anything"),
    ("a  b", "A  b ", "a  b "),  # spacing untouched
])
def test_keep_original_case(original, back, want):
    assert keep_original_case(original, back) == want


def test_only_case_changes_are_undone():
    """Letters other than case and every non-word character are the translator's."""
    original, back = "define androgen receptor", "Defining androgen Receptors, define"
    out = keep_original_case(original, back)
    assert out.lower() == back.lower() and out == "Defining androgen Receptors, define"
    assert keep_original_case("x y z", "X Y Z") == "x y z"
