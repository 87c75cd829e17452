"""Names that reach Markdown outputs (model, dataset and set labels in `bench report --format md`,
`bench compare`, `bench leaderboard`, `bench gate`) are shown as text: ``<``, ``>`` and ``&`` become
HTML entities (bench.reporting.report.markup.md_cell, the one Markdown escape), so a name such as
``<img src=x onerror=...>`` is not HTML where Markdown renders HTML (GitHub)."""
from __future__ import annotations

import re

import pytest

from bench.cli.main import main
from bench.core.sheet import md_cell
from runfactory import synthetic_values, write_run

EVIL = "<img src=x onerror=alert(1)>"
LABEL = "<script>alert(2)</script>"
TAG = re.compile(r"<(img|script|b)\b", re.I)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("md-names")
    v = synthetic_values(0, n=40)
    a = write_run(d / "a", v, model=EVIL, dataset="toy<b>data</b>", labels={"MISSPELL": LABEL})
    b = write_run(d / "b", v, model="model-b", dataset="toy<b>data</b>")
    return [str(a), str(b)]


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard", "gate"])
def test_names_in_markdown_outputs_are_text_not_html(runs, capsys, command):
    argv = {"report": ["report", runs[0], "--format", "md", "--no-plots", "-o", "-"],
            "compare": ["compare", *runs, "--resamples", "200"],
            "leaderboard": ["leaderboard", *runs],
            "gate": ["gate", "--baseline", runs[1], "--candidate", runs[0], "--resamples", "200"]}[command]
    assert main(argv) in (0, 1)
    out = capsys.readouterr().out
    assert not TAG.search(out), [line for line in out.splitlines() if TAG.search(line)][:3]
    if command != "gate":
        assert "&lt;img src=x onerror=alert(1)>" in out or "&lt;script>" in out


def test_the_markdown_escape():
    assert md_cell("a|b\\c\nd") == "a\\|b\\\\c d"
    assert md_cell("<b> & </b>") == "&lt;b> & &lt;/b>"
    assert md_cell("<!-- x --> &lt; &#60;") == "&lt;!-- x --> &amp;lt; &amp;#60;"
    assert md_cell("p <= 0.05, a<3, AT & T") == "p <= 0.05, a<3, AT & T"  # no tag or entity can start here
