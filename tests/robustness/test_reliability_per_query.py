"""Issue 17: bench gate (and every reader of run folders) does not trust an edited per_query.csv."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli.main import main
from bench.core.errors import DataError
from bench.results.rundir import load_run
from bench.results.writer import PER_QUERY_SUM, per_query_checksum

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from runfactory import write_run  # noqa: E402


def _run(folder: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    a = rng.random(40)
    write_run(folder, {"ORIGINAL": {"MRR@10": a}, "MISSPELL": {"MRR@10": a * 0.9}})
    # as bench.results.writer.write_run leaves it
    (folder / PER_QUERY_SUM).write_text(per_query_checksum((folder / "per_query.csv").read_bytes()))
    return folder


def test_writer_records_the_per_query_checksum(beir_dir, tmp_path):
    import hashlib

    out = tmp_path / "run"
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--no-progress", "--out", str(out)]) == 0
    digest = hashlib.sha256((out / "per_query.csv").read_bytes()).hexdigest()
    assert (out / PER_QUERY_SUM).read_text() == f"{digest}  per_query.csv\n"
    assert load_run(out).notes == []


def test_edited_per_query_csv_is_refused_by_the_gate(tmp_path, capsys):
    base, cand = _run(tmp_path / "base"), _run(tmp_path / "cand")
    csv = cand / "per_query.csv"
    lines = csv.read_text().splitlines(keepends=True)
    lines[1] = lines[1].rsplit(",", 1)[0] + ",1.0\n"  # a better score, by hand
    csv.write_text("".join(lines))
    rc = main(["gate", "--baseline", str(base), "--candidate", str(cand)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "per_query.csv does not match its checksum" in err and str(csv) in err


def test_run_without_checksum_is_accepted_with_a_note(tmp_path):
    run = _run(tmp_path / "old")
    (run / PER_QUERY_SUM).unlink()
    loaded = load_run(run)
    assert loaded.per_query is not None
    assert any("not verified" in n for n in loaded.notes)
    with pytest.raises(DataError):
        (run / PER_QUERY_SUM).write_text("0" * 64 + "  per_query.csv\n")
        load_run(run)
