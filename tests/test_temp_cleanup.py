"""The test run leaves no large temporary folders behind: with the project's pytest settings a
passing test's tmp_path, and a passing session's base folder, are removed; a failing test's
folder is kept for inspection."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TESTS = '''
def test_writes_a_megabyte(tmp_path):
    (tmp_path / "big.bin").write_bytes(b"x" * 1_000_000)

def test_session_folder(tmp_path_factory):
    (tmp_path_factory.mktemp("cache") / "big.bin").write_bytes(b"x" * 1_000_000)
'''


def _run(tmp_path, body):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "test_cases.py").write_text(body)
    root = tmp_path / "temproot"
    root.mkdir()
    env = dict(os.environ, PYTEST_DEBUG_TEMPROOT=str(root))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:hypothesispytest", "-c", str(ROOT / "pyproject.toml"),
                           "--rootdir", str(tmp_path / "cases"), "-o", "addopts=", str(tmp_path / "cases")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    left = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return proc, left


def test_a_passing_session_leaves_nothing(tmp_path):
    proc, left = _run(tmp_path, TESTS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert left < 10_000, f"{left} bytes left in the temporary folder"


def test_a_failing_test_keeps_its_folder(tmp_path):
    body = TESTS.split("def test_session_folder")[0] + "def test_fails(tmp_path):\n    (tmp_path / 'x').write_text('kept')\n    assert False\n"
    proc, left = _run(tmp_path, body)
    assert proc.returncode == 1
    assert 0 < left < 10_000  # the failing test's folder only, not the passing test's megabyte
