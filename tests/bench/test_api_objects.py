"""bench.evaluate with a model object (any encoder: encode, encode_queries / encode_corpus,
encode_query / encode_document, a callable) and a dataset object (BEIR dicts, DataFrames, an
ir_datasets-style object); the embedding cache rule for objects (named: keyed by name, revision
and the outputs on the probe texts; unnamed: not cached)."""
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

import bench
from bench.core.errors import BenchError, DataError
from bench.data.collections import load_dataset
from bench.data.objects import dataset_from_object
from tests.conftest import DOCS, QRELS, QUERIES

GENS = ["EXTRAPUNC"]


def bow(texts, dim=64, salt=""):
    out = np.full((len(texts), dim), 0.01, dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, int(hashlib.md5((salt + w).encode()).hexdigest(), 16) % dim] += 1
    return out


class BowEncoder:
    """The encoder protocol at its smallest: one method for queries and passages."""

    def __init__(self, salt=""):
        self.salt, self.calls = salt, []

    def encode(self, texts, batch_size=32):
        self.calls.append(len(texts))
        return bow(texts, salt=self.salt)


class SplitEncoder:
    """BEIR / MTEB style: separate methods; the query side returns a list of lists."""

    def encode_queries(self, texts, batch_size=16, **kwargs):
        return bow(texts).tolist()

    def encode_corpus(self, texts, batch_size=16, **kwargs):
        return bow(texts)


class StyleEncoder:
    """sentence-transformers >= 5 style: encode_query / encode_document."""

    def encode_query(self, texts):
        return bow(texts)

    def encode_document(self, texts):
        return bow(texts)


def tiny_dict():
    return {"corpus": {d: {"title": t, "text": x} for d, (t, x) in DOCS.items()},
            "queries": {q: {"text": t, "class": c} for q, (t, c) in QUERIES.items()},
            "qrels": {q: {d: g for qq, d, g in QRELS if qq == q} for q in dict.fromkeys(q for q, _, _ in QRELS)}}


def run(tmp_path, folder, model, dataset=None, **kw):
    kw.setdefault("generators", GENS)
    return bench.evaluate(model=model, dataset=tiny_dict() if dataset is None else dataset, out=tmp_path / folder,
                          no_progress=True, **kw)


@pytest.mark.parametrize("model, methods", [
    (BowEncoder(), ("encode", "encode")),
    (SplitEncoder(), ("encode_queries", "encode_corpus")),
    (StyleEncoder(), ("encode_query", "encode_document")),
    (lambda texts: bow(texts), ("__call__", "__call__")),
])
def test_every_encoder_form_gives_the_same_numbers(tmp_path, model, methods):
    r = run(tmp_path, "r", model)
    ref = run(tmp_path, "ref", BowEncoder())
    assert r.per_query.equals(ref.per_query)  # the same vectors, whatever the method names
    rec = r.result["model"]["encoder_object"]
    assert (rec["query_method"], rec["passage_method"]) == methods
    assert rec["name"] is None and rec["cache"].startswith("not cached")
    assert "lengths" not in r.result["model"] and r.result["model"]["spec"]["similarity"] == "cos"


def test_unnamed_object_is_not_cached_named_one_is(tmp_path):
    home = Path(os.environ["DRBENCH_HOME"]) / "embeddings"
    before = set(os.listdir(home)) if home.is_dir() else set()
    run(tmp_path, "a", BowEncoder())
    assert (set(os.listdir(home)) if home.is_dir() else set()) == before  # nothing written to the cache
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("drbench-object-*"))  # the scratch folder is gone

    enc = BowEncoder()
    first = run(tmp_path, "b", enc, name="bow", revision="1")
    rec = first.result["model"]["encoder_object"]
    assert rec["name"] == "bow" and rec["revision"] == "1" and rec["cache"].startswith("keyed by name")
    added = set(os.listdir(home)) - before
    assert len(added) == 2  # one key per role
    again = run(tmp_path, "c", BowEncoder(), name="bow", revision="1")
    timings = json.loads((tmp_path / "c" / "timings.json").read_text())["encoding"]
    assert timings["passages_encoded"] == 0 and timings["passage_cache_hits"] == len(DOCS)
    assert again.per_query.equals(first.per_query)
    assert (tmp_path / "c" / "result.json").read_bytes() == (tmp_path / "b" / "result.json").read_bytes()

    # the same name, other outputs (a model changed under an old name): another key, never the old vectors
    changed = run(tmp_path, "d", BowEncoder(salt="x"), name="bow", revision="1")
    assert len(set(os.listdir(home)) - before) == 4
    assert changed.result["model"]["fingerprint"] != first.result["model"]["fingerprint"]


