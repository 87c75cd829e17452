"""pytest-benchmark: one training step of each new recipe on minilm-l6 (run with `tox -e bench`)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.benchmark

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def minilm():
    from bench.models.spec import resolve_model
    from bench.models.loading import load_backbone

    spec = resolve_model("minilm-l6")
    model, tok = load_backbone(spec)
    return spec, model, tok


@pytest.fixture(scope="module")
def chatter():
    from bench.data.collections import load_dataset

    ds = load_dataset("chatterbot")
    qids = ds.judged_query_ids()[:16]
    queries = [ds.queries[q].text for q in qids]
    docs = [ds.corpus[d].full_text() for d in list(ds.corpus)[:32]]
    return queries, docs


@pytest.mark.parametrize("method", ["full-tune", "rem", "iaa-m"])
def test_rodr_step(benchmark, minilm, chatter, method):
    """Forward + backward of one RoDR batch: 16 query variations, 16 positives + 16 hard negatives."""
    from bench.training.losses import rodr_losses
    from bench.training.dual import build_dual_encoder, tuned_module

    spec, model, tok = minilm
    queries, docs = chatter
    dual = build_dual_encoder(spec, method, model, tok)
    dual.train(True)
    q_o, p_o = torch.randn(16, 384), torch.randn(32, 384)
    mask = torch.zeros((16, 32), dtype=torch.bool)

    def step():
        q = dual.embed(queries, "query", 32)
        p = dual.embed(docs, "passage", 128)
        l_nll, l_q, l_p = rodr_losses(q, p, q_o, p_o, 16, mask, 0.05, cosine=True)
        (l_nll + l_q + 0.2 * l_p).backward()
        tuned_module(dual).zero_grad(set_to_none=True)

    benchmark.pedantic(step, rounds=3, iterations=1, warmup_rounds=1)


def test_mlm_step(benchmark, chatter):
    """Forward + backward of one MLM batch of 16 passages at up to 128 tokens (DDR's DAM)."""
    from bench.training.ddr import _mlm_model, mask_tokens
    from bench.models.spec import resolve_model

    model, tok, _, _ = _mlm_model(resolve_model("minilm-l6"), 0)
    model.train()
    _, docs = chatter
    enc = tok(docs[:16], padding=True, truncation=True, max_length=128, return_tensors="pt",
              return_special_tokens_mask=True)
    special = enc["special_tokens_mask"].bool() | (enc["attention_mask"] == 0)
    inputs, labels = mask_tokens(enc["input_ids"], special, tok.mask_token_id, len(tok), torch.Generator().manual_seed(0))

    def step():
        out = model(input_ids=inputs, attention_mask=enc["attention_mask"], labels=labels)
        out.loss.backward()
        model.zero_grad(set_to_none=True)

    benchmark.pedantic(step, rounds=3, iterations=1, warmup_rounds=1)
