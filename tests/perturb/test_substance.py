"""perturb.checks.substance: which words a set's changes touch (issue 35, item 2)."""
from perturb.checks.substance import Substance, substance_of, touched


def test_touched_names_the_replaced_and_deleted_words_of_the_original():
    o = "what is the cost of housing"
    assert [o[s:e] for s, e in touched(o, "what is the price of housing")] == ["cost"]
    assert [o[s:e] for s, e in touched(o, "what cost of housing")] == ["is", "the"]
    assert touched(o, o + "???") == []  # punctuation touches no word
    assert touched(o, "What IS the cost of housing") == []  # case only


def test_substance_counts_content_words_and_the_most_changed_words():
    originals = ["what is the cost of housing", "the effect is especially strong", "how do birds fly",
                 "especially large waves"]
    variations = ["what is the price of housing", "the effect is particularly strong", "how do birds fly",
                  "particularly large waves"]
    applied = [True, True, False, True]
    sub = substance_of(originals, variations, applied)
    assert sub.changed == 3
    assert sub.content == 1  # "cost" (NOUN); "especially" is an adverb twice
    assert abs(sub.content_share - 1 / 3) < 1e-12
    assert sub.top[0] == ("especially", 2)
    assert sub.top_text().startswith("especially 67%")


def test_an_unchanged_set_has_no_share():
    sub = substance_of(["a query"], ["a query"], [False])
    assert sub == Substance(0, 0, ())
    assert sub.content_share is None and sub.top_text() == ""
