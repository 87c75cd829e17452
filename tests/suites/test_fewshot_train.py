"""Tuning methods and contrastive training on the tiny random BERT (bench.tuning.config, bench.training.dual, bench.training.contrastive)."""
import numpy as np
import pytest

from bench.encoding.encoder import Encoder
from bench.models.spec import spec_from_folder
from bench.training.contrastive import Example, TrainConfig, make_examples, mine_negatives, train_dual_encoder
from bench.models.loading import load_backbone
from bench.training.dual import build_dual_encoder, tuned_module
from bench.tuning.config import METHODS

TOPICS = ["wing lift", "heat conduction", "boundary layer", "shock wave", "shell buckling", "security clearance",
          "rocket engine", "laminar flow", "turbine blade", "fuel cell", "radar signal", "solar panel"]


def toy_data():
    docs = {f"d{i}": f"a passage about {t} and its properties number {i}" for i, t in enumerate(TOPICS)}
    queries = {f"q{i}": f"question on {t}" for i, t in enumerate(TOPICS)}
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(len(TOPICS))}
    return docs, queries, qrels


@pytest.fixture(scope="module")
def backbone(tiny_bert):
    spec = spec_from_folder(tiny_bert)
    model, tok = load_backbone(spec)
    return spec, model, tok


def test_untrained_dual_encoder_matches_encoder(backbone, tiny_bert):
    spec, model, tok = backbone
    texts = ["what is the lift of a wing", "heat", "a much longer question about boundary layers in flow"]
    dual = build_dual_encoder(spec, "full-tune", model, tok)
    ref = Encoder(spec, "query", progress=False).encode(texts)
    np.testing.assert_allclose(dual.encode(texts, "query"), ref, atol=1e-5)
    refp = Encoder(spec, "passage", progress=False).encode(texts)
    np.testing.assert_allclose(dual.encode(texts, "passage"), refp, atol=1e-5)


@pytest.mark.parametrize("method", METHODS)
def test_methods_train_only_their_parameters(backbone, method):
    spec, model, tok = backbone
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    dual = build_dual_encoder(spec, method, model, tok, seed=1)
    names = list(dual.named_trainable())
    counts = dual.parameter_counts()
    assert 0 < counts["trainable"] <= counts["total"]
    if method in ("qry-tune", "psg-tune"):
        assert not dual.tied
    else:
        assert dual.tied
    if method == "qry-tune":
        assert all(n.startswith("query:") for n in names) and not dual.passage_trainable
        assert dual.passage_model is model and not any(p.requires_grad for p in model.parameters())
    if method == "psg-tune":
        assert all(n.startswith("passage:") for n in names) and not dual.query_trainable
    if method == "bitfit":
        assert all(n.endswith("bias") for n in names)
    if method == "lora":
        assert names and all("lora_" in n for n in names)
    if method == "prefix":
        assert names and all("prompt_encoder" in n for n in names)
    if method == "adapter":  # Houlsby: after attention and after the FFN
        assert len(names) == 2 * 2 * 2 * 2  # 2 layers x 2 sites x (down, up) x (weight, bias)
        assert {n.split(".")[1].rsplit("_", 1)[0] for n in names} == {"attn_output", "ffn_output"}
    if method == "pfeiffer":  # after the FFN only
        assert len(names) == 2 * 2 * 2 and all(".ffn_output_" in n for n in names)
    if method not in ("full-tune", "qry-tune", "psg-tune"):
        assert counts["trainable"] < 0.2 * counts["total"]
    # one step changes only trainable parameters, and never the base model
    docs, queries, qrels = toy_data()
    ex = make_examples(sorted(queries), queries, qrels)
    frozen_before = {n: p.detach().clone() for n, p in dual.named_trainable().items()}
    lookup = _lookups(dual, docs)
    train_dual_encoder(dual, ex, docs.__getitem__, TrainConfig(batch_size=4, lr=1e-2, max_steps=1,
                                                                hard_negatives=0), seed=0, **lookup)
    changed = [n for n, p in dual.named_trainable().items() if not np.allclose(p.detach(), frozen_before[n])]
    assert changed
    for n, p in model.named_parameters():
        assert np.array_equal(p.detach().numpy(), before[n].numpy()), f"base model changed: {n}"


