"""The Python API (bench.evaluate / bench.load_run): the same runs as `bench evaluate`, options
checked as the command checks them, a cheap `import bench`, and the README example runs as written."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError

ROOT = Path(__file__).resolve().parents[2]
FEWSHOT_RUN = ROOT / "results" / "runs" / "minilm-l6__chatterbot__fewshot__s0"


def test_import_bench_is_cheap():
    code = ("import bench, sys; heavy = [m for m in ('torch', 'pandas', 'numpy', 'faiss', 'spacy') if m in sys.modules];"
            " assert not heavy, heavy")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert callable(bench.evaluate) and callable(bench.load_run) and bench.__version__
    assert "evaluate" in dir(bench)
    with pytest.raises(AttributeError):
        bench.no_such_thing


def test_evaluate_writes_the_same_run_as_the_cli(beir_dir, tmp_path, capsys):
    r = bench.evaluate(model="bm25", dataset=str(beir_dir), generators=["EXTRAPUNC", "MISSPELL"],
                       out=tmp_path / "api", top_k=6, no_progress=True)
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC,MISSPELL",
                 "--out", str(tmp_path / "cli"), "--top-k", "6", "--no-progress"]) == 0
    assert (tmp_path / "api" / "result.json").read_bytes() == (tmp_path / "cli" / "result.json").read_bytes()
    assert (tmp_path / "api" / "per_query.csv").read_bytes() == (tmp_path / "cli" / "per_query.csv").read_bytes()
    assert r.folder == tmp_path / "api" and r.suite == "variations"
    s = r.summary
    assert list(s.index) == ["ORIGINAL", "EXTRAPUNC", "MISSPELL", "VARIATIONS (AVG.)", "VARIATIONS (AVG.) applied-only"]
    measures = r.result["measures"]
    assert list(s.columns) == (measures + [f"drop {m}" for m in measures]
                               + ["n_applied", "n_evaluated", "applicability", "low_applicability", "status"]
                               + [c for m in measures for c in (f"drop {m} low", f"drop {m} high")])
    for name in ("EXTRAPUNC", "MISSPELL"):
        e = next(x for x in r.result["sets"] if x["name"] == name)
        assert s.loc[name, "applicability"] == e["applicability"] == e["n_applied"] / e["n_evaluated"]
        assert s.loc[name, "low_applicability"] == (e["applicability"] < 0.3)
    ao = r.result["summary"]["VARIATIONS (AVG.)"]["applied_only"]
    m0 = measures[0]
    assert s.loc["VARIATIONS (AVG.) applied-only", f"drop {m0}"] == ao["drop_rate"][m0]
    assert [s.loc["VARIATIONS (AVG.) applied-only", f"drop {m0} {k}"] for k in ("low", "high")] == ao["drop_rate_ci"][m0]
    assert s.attrs["applied_only"]["B"] == 1000
    assert s.loc["MISSPELL", measures[0]] == pytest.approx(r.per_query.query("set == 'MISSPELL'")[measures[0]].mean())
    assert set(r.per_query["set"]) == set(s.index[:3])
    assert "generating" not in capsys.readouterr().err  # no_progress silences the status lines too

    loaded = bench.load_run(tmp_path / "cli" / "result.json")
    assert loaded.result == r.result
    table = r.compare(loaded, metric="MRR@10")
    assert {"model", "set", "mean", "marker", "p_vs_original"} <= set(table.columns)
    assert len(table) == 2 * 3
    path = r.report(tmp_path / "r.md", fmt="md")
    assert path.read_text().startswith("#") and "EXTRAPUNC" in path.read_text()


def test_default_folder_is_the_clis(beir_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = bench.evaluate(model="bm25", dataset=str(beir_dir), generators="EXTRAPUNC", no_progress=True)
    # --generators changes the result: the CLI's default name gets the options' hash
    from bench.cli.evaluate import namespace
    from bench.config import default_out
    from bench.results.suite import suite_named

    want, changed = default_out(namespace(generators="EXTRAPUNC"), suite_named("variations"), "bm25", beir_dir.name)
    assert changed == ["--generators=EXTRAPUNC"] and want.name.startswith(f"bm25__{beir_dir.name}__variations__s0__h")
    assert r.folder == want


@pytest.mark.parametrize("options, message", [
    ({"ks": "5"}, "--ks (applies to --suite fewshot)"),
    ({"topk": 3}, "did you mean 'top_k'"),
    ({"top_k": "many"}, "invalid int value"),
    ({"test": "z-test"}, "invalid choice"),
    ({"no_progress": "yes"}, "is a flag"),
    ({"suite": "no-such-suite"}, "no-such-suite"),
])
def test_options_are_checked_as_the_command_checks_them(options, message):
    with pytest.raises(Exception) as info:
        bench.evaluate(model="bm25", **options)
    assert message in str(info.value)


def test_fewshot_summary_is_the_headline_table():
    r = bench.load_run(FEWSHOT_RUN)
    s = r.summary
    assert list(s.index) == ["all", "base", "novel"]
    head = r.result["summary"]["headline"]
    assert s.loc["novel", "zero-shot R@10"] == head["zero_shot"]["novel"]
    assert s.loc["all", "winning ratio"] == head["winning_ratio"]["all"]


def test_readme_python_example_runs_as_written(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md has no ```python block"
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "MISSPELL" in out and "drop MRR@10" in out
    assert (tmp_path / "runs" / "bm25__chatterbot__variations__s0__h72241a22" / "result.json").is_file()  # --generators set
