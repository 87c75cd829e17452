"""Conformance: every measure `--metrics` accepts equals trec_eval (pytrec_eval) on the same ranking.

The reference never sees our ranking: it gets the raw scores (with ties) and sorts them itself,
as trec_eval does (score desc, doc id desc). Our side ranks with the retriever's own kernel
(`topk_row` with `_doc_rank`) and measures with `bench.evaluation.measures.per_query`. Agreement therefore
checks the measure mapping, the cutoffs (RR@k included) and the tie-breaking rule together.
A third path writes our run as a TREC file, reads it back with ir_measures and evaluates it with
pytrec_eval: the printed scores must re-rank to the same order.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.core.errors import BenchError
from bench.evaluation.measures import _FAMILIES, _SPELLINGS, parse_measure, per_query
from bench.search.exact import _doc_rank, topk_row, write_trec_run

CUTOFFS = (1, 2, 3, 5, 10)
# every family, with and without a cutoff where the family allows it
NAMES = sorted({f"{fam}@{k}" for fam, spec in _FAMILIES.items() if spec.trec_cut or fam == "RR" for k in CUTOFFS}
               | {fam for fam, spec in _FAMILIES.items() if spec.trec_full} | {"MRR@10", "MAP"})


def _reference(name, qrels, raw_run):
    """pytrec_eval on the raw scores; RR@k from trec_eval's own full-run reciprocal rank."""
    import pytrec_eval

    m = parse_measure(name)
    judged = {q: d for q, d in qrels.items() if d}
    runs = {q: d for q, d in raw_run.items() if d and q in judged}
    if m.family == "RR" and m.cutoff is not None:
        ev = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"})
        out = ev.evaluate(runs) if runs else {}
        vals = {q: r["recip_rank"] for q, r in out.items()}
        # the first relevant document is at rank 1/rr: inside the cutoff or it scores 0
        return {q: (v if v > 0 and round(1 / v) <= m.cutoff else 0.0) for q, v in vals.items()}
    ev = pytrec_eval.RelevanceEvaluator(judged, {m.trec_eval})
    key = m.trec_eval.replace(".", "_")
    return {q: r[key] for q, r in (ev.evaluate(runs) if runs else {}).items()}


def _rank(scores: dict):
    """Our ranking of a {doc: score} dict, through the retriever's kernel."""
    ids = list(scores)
    if not ids:
        return []
    s = np.array([scores[d] for d in ids], dtype=np.float64)
    top = topk_row(s, len(ids), _doc_rank(ids))
    return [(ids[j], float(s[j])) for j in top]


doc_ids = st.lists(st.text(alphabet="abAB019_.-", min_size=1, max_size=3), min_size=1, max_size=25, unique=True)


@st.composite
def collections(draw):
    pool = draw(doc_ids)
    n_q = draw(st.integers(1, 4))
    qrels, raw = {}, {}
    for i in range(n_q):
        q = f"q{i}"
        retrieved = draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))  # may be empty
        # few distinct scores: ties everywhere, including across every cutoff
        raw[q] = {d: draw(st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 7.0])) for d in retrieved}
        judged = draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}  # graded; 0 = judged non-relevant
    return qrels, raw


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_every_measure_equals_trec_eval_on_the_same_scores(data):
    qrels, raw = data
    run = {q: _rank(scores) for q, scores in raw.items()}
    qids = list(raw)
    ours = per_query([parse_measure(n) for n in NAMES], qrels, run, qids)
    for name in NAMES:
        ref = _reference(name, qrels, raw)
        for q in qids:
            # trec_eval leaves out queries with nothing retrieved or nothing judged: we score them 0
            assert ours[name][q] == ref.get(q, 0.0), (name, q, qrels[q], run[q])


