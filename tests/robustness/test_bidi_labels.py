"""Bidirectional embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069) change
the order in which the text around them is shown, so a label holding one reads as another: they are
refused in the labels a user gives (``--name`` of ``bench evaluate`` / ``bench.evaluate(name=...)``,
``--name`` of ``bench perturb --import-rodr``), before any work, with a message naming the option."""
from __future__ import annotations

import pytest

import bench
from bench.cli.main import main
from bench.core.errors import BenchError
from tests.conftest import evaluate_extrapunc

CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


@pytest.mark.parametrize("control", CONTROLS)
def test_evaluate_refuses_a_bidi_control_in_the_name(beir_dir, tmp_path, capsys, control):
    out = tmp_path / "run"
    assert evaluate_extrapunc(beir_dir, "--out", str(out), "--name", f"good{control}lim.exe") == 2
    err = capsys.readouterr().err
    assert "--name" in err and f"U+{ord(control):04X}" in err and "bidirectional control" in err
    assert not out.exists()


def test_the_api_refuses_it_too(beir_dir, tmp_path):
    with pytest.raises(BenchError, match=r"--name .*U\+202E"):
        bench.evaluate(model="bm25", dataset=str(beir_dir), name="abc\u202edef", generators=["EXTRAPUNC"],
                       out=tmp_path / "run", no_progress=True)
    assert not (tmp_path / "run").exists()


def test_perturb_import_refuses_it_in_the_set_name(beir_dir, tmp_path, capsys):
    tsv = tmp_path / "sets.tsv"
    tsv.write_text("1\twhat is the lift of a wing\n")
    assert main(["perturb", "--dataset", str(beir_dir), "--import-rodr", str(tsv), "--name", "MIS\u2067SPELL",
                 "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "--name" in err and "U+2067" in err
    assert not (tmp_path / "out").exists()


def test_a_plain_name_is_still_accepted(beir_dir, tmp_path):
    assert evaluate_extrapunc(beir_dir, "--out", str(tmp_path / "run"), "--name", "org/model-v2 (ÄÖÜ, עברית)") == 0
