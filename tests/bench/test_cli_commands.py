import subprocess
import sys

from bench.cli.main import main
from tests.conftest import SHARED


def test_help_is_fast_and_lists_commands():
    out = subprocess.run([sys.executable, "-m", "bench.cli.main", "--help"], capture_output=True, text=True, check=True).stdout
    for cmd in ("evaluate", "perturb", "doctor", "report", "gate", "leaderboard"):
        assert cmd in out


def test_models_listing(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "minilm-l6" in out and "chatterbot" in out and "SWAPSYN-WNET" in out


def test_perturb_writes_sets_and_applicability(beir_dir, tmp_path, capsys):
    rc = main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC,swapwords", "--out", str(tmp_path / "v")])
    assert rc == 0
    table = (tmp_path / "v" / "applicability.csv").read_text().splitlines()
    assert table[0] == "set,label,queries,applied,percent,content_share,top_words"
    assert table[1] == "EXTRAPUNC,EXTRAPUNC,5,5,100.0,0.0,"  # punctuation touches no word
    assert (tmp_path / "v" / "SWAPWORDS.tsv").exists()
    # the frozen sets evaluate like generated ones
    rc = main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--variations", str(tmp_path / "v"),
               "--out", str(tmp_path / "run"), "--no-progress"])
    assert rc == 0
    assert "SWAPWORDS" in capsys.readouterr().out


def test_perturb_imports_penha(tmp_path, capsys):
    csv_path = SHARED / "data" / "penha-variations" / "variations_trec2019_labeled.csv"
    if not csv_path.exists():
        import pytest

        pytest.skip("shared Penha files not present")
    assert main(["perturb", "--import-penha", str(csv_path), "--out", str(tmp_path / "p")]) == 0
    names = sorted(p.stem for p in (tmp_path / "p").glob("*.tsv") )
    assert any("WordSwapNeighboringCharacterSwap" in n for n in names)


def test_evaluate_unknown_generator_suggests(capsys):
    assert main(["evaluate", "--model", "bm25", "--generators", "MISPELL"]) == 2
    assert "Did you mean 'MISSPELL'" in capsys.readouterr().err
