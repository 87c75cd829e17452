"""`bench doctor` lists every generator's resources and the install line of anything missing."""
from __future__ import annotations

import argparse

from perturb import PAPER_ORDER
from perturb.base import Resource


def test_doctor_rows_cover_every_generator():
    from perturb.checks.doctor import doctor_rows

    rows = doctor_rows()
    names = {g.split("[")[0] for g, _ in rows}
    assert set(PAPER_ORDER) <= names
    for _, res in rows:
        assert isinstance(res, Resource)
        assert res.found or res.install


def test_format_doctor_shows_install_lines_for_missing():
    from perturb.checks.doctor import format_doctor

    text = format_doctor([("MISSPELL", Resource("nlpaug tables", False, install="pip install nlpaug==1.1.11")),
                          ("SWAPWORDS", Resource("(no external resource)", True, where="built in"))])
    assert "MISSING" in text and "install: pip install nlpaug==1.1.11" in text and "1 resource(s) missing" in text


def test_doctor_command_exit_codes(monkeypatch, capsys):
    import perturb.checks.doctor as doc
    from bench.cli import doctor as cmd

    parser = argparse.ArgumentParser()
    cmd.add_arguments(parser)
    monkeypatch.setattr(doc, "doctor_rows", lambda: [("X", Resource("r", True, where="here"))])
    assert cmd.run(parser.parse_args([])) == 0
    monkeypatch.setattr(doc, "doctor_rows", lambda: [("X", Resource("r", False, install="apt-get install r"))])
    assert cmd.run(parser.parse_args([])) == 1
    assert "apt-get install r" in capsys.readouterr().out
    assert cmd.run(parser.parse_args(["--json"])) == 1
    assert '"install": "apt-get install r"' in capsys.readouterr().out


def test_missing_nlpaug_is_reported(monkeypatch, tmp_path):
    from perturb.generators.misspell import Misspell

    monkeypatch.setenv("DRBENCH_NLPAUG_RES", str(tmp_path / "nowhere"))
    res = [r for r in Misspell().resources() if r.name.startswith("nlpaug")]
    assert len(res) == 3 and all(not r.found and r.install == "pip install nlpaug==1.1.11" for r in res)
