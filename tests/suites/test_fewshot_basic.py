"""FewDR's basic learning: the zero-shot reference is the basic-learned model, basic learning is on
by default (trained once, reused), training steps are recorded and printed, and the deviations
from FewDR's protocol are named."""
import csv
import io
import json
from types import SimpleNamespace

import numpy as np
import pytest

from bench.core.errors import BenchError
from bench.data.readers import load_beir
from bench.models.spec import spec_from_folder
from bench.results.schema import check_result
from bench.core.timing import Timer
from bench.search.retriever import make_retriever
from bench.training.contrastive import TrainConfig
from suites.fewshot import run
from bench.training.contrastive import planned_steps
from suites.fewshot.basic import basic_key
from suites.fewshot.config import FEWSHOT_OPTIONS, PAPER_SCHEDULE, FewShotConfig, active_deviations, config_from
from suites.fewshot.metrics import hits_at
from suites.fewshot.output import fewshot_table
from tests.suites.test_fewshot_suite import small_cfg, write_labelled_beir


@pytest.fixture
def labelled(tmp_path):
    return load_beir(write_labelled_beir(tmp_path / "labelled"))


def _rows(per_query_text):
    out = {}
    for r in csv.DictReader(io.StringIO(per_query_text)):
        out.setdefault(r["set"], {})[r["qid"]] = float(r["R@10"])
    return out


def _class_means(hits, test_queries):
    return {c: float(np.mean([hits[q] for q in qs])) for c, qs in test_queries.items()}


def test_zero_shot_reference_is_the_basic_learned_model(tiny_bert, labelled, tmp_path):
    """With basic learning, zero-shot (and every statistic against it) is the basic-learned model's
    retrieval, not the raw checkpoint's; the checkpoint is reported beside it."""
    spec = spec_from_folder(tiny_bert)
    cfg = small_cfg(tmp_path, methods=["qry-tune"], ks=[2], n_trials=2, plots=False,
                    train=TrainConfig(batch_size=4, max_steps=3, lr=1e-2))
    out = run(spec, labelled, cfg, None)
    res, rows = out["result"], _rows(out["per_query"])
    refs = res["references"]
    assert refs["zero_shot"] == "basic-learned" and res["protocol"]["basic_learning"] is True
    # independent retrieval with each saved model
    test_ids = [q for qs in res["plan"]["test_queries"].values() for q in qs]
    texts = [labelled.queries[q].text for q in test_ids]

    def retrieve(s):
        r = make_retriever(s, labelled, Timer(), cache_root=tmp_path / "other-cache", progress=False)
        return hits_at(r.search(test_ids, texts, 10), labelled.qrels, test_ids, 10)

    folder = tmp_path / "checkpoints" / refs["basic_learned"]["checkpoint"]
    basic, raw = retrieve(spec_from_folder(folder)), retrieve(spec)
    assert rows["zero-shot"] == basic and rows["checkpoint"] == raw
    tq = res["plan"]["test_queries"]
    basic_c, raw_c = _class_means(basic, tq), _class_means(raw, tq)
    assert basic_c != raw_c, "the constructed run does not tell the basic-learned model from the checkpoint"
    novel = res["plan"]["classes"]["novel"]
    assert res["zero_shot"]["per_class"] == basic_c and refs["checkpoint"]["per_class"] == raw_c
    assert res["zero_shot"]["novel"] == pytest.approx(np.mean([basic_c[c] for c in novel]))
    # winning ratio, boosting gradient and the test are against the basic-learned model
    e = res["methods"]["qry-tune"]["k"]["2"]
    k_mean = e["per_class_mean"]
    for ref, got in ((basic_c, e["winning_ratio"]["novel"]), (raw_c, e["vs_checkpoint"]["winning_ratio"]["novel"])):
        assert got == pytest.approx(np.mean([k_mean[c] > ref[c] for c in novel]))
    assert e["vs_checkpoint"]["delta"]["novel"] == pytest.approx(e["novel"]["mean"] - refs["checkpoint"]["novel"])
    bg = res["methods"]["qry-tune"]["boosting_gradient"]
    assert bg["points"][0] == [0, res["zero_shot"]["novel"]]
    comp = res["statistics"]["comparisons"]["qry-tune"]["K=2"]["novel"]
    assert comp["mean_zero_shot"] == res["zero_shot"]["novel"]
    head = res["summary"]["headline"]
    assert head["zero_shot"]["novel"] == res["zero_shot"]["novel"]
    assert head["checkpoint"]["novel"] == refs["checkpoint"]["novel"]
    assert head["delta_novel"] == pytest.approx(e["novel"]["mean"] - res["zero_shot"]["novel"])
    assert res["summary"]["metrics"]["checkpoint novel R@10"] == refs["checkpoint"]["novel"]
    # basic learning is one full fine-tune on the base classes' training queries
    bl = refs["basic_learned"]
    n_base = sum(res["plan"]["class_sizes"][c]["train"] for c in res["plan"]["classes"]["base"])
    assert bl["method"] == "full-tune" and bl["n_train_queries"] == n_base == 12
    assert bl["classes"] == res["plan"]["classes"]["base"]
    check_result(json.loads(json.dumps(res)), "fewshot", strict=True)  # every new key is declared
    table = fewshot_table(res)
    assert "zero-shot (basic-learned)" in table and "\ncheckpoint " in table
    assert "reference of win, p and boosting gradient: zero-shot (basic-learned)" in table


