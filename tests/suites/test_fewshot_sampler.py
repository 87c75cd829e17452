"""Properties of the class-wise few-shot sampler (suites.fewshot.sampler)."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.data.model import Dataset, Doc, Query
from bench.core.errors import BenchError, DataError
from suites.fewshot.sampler import (build_plan, read_split_file, sample_trial, split_classes, split_queries,
                                    trial_seeds)


def make_dataset(sizes, unlabelled=0):
    """Classes c0, c1, ... with sizes[i] queries each; query i is relevant to doc i."""
    corpus, queries, qrels = {}, {}, {}
    n = 0
    for ci, size in enumerate(sizes):
        for _ in range(size):
            n += 1
            corpus[f"d{n}"] = Doc("", f"answer {n}")
            queries[f"q{n}"] = Query(f"question {n}", f"c{ci}")
            qrels[f"q{n}"] = {f"d{n}": 1}
    for _ in range(unlabelled):
        n += 1
        corpus[f"d{n}"] = Doc("", f"answer {n}")
        queries[f"q{n}"] = Query(f"question {n}")
        qrels[f"q{n}"] = {f"d{n}": 1}
    return Dataset("synthetic", corpus, queries, qrels)


sizes_st = st.lists(st.integers(min_value=1, max_value=40), min_size=2, max_size=8)


@settings(max_examples=60, deadline=None)
@given(sizes=sizes_st, seed=st.integers(0, 2 ** 16), k=st.integers(1, 12), n_trials=st.integers(1, 4),
       novel_ratio=st.floats(0.1, 0.9), test_ratio=st.floats(0.1, 0.9), rule=st.sampled_from(["all", "skip"]))
def test_plan_properties(sizes, seed, k, n_trials, novel_ratio, test_ratio, rule):
    ds = make_dataset(sizes)
    plan = build_plan(ds, seed=seed, ks=[k], n_trials=n_trials, novel_ratio=novel_ratio, test_ratio=test_ratio,
                      short_rule=rule, min_usable_novel=0)
    cs, qs = plan.classes, plan.queries
    # classes: disjoint, complete, both sides non-empty
    assert set(cs.base).isdisjoint(cs.novel)
    assert set(cs.base) | set(cs.novel) == {f"c{i}" for i in range(len(sizes))}
    assert cs.base and cs.novel
    # queries: per class, train and test are disjoint and cover the class; at least one test query
    for c in qs.train:
        members = {q for q, lab in plan.labels.items() if lab == c}
        assert set(qs.train[c]).isdisjoint(qs.test[c])
        assert set(qs.train[c]) | set(qs.test[c]) == members
        assert len(qs.test[c]) >= 1
    all_train = set(qs.train_ids())
    assert all_train.isdisjoint(qs.test_ids())
    # trials: exactly K per usable class (no duplicates), only training queries of that class, short rule
    assert len(plan.trials[k]) == n_trials
    for t in plan.trials[k]:
        for c in list(cs.base) + list(cs.novel):
            n_train = len(qs.train[c])
            got = t.samples.get(c, ())
            assert len(set(got)) == len(got)
            assert set(got) <= set(qs.train[c])
            if n_train >= k:
                assert len(got) == k and c not in t.capped and c not in t.skipped
            elif rule == "all" and n_train > 0:
                assert len(got) == n_train and t.capped[c] == n_train
            else:
                assert got == () and c in t.skipped
        assert set(t.query_ids()).isdisjoint(qs.test_ids())
    # usable classes reported
    assert plan.usable[k]["novel"] == [c for c in cs.novel if len(qs.train[c]) >= k]


@settings(max_examples=30, deadline=None)
@given(sizes=sizes_st, seed=st.integers(0, 2 ** 16), k=st.integers(1, 8))
def test_deterministic_per_seed(sizes, seed, k):
    ds = make_dataset(sizes)
    a = build_plan(ds, seed=seed, ks=[k], n_trials=3, min_usable_novel=0)
    b = build_plan(make_dataset(sizes), seed=seed, ks=[k], n_trials=3, min_usable_novel=0)
    assert a.to_dict() == b.to_dict()
    assert [t.samples for t in a.trials[k]] == [t.samples for t in b.trials[k]]


def test_different_seeds_differ():
    ds = make_dataset([30, 30, 30, 30])
    plans = [build_plan(ds, seed=s, ks=[5], n_trials=2) for s in range(4)]
    samples = [tuple(sorted(p.trials[5][0].query_ids())) for p in plans]
    assert len(set(samples)) == 4
    splits = {tuple(sorted(q for c in p.queries.test.values() for q in c)) for p in plans}
    assert len(splits) == 4
    # trials within one run differ from each other and their seeds are recorded
    p = plans[0]
    assert len(set(p.trial_seeds)) == 2
    assert p.trials[5][0].query_ids() != p.trials[5][1].query_ids()
    assert p.to_dict()["trial_seeds"] == p.trial_seeds == trial_seeds(0, 2)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(1, 60), s1=st.integers(0, 10 ** 6))
def test_sample_trial_exact_k_deterministic(n, k, s1):
    train = {"a": tuple(f"q{i}" for i in range(n))}
    t1 = sample_trial(train, ["a"], k, s1)
    assert len(t1.samples["a"]) == min(n, k)
    assert sample_trial(train, ["a"], k, s1).samples == t1.samples


def test_sample_trial_seeds_differ():
    # C(40, 10) ~ 8.5e8 subsets: 50 seeds give 50 different samples
    train = {"a": tuple(f"q{i}" for i in range(40))}
    draws = {tuple(sorted(sample_trial(train, ["a"], 10, s).samples["a"])) for s in range(50)}
    assert len(draws) == 50


def test_short_classes_reported_and_k_where_data_allows():
    ds = make_dataset([40, 40, 6, 6])
    split = {"base": ["c0", "c2"], "novel": ["c1", "c3"]}
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "split.json"
        path.write_text(json.dumps(split))
        plan = build_plan(ds, seed=1, ks=[5, 20, 100], n_trials=2, split_file=path)
    assert plan.classes.source == "file:split.json"
    assert plan.ks == [5, 20]  # 20 training queries in c1; none has 100
    assert "100" in plan.to_dict()["skipped_k"]
    assert plan.usable[20] == {"base": ["c0"], "novel": ["c1"]}
    t = plan.trials[20][0]
    assert t.capped == {"c2": 3, "c3": 3}
    d = plan.to_dict()
    assert d["trials"]["20"][0]["capped"] == {"c2": 3, "c3": 3}
    assert "capped" in d["short_class_rule_description"]
    skip = build_plan(ds, seed=1, ks=[20], n_trials=1, short_rule="skip")
    assert set(skip.trials[20][0].skipped) == {"c2", "c3"}


def test_split_file_text_and_errors(tmp_path):
    p = tmp_path / "split.tsv"
    p.write_text("# comment\nc0\tbase\nc1 novel\n")
    cs = read_split_file(p, ["c0", "c1", "c2"])
    assert cs.base == ("c0",) and cs.novel == ("c1",) and cs.left_out == ("c2",)
    p.write_text("c0 base\nc0 novel\n")
    with pytest.raises(DataError, match="both base and novel"):
        read_split_file(p, ["c0", "c1"])
    p.write_text("zz base\nc0 novel\n")
    with pytest.raises(DataError, match="not in the dataset"):
        read_split_file(p, ["c0", "c1"])
    p.write_text("c0 maybe\n")
    with pytest.raises(DataError, match=":1"):
        read_split_file(p, ["c0"])


def test_errors_and_notes():
    with pytest.raises(BenchError, match="no class labels"):
        build_plan(make_dataset([], unlabelled=3))
    with pytest.raises(BenchError, match="at least 2 classes"):
        split_classes(["a"], 0.5, 0)
    plan = build_plan(make_dataset([10, 1], unlabelled=2), ks=[1], n_trials=1, min_usable_novel=0)
    assert any("no class label" in n for n in plan.notes)
    assert any("test only" in n for n in plan.notes)
    assert split_queries({"a": ["q1"]}, 0.5, 0).train["a"] == ()


def test_min_class_test_leaves_small_classes_out_of_every_score():
    from suites.fewshot.metrics import split_classes as score_classes, summarise_setting, summarise_trials

    ds = make_dataset([2, 10, 40, 3])  # test queries at ratio 0.5: 1, 5, 20, 2 (rounding half to even)
    plan = build_plan(ds, seed=0, ks=[1], n_trials=2, min_usable_novel=0, min_class_test=3)
    sizes = {c: len(t) for c, t in build_plan(ds, seed=0, ks=[1], n_trials=1, min_usable_novel=0).queries.test.items()}
    small = {c for c, n in sizes.items() if n < 3}
    assert small and plan.excluded == {c: sizes[c] for c in sorted(small)}
    d = plan.to_dict()
    assert d["min_class_test"] == 3 and d["excluded_classes"] == plan.excluded
    assert any("--min-class-test 3" in n for n in d["notes"])
    # still trained on (their training queries stay), scored nowhere
    assert all(plan.queries.train[c] or sizes[c] == 0 for c in small) and all(not plan.queries.test[c] for c in small)
    hits = {q: float(int(q[1:]) % 2) for q in ds.queries}  # every other query hits
    s = summarise_setting(hits, plan)
    assert set(s["per_class"]) == set(sizes) - small
    kept = [c for c in score_classes(plan)["all"] if c not in small]
    assert s["all"] == pytest.approx(sum(s["per_class"][c] for c in kept) / len(kept))
    # the query-level mean: every scored test query once
    test_q = [q for c in kept for q in plan.queries.test[c]]
    assert s["query_mean"]["all"] == pytest.approx(sum(hits[q] for q in test_q) / len(test_q))
    t = summarise_trials([hits, hits], hits, plan)
    assert t["all"]["query_mean"] == pytest.approx(s["query_mean"]["all"])
    with pytest.raises(BenchError, match="min-class-test"):
        from suites.fewshot.config import FewShotConfig

        FewShotConfig(min_class_test=0).validate()


def test_short_classes_are_a_recorded_deviation():
    """Classes that give fewer than K training queries are a deviation from FewDR (K from every
    class), named per K with what each class gives; none when every class has K."""
    from suites.fewshot.config import short_class_deviations

    ds = make_dataset([40, 40, 6, 6, 1])  # c2, c3: 3 training queries; c4: one query, test-only
    plan = build_plan(ds, seed=1, ks=[2, 5], n_trials=2)
    [dev] = short_class_deviations(plan)
    assert dev["name"] == "short classes" and dev["paper"] == "K training queries sampled from every class at every K"
    assert dev["ours"] == ("K=2: 1 of 5 classes give fewer than 2 training queries (c4 0); K=5: 3 of 5 classes "
                           "give fewer than 5 training queries (c2 3, c3 3, c4 0); a short class gives all it has "
                           "(--short-classes all), a class with no training query none; their test queries are "
                           "still evaluated")
    skip = short_class_deviations(build_plan(ds, seed=1, ks=[5], n_trials=1, short_rule="skip"))
    assert skip[0]["ours"].startswith("K=5: 3 of 5 classes give fewer than 5 training queries (c2 0, c3 0, c4 0); "
                                      "a short class gives none (--short-classes skip)")
    assert short_class_deviations(build_plan(make_dataset([40, 40, 6, 6]), seed=1, ks=[2], n_trials=1)) == []


def test_chatterbot_at_k20_records_its_capped_classes():
    from bench.data.collections import load_dataset
    from suites.fewshot.config import short_class_deviations

    plan = build_plan(load_dataset("chatterbot"), seed=0, ks=[5, 20], n_trials=1)
    ours = short_class_deviations(plan)[0]["ours"]
    assert "K=5: 4 of 21 classes give fewer than 5 training queries (gossip 3, health 2, history 4, humor 1)" in ours
    assert "K=20: 15 of 21 classes give fewer than 20 training queries (botprofile 7, " \
           "computers 9, food 7, gossip 3, greetings 5, health 2, history 4, humor 1, literature 15, money 8, " \
           "movies 11, politics 7, science 11, sports 12, tech_support 5)" in ours


def test_the_committed_fewshot_run_records_its_short_classes():
    """results/runs/minilm-l6__chatterbot__fewshot__s0 lists the classes that give fewer than K
    training queries under its deviations, as the code words them for that run's plan."""
    from pathlib import Path

    from bench.data.collections import load_dataset
    from suites.fewshot.config import short_class_deviations

    run = json.loads((Path(__file__).resolve().parents[2] / "results" / "runs" / "minilm-l6__chatterbot__fewshot__s0"
                      / "result.json").read_text(encoding="utf-8"))
    recorded = [d for d in run["deviations"] if d["name"] == "short classes"]
    plan = build_plan(load_dataset("chatterbot"), seed=run["seed"], ks=run["protocol"]["ks_requested"],
                      n_trials=run["protocol"]["n_trials"])
    assert recorded == short_class_deviations(plan)
    assert "K=20: 15 of 21 classes give fewer than 20 training queries" in recorded[0]["ours"]
