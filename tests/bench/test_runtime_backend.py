"""--device / --dtype / --backend end to end: the reference runtime writes the files of before,
another runtime is recorded, keyed and hashed into its own run folder; the ONNX backends."""
import json

import numpy as np
import pytest

from bench.cli.main import main
from bench.encoding import runtime
from bench.encoding.encoder import Encoder
from bench.models.spec import resolve_model

TEXTS = ["boundary layer transition on a flat plate", "heat", "shock wave interaction " * 10, "x"] * 9


def _evaluate(model, data, out, *extra):
    rc = main(["evaluate", "--model", str(model), "--dataset", str(data), "--generators", "extrapunc",
               "--out", str(out), "--no-progress", *extra])
    assert rc == 0


def test_explicit_cpu_float32_torch_writes_the_default_files(tiny_bert, beir_dir, tmp_path, capsys):
    _evaluate(tiny_bert, beir_dir, tmp_path / "default")
    _evaluate(tiny_bert, beir_dir, tmp_path / "explicit", "--device", "cpu", "--dtype", "float32", "--backend", "torch")
    a, b = tmp_path / "default", tmp_path / "explicit"
    assert (a / "per_query.csv").read_bytes() == (b / "per_query.csv").read_bytes()
    ra, rb = json.loads((a / "result.json").read_text()), json.loads((b / "result.json").read_text())
    assert ra == rb and "runtime" not in ra["model"]
    assert "device" not in ra["model"]["spec"] and ra["model"]["spec"]["dtype"] == "float32"


def test_bfloat16_is_its_own_run(tiny_bert, beir_dir, tmp_path, capsys):
    _evaluate(tiny_bert, beir_dir, tmp_path / "f32")
    _evaluate(tiny_bert, beir_dir, tmp_path / "bf16", "--device", "cpu", "--dtype", "bfloat16")
    f32 = json.loads((tmp_path / "f32" / "result.json").read_text())
    res = json.loads((tmp_path / "bf16" / "result.json").read_text())
    assert res["model"]["spec"]["dtype"] == "bfloat16" and "runtime" not in res["model"]  # cpu + torch
    assert res["model"]["fingerprint"] != f32["model"]["fingerprint"]  # the dtype is in the encoder keys


def test_train_and_adapt_take_the_runtime_options():
    import contextlib
    import io

    from bench.cli.main import build_parser

    for cmd in ("train", "adapt"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
            build_parser(cmd).parse_args([cmd, "--help"])
        assert "--device" in buf.getvalue() and "--dtype" in buf.getvalue(), cmd


@pytest.mark.parametrize("backend,tol", [("onnx", 1e-5), ("onnx-int8", 5e-2)])
def test_onnx_backends_are_close_keyed_and_recorded(tiny_bert, backend, tol):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    spec = resolve_model(str(tiny_bert))
    ref_enc = Encoder(spec, "passage", progress=False)
    ref = ref_enc.encode(TEXTS)
    ospec = runtime.apply(spec, "auto", None, backend)
    enc = Encoder(ospec, "passage", progress=False)
    got = enc.encode(TEXTS)
    assert enc.key != ref_enc.key
    assert np.abs(got - ref).max() < tol
    rec = runtime.record(ospec)
    assert rec["backend"] == backend and "onnxruntime" in rec["backend_version"]
    from bench.encoding.onnx_backend import export_folder

    files = sorted(p.name for p in export_folder(enc.weights_fp).iterdir())
    assert "model.onnx" in files and "export.json" in files
    stamp = (export_folder(enc.weights_fp) / "model.onnx").stat().st_mtime_ns
    again = Encoder(ospec, "passage", progress=False).encode(TEXTS)  # the export is reused, not redone
    assert again.tobytes() == got.tobytes()
    assert (export_folder(enc.weights_fp) / "model.onnx").stat().st_mtime_ns == stamp


def test_onnx_run_is_recorded_in_the_result(tiny_bert, beir_dir, tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    _evaluate(tiny_bert, beir_dir, tmp_path / "onnx", "--backend", "onnx")
    res = json.loads((tmp_path / "onnx" / "result.json").read_text())
    assert res["model"]["runtime"]["backend"] == "onnx" and res["model"]["runtime"]["device"] == "cpu"
    assert "comparability" in res["model"]["runtime"]
    assert "backend onnx" in capsys.readouterr().err
