"""The one console-table helper (bench.reporting.tables.grid): plain padding, first column left,
the rest right, a rule under the header; never wrapped at a console width, brackets kept as text
(the reasons it is kept over rich / tabulate, docs/architecture.md)."""
from bench.reporting.tables import grid


def test_grid_pads_aligns_and_keeps_every_cell_on_one_line():
    lines = grid(["set", "drop MRR@10"], [["BACKTRANS[spa,apertium]", "35.6% [28.9%, 41.8%] \u25bc worse"],
                                          ["EXTRAPUNC", "0.0%"]])
    # widths 23 and 28: "set" + 20 + 2 + 17 spaces, the rule as long as a row
    assert lines == ["set" + " " * 39 + "drop MRR@10", "-" * 53,
                     "BACKTRANS[spa,apertium]  35.6% [28.9%, 41.8%] \u25bc worse",
                     "EXTRAPUNC" + " " * 40 + "0.0%"]
    wide = grid(["set"] + [f"drop M{i}@10" for i in range(8)], [["A"] + ["35.6% [28.9%, 41.8%]"] * 8])
    assert len(wide) == 3 and len(wide[2]) > 80  # a wide table stays one line per row (CI logs are 80 columns)


def test_perturb_prints_its_applicability_through_the_grid(beir_dir, tmp_path, capsys):
    from bench.cli.main import main

    assert main(["perturb", "--dataset", str(beir_dir), "--generators", "EXTRAPUNC", "--out", str(tmp_path / "v")]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, l in enumerate(out) if l.startswith("set "))
    assert out[head].split() == ["set", "queries", "applied", "percent", "on", "content", "words", "most", "changed",
                                 "words"] and set(out[head + 1]) == {"-"}
    assert out[head + 2].split() == ["EXTRAPUNC", "5", "5", "100.0%", "0.0%"]  # punctuation touches no word
    assert len({len(out[head]), len(out[head + 2])}) == 1
