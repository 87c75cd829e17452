"""benchmarks/durations.py: a stage's idle and shared measurements are told apart by the load before
it, both are kept in the table with their load and CPU-seconds, and the installed size is measured
from the distributions drbench pulls in."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks/ is a package there

from benchmarks import durations as D  # noqa: E402


def _row(load_before, cpu, **kw):
    return {"stage": "tests", "what": "the test run", "command": "python -m pytest", "exit_code": 0, "wall_s": 277.2,
            "cpu_s": cpu, "load_1min_before": load_before, "load_1min_after": load_before, "cpus": 2, "drivers": {},
            **kw}


def test_idle_and_shared_rows_are_both_shown_with_their_load():
    idle, shared = _row(1.5, 316.5), _row(0, 729.0, load_range="7-14", wall_s=None, source="outside the script")
    assert D.machine(idle) == "idle" and D.machine(shared) == "shared" and D.machine(_row(2.0, 1.0)) == "shared"
    lines = D.table([idle, shared])
    assert "| idle: 1.5 -> 1.5 (2 CPUs) | 4 min 37 s | 316 |" in lines[2]
    assert "| shared: 7-14 (2 CPUs) | not recorded | 729 | outside the script |" in lines[3]


def test_installed_size_counts_the_dependencies():
    size = D.installed_size()
    assert size["distributions"] > 20 and size["mib"] > 100
    assert any(x.startswith("torch ") for x in size["largest"])


def test_the_synonym_stage_reads_its_figures_from_the_speed_script_line():
    log = ("cold\n6980 queries: wall 104.1 s, CPU 173.7 s, texts through MiniLM 53480, changed {'SWAPSYN-GLOVE': 347, "
           "'SWAPSYN-WNET': 452}, max RSS 2202 MiB, load (0.7, 1.2, 1.5)\n")
    got = D._drivers("synonyms", Path("/nonexistent"), log)
    assert got == {"queries": 6980, "texts through MiniLM": 53480, "changed GLOVE/WNET": "347/452", "max RSS MiB": 2202}
    assert D._drivers("synonyms", Path("/nonexistent"), "Traceback ...") == {}
    what, argv = D.STAGES["synonyms"]
    assert argv[:2] == ["python", "benchmarks/lexsub/speed.py"] and (Path(D.ROOT) / argv[1]).is_file()
