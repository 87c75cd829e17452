"""RoDR and baseline recipes: loss terms as written, resumable training, checkpoints."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from bench.core.errors import BenchError  # noqa: E402
from bench.training.contrastive import relevance_mask  # noqa: E402
from bench.training.losses import kl_rows, rodr_losses  # noqa: E402
from bench.training.recipes import HELDOUT_FILE, RecipeConfig, split_queries, train_recipe  # noqa: E402
from bench.training.contrastive import TrainConfig  # noqa: E402


def _kl(p, q):
    return float(np.sum(p * (np.log(p) - np.log(q))))


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_kl_is_teacher_first():
    t = torch.tensor([[2.0, 0.0, -1.0]])
    s = torch.tensor([[0.0, 1.0, 0.5]])
    mask = torch.zeros_like(t, dtype=torch.bool)
    got = float(kl_rows(t, s, mask))
    want = _kl(_softmax(t.numpy()[0]), _softmax(s.numpy()[0]))
    reverse = _kl(_softmax(s.numpy()[0]), _softmax(t.numpy()[0]))
    assert got == pytest.approx(want, rel=1e-5)
    assert abs(want - reverse) > 1e-2  # the test can tell the two directions apart


def test_kl_ignores_masked_columns():
    t = torch.tensor([[2.0, 0.0, 5.0]])
    s = torch.tensor([[0.0, 1.0, -3.0]])
    mask = torch.tensor([[False, False, True]])
    got = float(kl_rows(t, s, mask))
    want = _kl(_softmax(np.array([2.0, 0.0])), _softmax(np.array([0.0, 1.0])))
    assert got == pytest.approx(want, rel=1e-5)


def test_rodr_terms_by_hand():
    g = torch.Generator().manual_seed(0)
    b, cols, dim, tau = 3, 5, 4, 0.5
    q_n, p_n = torch.randn(b, dim, generator=g), torch.randn(cols, dim, generator=g)
    q_o, p_o = torch.randn(b, dim, generator=g), torch.randn(cols, dim, generator=g)
    mask = torch.zeros((b, cols), dtype=torch.bool)
    l_nll, l_q, l_p = rodr_losses(q_n, p_n, q_o, p_o, b, mask, tau, cosine=False)
    sn = (q_n @ p_n.T / tau).numpy()
    so = (q_o @ p_o.T / tau).numpy()
    nll = np.mean([-np.log(_softmax(sn[i])[i]) for i in range(b)])
    lq = np.mean([_kl(_softmax(so[i]), _softmax(sn[i])) for i in range(b)])
    # passage-centred (the paper: for each p_j in P): every one of the 5 in-batch passages, the 3
    # positives AND the 2 hard negatives, centres a distribution over the 3 queries
    lp = np.mean([_kl(_softmax(so[:, j]), _softmax(sn[:, j])) for j in range(cols)])
    lp_positives = np.mean([_kl(_softmax(so[:, j]), _softmax(sn[:, j])) for j in range(b)])
    assert abs(lp - lp_positives) > 1e-2  # the test can tell the two row sets apart
    assert float(l_nll) == pytest.approx(nll, rel=1e-5)
    assert float(l_q) == pytest.approx(lq, rel=1e-5)
    assert float(l_p) == pytest.approx(lp, rel=1e-5)
    # hard-negative columns (3, 4) are centres: changing only them changes the term
    p_o2 = p_o.clone()
    p_o2[3:] += 5.0
    assert float(rodr_losses(q_n, p_n, q_o, p_o2, b, mask, tau, cosine=False)[2]) != pytest.approx(float(l_p))
    # the named deviation --passage-rows positives: the B positives only, hard negatives ignored
    pos = rodr_losses(q_n, p_n, q_o, p_o, b, mask, tau, cosine=False, passage_rows="positives")[2]
    assert float(pos) == pytest.approx(lp_positives, rel=1e-5)
    assert float(rodr_losses(q_n, p_n, q_o, p_o2, b, mask, tau, False, "positives")[2]) == pytest.approx(float(pos))


def test_passage_term_masks_relevant_queries_per_passage_row():
    """A hard negative that is another query's positive is masked out of that query's column in
    its own passage-centred row, as in every other term."""
    g = torch.Generator().manual_seed(4)
    b, cols, dim, tau = 2, 4, 3, 1.0
    q_n, p_n, q_o, p_o = (torch.randn(n, dim, generator=g) for n in (b, cols, b, cols))
    mask = torch.zeros((b, cols), dtype=torch.bool)
    mask[1, 2] = True  # column 2 (query 0's hard negative) is relevant to query 1
    l_p = float(rodr_losses(q_n, p_n, q_o, p_o, b, mask, tau, cosine=True)[2])
    qn, pn = torch.nn.functional.normalize(q_n, dim=-1), torch.nn.functional.normalize(p_n, dim=-1)
    qo, po = torch.nn.functional.normalize(q_o, dim=-1), torch.nn.functional.normalize(p_o, dim=-1)
    sn, so = (qn @ pn.T / tau).numpy(), (qo @ po.T / tau).numpy()
    terms = []
    for j in range(cols):
        keep = [i for i in range(b) if not mask[i, j]]
        terms.append(_kl(_softmax(so[keep, j]), _softmax(sn[keep, j])))
    assert terms[2] == 0.0  # one query left: a point mass, no divergence
    assert l_p == pytest.approx(float(np.mean(terms)), rel=1e-5)


def test_no_teacher_gives_nll_only():
    q, p = torch.randn(2, 3), torch.randn(2, 3)
    l_nll, l_q, l_p = rodr_losses(q, p, None, None, 2, torch.zeros((2, 2), dtype=torch.bool), 1.0, cosine=True)
    assert l_q is None and l_p is None and float(l_nll) > 0


def test_relevance_mask_keeps_own_positive():
    from bench.training.recipe_data import Pair

    pairs = [Pair("a", "x", ("d1", "d2"), (), ()), Pair("b", "y", ("d2",), (), ())]
    mask = relevance_mask(pairs, ["d1", "d2", "d3"])
    assert mask.tolist() == [[False, True, False], [False, False, False]]


def test_split_is_seeded_and_disjoint(beir_dir):
    from bench.data.collections import load_dataset

    ds = load_dataset(str(beir_dir))
    tr, ho = split_queries(ds, 0.4, seed=0)
    assert set(tr).isdisjoint(ho) and sorted(tr + ho) == sorted(ds.judged_query_ids()) and len(ho) == 2
    assert split_queries(ds, 0.4, seed=0) == (tr, ho)
    with pytest.raises(BenchError):
        split_queries(ds, 0.01, seed=0)


def _cfg(recipe="rodr", method="full-tune", steps=3):
    return RecipeConfig(recipe=recipe, method=method, seed=0, holdout=0.4, generators=("EXTRAPUNC", "SWAPWORDS"),
                        save_every=1, train=TrainConfig(epochs=2, batch_size=2, max_steps=steps, hard_negatives=1,
                                                        negative_depth=3, lr=1e-3))


@pytest.fixture
def tiny(tiny_bert, beir_dir):
    from bench.data.collections import load_dataset
    from bench.models.spec import spec_from_folder

    return spec_from_folder(tiny_bert, name="tiny"), load_dataset(str(beir_dir))


def _tensors(folder):
    from safetensors.numpy import load_file

    return load_file(str(folder / "model.safetensors"))


def test_rodr_writes_an_evaluable_checkpoint(tiny, tmp_path):
    spec, ds = tiny
    out = tmp_path / "ckpt"
    rec = train_recipe(spec, ds, _cfg(), out, progress=False)
    assert rec["complete"] and rec["log"]["steps"] == 3
    assert {"nll", "kl_query", "kl_passage", "loss"} <= set(rec["log"]["losses"][0])
    assert rec["loss"]["kl_direction"].startswith("KL(teacher")
    assert rec["parameters"]["trainable"] == rec["parameters"]["total"]
    assert (out / HELDOUT_FILE).read_text().split() == rec["queries"]["heldout"]
    assert set(rec["queries"]["train"]).isdisjoint(rec["queries"]["heldout"])
    assert json.loads((out / "training.json").read_text())["recipe"] == "rodr"
    assert not (tmp_path / ".ckpt.state").exists()
    # the checkpoint is a model like any other, and it differs from its source
    from bench.models.spec import resolve_model
    from suites.variations import VariationsConfig, run
    from bench.evaluation.measures import parse_measures

    new = resolve_model(str(out))
    assert (new.pooling, new.similarity, new.normalize) == (spec.pooling, spec.similarity, spec.normalize)
    res = run(new, ds, VariationsConfig(measures=parse_measures("RR@10"), generators=["EXTRAPUNC"], progress=False,
                                        statistics=None), None)
    assert res["result"]["sets"][0]["name"] == "ORIGINAL"
    from bench.reporting.tables import variations_table

    assert "model trained by rodr (existing-retriever), weights 1 / 1 / 1" in variations_table(res["result"])
    src = _tensors(spec.resolve_path())
    got = _tensors(out)
    assert any(not np.array_equal(src[k], got[k]) for k in src if k in got)


def test_resume_gives_the_same_weights(tiny, tmp_path):
    spec, ds = tiny
    straight = tmp_path / "a"
    train_recipe(spec, ds, _cfg(), straight, progress=False)
    resumed = tmp_path / "b"
    part = train_recipe(spec, ds, _cfg(), resumed, progress=False, stop_after=2)
    assert not part["complete"] and not resumed.exists() and (tmp_path / ".b.state" / "state.pt").exists()
    rec = train_recipe(spec, ds, _cfg(), resumed, progress=False)
    assert rec["log"]["resumed_at"] == [2]
    a, b = _tensors(straight), _tensors(resumed)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert [d["loss"] for d in rec["log"]["losses"]] == \
        [d["loss"] for d in json.loads((straight / "training.json").read_text())["log"]["losses"]]


def test_resume_refuses_another_configuration(tiny, tmp_path):
    spec, ds = tiny
    train_recipe(spec, ds, _cfg(), tmp_path / "c", progress=False, stop_after=1)
    other = _cfg()
    other.w_passage = 0.5
    with pytest.raises(BenchError, match="another configuration"):
        train_recipe(spec, ds, other, tmp_path / "c", progress=False)


def test_bitfit_recipe_keeps_weights_frozen(tiny, tmp_path):
    spec, ds = tiny
    out = tmp_path / "bitfit"
    train_recipe(spec, ds, _cfg(method="bitfit"), out, progress=False)
    src, got = _tensors(spec.resolve_path()), _tensors(out)
    changed = {k for k in src if k in got and not np.array_equal(src[k], got[k])}
    assert changed and all(k.endswith("bias") for k in changed)


def test_baseline_recipes_have_no_alignment(tiny, tmp_path):
    spec, ds = tiny
    rec = train_recipe(spec, ds, _cfg(recipe="dr-oq-qv", steps=None), tmp_path / "oq", progress=False)
    assert rec["recipe"] == "dr-oq-qv" and rec["loss"]["phases"] == ["original", "variation"]
    assert "kl_query" not in rec["log"]["losses"][0]
    # 3 training queries, batch 2, 2 epochs: 4 steps per stage, each stage its own schedule
    first = json.loads((tmp_path / "oq.dr-oq" / "training.json").read_text())
    assert first["recipe"] == "dr" and first["log"]["steps"] == 4 and first["variation_use"] == {"ORIGINAL": 6}
    assert rec["log"]["steps"] == 4 and [s["steps"] for s in rec["stages"]] == [4, 4]
    assert "ORIGINAL" not in rec["variation_use"]
    # steps matched: stage 2 has the steps of a RoDR run with the same settings
    rodr = train_recipe(spec, ds, _cfg(recipe="rodr", steps=None), tmp_path / "r", progress=False)
    assert rodr["log"]["steps"] == rec["log"]["steps"]
    # stage 2 started from DR_OQ, not from the starting model
    assert rec["stages"][0]["fingerprint"] and rec["source_fingerprint"] != rec["stages"][0]["fingerprint"]


def test_rodr_cases_weights_and_record(tiny, tmp_path):
    spec, ds = tiny
    rec = train_recipe(spec, ds, _cfg(steps=2), tmp_path / "ex", progress=False)
    assert rec["case"] == "existing-retriever" and not [d for d in rec["deviations"] if "weights" in d]
    assert rec["loss"]["weights"] == {"w_nll": 1.0, "w_query": 1.0, "w_passage": 1.0} == rec["paper_weights"]
    assert rec["stages"] is None and rec["loss"]["teacher"]["name"] == spec.name
    cfg = _cfg(steps=2)
    cfg.from_dr_oq = True
    two = train_recipe(spec, ds, cfg, tmp_path / "oq", progress=False)
    assert two["case"] == "from-dr-oq" and two["recipe"] == "rodr"
    assert not [d for d in two["deviations"] if "weights" in d]
    assert two["loss"]["weights"] == {"w_nll": 1.0, "w_query": 1.0, "w_passage": 0.2}
    assert [s["name"] for s in two["stages"]] == ["DR_OQ", "RoDR"] and two["stages"][1]["steps"] == 2
    # the teacher of stage 2 is DR_OQ (the stage-1 checkpoint), not the starting model
    assert two["loss"]["teacher"]["fingerprint"] == two["stages"][0]["fingerprint"] != rec["source_fingerprint"]
    assert two["source_fingerprint"] == rec["source_fingerprint"]
    assert json.loads((tmp_path / "oq" / "training.json").read_text())["case"] == "from-dr-oq"
    # a rerun reuses the finished DR_OQ stage
    again = train_recipe(spec, ds, cfg, tmp_path / "oq", progress=False)
    assert again["stages"][0]["reused"] and again["log"]["losses"] == two["log"]["losses"]
    # weights that differ from the paper's for the case are a named deviation
    odd = _cfg(steps=1)
    odd.w_passage = 0.2
    dev = train_recipe(spec, ds, odd, tmp_path / "odd", progress=False)["deviations"]
    weights_dev = [d for d in dev if "loss weights" in d]
    assert len(weights_dev) == 1 and "existing-retriever" in weights_dev[0] and "1 / 1 / 1" in weights_dev[0]
    # an evaluation of that checkpoint carries the case, weights and deviation into result.json
    from bench.models.spec import resolve_model
    from bench.results.writer import model_entry

    entry = model_entry(resolve_model(str(tmp_path / "odd")), "fp")["training"]
    assert entry["case"] == "existing-retriever" and entry["deviations"] == dev
    assert entry["weights"] == {"w_nll": 1.0, "w_query": 1.0, "w_passage": 0.2}
    with pytest.raises(BenchError, match="from-dr-oq"):
        RecipeConfig(recipe="dr-qv", from_dr_oq=True).validate()
    with pytest.raises(BenchError, match="NLL only"):
        RecipeConfig(recipe="dr", w_passage=0.5).validate()


def test_unsaveable_method_is_refused(tiny, tmp_path):
    spec, ds = tiny
    with pytest.raises(BenchError, match="one checkpoint"):
        train_recipe(spec, ds, _cfg(method="qry-tune"), tmp_path / "x", progress=False)


@pytest.mark.parametrize("method", ["iaa-m", "lora"])
def test_peft_recipe_checkpoints_load_with_their_modules(tiny, tmp_path, method):
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model

    spec, ds = tiny
    out = tmp_path / method
    cfg = _cfg(method=method)
    cfg.train.lr = 5e-2  # move the zero-initialised modules visibly in 3 steps
    rec = train_recipe(spec, ds, cfg, out, progress=False)
    assert 0 < rec["parameters"]["trainable_share"] < 0.5
    src, got = _tensors(spec.resolve_path()), _tensors(out)
    if method == "iaa-m":
        # the backbone stays frozen: saved as it was, the method's tensors beside it
        assert (out / "tuning.json").exists() and all(np.array_equal(src[k], got[k]) for k in src)
    else:
        # LoRA is merged into the weights: a plain checkpoint whose attention weights moved
        assert not (out / "tuning.json").exists() and set(got) == set(src)
        assert any(not np.array_equal(src[k], got[k]) for k in src if "attention.self" in k)
    texts = ["lift of a wing", "heat conduction in slabs"]
    before = Encoder(spec, "query", progress=False).encode(texts)
    after = Encoder(resolve_model(str(out)), "query", progress=False).encode(texts)
    assert not np.allclose(before, after, atol=1e-6)


def test_margin_mse_by_hand():
    from bench.training.losses import margin_mse

    g = torch.Generator().manual_seed(3)
    qs, ps, ns, qt, pt, nt = (torch.randn(4, 5, generator=g) for _ in range(6))
    got = float(margin_mse(qs, ps, ns, qt, pt, nt, cosine=False))
    ms = (qs * ps).sum(1) - (qs * ns).sum(1)
    mt = (qt * pt).sum(1) - (qt * nt).sum(1)
    assert got == pytest.approx(float(((ms - mt) ** 2).mean()), rel=1e-6)


def test_margin_mse_recipe(tiny, tmp_path, tiny_bert_plain):
    from bench.models.spec import spec_from_folder

    spec, ds = tiny
    cfg = _cfg(recipe="dr")
    cfg.loss = "margin-mse"
    cfg.teacher = spec_from_folder(tiny_bert_plain, name="teacher").with_overrides(pooling="mean")
    rec = train_recipe(spec, ds, cfg, tmp_path / "mm", progress=False)
    assert set(rec["log"]["losses"][0]) == {"loss", "margin_mse"}
    assert rec["config"]["teacher"]["name"] == "teacher" and rec["loss"]["definition"].startswith("Margin-MSE")
    bad = _cfg(recipe="rodr")
    bad.loss = "margin-mse"
    with pytest.raises(BenchError, match="rodr keeps"):
        bad.validate()


def test_two_stage_peft_run_trains_the_stage_one_modules_on(tiny, tmp_path):
    from safetensors.numpy import load_file

    spec, ds = tiny
    cfg = _cfg(recipe="dr-oq-qv", method="iaa-m", steps=2)
    cfg.train.lr = 5e-2
    rec = train_recipe(spec, ds, cfg, tmp_path / "p", progress=False)
    assert rec["complete"] and rec["parameters"]["trainable"] < rec["parameters"]["total"]
    src, got = _tensors(spec.resolve_path()), _tensors(tmp_path / "p")
    assert all(np.array_equal(src[k], got[k]) for k in src)  # the backbone stays frozen in both stages
    one = load_file(str(tmp_path / "p.dr-oq" / "tuning.safetensors"))
    two = load_file(str(tmp_path / "p" / "tuning.safetensors"))
    assert one.keys() == two.keys() and any(not np.array_equal(one[k], two[k]) for k in one)


def test_rodr_schedule_deviations_sources_and_the_paper_option(tiny, tmp_path):
    spec, ds = tiny
    harness = RecipeConfig(recipe="rodr")
    dev = harness.deviations("cos")
    assert any("1 hard negative(s) per query (DR_O's top 30; paper: 7" in d for d in dev)
    assert any("1 epoch(s) (paper: 4)" in d for d in dev)
    assert any("learning rate 2e-05, ours" in d and "5e-6 / 3e-5 / 5e-6 / 5e-7" in d for d in dev)
    assert any("cosine similarities / 0.05" in d and "dot product" in d for d in dev)
    assert not any("cosine" in d for d in harness.deviations("dot"))
    assert "IAA paper" not in harness.hyperparameter_sources()["lr"].split("(")[0]
    paper = RecipeConfig(recipe="rodr", rodr_schedule="paper").validate()
    assert (paper.train.epochs, paper.train.hard_negatives, paper.train.lr) == (4, 7, 5e-6)
    pdev = paper.deviations("dot")
    assert not any("epoch" in d for d in pdev)
    # n = 7 as the paper; the depth stays ours (30), the paper's is 1,000: still named
    assert [d for d in pdev if "hard negative" in d] == [
        "rodr: 7 hard negative(s) per query (DR_O's top 30; paper: 7 from DR_O's top 1,000)"]
    assert any("the paper's baselines: the BM25 negatives" in d for d in RecipeConfig(recipe="dr").deviations())
    assert not any("hard negative" in d for d in RecipeConfig(
        recipe="dr", train=TrainConfig(negatives_from="bm25")).deviations())
    assert any("learning rate 5e-06, --rodr-schedule paper" in d for d in pdev)
    src = paper.hyperparameter_sources()
    assert src["epochs"] == "RoDR paper (4)" and src["hard_negatives"] == "RoDR paper (7)"
    kept = RecipeConfig(recipe="rodr", rodr_schedule="paper", train=TrainConfig(lr=1e-5))
    assert kept.train.lr == 1e-5 and kept.lr_source() == "from --lr"
    assert any("--variation-sampling changed" in d
               for d in RecipeConfig(recipe="dr-qv", variation_sampling="changed").deviations())
    assert any("(q, q)" in d for d in RecipeConfig(recipe="dr-qv", variation_sampling="sets").deviations())
    assert not any("sampling" in d for d in RecipeConfig(recipe="dr-qv", protocol="rodr").deviations())
    with pytest.raises(BenchError, match="rodr-schedule"):
        RecipeConfig(rodr_schedule="fast").validate()
    # a run records them, the source of every setting, and the teacher's lengths (the training lengths)
    rec = train_recipe(spec, ds, _cfg(steps=1), tmp_path / "r", progress=False)
    assert rec["deviations"] == _cfg().deviations(spec.similarity) and rec["deviations"]
    assert set(rec["hyperparameter_sources"]) >= {"lr", "epochs", "hard_negatives", "temperature"}
    assert rec["config"]["training"]["lr_source"] == rec["hyperparameter_sources"]["lr"] == "from --lr"
    tc = _cfg().train
    assert rec["loss"]["teacher"]["lengths"] == {"query": tc.max_query_length, "passage": tc.max_passage_length}


def test_variation_sampling_uniform_over_sets_with_unchanged_queries(tiny):
    from bench.training.recipe_data import variation_pairs

    _, ds = tiny
    ids = ds.judged_query_ids()
    sets_cfg = _cfg()
    sets_cfg.variation_sampling = "sets"
    every, _, _ = variation_pairs(ds, ids, sets_cfg, {})
    changed_cfg = _cfg()
    changed_cfg.variation_sampling = "changed"
    changed, _, _ = variation_pairs(ds, ids, changed_cfg, {})
    for a, b in zip(every, changed):
        assert len(a.variations) == 2  # one entry per set, changed or not
        assert a.n_changed == b.n_changed == len(b.variations)
        for name, text in a.variations:
            if name.endswith("(unchanged)"):
                assert text == a.text
        assert [v for v in a.variations if not v[0].endswith("(unchanged)")] == list(b.variations)
    assert any(v[0].endswith("(unchanged)") for p in every for v in p.variations)


def test_default_sampling_gives_each_query_one_changed_variation_with_equal_quotas(tiny):
    from bench.training.recipe_data import quota_assignment, variation_pairs

    _, ds = tiny
    ids = ds.judged_query_ids()
    assert RecipeConfig().variation_sampling == "quota"
    pairs, used, _ = variation_pairs(ds, ids, _cfg(), {})
    for p in pairs:  # one variation, one that changed the query; none only where no set changed it
        assert len(p.variations) == (1 if p.n_changed else 0)
        assert all(text != p.text for _, text in p.variations)
    # equal quotas as far as the candidates allow: 12 queries, 3 types, the rare type takes all it can
    changed = {f"q{i}": ["A", "B", "C"] for i in range(10)}
    changed.update({"q10": ["A"], "q11": ["A", "C"], "q12": []})
    got = quota_assignment(changed, ["A", "B", "C"], seed=0)
    counts = {n: sum(1 for v in got.values() if v == n) for n in "ABC"}
    assert set(got) == {f"q{i}" for i in range(12)} and counts == {"A": 4, "B": 4, "C": 4}
    assert all(got[q] in changed[q] for q in got)
    assert got == quota_assignment(changed, ["A", "B", "C"], seed=0)
    scarce = quota_assignment({**{f"q{i}": ["A"] for i in range(8)}, "q8": ["A", "B"]}, ["A", "B"], seed=1)
    assert sorted(scarce.values()).count("B") == 1  # B changed one query: it takes that one, A the rest


def test_quota_run_records_the_unchanged_pairs_and_the_protocol(tiny, tmp_path):
    spec, ds = tiny
    cfg = _cfg(recipe="dr-qv", steps=2)
    rec = train_recipe(spec, ds, cfg, tmp_path / "q", progress=False)
    v = rec["variations"]
    assert v["rule"] == "quota" and v["protocol"] == "validated" and rec["config"]["protocol"] == "validated"
    assert sum(v["assigned"].values()) == sum(1 for p in rec["queries"]["train"]) - v[
        "n_train_queries_without_variation"]
    assert v["unchanged_pairs"]["n"] == sum(n for k, n in rec["variation_use"].items() if "no variation" in k)
    assert any("--protocol validated" in d for d in rec["deviations"])


def test_iaa_recipe_run_prints_and_records_its_placement_as_a_deviation(tiny, tmp_path):
    from bench.cli.train import training_summary

    spec, ds = tiny
    cfg = _cfg(recipe="dr", method="iaa-s", steps=1)
    dev = cfg.deviations(spec.similarity)
    assert any(d.startswith("iaa-s: the aside modules' skip joins") and "--iaa-skip before-ln" in d for d in dev)
    from bench.tuning.config import TuningConfig

    cfg.tuning = TuningConfig(iaa_skip="after-ln")
    rec = train_recipe(spec, ds, cfg, tmp_path / "iaa", progress=False)
    placed = [d for d in rec["deviations"] if d.startswith("iaa-s: the aside modules' skip joins")]
    assert len(placed) == 1 and "--iaa-skip after-ln" in placed[0]
    assert f"deviation from the paper: {placed[0]}" in training_summary(rec)
    assert "iaa_step0" not in rec
