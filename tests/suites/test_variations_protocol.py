"""--protocol validated|rodr through the variations suite, `bench evaluate`, `bench perturb`, the
Python API, the report and the gate (bm25: no encoder needed)."""
from __future__ import annotations

import json

import pytest

from bench.core.errors import BenchError, IncompatibleRuns
from bench.data.readers import load_beir
from bench.evaluation.measures import parse_measures
from bench.models.spec import resolve_model
from bench.results.schema import ResultFile
from suites.variations import VariationsConfig, run

CHEAP = ["EXTRAPUNC", "NOSTOPWORD", "SWAPWORDS"]
RODR_LINE = "protocol: rodr (the paper's unconstrained operations)"


def _cfg(tmp_path, **kw):
    kw.setdefault("generators", CHEAP)
    return VariationsConfig(seed=0, measures=parse_measures("MRR@10 nDCG@10"), cache_root=tmp_path / "cache",
                            progress=False, **kw)


@pytest.fixture
def two_runs(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    out = {}
    for protocol in ("validated", "rodr"):
        folder = tmp_path / protocol
        run(resolve_model("bm25"), ds, _cfg(tmp_path, protocol=protocol), folder)
        out[protocol] = folder
    return out


def test_result_records_the_protocol_and_validates_strictly(two_runs):
    for protocol, folder in two_runs.items():
        rf = ResultFile.from_path(folder / "result.json", strict=True)
        assert rf.data["protocol"] == protocol
        configs = {s["name"]: s.get("config", {}) for s in rf.data["sets"]}
        assert all((c.get("protocol") == "rodr") == (protocol == "rodr") for n, c in configs.items() if n in CHEAP)


def test_fingerprints_differ_and_the_gate_refuses(two_runs):
    from bench.reporting.gate import run_gate

    a = json.loads((two_runs["validated"] / "result.json").read_text())
    b = json.loads((two_runs["rodr"] / "result.json").read_text())
    fa = {s["name"]: s["fingerprint"] for s in a["sets"]}
    fb = {s["name"]: s["fingerprint"] for s in b["sets"]}
    assert fa["ORIGINAL"] == fb["ORIGINAL"]
    assert all(fa[n] != fb[n] for n in CHEAP)
    with pytest.raises(IncompatibleRuns, match="protocol"):
        run_gate(two_runs["validated"], two_runs["rodr"])
    with pytest.raises(IncompatibleRuns, match="protocol"):
        run_gate(two_runs["rodr"], two_runs["validated"])
    assert run_gate(two_runs["rodr"], two_runs["rodr"]).status == "PASS"


def test_report_names_the_protocol(two_runs):
    from bench.reporting.report import report

    assert RODR_LINE in report(two_runs["rodr"], fmt="md", plots=False)
    import html

    page = report(two_runs["rodr"], fmt="html", plots=False)
    assert RODR_LINE in page or html.escape(RODR_LINE) in page
    assert "protocol: validated" in report(two_runs["validated"], fmt="md", plots=False)


def test_frozen_sets_keep_their_protocol_and_refuse_the_option(two_runs, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    frozen = run(resolve_model("bm25"), ds, _cfg(tmp_path, variations_dir=two_runs["rodr"] / "variations"), None)
    assert frozen["result"]["protocol"] == "rodr"
    with pytest.raises(BenchError, match="--protocol rodr"):
        run(resolve_model("bm25"), ds, _cfg(tmp_path, variations_dir=two_runs["rodr"] / "variations",
                                            protocol="rodr"), None)


def test_cli_evaluate_prints_the_protocol_and_the_proxy_rates(beir_dir, tmp_path, capsys):
    from bench.cli.main import main

    code = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--suite", "variations", "--protocol",
                 "rodr", "--generators", "EXTRAPUNC,NOSTOPWORD", "--out", str(tmp_path / "cli"), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0 and RODR_LINE in text
    assert "validity proxies of the applied pairs" in text and "nonword%" in text
    assert json.loads((tmp_path / "cli" / "result.json").read_text())["protocol"] == "rodr"
    code = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--suite", "variations",
                 "--generators", "EXTRAPUNC", "--out", str(tmp_path / "cli-valid"), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0 and "protocol: validated" in text and "validity proxies" not in text


def test_cli_refuses_an_unknown_protocol(beir_dir, tmp_path):
    from bench.cli.evaluate import namespace

    with pytest.raises(BenchError, match="protocol"):
        namespace(model="bm25", dataset=str(beir_dir), protocol="textflint")


def test_api_evaluate_takes_the_protocol(beir_dir, tmp_path):
    import bench

    result = bench.evaluate(model="bm25", dataset=str(beir_dir), out=tmp_path / "api", protocol="rodr",
                            generators=["SWAPWORDS"], no_progress=True)
    assert result.result["protocol"] == "rodr"


def test_cli_perturb_writes_rodr_sets(beir_dir, tmp_path, capsys):
    from bench.cli.main import main
    from perturb.io.sets import read_tsv

    code = main(["perturb", "--dataset", str(beir_dir), "--protocol", "rodr", "--generators", "NOSTOPWORD",
                 "--out", str(tmp_path / "sets")])
    assert code == 0 and RODR_LINE in capsys.readouterr().out
    assert read_tsv(tmp_path / "sets" / "NOSTOPWORD.tsv").config["protocol"] == "rodr"
