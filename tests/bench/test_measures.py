import math

import pytest

from bench.core.errors import BenchError
from bench.evaluation.measures import parse_measure, parse_measures, per_query


@pytest.mark.parametrize("name", ["MRR@10", "nDCG@10", "R@100", "MAP", "P@5", "AP", "RR", "nDCG@20"])
def test_names_round_trip(name):
    m = parse_measure(name)
    assert str(m) == name and parse_measure(str(m)) == m and hash(m) == hash(parse_measure(name))


def test_aliases_and_errors():
    assert str(parse_measure("mrr@10")) == "MRR@10" and str(parse_measure("ndcg@10")) == "nDCG@10"
    assert [str(m) for m in parse_measures("MRR@10, nDCG@10 MRR@10")] == ["MRR@10", "nDCG@10"]
    with pytest.raises(BenchError, match="unknown measure 'Bogus@3'"):
        parse_measure("Bogus@3")


QRELS = {"q1": {"a": 2, "b": 1, "z": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
RUN = {"q1": [("x", 9.0), ("b", 8.0), ("a", 7.0)], "q2": [("c", 1.0)], "q3": [("x", 1.0)]}


def test_values_match_hand_computation():
    v = per_query(parse_measures("MRR@10 nDCG@10 R@2 MAP"), QRELS, RUN, ["q1", "q2", "q3"])
    assert v["MRR@10"] == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    # trec_eval nDCG: gain = grade, discount log2(rank+1); ideal = 2, 1, 1
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert v["nDCG@10"]["q1"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert v["R@2"]["q1"] == pytest.approx(1 / 3)
    assert v["MAP"]["q1"] == pytest.approx((1 / 2 + 2 / 3) / 3)


def test_values_equal_pytrec_eval_directly():
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"recip_rank", "ndcg_cut_10", "map"})
    raw = ev.evaluate({q: {d: s for d, s in docs} for q, docs in RUN.items()})
    v = per_query(parse_measures("nDCG@10 MAP"), QRELS, RUN, list(QRELS))
    for q in QRELS:
        assert v["nDCG@10"][q] == pytest.approx(raw[q]["ndcg_cut_10"], abs=1e-12)
        assert v["MAP"][q] == pytest.approx(raw[q]["map"], abs=1e-12)


def test_the_given_ranking_is_what_is_measured():
    # a and b tie; the ranking handed in puts 'a' first, and that order is measured (trec_eval
    # alone would put 'b' first: the retriever, not the measure, decides tie order).
    qrels = {"q": {"a": 1}}
    run = {"q": [("a", 1.0), ("b", 1.0)]}
    assert per_query(parse_measures("MRR@10"), qrels, run, ["q"])["MRR@10"]["q"] == 1.0


def test_query_without_results_scores_zero():
    v = per_query(parse_measures("MRR@10"), {"q": {"a": 1}}, {}, ["q"])
    assert v["MRR@10"] == {"q": 0.0}
