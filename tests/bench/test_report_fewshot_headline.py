"""The few-shot report's novel-class sentence never calls one setting both the largest drop and
the largest gain, and never calls a gain a drop."""
from bench.reporting.report.fewshot import extremes_sentence


def test_one_setting_is_named_once_with_its_delta():
    (line,) = extremes_sentence([(0.0238, "qry-tune K=5")])
    assert line == "Novel classes: qry-tune K=5 +2.38 points against zero-shot."
    assert "largest" not in line


def test_a_drop_is_negative_and_a_gain_positive():
    (line,) = extremes_sentence([(0.01, "a K=5"), (-0.02, "b K=5"), (0.03, "c K=20")])
    assert "largest drop b K=5 (-2.00 points)" in line and "largest gain c K=20 (+3.00 points)" in line


def test_only_gains_say_there_is_no_drop():
    (line,) = extremes_sentence([(0.01, "a K=5"), (0.03, "c K=20")])
    assert "no setting below zero-shot" in line and "largest drop" not in line
    assert "largest gain c K=20 (+3.00 points)" in line


def test_only_drops_say_there_is_no_gain():
    (line,) = extremes_sentence([(-0.01, "a K=5"), (-0.03, "c K=20")])
    assert "largest drop c K=20 (-3.00 points)" in line and "no setting above zero-shot" in line
