"""The few-shot suite end to end on the tiny random BERT and a small labelled BEIR collection."""
import csv
import io
import json

import numpy as np
import pytest

from bench.data.readers import load_beir
from bench.models.spec import spec_from_folder
from bench.training.contrastive import TrainConfig
from suites.fewshot import run
from suites.fewshot.config import FewShotConfig
from suites.fewshot.metrics import boosting_gradient, class_scores, hits_at, macro, sample_sd, summarise_trials, winning_ratio
from suites.fewshot.output import fewshot_table
from suites.fewshot.sampler import build_plan

CLASSES = {"aero": ["wing", "lift", "flap", "rudder", "propeller", "aileron", "stall", "glider", "jet", "tail",
                    "airfoil", "drag"],
           "heat": ["conduction", "radiation", "boiler", "furnace", "insulation", "convection", "kettle",
                    "radiator", "thermostat", "chimney", "oven", "stove"],
           "sea": ["hull", "keel", "anchor", "harbour", "sail", "mast", "tide", "buoy", "ferry", "dock", "reef",
                   "lighthouse"],
           "food": ["bread", "cheese", "apple", "pasta", "soup", "rice", "salad", "butter", "honey", "pepper",
                    "garlic", "onion"]}


def write_labelled_beir(folder, sizes=None):
    """Four classes of 12 queries each; ``sizes`` (class -> n) keeps the first n queries of a class."""
    from tests.conftest import write_beir

    docs, queries, qrels = {}, {}, []
    n = 0
    for c, words in CLASSES.items():
        for w in words[:(sizes or {}).get(c, len(words))]:
            n += 1
            docs[f"d{n}"] = (w, f"an answer about the {w} in the field of {c}")
            queries[f"q{n}"] = (f"tell me about the {w}", c)
            qrels.append((f"q{n}", f"d{n}", 1))
    docs["d999"] = ("distractor", "an unrelated passage about nothing in particular")
    return write_beir(folder, docs, queries, qrels)


@pytest.fixture
def labelled(tmp_path):
    return load_beir(write_labelled_beir(tmp_path / "labelled"))


def small_cfg(tmp_path, **kw):
    base = dict(seed=0, ks=[2, 4, 100], n_trials=3, cache_root=tmp_path / "cache", progress=False,
                train=TrainConfig(batch_size=4, epochs=1, lr=1e-3), n_resamples=500)
    base.update(kw)
    return FewShotConfig(**base)


def test_fewdr_published_sd():
    # FewDR reports base R@10 72.3 +- 0.9 over five seeds with these per-seed values
    sd = sample_sd([72.2, 71.1, 72.4, 72.1, 73.6])
    assert round(sd, 2) == 0.89 and round(sd, 1) == 0.9
    assert sample_sd([1.0]) is None


def test_measure_and_aggregates():
    run_ = {"a": [("d1", 1.0), ("d2", 0.5)], "b": [("d3", 1.0)] + [(f"x{i}", 0.0) for i in range(12)] + [("d4", 0.)]}
    qrels = {"a": {"d2": 1}, "b": {"d4": 1, "d9": 0}}
    assert hits_at(run_, qrels, ["a", "b"], 10) == {"a": 1.0, "b": 0.0}
    per_class = class_scores({"a": 1.0, "b": 0.0, "c": 1.0}, {"x": ["a", "b"], "y": ["c"]})
    assert per_class == {"x": 0.5, "y": 1.0}
    assert macro(per_class, ["x", "y"]) == 0.75  # macro, not the micro 2/3
    assert winning_ratio({"x": 0.6, "y": 1.0}, {"x": 0.5, "y": 1.0}, ["x", "y"]) == 0.5  # ties do not win
    segs = boosting_gradient([(0, 0.1), (5, 0.2), (20, 0.5)])
    assert segs[0]["per_shot"] == pytest.approx(0.02) and segs[1]["per_shot"] == pytest.approx(0.02)


