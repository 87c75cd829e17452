"""Issue 25, cases 6 and 13: the audit sample opened in a spreadsheet, and label files a spreadsheet saved."""
from __future__ import annotations

import pytest

from bench.core.errors import DataError
from bench.core.sheet import sheet_text, unsheet_text
from perturb.checks.audit import format_sample, read_labels
from perturb.checks.labels import SAMPLE_COLUMNS, read_label_file


def _row(**kw):
    row = {"set": "MISSPELL", "qid": "1", "original": "what is lift", "variation": "what is lfit", "detail": "",
           "valid": "", "note": ""}
    row.update(kw)
    return row


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "+1+2", "-cmd", "@SUM(A1)", "\u200b=1+1"])
def test_audit_sample_cells_that_start_a_formula_are_escaped_and_read_back(tmp_path, text):
    sample = format_sample([_row(original=text, variation=text + " x", valid="1")])
    for cell in sample.splitlines()[1].split("\t"):
        assert not cell or cell[0] not in "=+-@" and not cell[0].isspace() and cell[0] != "\u200b"
    path = tmp_path / "audit_sample.tsv"
    path.write_text(sample, encoding="utf-8")
    labels = read_label_file(path).labels
    assert [lab.variation for lab in labels] == [text + " x"]  # the reader removes the escape
    assert read_labels(path) == {("MISSPELL", "1"): True}


def test_sheet_escape_round_trips_texts_that_start_with_an_apostrophe():
    for text in ["'s wing", "''", "plain", "-3.5", "=x"]:
        assert unsheet_text(sheet_text(text)) == text
    assert sheet_text("-3.5") == "-3.5"  # a number stays a number


def test_an_extra_column_in_the_sample_header_is_named(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("\t".join([*SAMPLE_COLUMNS, "comment"]) + "\nMISSPELL\t1\ta\tb\t\t1\t\t\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_label_file(path)
    msg = str(exc.value)
    assert "unexpected column(s) 'comment'" in msg and "neither" not in msg


def test_a_missing_column_is_named(tmp_path):
    path = tmp_path / "s.tsv"
    cols = [c for c in SAMPLE_COLUMNS if c != "note"]
    path.write_text("\t".join(cols) + "\nMISSPELL\t1\ta\tb\t\t1\n", encoding="utf-8")
    with pytest.raises(DataError, match="missing column\\(s\\) 'note'"):
        read_label_file(path)


def test_a_spreadsheet_quoted_sample_says_quotes(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("\t".join(f'"{c}"' for c in SAMPLE_COLUMNS) + '\n"MISSPELL"\t"1"\t"a"\t"b"\t""\t"1"\t""\n',
                    encoding="utf-8")
    with pytest.raises(DataError, match="in quotes"):
        read_label_file(path)
