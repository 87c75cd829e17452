"""The Ray executor: same result files as the local executor, a killed worker is retried, clear
errors. One local Ray instance (2 CPUs) serves the whole session."""
import json
import sys

import pytest

from bench.core.errors import BenchError, ResourceError
from bench.encoding.executor import EXECUTORS, LocalExecutor, RayExecutor, check_address, make_executor
from bench.encoding.shards import KILL_SHARD_ENV

FILES = ("result.json", "per_query.csv", "variations/EXTRAPUNC.tsv")


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    if started:
        ray.shutdown()


def test_map_keeps_input_order(ray_session):
    ex = RayExecutor()
    assert ex.map(lambda x: (x * x, x), list(range(7))[::-1]) == [(x * x, x) for x in range(7)][::-1]
    assert ex.map(len, []) == []
    ex.shutdown()  # connected to the session's instance, not started by it: leaves it running
    assert ray_session.is_initialized()


def test_map_units_run_with_the_drivers_torch_threads(ray_session):
    import torch

    def _threads(_):  # defined here: pickled by value (workers cannot import this test module)
        import torch

        return torch.get_num_threads()

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert RayExecutor().map(_threads, [0, 1]) == [2, 2]  # Ray alone would give each task 1 thread
        torch.set_num_threads(1)
        assert RayExecutor().map(_threads, [0]) == [1]
    finally:
        torch.set_num_threads(before)


def _cfg(cache, **kw):
    from bench.evaluation.measures import parse_measures
    from suites.variations import VariationsConfig

    return VariationsConfig(seed=0, measures=parse_measures("MRR@10 nDCG@10 R@100"), generators=["EXTRAPUNC"],
                            cache_root=cache, progress=False, shard_size=2, **kw)


def test_ray_gives_the_local_result_files_even_when_a_worker_dies(ray_session, tiny_bert, beir_dir, tmp_path,
                                                                   monkeypatch):
    from bench.data.readers import load_beir
    from bench.models.spec import spec_from_folder
    from suites.variations import run

    ds, spec = load_beir(beir_dir), spec_from_folder(tiny_bert)
    local = run(spec, ds, _cfg(tmp_path / "cache-local"), tmp_path / "local", executor=LocalExecutor())
    marker = tmp_path / "killed"
    monkeypatch.setenv(KILL_SHARD_ENV, f"1:{marker}")  # the first attempt at shard 1 exits mid-shard
    # one worker: on the 2 shared CPUs of CI two actors mostly compete for the model load (the slow
    # Cranfield test and benchmarks/scale_synthetic.py use two)
    ray = run(spec, ds, _cfg(tmp_path / "cache-ray"), tmp_path / "ray", executor=RayExecutor(workers=1))
    assert marker.exists(), "the fault was not injected: the test would prove nothing"
    for name in FILES:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    shards = ray["timings"]["encoding"]["corpus_shards"]
    assert shards["shards"] == 3 and shards["shards_encoded"] == 3
    assert all(entry["worker"].startswith("ray:") for entry in shards["shard_log"])
    assert ray["timings"]["executor"] == "ray" and local["timings"]["executor"] == "local"
    # the shard files are the same bytes whichever executor wrote them
    key = next(p.name for p in (tmp_path / "cache-local").iterdir() if (tmp_path / "cache-ray" / p.name).is_dir()
               and list((tmp_path / "cache-local" / p.name).glob("matrix-*.npy")))
    for f in (tmp_path / "cache-local" / key).glob("matrix-*.npy"):
        assert f.read_bytes() == (tmp_path / "cache-ray" / key / f.name).read_bytes()
    # a rerun on the Ray cache encodes nothing (no worker even starts)
    again = run(spec, ds, _cfg(tmp_path / "cache-ray"), None, executor=RayExecutor())
    assert again["timings"]["encoding"]["passages_encoded"] == 0
    from bench.results.writer import with_per_query_sha256  # result.json also names its table's digest

    assert with_per_query_sha256(again["result"], again["per_query"]) == json.loads(
        (tmp_path / "local" / "result.json").read_text())