def _random_float_scores(rng, n_docs):
    """float32 scores as a dense model gives them, with some exact ties."""
    s = rng.normal(size=n_docs).astype(np.float32)
    s[rng.integers(0, n_docs, size=max(1, n_docs // 5))] = s[0]
    return s


@pytest.mark.parametrize("seed", range(5))
def test_trec_file_round_trip_reproduces_every_value(tmp_path, seed):
    import ir_measures
    import pytrec_eval

    rng = np.random.default_rng(seed)
    ids = [f"D{i}" for i in range(60)]
    qrels, run = {}, {}
    for qi in range(12):
        q = f"Q{qi}"
        s = _random_float_scores(rng, len(ids))
        top = topk_row(s, 40, _doc_rank(ids))
        run[q] = [(ids[j], float(s[j])) for j in top]
        rel = rng.choice(len(ids), size=4, replace=False)
        qrels[q] = {ids[j]: int(rng.integers(1, 4)) for j in rel}
    path = tmp_path / "run.trec"
    write_trec_run(run, path, "t")
    back = {}
    for sd in ir_measures.read_trec_run(str(path)):
        back.setdefault(sd.query_id, {})[sd.doc_id] = sd.score
    # the printed scores are the exact doubles
    assert all(back[q][d] == s for q in run for d, s in run[q])
    names = [n for n in NAMES if not n.startswith(("RR@", "MRR@"))]
    ours = per_query([parse_measure(n) for n in NAMES], qrels, run, list(run))
    for name in names:
        m = parse_measure(name)
        ev = pytrec_eval.RelevanceEvaluator(qrels, {m.trec_eval})
        key = m.trec_eval.replace(".", "_")
        ref = ev.evaluate(back)
        for q in run:
            assert ours[name][q] == ref[q][key], (name, q)
    for name in ("RR@1", "RR@3", "MRR@10"):
        ref = _reference(name, qrels, back)
        assert all(ours[name][q] == ref[q] for q in run), name


@pytest.mark.parametrize("rank,expected", [(1, 1.0), (10, 0.1), (11, 0.0), (12, 0.0)])
def test_mrr_at_10_honours_its_cutoff(rank, expected):
    """The bug of every committed result before 0.2: a first relevant document at rank 11 scored 1/11."""
    run = {"q": [(f"n{i:02d}", 100.0 - i) for i in range(1, 30)]}
    run["q"][rank - 1] = ("rel", run["q"][rank - 1][1])
    v = per_query([parse_measure("MRR@10")], {"q": {"rel": 1}}, run, ["q"])
    assert v["MRR@10"]["q"] == expected


def test_rr_without_cutoff_uses_the_whole_ranking():
    run = {"q": [(f"n{i:02d}", 100.0 - i) for i in range(1, 30)]}
    run["q"][14] = ("rel", run["q"][14][1])
    assert per_query([parse_measure("RR")], {"q": {"rel": 1}}, run, ["q"])["RR"]["q"] == 1 / 15


def test_ties_are_broken_as_trec_eval_does():
    # a and b tie: trec_eval puts the larger id ('b') first, and so do we
    ranked = _rank({"a": 1.0, "b": 1.0, "c": 2.0})
    assert [d for d, _ in ranked] == ["c", "b", "a"]
    assert per_query([parse_measure("RR@10")], {"q": {"a": 1}}, {"q": ranked}, ["q"])["RR@10"]["q"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("name", ["R", "P", "Success", "Rprec@10", "nDCG@0", "Bogus@3", "nDCG@x", "ndcg@10 "])
def test_names_that_trec_eval_cannot_compute_are_refused_or_normalised(name):
    if name == "ndcg@10 ":
        assert str(parse_measure(name)) == "nDCG@10"
        return
    with pytest.raises(BenchError):
        parse_measure(name)


def test_unknown_measure_suggests_the_closest():
    with pytest.raises(BenchError, match="Did you mean nDCG"):
        parse_measure("nDGC@10")


def test_every_spelling_round_trips():
    for spelling, (family, kept) in _SPELLINGS.items():
        spec = _FAMILIES[family]
        name = f"{spelling}@5" if (spec.trec_cut or family == "RR") else spelling
        m = parse_measure(name)
        assert parse_measure(str(m)) == m and str(m).startswith(kept)
        assert not math.isnan(hash(m))


# trec_eval's own names, each with the pytrec_eval measure it must equal, written out by hand
# (not derived from our mapping) so that a wrong mapping fails here
TREC_EVAL_NAMES = {"recip_rank": "recip_rank", "ndcg_cut_10": "ndcg_cut.10", "ndcg_cut.5": "ndcg_cut.5",
                   "recall_100": "recall.100", "recall.10": "recall.10", "P_10": "P.10", "P.5": "P.5",
                   "map": "map", "map_cut_10": "map_cut.10", "ndcg": "ndcg", "Rprec": "Rprec",
                   "success_10": "success.10"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_every_trec_eval_name_equals_that_trec_eval_measure(data):
    import pytrec_eval

    qrels, raw = data
    run = {q: _rank(scores) for q, scores in raw.items()}
    qids = list(raw)
    ours = per_query([parse_measure(n) for n in TREC_EVAL_NAMES], qrels, run, qids)
    judged = {q: d for q, d in qrels.items() if d}
    runs = {q: d for q, d in raw.items() if d and q in judged}
    for name, trec in TREC_EVAL_NAMES.items():
        ev = pytrec_eval.RelevanceEvaluator(judged, {trec})
        ref = {q: r[trec.replace(".", "_")] for q, r in (ev.evaluate(runs) if runs else {}).items()}
        column = ours[str(parse_measure(name))]
        for q in qids:
            assert column[q] == ref.get(q, 0.0), (name, q)


def test_trec_eval_names_read_as_ours_and_say_so():
    from bench.evaluation.measures import canonical_measures, trec_eval_notes

    assert [str(parse_measure(n)) for n in ("recip_rank", "ndcg_cut_10", "recall_100", "P_10", "map", "success_10",
                                             "map_cut_5", "Rprec")] == [
        "RR", "nDCG@10", "R@100", "P@10", "MAP", "Success@10", "AP@5", "Rprec"]
    # one run identity whichever spelling was given
    assert canonical_measures("ndcg_cut_10 recall_100") == canonical_measures("nDCG@10 R@100")
    assert trec_eval_notes("recip_rank, nDCG@10 Rprec P_10") == ["recip_rank read as RR (trec_eval name)",
                                                                  "P_10 read as P@10 (trec_eval name)"]
    with pytest.raises(BenchError, match="Did you mean recip_rank"):
        parse_measure("recip_rnk")
    with pytest.raises(BenchError, match="at least 1"):
        parse_measure("ndcg_cut_0")