def test_bad_objects_fail_before_any_work_naming_the_fix(tmp_path):
    class Wrong:
        def encode(self, texts):
            return np.zeros((len(texts) + 1, 4))

    with pytest.raises(BenchError, match=r"Wrong\.encode \(queries\) returned shape \(9, 4\) for 8 texts\. Fix"):
        run(tmp_path, "w", Wrong())
    with pytest.raises(BenchError, match="revision= identifies a named model object"):
        run(tmp_path, "w", BowEncoder(), revision="2")
    with pytest.raises(BenchError, match="a model object encodes as it is"):
        run(tmp_path, "w", BowEncoder(), pooling="cls")
    with pytest.raises(BenchError, match="device='cpu' applies to model folders"):
        run(tmp_path, "w", BowEncoder(), device="cpu")
    with pytest.raises(BenchError, match="a model object can be evaluated by --suite variations"):
        bench.evaluate(model=BowEncoder(), dataset=tiny_dict(), suite="fewshot", out=tmp_path / "f")
    assert not (tmp_path / "w").exists() and not (tmp_path / "f").exists()


def test_dataset_forms_equal_the_folder(beir_dir, tmp_path):
    import pandas as pd

    folder = load_dataset(str(beir_dir))
    d = tiny_dict()
    assert dataset_from_object(d).fingerprint() == folder.fingerprint()
    assert dataset_from_object((d["corpus"], d["queries"], d["qrels"])).fingerprint() == folder.fingerprint()
    frames = {"corpus": pd.DataFrame([{"_id": k, **v} for k, v in d["corpus"].items()]),
              "queries": pd.DataFrame([{"query_id": k, "text": v["text"], "label": v["class"]}
                                       for k, v in d["queries"].items()]),
              "qrels": pd.DataFrame(QRELS, columns=["query_id", "doc_id", "relevance"])}
    assert dataset_from_object(frames).fingerprint() == folder.fingerprint()

    class Rec:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    class IrdsLike:  # the three iterators of an ir_datasets dataset
        def docs_iter(self):
            return iter(Rec(doc_id=k, title=t, text=x) for k, (t, x) in DOCS.items())

        def queries_iter(self):
            return iter(Rec(query_id=k, text=t) for k, (t, _) in QUERIES.items())

        def qrels_iter(self):
            return iter(Rec(query_id=q, doc_id=dd, relevance=g, iteration="0") for q, dd, g in QRELS)

    irds = dataset_from_object(IrdsLike())
    assert irds.corpus == folder.corpus and irds.qrels == folder.qrels
    assert [q.text for q in irds.queries.values()] == [q.text for q in folder.queries.values()]

    r = run(tmp_path, "obj", BowEncoder(), dataset=d, dataset_name="tiny")
    assert r.result["dataset"] == json.loads((tmp_path / "obj" / "result.json").read_text())["dataset"]
    assert r.result["dataset"]["fingerprint"] == folder.fingerprint() and r.result["dataset"]["name"] == "tiny"


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["qrels"]["1"].update(d9=1), r"^qrels\['1'\]\['d9'\]: judgment names unknown document 'd9'"),
    (lambda d: d["corpus"].update(d7={"title": "", "text": " "}), r"^corpus\['d7'\]: document 'd7' has an empty title"),
    (lambda d: d["qrels"]["1"].update(d1="high"), r"^qrels\['1'\]\['d1'\]: relevance grade 'high' is not an integer"),
    (lambda d: d["queries"].update({"6": {"text": 5}}), r"^queries\['6'\]: field 'text' must be a string, got int"),
    (lambda d: d["corpus"].update({1: "x", "1": "y"}), r"^corpus\['1'\]: duplicate document id '1' \(first at corpus\[1\]\)"),
    (lambda d: d.pop("qrels"), r"^dataset: a dataset dict needs the keys corpus, queries and qrels; qrels missing"),
])
def test_dataset_object_errors_name_the_record(edit, message):
    d = tiny_dict()
    edit(d)
    with pytest.raises(DataError, match=message):
        dataset_from_object(d)


def test_dataframe_errors_name_the_row():
    import pandas as pd

    d = tiny_dict()
    bad = {**d, "qrels": pd.DataFrame([("1", "d1", 1), ("1", "d1", 2)], columns=["query-id", "corpus-id", "score"])}
    with pytest.raises(DataError, match=r"^qrels row 1: duplicate judgment for query '1', document 'd1' "
                                        r"\(first at qrels row 0\)"):
        dataset_from_object(bad)
    with pytest.raises(DataError, match=r"^corpus: no id column \(one of _id, doc_id"):
        dataset_from_object({**d, "corpus": pd.DataFrame([{"id": "d1", "text": "x"}])})