def test_bad_address_missing_ray_and_cli_errors(monkeypatch, capsys, beir_dir):
    for good in (None, "auto", "10.0.0.5:6379", "head-node:6379", "ray://10.0.0.5:10001"):
        assert check_address(good) == good
    for bad in ("localhost", "10.0.0.5:0", "http://x:1", "a:b", "host:99999"):
        with pytest.raises(BenchError, match="--address .* is not a Ray cluster address. Fix: use --address auto"):
            check_address(bad)
    with pytest.raises(BenchError, match="use it with --executor ray"):
        make_executor("local", "auto")
    import socket

    from bench.encoding.executor import _check_reachable

    with socket.socket() as s:  # a port nothing listens on: fail at once, not after Ray's minutes of retries
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ResourceError, match=f"--address 127.0.0.1:{port}: nothing answers"):
        _check_reachable(f"127.0.0.1:{port}", timeout=2)
    assert isinstance(make_executor("ray"), RayExecutor) and "ray" in EXECUTORS
    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    with pytest.raises(ResourceError, match=r'pip install "drbench\[ray\]"'):
        RayExecutor().map(len, ["x"])
    from bench.cli.main import main

    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--executor", "ray", "--address", "nowhere"])
    assert rc == 2 and "--address 'nowhere' is not a Ray cluster address" in capsys.readouterr().err
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--executor", "ray", "--no-progress",
               "--generators", "extrapunc"])
    assert rc == 2 and 'Install: pip install "drbench[ray]"' in capsys.readouterr().err


@pytest.mark.slow
def test_cranfield_ray_and_local_give_identical_result_files(ray_session, tmp_path, capsys):
    """minilm-l6 on Cranfield, three shards of 500 documents, every variation set."""
    from tests.conftest import CRANFIELD

    from bench.cli.main import main

    if not CRANFIELD.is_dir():
        pytest.skip(f"Cranfield not found at {CRANFIELD}")
    common = ["evaluate", "--model", "minilm-l6", "--dataset", str(CRANFIELD), "--shard-size", "500",
              "--no-progress", "--trec-runs"]
    assert main(common + ["--out", str(tmp_path / "local")]) == 0
    assert main(common + ["--out", str(tmp_path / "ray"), "--executor", "ray"]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "local" / "result.json").read_text())
    assert res["retrieval"]["corpus_shards"] == {"shard_size": 500, "n_shards": 3}
    for f in sorted((tmp_path / "local").rglob("*")):
        other = tmp_path / "ray" / f.relative_to(tmp_path / "local")
        if f.name == ".drbench-written.json":  # the record holds timings.json's digest too: the rest must agree
            mine, theirs = json.loads(f.read_text()), json.loads(other.read_text())
            del mine["files"]["timings.json"], theirs["files"]["timings.json"]
            assert mine == theirs and len(mine["files"]) > 10
        elif f.is_file() and f.name != "timings.json":
            assert other.read_bytes() == f.read_bytes(), f.name


@pytest.mark.slow
def test_fewshot_units_on_ray_give_the_local_result(ray_session, tiny_bert, tmp_path):
    """Training units as Ray tasks: identical result (losses included) and per-query files."""
    import importlib.util
    from pathlib import Path

    from bench.data.readers import load_beir
    from bench.models.spec import spec_from_folder
    from suites.fewshot import run

    path = Path(__file__).resolve().parents[1] / "suites" / "test_fewshot_suite.py"
    mod_spec = importlib.util.spec_from_file_location("_fewshot_helpers", path)
    helpers = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(helpers)
    ds = load_beir(helpers.write_labelled_beir(tmp_path / "labelled"))
    spec = spec_from_folder(tiny_bert)
    local = run(spec, ds, helpers.small_cfg(tmp_path / "a", ks=[2], n_trials=2), None, executor=LocalExecutor())
    ray = run(spec, ds, helpers.small_cfg(tmp_path / "b", ks=[2], n_trials=2), None, executor=RayExecutor())
    assert json.dumps(ray["result"], sort_keys=True) == json.dumps(local["result"], sort_keys=True)
    assert ray["per_query"] == local["per_query"]