def test_summarise_trials_per_query_sd_and_winning_ratio(labelled):
    plan = build_plan(labelled, seed=0, ks=[2], n_trials=2)
    test_ids = plan.queries.test_ids()
    zero = {q: 0.0 for q in test_ids}
    t1 = {q: 1.0 for q in test_ids}
    t2 = {q: 0.0 for q in test_ids}
    s = summarise_trials([t1, t2], zero, plan)
    assert s["all"]["mean"] == 0.5 and s["all"]["sd"] == pytest.approx(np.std([1, 0], ddof=1))
    assert s["all"]["per_query_sd"] == pytest.approx(np.std([1, 0], ddof=1))
    assert s["winning_ratio"]["all"] == 1.0
    assert s["winning_ratio_per_trial"]["all"] == [1.0, 0.0]


def test_end_to_end(tiny_bert, labelled, tmp_path):
    spec = spec_from_folder(tiny_bert)
    out = run(spec, labelled, small_cfg(tmp_path, methods=["qry-tune", "bitfit"]), tmp_path / "run")
    folder = tmp_path / "run"
    res = json.loads((folder / "result.json").read_text())
    assert res["suite"] == "fewshot" and res["schema_version"] == 1
    for key in ("drbench_version", "libraries", "seed", "model", "dataset", "measures", "summary", "statistics",
                "per_query_file"):
        assert key in res
    assert res["plan"]["ks"] == [2, 4] and "100" in res["plan"]["skipped_k"]
    assert len(res["plan"]["trial_seeds"]) == 3
    for m in ("qry-tune", "bitfit"):
        mo = res["methods"][m]
        assert set(mo["k"]) == {"2", "4"}
        e = mo["k"]["2"]
        assert len(e["trials"]) == 3 and len(e["novel"]["trials"]) == 3
        assert e["novel"]["mean"] == pytest.approx(np.mean(e["novel"]["trials"]))
        assert e["novel"]["sd"] == pytest.approx(np.std(e["novel"]["trials"], ddof=1))
        assert "full-shot" in mo and mo["boosting_gradient"]["points"][0][0] == 0
        assert mo["training"]["lr"] == 1e-3
        # lr 1e-3 is not the IAA paper's (qry-tune 2e-5, bitfit 1e-4): a deviation recorded and printed
        assert len(mo["deviations"]) == 1 and "learning rate 0.001" in mo["deviations"][0]
    from suites.fewshot.output import fewshot_table

    assert "deviation from the paper: bitfit: learning rate 0.001 (paper: 0.0001)" in fewshot_table(res)
    # qry-tune never encodes a passage with the tuned model; bitfit re-encodes the corpus in memory
    assert res["methods"]["qry-tune"]["encoded_by_tuned_model"]["passage"] == 0
    assert res["methods"]["bitfit"]["encoded_by_tuned_model"]["passage"] > 0
    head = res["summary"]["headline"]
    assert head["method"] == "qry-tune" and head["k"] == 2
    assert res["summary"]["metrics"]["zero-shot novel R@10"] == res["zero_shot"]["novel"]
    st = res["statistics"]
    assert st["header"]["test"] == "randomization" and st["header"]["sidedness"] == "two-sided"
    assert st["header"]["correction"] == "holm"
    assert st["comparisons"]["qry-tune"]["K=2"]["novel"]["p_corrected"] is not None
    # the per-query table agrees with the aggregates
    rows = list(csv.DictReader(io.StringIO((folder / "per_query.csv").read_text())))
    n_test = sum(v["test"] for v in res["plan"]["class_sizes"].values())
    assert len(rows) == n_test * (2 + 2 * (3 + 3 + 1))  # zero-shot (basic-learned), checkpoint, methods
    assert list(rows[0]) == ["set", "qid", "applied", "R@10", "k", "trial"]
    zs = {r["qid"]: float(r["R@10"]) for r in rows if r["set"] == "zero-shot"}
    by_class = {c: [zs[q] for q in qs] for c, qs in res["plan"]["test_queries"].items()}
    novel = [np.mean(v) for c, v in by_class.items() if c in res["plan"]["classes"]["novel"]]
    assert res["zero_shot"]["novel"] == pytest.approx(np.mean(novel))
    assert (folder / "fewshot_r10.png").stat().st_size > 1000
    assert (folder / "fewshot_winning_ratio.png").stat().st_size > 1000
    timings = json.loads((folder / "timings.json").read_text())
    assert "wall_seconds" in timings and timings["units"]
    # plots stay legible with every method at once
    from suites.fewshot.output import write_plots

    many = dict(res, methods={f"m{i}": res["methods"]["bitfit"] for i in range(7)})
    assert write_plots(many, tmp_path / "many") == [] if (tmp_path / "many").mkdir() is None else False
    assert (tmp_path / "many" / "fewshot_winning_ratio.png").exists()
    table = fewshot_table(res)
    assert "zero-shot" in table and "qry-tune K=2" in table and "K=100 not run" in table
    # the run folder reader accepts it
    from bench.results.rundir import load_result, load_run

    assert load_result(folder / "result.json")["suite"] == "fewshot"
    loaded = load_run(folder)
    assert float(loaded.values("qry-tune/K=2/trial=1", "R@10").mean()) >= 0.0


