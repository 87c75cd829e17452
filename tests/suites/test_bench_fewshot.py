"""pytest-benchmark: one few-shot training step (numbers only, never asserted).

Run with ``pytest -m benchmark --benchmark-enable tests/suites/test_bench_fewshot.py``.
"""
import pytest

from bench.models.spec import spec_from_folder
from bench.training.contrastive import TrainConfig, make_examples, train_dual_encoder
from bench.models.loading import load_backbone
from bench.training.dual import build_dual_encoder

pytestmark = pytest.mark.benchmark

TOPICS = ["wing lift", "heat conduction", "boundary layer", "shock wave", "shell buckling", "security clearance",
          "rocket engine", "laminar flow", "turbine blade", "fuel cell", "radar signal", "solar panel",
          "jet nozzle", "ice accretion", "flutter", "fatigue crack"]


@pytest.mark.parametrize("method", ["full-tune", "qry-tune", "lora"])
def test_one_training_step(benchmark, tiny_bert, method):
    import numpy as np

    spec = spec_from_folder(tiny_bert)
    model, tok = load_backbone(spec)
    docs = {f"d{i}": f"a passage about {t}" for i, t in enumerate(TOPICS)}
    queries = {f"q{i}": f"what about {t}" for i, t in enumerate(TOPICS)}
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(len(TOPICS))}
    negs = {f"q{i}": (f"d{(i + 1) % len(TOPICS)}",) for i in range(len(TOPICS))}
    ex = make_examples(sorted(queries), queries, qrels, negs)
    dual = build_dual_encoder(spec, method, model, tok, seed=0)
    lookup = {}
    if not dual.passage_trainable:
        mat = np.random.default_rng(0).standard_normal((len(docs), 32)).astype("float32")
        lookup["passage_lookup"] = lambda ids: mat[[int(d[1:]) for d in ids]]
    cfg = TrainConfig(batch_size=16, max_steps=1, hard_negatives=1)
    benchmark(lambda: train_dual_encoder(dual, ex, docs.__getitem__, cfg, seed=0, **lookup))
