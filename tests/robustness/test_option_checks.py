"""Options with impossible values are refused before any work, with the allowed range and the fix,
in one place for the command line and the Python API (bench.core.options, bench.config.check_options);
the API's functions raise BenchErrors on bad arguments; the embedding cache's odd states (a folder
where an entry should be, an entry found without its checksum file) are clear. Each case below was
silent, a wrong number or a traceback before."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError
from tests.conftest import evaluate_extrapunc


def cli(*argv):
    """The exit code of the command (argparse's usage errors exit with 2)."""
    try:
        return main([str(a) for a in argv])
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_empty_generator_lists_are_refused(beir_dir, tmp_path, capsys, value):
    rc = cli("evaluate", "--model", "bm25", "--dataset", beir_dir, "--generators", value, "--no-progress",
             "--out", tmp_path / "run")
    assert rc == 2 and "names nothing; give one or more names separated by commas" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    with pytest.raises(BenchError, match="names nothing"):
        bench.evaluate(model="bm25", dataset=str(beir_dir), generators=[], out=tmp_path / "api", no_progress=True)
    rc = cli("perturb", "--dataset", beir_dir, "--generators", value, "--out", tmp_path / "sets")
    assert rc == 2 and "names nothing" in capsys.readouterr().err


def test_generators_with_a_variations_folder_choose_its_sets(beir_dir, tmp_path, capsys):
    """--variations DIR --generators X evaluates the sets X of DIR (it ignored X); a name DIR has no
    set of is refused, listing the sets there."""
    assert cli("perturb", "--dataset", beir_dir, "--generators", "EXTRAPUNC,MISSPELL", "--out", tmp_path / "sets") == 0
    capsys.readouterr()
    rc = cli("evaluate", "--model", "bm25", "--dataset", beir_dir, "--variations", tmp_path / "sets",
             "--generators", "misspell", "--no-progress", "--out", tmp_path / "run")
    assert rc == 0
    names = [s["name"] for s in json.loads((tmp_path / "run" / "result.json").read_text())["sets"]]
    assert names == ["ORIGINAL", "MISSPELL"]
    rc = cli("evaluate", "--model", "bm25", "--dataset", beir_dir, "--variations", tmp_path / "sets",
             "--generators", "SWAPSYN", "--no-progress", "--out", tmp_path / "run2")
    err = capsys.readouterr().err
    assert rc == 2 and "--generators SWAPSYN: no such set in the --variations folder" in err
    assert "sets there: MISSPELL, EXTRAPUNC" in err and not (tmp_path / "run2").exists()


@pytest.mark.parametrize("seed", [1.7, 2.0, -1, True, "x"])
def test_a_seed_that_is_no_whole_number_of_at_least_0_is_refused(beir_dir, tmp_path, seed):
    with pytest.raises(BenchError, match=r"argument --seed: .*(invalid int value|whole number)"):
        bench.evaluate(model="bm25", dataset=str(beir_dir), generators=["EXTRAPUNC"], seed=seed,
                       out=tmp_path / "run", no_progress=True)
    assert not (tmp_path / "run").exists()


def test_gate_refuses_values_outside_their_range_naming_it(extrapunc_run, capsys):
    for flag, value, says in (("--max-regression", "inf", "give a finite number from 0 to 1"),
                              ("--max-drop-rate", "nan", "give a finite number from 0 to 1"),
                              ("--resamples", "10000000000", "give a whole number from 1 to 1,000,000"),
                              ("--alpha", "1.5", "strictly between 0 and 1")):
        rc = cli("gate", "--baseline", extrapunc_run, "--candidate", extrapunc_run, flag, value)
        assert rc == 2 and says in capsys.readouterr().err, flag
    for kw, says in ((dict(max_regression=float("inf")), "--max-regression inf"),
                     (dict(resamples=10 ** 10), "from 1 to 1,000,000"), (dict(seed=1.5), "whole number")):
        with pytest.raises(BenchError, match=says):
            bench.gate(extrapunc_run, extrapunc_run, **kw)


def test_compare_refuses_a_huge_resample_count(extrapunc_run, capsys):
    rc = cli("compare", extrapunc_run, extrapunc_run, "--resamples", "10000000000")
    assert rc == 2 and "from 1 to 1,000,000" in capsys.readouterr().err
    with pytest.raises(BenchError, match="from 1 to 1,000,000"):
        bench.compare(extrapunc_run, extrapunc_run, resamples=10 ** 10)


def test_perturb_audit_below_one_is_refused(beir_dir, tmp_path, capsys):
    rc = cli("perturb", "--dataset", beir_dir, "--generators", "EXTRAPUNC", "--audit", "-1", "--out", tmp_path / "s")
    assert rc == 2 and "--audit" in capsys.readouterr().err and not (tmp_path / "s").exists()


@pytest.mark.parametrize("call", [
    lambda run: bench.gate(5, run),
    lambda run: bench.gate(run, None),
    lambda run: bench.load_run(None),
    lambda run: bench.load_run(3.5),
    lambda run: bench.compare(run, ["a"]),
    lambda run: bench.compare(run, run, alpha="0.05"),
    lambda run: bench.gate(run, run, correction="bonferroni"),
    lambda run: bench.load_run(run).compare(run, resamples=0),
])
def test_the_api_functions_raise_bench_errors_on_bad_arguments(extrapunc_run, call):
    with pytest.raises(BenchError):
        call(extrapunc_run)


def test_report_when_every_per_query_value_is_equal(tmp_path):
    """Every query finds its relevant document at rank 3 in every set (MRR@10 = 1/3 for all ten): an
    interval of equal values can come back a rounding step on the wrong side of the mean, and the
    plot's error bar (mean - low) was negative: a matplotlib traceback."""
    from tests.conftest import write_beir

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    docs, queries, qrels = {}, {}, []
    for i, w in enumerate(words, 1):
        docs[f"r{i}"] = (f"t{i}", f"{w}zed plain filler words here")
        docs[f"x{i}"] = (f"u{i}", f"{w}zed {w}zed {w}yak {w}yak")
        docs[f"y{i}"] = (f"v{i}", f"{w}zed {w}zed {w}yak {w}yak {w}yak")
        queries[str(i)] = (f"{w}zed {w}yak", "c")
        qrels.append((str(i), f"r{i}", 1))
    folder = write_beir(tmp_path / "flat", docs, queries, qrels)
    assert evaluate_extrapunc(folder, "--out", str(tmp_path / "run")) == 0
    values = {line.split(",")[3] for line in (tmp_path / "run" / "per_query.csv").read_text().splitlines()[1:]}
    assert values == {"0.3333333333333333"}
    out = tmp_path / "report.html"
    assert cli("report", tmp_path / "run", "-o", out) == 0 and out.stat().st_size > 0


def test_a_cache_entry_replaced_by_a_folder_is_a_clear_error(tmp_path, beir_dir):
    from bench.encoding.integrity import entry_ok

    entry = tmp_path / "matrix-x.npy"
    entry.mkdir()
    (entry / "inside.txt").write_text("a user's file")
    with pytest.raises(BenchError, match=r"matrix-x\.npy is a folder, not a file; drbench does not remove folders"):
        entry_ok(entry, 3)
    assert (entry / "inside.txt").exists()


def test_a_cache_folder_entry_in_a_real_run(tmp_path, capsys):
    class Obj:
        def encode(self, texts, batch_size=32):
            return np.ones((len(texts), 4), dtype=np.float32) + np.arange(4)

    from tests.robustness.test_dataset_door import tiny_dict

    home = Path(os.environ["DRBENCH_HOME"])
    bench.evaluate(model=Obj(), name="obj-folder", dataset=tiny_dict(), generators=["EXTRAPUNC"],
                   out=tmp_path / "a", no_progress=True)
    run = json.loads((tmp_path / "a" / "result.json").read_text())
    fp = run["model"]["encoder_object"]["probe_fingerprint"]
    assert fp
    entries = sorted((home / "embeddings").rglob("matrix-*.npy"), key=lambda p: p.stat().st_mtime)
    target = entries[-1]
    target.unlink()
    target.mkdir()
    with pytest.raises(BenchError, match="is a folder, not a file"):
        bench.evaluate(model=Obj(), name="obj-folder", dataset=tiny_dict(), generators=["EXTRAPUNC"],
                       out=tmp_path / "b", no_progress=True)


def test_a_reconstructed_sidecar_is_marked_unverified_and_stays_so(tmp_path, capsys):
    from bench.encoding.integrity import entry_ok, record, sidecar, unverified

    entry = tmp_path / "matrix-y.npy"
    np.save(entry, np.ones((3, 2), dtype=np.float32))
    assert entry_ok(entry, 3) and unverified(entry)
    assert json.loads(sidecar(entry).read_text())["verified"] is False
    assert "marked unverified" in capsys.readouterr().err
    assert entry_ok(entry, 3) and unverified(entry)  # a later read does not bless it
    record(entry)  # what the writer records right after writing an entry
    assert not unverified(entry)