def test_qry_tune_does_not_reencode_corpus(tiny_bert, labelled, tmp_path, monkeypatch):
    from bench.encoding.encoder import Encoder
    from bench.training.dual import DualEncoder

    spec = spec_from_folder(tiny_bert)
    passages_through_encoder = []
    orig_batch = Encoder.forward_batch

    def spy_batch(self, batch):
        if self.role == "passage":
            passages_through_encoder.append(len(batch["input_ids"]))
        return orig_batch(self, batch)

    tuned_passage_calls = []
    orig_embed = DualEncoder.embed

    def spy_embed(self, texts, role, max_length=None):
        if role == "passage" and self.method == "qry-tune":  # basic learning (full-tune) trains passages
            tuned_passage_calls.append(len(texts))
        return orig_embed(self, texts, role, max_length)

    monkeypatch.setattr(Encoder, "forward_batch", spy_batch)
    monkeypatch.setattr(DualEncoder, "embed", spy_embed)
    cfg = small_cfg(tmp_path, methods=["qry-tune"], basic_learning=True)
    out = run(spec, labelled, cfg, None)
    # the corpus went through the encoder once per saved model (the checkpoint and the basic-learned
    # checkpoint), into the cache, and never through a few-shot-tuned encoder
    assert sum(passages_through_encoder) == 2 * len(labelled.corpus)
    assert tuned_passage_calls == []
    assert out["timings"]["encoding"]["passages_encoded"] == len(labelled.corpus)
    assert out["timings"]["basic_learning_reused"] is False
    # a second run with a warm cache encodes no passage at all
    passages_through_encoder.clear()
    out2 = run(spec, labelled, cfg, None)
    assert passages_through_encoder == [] and tuned_passage_calls == []
    assert out2["timings"]["basic_learning_reused"] is True  # basic learning is not trained again
    assert out2["result"] == out["result"]  # deterministic, whether basic learning was trained or reused
    assert out2["per_query"] == out["per_query"]


