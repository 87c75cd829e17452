"""Issue 25, cases 2 and 5: result.json is bound to its per_query.csv, and every consumer shows only
figures that per_query.csv backs."""
from __future__ import annotations

import json
import shutil

import pytest

from bench.cli.main import main
from bench.results.rundir import load_run
from bench.results.writer import PER_QUERY_SUM


def _evaluate(beir_dir, out, generators="EXTRAPUNC,SWAPWORDS"):
    assert main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", generators,
                 "--no-progress", "--out", str(out)]) == 0
    return out


@pytest.fixture
def run(beir_dir, tmp_path):
    return _evaluate(beir_dir, tmp_path / "run")


def _edit_result(folder, fn):
    path = folder / "result.json"
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data, indent=2))


def test_result_json_records_the_per_query_checksum(run):
    import hashlib

    data = json.loads((run / "result.json").read_text())
    assert data["per_query_sha256"] == hashlib.sha256((run / "per_query.csv").read_bytes()).hexdigest()
    keys = list(data)
    assert keys.index("per_query_sha256") == keys.index("per_query_file") + 1
    assert load_run(run, per_query=None).notes == []


@pytest.mark.parametrize("command", ["leaderboard", "report", "compare"])
def test_a_hand_edited_mean_is_not_published(run, tmp_path, capsys, command):
    _edit_result(run, lambda d: d["sets"][0]["metrics"].__setitem__("MRR@10", 0.99))
    args = {"leaderboard": ["leaderboard", str(run)], "report": ["report", str(run), "--format", "md", "--no-plots",
                                                                 "-o", str(tmp_path / "r.md")],
            "compare": ["compare", str(run), str(run)]}[command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "sets / ORIGINAL / metrics / MRR@10 is 0.99, but per_query.csv gives" in err


def test_an_edited_average_is_not_published(run, capsys):
    _edit_result(run, lambda d: d["summary"]["VARIATIONS (AVG.)"]["metrics"].__setitem__("MRR@10", 0.5))
    assert main(["leaderboard", str(run)]) == 2
    assert "summary / VARIATIONS (AVG.) / metrics / MRR@10 is 0.5" in capsys.readouterr().err


def test_a_per_query_table_copied_from_another_run_is_refused_by_the_gate(beir_dir, run, tmp_path, capsys):
    other = _evaluate(beir_dir, tmp_path / "other", "EXTRAPUNC,MISSPELL")
    base = tmp_path / "base"
    shutil.copytree(run, base)
    for name in ("per_query.csv", PER_QUERY_SUM):  # the other run's table and its (matching) checksum file
        shutil.copy(other / name, run / name)
    assert (run / "per_query.csv").read_bytes() != (base / "per_query.csv").read_bytes()
    assert main(["gate", "--baseline", str(base), "--candidate", str(run)]) == 2
    assert "per_query.csv is not the table of this result.json" in capsys.readouterr().err


def test_an_edited_table_with_its_checksum_file_deleted_is_an_error(run, tmp_path, capsys):
    base = tmp_path / "base"
    shutil.copytree(run, base)
    csv = run / "per_query.csv"
    lines = csv.read_text().splitlines(keepends=True)
    lines[1] = lines[1].rsplit(",", 1)[0] + ",1.0\n"
    csv.write_text("".join(lines))
    (run / PER_QUERY_SUM).unlink()
    assert main(["gate", "--baseline", str(base), "--candidate", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{PER_QUERY_SUM} is missing" in err
    assert "not verified" not in err


def test_a_run_of_this_version_without_its_table_is_refused(run, capsys):
    (run / "per_query.csv").unlink()
    assert main(["leaderboard", str(run)]) == 2
    assert "per_query.csv not found, although result.json records its checksum" in capsys.readouterr().err
