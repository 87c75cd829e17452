"""The README's two commands: command 2 is exactly what .ci/run runs, both install the apt packages
from the one list (apt-packages.txt), and that list holds every package the generators' install
hints name (what `bench doctor` tells a user to install)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 2, "README.md must open with its two ```bash commands"
    return [b.strip() for b in blocks[:2]]


def test_command_2_is_what_ci_runs():
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd ", "export "))]
    assert ci == [_commands()[1]], "README command 2 and .ci/run differ"
    assert _commands()[1].endswith('pip install -e ".[test]" && python -m pytest')


def test_command_1_installs_and_runs_the_variations_suite():
    one, two = _commands()
    assert one.endswith("pip install . && bench evaluate --model minilm-l6 --suite variations")
    for cmd in (one, two):
        assert cmd.startswith("apt-get update && xargs -a apt-packages.txt apt-get install -y --no-install-recommends && "
                              "pip install torch==2.13.0 && ")


def test_the_apt_list_is_plain_and_holds_every_package_the_install_hints_name():
    from perturb.resources import freedict, translators

    lines = (ROOT / "apt-packages.txt").read_text(encoding="utf-8").splitlines()
    assert lines and all(re.fullmatch(r"[a-z0-9][a-z0-9.+-]+", x) for x in lines), "one package name per line, nothing else"
    hinted = set(translators.APERTIUM_INSTALL.split()) | set(freedict.INSTALL.split())
    hinted -= {"apt-get", "install", "-y"}
    assert hinted <= set(lines), sorted(hinted - set(lines))