def test_trained_models_never_write_the_shared_cache(tiny_bert, labelled, tmp_path):
    from bench.encoding.encoder import Encoder

    spec = spec_from_folder(tiny_bert)
    cfg = small_cfg(tmp_path, methods=["full-tune", "psg-tune"], ks=[2], n_trials=2)
    res = run(spec, labelled, cfg, None)["result"]
    root = tmp_path / "cache"
    # only the two saved models cache embeddings: the checkpoint and the basic-learned checkpoint
    basic_folder = tmp_path / "checkpoints" / res["references"]["basic_learned"]["checkpoint"]
    basic_spec = spec_from_folder(basic_folder)
    texts = [labelled.corpus[d].full_text() for d in labelled.doc_ids()]
    allowed = set()
    for s, folder in ((spec, tiny_bert), (basic_spec, basic_folder)):
        keys = {role: Encoder(s, role, batch_size=cfg.batch_size).key for role in ("query", "passage")}
        allowed |= set(keys.values())
        # the cached corpus matrix still equals that model's embeddings
        mats = list((root / keys["passage"]).glob("matrix-*.npy"))
        assert len(mats) == 1
        np.testing.assert_allclose(np.load(mats[0]), Encoder(s, "passage", progress=False).encode(texts), atol=1e-5)
    assert {p.name for p in root.iterdir()} <= allowed


def test_short_rule_skip_and_split_file(tiny_bert, labelled, tmp_path):
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"base": ["aero", "heat"], "novel": ["sea", "food"]}))
    spec = spec_from_folder(tiny_bert)
    cfg = small_cfg(tmp_path, methods=["qry-tune"], ks=[2, 7], n_trials=2, split_file=split, short_rule="skip",
                    min_usable_novel=0, full_shot=False, plots=False,
                    train=TrainConfig(batch_size=4, max_steps=1, negatives_from="bm25"))
    res = run(spec, labelled, cfg, tmp_path / "run")["result"]
    plan = res["plan"]
    assert plan["classes"]["source"] == "file:split.json" and plan["classes"]["novel"] == ["food", "sea"]
    assert plan["ks"] == [2, 7]  # 6 training queries per class (12 queries, half held out)
    assert plan["usable_classes"]["7"] == {"base": [], "novel": []}
    assert plan["trials"]["7"][0]["skipped"] == ["aero", "food", "heat", "sea"]
    assert plan["short_class_rule"] == "skip"
    k7 = res["methods"]["qry-tune"]["k"]["7"]
    assert all(t["train"]["steps"] == 0 for t in k7["trials"])
    # nothing trained: K=7 equals zero-shot exactly
    assert k7["all"]["mean"] == res["zero_shot"]["all"] and k7["winning_ratio"]["all"] == 0.0
    assert res["methods"]["qry-tune"]["k"]["2"]["trials"][0]["train"]["steps"] == 1
    assert not (tmp_path / "run" / "fewshot_r10.png").exists()
    assert res["methods"]["qry-tune"]["training"]["negatives_from"] == "bm25"


def test_cli(tiny_bert, tmp_path, capsys):
    from bench.cli.main import main

    folder = write_labelled_beir(tmp_path / "labelled")
    rc = main(["evaluate", "--model", str(tiny_bert), "--suite", "fewshot", "--dataset", str(folder),
               "--ks", "2", "--trials", "2", "--max-steps", "1", "--train-batch-size", "4", "--no-progress",
               "--methods", "qry-tune,lora", "--resamples", "200", "--out", str(tmp_path / "run")])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "qry-tune K=2" in printed and "lora K=2" in printed
    # one duration: the command's total time, not a second figure from the suite
    assert "wall time" not in printed and sum(l.startswith("total time ") for l in printed.splitlines()) == 1
    res = json.loads((tmp_path / "run" / "result.json").read_text())
    assert res["protocol"]["methods"] == ["qry-tune", "lora"] and res["methods"]["lora"]["tuning"]["lora_r"] == 8
    assert main(["evaluate", "--model", str(tiny_bert), "--suite", "fewshot", "--dataset", str(folder),
                 "--methods", "nope", "--out", str(tmp_path / "bad")]) == 2