def _lookups(dual, docs):
    out = {}
    if not dual.passage_trainable:
        ids = sorted(docs)
        mat = Encoder(dual.spec, "passage", progress=False).encode([docs[d] for d in ids])
        pos = {d: i for i, d in enumerate(ids)}
        out["passage_lookup"] = lambda dids: mat[[pos[d] for d in dids]]
    if not dual.query_trainable:
        enc = Encoder(dual.spec, "query", progress=False)
        out["query_lookup"] = lambda texts: enc.encode(list(texts))
    return out


def test_training_loss_falls(backbone):
    spec, model, tok = backbone
    docs, queries, qrels = toy_data()
    run = {q: [(d, 0.0) for d in sorted(docs)] for q in queries}
    negs = mine_negatives(run, qrels, depth=3)
    assert all(f"d{q[1:]}" not in negs[q] for q in queries)
    ex = make_examples(sorted(queries), queries, qrels, negs)
    dual = build_dual_encoder(spec, "full-tune", model, tok, seed=0)
    cfg = TrainConfig(epochs=12, batch_size=6, lr=2e-3, warmup_ratio=0.0, hard_negatives=1)
    log = train_dual_encoder(dual, ex, docs.__getitem__, cfg, seed=0)
    per_epoch = np.asarray(log.losses).reshape(12, -1).mean(axis=1)
    assert log.steps == 24 and log.examples == 12 * 12
    assert per_epoch[-3:].mean() < 0.6 * per_epoch[:2].mean()
    # trained model retrieves its own training pairs better than chance
    q = dual.encode([queries[f"q{i}"] for i in range(12)], "query")
    p = dual.encode([docs[f"d{i}"] for i in range(12)], "passage")
    assert (np.argmax(q @ p.T, axis=1) == np.arange(12)).mean() > 0.5


def test_training_is_deterministic(backbone):
    spec, model, tok = backbone
    docs, queries, qrels = toy_data()
    ex = make_examples(sorted(queries), queries, qrels)
    fps, losses = [], []
    for _ in range(2):
        dual = build_dual_encoder(spec, "lora", model, tok, seed=3)
        log = train_dual_encoder(dual, ex, docs.__getitem__, TrainConfig(batch_size=4, max_steps=3), seed=5)
        fps.append(dual.fingerprint())
        losses.append(log.losses)
    assert fps[0] == fps[1] and losses[0] == losses[1]
    other = build_dual_encoder(spec, "lora", model, tok, seed=3)
    train_dual_encoder(other, ex, docs.__getitem__, TrainConfig(batch_size=4, max_steps=3), seed=6)
    assert other.fingerprint() != fps[0]


def test_qry_tune_uses_lookup_not_passage_encoder(backbone):
    spec, model, tok = backbone
    docs, queries, qrels = toy_data()
    ex = make_examples(sorted(queries), queries, qrels)
    dual = build_dual_encoder(spec, "qry-tune", model, tok)
    calls = []
    lk = _lookups(dual, docs)["passage_lookup"]
    train_dual_encoder(dual, ex, docs.__getitem__, TrainConfig(batch_size=4, max_steps=2), seed=0,
                       passage_lookup=lambda ids: calls.append(len(ids)) or lk(ids))
    assert calls and dual.n_encoded["passage"] == 0 and dual.n_encoded["query"] > 0


def test_continue_from_tuned_module(backbone):
    spec, model, tok = backbone
    docs, queries, qrels = toy_data()
    ex = make_examples(sorted(queries), queries, qrels)
    first = build_dual_encoder(spec, "lora", model, tok, seed=0)
    train_dual_encoder(first, ex, docs.__getitem__, TrainConfig(batch_size=4, max_steps=2), seed=0)
    again = build_dual_encoder(spec, "lora", model, tok, seed=0, start=tuned_module(first))
    assert again.fingerprint() == first.fingerprint()
    assert again.query_model is not first.query_model


def test_frozen_side_needs_lookup(backbone):
    from bench.core.errors import BenchError

    spec, model, tok = backbone
    dual = build_dual_encoder(spec, "qry-tune", model, tok)
    with pytest.raises(BenchError, match="passage side is frozen"):
        train_dual_encoder(dual, [Example("q", "x", ("d",))], lambda d: d, TrainConfig(), seed=0)