def test_basic_learning_on_by_default_and_opt_out(tiny_bert, labelled, tmp_path):
    assert FewShotConfig().basic_learning is True
    ns = dict({o.dest: o.default for o in FEWSHOT_OPTIONS}, seed=0, correction="holm", batch_size=64,
              no_progress=True)
    assert config_from(SimpleNamespace(**ns)).basic_learning is True
    off = config_from(SimpleNamespace(**dict(ns, no_basic_learning=True)))
    assert off.basic_learning is False
    assert "no basic learning" in [d["name"] for d in active_deviations(off)]
    assert "no basic learning" not in [d["name"] for d in active_deviations(config_from(SimpleNamespace(**ns)))]
    with pytest.raises(BenchError, match="--no-basic-learning alone"):
        config_from(SimpleNamespace(**dict(ns, no_basic_learning=True, basic_learning=True)))
    # the opt-out run: zero-shot is the checkpoint, no second reference, the deviation is recorded
    spec = spec_from_folder(tiny_bert)
    cfg = small_cfg(tmp_path, ks=[2], n_trials=2, basic_learning=False, full_shot=False, plots=False,
                    train=TrainConfig(batch_size=4, max_steps=1))
    res = run(spec, labelled, cfg, None)["result"]
    assert res["references"]["zero_shot"] == "checkpoint" and res["references"]["basic_learned"] is None
    assert res["zero_shot"] == res["references"]["checkpoint"]
    assert [s["name"] for s in res["sets"]][:2] == ["zero-shot", "qry-tune/K=2/trial=1"]
    assert "no basic learning" in [d["name"] for d in res["deviations"]]
    assert "deviation from FewDR: no basic learning" in fewshot_table(res)
    check_result(json.loads(json.dumps(res)), "fewshot", strict=True)


def test_cli_default_runs_basic_learning(tiny_bert, tmp_path, capsys):
    from bench.cli.main import main

    folder = write_labelled_beir(tmp_path / "labelled")
    rc = main(["evaluate", "--model", str(tiny_bert), "--suite", "fewshot", "--dataset", str(folder), "--ks", "2",
               "--trials", "2", "--max-steps", "1", "--train-batch-size", "4", "--no-progress", "--no-full-shot",
               "--no-plots", "--resamples", "100", "--out", str(tmp_path / "run")])
    assert rc == 0
    captured = capsys.readouterr()
    res = json.loads((tmp_path / "run" / "result.json").read_text())
    assert res["protocol"]["basic_learning"] is True and res["references"]["basic_learned"]["train"]["steps"] == 1
    assert "basic learning (FewDR's zero-shot model): full-tune on 12 training queries of 2 base classes" in captured.err
    assert "deviation from FewDR: training schedule" in captured.out
    assert main(["evaluate", "--model", str(tiny_bert), "--suite", "fewshot", "--dataset", str(folder),
                 "--basic-learning", "--no-basic-learning", "--out", str(tmp_path / "bad")]) == 2