def test_statistics_block_reports_the_headline(tiny_bert, tmp_path):
    """Unequal class sizes (12 / 4 / 8 / 6 queries): the statistics block's means are the headline's
    macro averages (not the per-query micro means), and the test statistic is the headline delta."""
    ds = load_beir(write_labelled_beir(tmp_path / "unequal", sizes={"heat": 4, "sea": 8, "food": 6}))
    spec = spec_from_folder(tiny_bert)
    cfg = small_cfg(tmp_path, methods=["qry-tune"], ks=[2], n_trials=3, basic_learning=True, plots=False,
                    train=TrainConfig(batch_size=4, max_steps=2, lr=1e-2))
    res = run(spec, ds, cfg, None)["result"]
    sizes = {c: v["test"] for c, v in res["plan"]["class_sizes"].items()}
    assert len(set(sizes.values())) > 1
    st = res["statistics"]
    comps = st["comparisons"]["qry-tune"]
    mo = res["methods"]["qry-tune"]
    head = res["summary"]["headline"]
    micro_differs = False
    for split in ("base", "novel", "all"):
        assert "basic" not in comps  # the basic-learned model is the reference itself
        for setting, headline in (("K=2", mo["k"]["2"][split]["mean"]), ("full-shot", mo["full-shot"][split])):
            c = comps[setting][split]
            assert c["mean_zero_shot"] == res["zero_shot"][split] == head["zero_shot"][split]
            assert c["mean_k_shot"] == headline
            assert c["delta"] == pytest.approx(headline - res["zero_shot"][split], abs=1e-12)
            assert c["statistic"] == pytest.approx(c["delta"], abs=1e-12)
            assert c["p_value"] is not None and c["p_corrected"] >= c["p_value"]
        assert comps["K=2"][split]["mean_k_shot"] == head["k_shot"][split]["mean"]
        k2 = mo["k"]["2"]
        assert comps["K=2"][split]["delta_trials"] == pytest.approx(
            [v - res["zero_shot"][split] for v in k2[split]["trials"]], abs=1e-12)
        # the per-query (micro) mean, which the statistics block used to report, is another number here
        cls = {"base": res["plan"]["classes"]["base"], "novel": res["plan"]["classes"]["novel"]}.get(split, list(sizes))
        pc = res["zero_shot"]["per_class"]
        micro = sum(pc[c] * sizes[c] for c in cls) / sum(sizes[c] for c in cls)
        micro_differs |= abs(micro - res["zero_shot"][split]) > 1e-9
    assert micro_differs, "the constructed run does not tell the macro from the micro average"
    h = st["header"]
    assert h["sidedness"] == "two-sided" and h["correction"] == "holm" and h["test"] == "randomization"
    assert "weighted by 1/(test queries of its class x classes" in h["unit"]
    assert "averaged over the K's trials" in h["trials"] and "headline" in h["means"]
    table = fewshot_table(res)
    assert "stratified paired randomization (sign-flip) test of the headline difference" in table
    assert "unit: test query weighted by 1/(test queries of its class x classes)" in table
    assert "trials averaged per test query" in table and "holm correction" in table



def test_short_classes_recorded_under_deviations_and_printed(tiny_bert, tmp_path):
    """A class with fewer than K training queries is a deviation of the run (result.json's
    ``deviations`` and the console), not only a line of the plan."""
    ds = load_beir(write_labelled_beir(tmp_path / "short", sizes={"heat": 4}))  # heat: 2 training queries
    cfg = small_cfg(tmp_path, methods=["qry-tune"], ks=[4], n_trials=1, basic_learning=False, full_shot=False,
                    plots=False, train=TrainConfig(batch_size=4, max_steps=1, lr=1e-3))
    res = run(spec_from_folder(tiny_bert), ds, cfg, None)["result"]
    dev = next(d for d in res["deviations"] if d["name"] == "short classes")
    assert dev["ours"].startswith("K=4: 1 of 4 classes give fewer than 4 training queries (heat 2); ")
    assert res["plan"]["trials"]["4"][0]["capped"] == {"heat": 2}
    assert f"deviation from FewDR: short classes: ours {dev['ours']}" in fewshot_table(res)