@pytest.mark.slow
def test_a_user_class_around_minilm_gives_the_numbers_of_the_registered_model(tmp_path):
    """Notebook style: minilm-l6 wrapped in a user class with encode methods, evaluated on an
    in-memory BEIR dict, against `bench evaluate --model minilm-l6` on the same data as a folder."""
    from bench.cli.main import main
    from bench.encoding.encoder import Encoder
    from bench.models.spec import resolve_model
    from tests.conftest import write_beir

    class MyMiniLM:  # what a user writes around a model being trained in a notebook
        def __init__(self):
            spec = resolve_model("minilm-l6")
            self.passages = Encoder(spec, "passage", progress=False)
            self.queries = Encoder(spec, "query", progress=False, shared=self.passages)

        def encode_queries(self, texts, batch_size=64):
            return self.queries.encode_canonical(texts)

        def encode_corpus(self, texts, batch_size=64):
            return self.passages.encode(texts)

    folder = write_beir(tmp_path / "tiny")
    assert main(["evaluate", "--model", "minilm-l6", "--dataset", str(folder), "--generators", "EXTRAPUNC,MISSPELL",
                 "--out", str(tmp_path / "cli"), "--no-progress"]) == 0
    r = bench.evaluate(model=MyMiniLM(), dataset=tiny_dict(), dataset_name="tiny", generators=["EXTRAPUNC", "MISSPELL"],
                       out=tmp_path / "obj", no_progress=True)
    assert (tmp_path / "obj" / "per_query.csv").read_bytes() == (tmp_path / "cli" / "per_query.csv").read_bytes()
    cli = bench.load_run(tmp_path / "cli")
    assert r.result["sets"] == cli.result["sets"] and r.result["dataset"] == cli.result["dataset"]


def test_gate_compare_and_leaderboard_from_python_equal_the_commands(tmp_path, capsys):
    from bench.cli.main import main

    base = run(tmp_path, "base", BowEncoder(), name="base", generators=["EXTRAPUNC", "MISSPELL"])
    cand = run(tmp_path, "cand", BowEncoder(salt="c"), name="cand", generators=["EXTRAPUNC", "MISSPELL"])
    for strict in (False, True):
        verdict = bench.gate(base, cand, strict=strict)
        capsys.readouterr()
        code = main(["gate", "--baseline", str(base.folder), "--candidate", str(cand.folder)]
                    + (["--strict"] if strict else []))
        out = capsys.readouterr().out
        assert (verdict.exit_code, verdict.markdown()) == (code, out)
        assert verdict.passed == (verdict.status == "PASS")
    table = bench.compare(base, cand.folder, metric="MRR@10")
    capsys.readouterr()
    assert main(["compare", str(base.folder), str(cand.folder), "--metric", "MRR@10"]) == 0
    assert table.markdown() in capsys.readouterr().out
    board = bench.leaderboard(base, cand)
    capsys.readouterr()
    assert main(["leaderboard", str(base.folder), str(cand.folder)]) == 0
    assert capsys.readouterr().out == board.markdown()
    typed = base.typed
    assert typed.layout == "sets" and typed.data["sets"][0]["name"] == "ORIGINAL" == base.sets[0]["name"]


def test_keywords_and_the_command_line_give_the_same_typed_config():
    import dataclasses

    from bench.cli.evaluate import namespace
    from bench.config import EvaluateConfig, config_from_keywords, config_from_namespace

    values = dict(generators=["EXTRAPUNC", "MISSPELL"], labels=["a.tsv", "b.tsv"], top_k="5", out="x", seed=3,
                  metrics=["MRR@10", "R@100"], no_progress=True, index="hnsw", ef_search=64, protocol="rodr")
    a, b = config_from_namespace(namespace(**values)), config_from_keywords(**values)
    assert isinstance(b, EvaluateConfig) and dataclasses.asdict(a) == dataclasses.asdict(b)
    assert b.top_k == 5 and b.generators == "EXTRAPUNC,MISSPELL" and b.labels == ["a.tsv,b.tsv"] and b.ef_search == 64
    assert dataclasses.asdict(config_from_namespace(namespace())) == dataclasses.asdict(config_from_keywords())
    with pytest.raises(BenchError, match=r"^argument --index: invalid choice: 'lsh' \(choose from 'flat', 'ivf', 'hnsw'\)"):
        config_from_keywords(index="lsh")
    with pytest.raises(BenchError, match=r"^argument --seed: invalid int value: 'x'"):
        config_from_keywords(seed="x")


def test_evaluate_prints_nothing_on_stdout_and_never_redirects_it(tmp_path, capsys):
    import sys

    seen = []

    class Watch(BowEncoder):
        def encode(self, texts, batch_size=32):
            seen.append(sys.stdout)
            return super().encode(texts, batch_size)

    before = sys.stdout
    run(tmp_path, "quiet", Watch())
    assert seen and all(s is before for s in seen)  # the suite ran with the caller's stdout
    assert capsys.readouterr().out == ""
    run(tmp_path, "loud", Watch(), verbose=True)
    out = capsys.readouterr().out
    assert "EXTRAPUNC" in out and f"result: {tmp_path / 'loud' / 'result.json'}" in out


def test_the_api_does_not_import_the_command_line():
    import subprocess
    import sys

    code = ("import sys, bench.api; bad = sorted(m for m in sys.modules if m.startswith('bench.cli')); "
            "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert proc.returncode == 0, proc.stderr


def test_the_documented_example_runs_as_written(tmp_path, monkeypatch, capsys):
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "python-api.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/python-api.md", "exec"), {})
    out = capsys.readouterr().out
    assert "EXTRAPUNC" in out and "not cached (no name= given)" in out
    assert (tmp_path / "runs" / "hashing" / "result.json").is_file()
