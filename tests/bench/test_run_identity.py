"""One run, one identity: spellings of the same measures give the same default run folder and the
same result file."""
import shutil

import pytest

from bench.cli.main import main


def _evaluate(beir_dir, metrics):
    argv = ["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--suite", "variations",
            "--generators", "EXTRAPUNC", "--no-progress"]
    assert main(argv + (["--metrics", metrics] if metrics is not None else [])) == 0


@pytest.mark.parametrize("a, b", [("mrr@10", "MRR@10"), ("ndcg@10, mrr@10 NDCG@10", "nDCG@10 MRR@10"),
                                  ("mrr@10 NDCG@10, R@100", None)])  # None: the default measures
def test_measure_spellings_give_one_folder_and_identical_results(beir_dir, tmp_path, monkeypatch, a, b):
    monkeypatch.chdir(tmp_path)
    _evaluate(beir_dir, a)
    (first,) = (tmp_path / "runs").iterdir()
    shutil.move(str(tmp_path / "runs"), str(tmp_path / "first"))
    _evaluate(beir_dir, b)
    (second,) = (tmp_path / "runs").iterdir()
    assert first.name == second.name
    assert (tmp_path / "first" / first.name / "result.json").read_bytes() == (second / "result.json").read_bytes()


def test_another_measure_order_is_another_folder():
    from argparse import Namespace

    from bench.config import default_out
    from bench.results.suite import suite_named

    suite = suite_named("variations")
    names = {default_out(Namespace(seed=0, metrics=m), suite, "bm25", "d")[0].name
             for m in ("MRR@10 R@100", "R@100 MRR@10", "mrr@10 R@100")}
    assert len(names) == 2  # the order is kept in the result, so it is part of the identity