def test_training_steps_recorded_and_printed(tiny_bert, labelled, tmp_path):
    """6 training queries per class, 2 base classes: K=2 trains 4 x 2 = 8 queries, basic learning
    12, full-shot 24; batch 4, 1 epoch -> 2, 3 and 6 steps."""
    spec = spec_from_folder(tiny_bert)
    train = TrainConfig(batch_size=4, epochs=1, lr=1e-3)
    cfg = small_cfg(tmp_path, methods=["qry-tune"], ks=[2], n_trials=2, plots=False, train=train)
    res = run(spec, labelled, cfg, None)["result"]
    mo = res["methods"]["qry-tune"]
    e = mo["k"]["2"]
    assert e["steps_per_trial"] == [2, 2] == [t["train"]["steps"] for t in e["trials"]]
    assert [t["n_train_queries"] for t in e["trials"]] == [8, 8]
    assert mo["full-shot"]["train"]["steps"] == 6
    assert res["references"]["basic_learned"]["train"]["steps"] == 3 == planned_steps(12, train)
    assert planned_steps(12, TrainConfig(batch_size=4, epochs=2)) == 6
    assert planned_steps(12, TrainConfig(batch_size=4, epochs=2, max_steps=5)) == 5
    assert planned_steps(95, TrainConfig(batch_size=16)) == 6  # the committed chatterbot run's K=5
    assert res["protocol"]["paper_schedule"] == PAPER_SCHEDULE
    table = fewshot_table(res)
    assert "basic learning (zero-shot model): full-tune on 12 training queries of 2 base classes, 3 steps " \
           "(1 epoch, batch 4, lr 0.001)" in table
    assert "qry-tune training steps: K=2 2 per trial; full-shot 6 (1 epoch, batch 4, lr 0.001)" in table
    assert "FewDR's schedule: 40 epochs, batch 32, lr 5e-06" in table
    assert "deviation from FewDR: training schedule: ours 1 epoch, batch 4, lr 0.001" in table


def test_active_deviations():
    paper = TrainConfig(epochs=40, batch_size=32, lr=5e-6, max_query_length=32, max_passage_length=256)
    assert active_deviations(FewShotConfig(methods=["full-tune"], train=paper)) == []
    names = [d["name"] for d in active_deviations(FewShotConfig())]
    assert names == ["training schedule", "training text lengths", "full-shot method"]
    # the default learning rates: full-tune (basic learning) and qry-tune both 2e-5
    sched = active_deviations(FewShotConfig())[0]
    assert sched["ours"].startswith("1 epoch, batch 16, lr 2e-05 (") and "40 epochs, batch 32, lr 5e-06" in sched["paper"]
    assert [d["name"] for d in active_deviations(FewShotConfig(methods=["qry-tune"], train=paper, full_shot=False))] == []
    capped = TrainConfig(epochs=40, batch_size=32, lr=5e-6, max_query_length=32, max_passage_length=256, max_steps=3)
    assert [d["name"] for d in active_deviations(FewShotConfig(methods=["full-tune"], train=capped))] == [
        "training schedule"]
    default_lr = TrainConfig(epochs=40, batch_size=32, max_query_length=32, max_passage_length=256)
    bitfit = active_deviations(FewShotConfig(methods=["bitfit"], train=default_lr, full_shot=False))
    assert [d["name"] for d in bitfit] == ["training schedule"]  # full-tune's 2e-5 and bitfit's 1e-4 (IAA paper)
    assert bitfit[0]["ours"].startswith("40 epochs, batch 32, lr 2e-05; 40 epochs, batch 32, lr 0.0001 (")


def test_basic_key_follows_the_inputs(tiny_bert):
    from bench.training.contrastive import Example

    spec = spec_from_folder(tiny_bert)
    ex = [Example("q1", "a wing", ("d1",), ("d2",)), Example("q2", "a keel", ("d3",))]
    k = basic_key(spec, "fp", ex, TrainConfig(), 1)
    assert k == basic_key(spec, "fp", list(ex), TrainConfig(), 1)
    assert len({k, basic_key(spec, "fp", ex[:1], TrainConfig(), 1), basic_key(spec, "fp2", ex, TrainConfig(), 1),
                basic_key(spec, "fp", ex, TrainConfig(epochs=2), 1), basic_key(spec, "fp", ex, TrainConfig(), 2),
                basic_key(spec, "fp", [ex[0], Example("q2", "a keel", ("d3",), ("d1",))], TrainConfig(), 1)}) == 6


def test_methods_doc_names_every_deviation():
    """docs/methods.md's FewDR table names every deviation the code can record, and FewDR's schedule."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "methods.md").read_text(encoding="utf-8")
    section = text.split("## FewDR (few-shot suite)", 1)[1].split("\n## ", 1)[0]
    every = active_deviations(FewShotConfig(basic_learning=False, methods=["qry-tune"]))
    assert len(every) == 4
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    for d in every:
        assert any(line.rstrip(" |").split("|")[-1].strip().startswith(f"`{d['name']}`") for line in rows), d["name"]
    p = PAPER_SCHEDULE
    assert f"{p['epochs']} epochs, batch {p['batch_size']}, lr 5e-6" in section
    assert f"query {p['max_query_length']} / passage {p['max_passage_length']} tokens" in section
