"""Issue 39, item 5: relevance grades outside the documented range are refused with file and line
(they wrapped to 0 in trec_eval's C int, asked for tens of GB, or gave tracebacks)."""
from __future__ import annotations

import pytest

from bench.core.errors import DataError
from bench.data.readers import read_qrels
from bench.data.validate import MAX_GRADE, MIN_GRADE
from tests.conftest import QRELS, evaluate_extrapunc, write_beir


@pytest.mark.parametrize("grade", ["4294967296", "4294967297", "3000000000", "2147483648", "nan", "inf", "-inf",
                                   "1e400", "1e20", "1001", "-1001"])
def test_a_grade_outside_the_range_is_refused_naming_file_and_line(tmp_path, grade):
    folder = write_beir(tmp_path / "ds", qrels=QRELS[:2] + [("2", "d2", grade)] + QRELS[3:])
    with pytest.raises(DataError) as err:
        read_qrels(folder / "qrels" / "test.tsv")
    text = str(err.value)
    assert "test.tsv" in text and ":4" in text  # the header is line 1; the third judgment is line 4
    assert "relevance grade" in text


def test_the_range_limits_and_integer_floats_are_accepted(tmp_path):
    folder = write_beir(tmp_path / "ds", qrels=[("1", "d1", str(MAX_GRADE)), ("2", "d2", str(MIN_GRADE)),
                                                 ("3", "d3", "2.0")])
    qrels, _ = read_qrels(folder / "qrels" / "test.tsv")
    assert qrels == {"1": {"d1": MAX_GRADE}, "2": {"d2": MIN_GRADE}, "3": {"d3": 2}}


def test_a_huge_grade_via_the_cli_is_a_clear_error_not_zero_metrics(tmp_path, capsys):
    folder = write_beir(tmp_path / "ds", qrels=[(q, d, "4294967296" if q == "1" else g) for q, d, g in QRELS])
    rc = evaluate_extrapunc(folder, "--out", str(tmp_path / "run"))
    assert rc == 2
    err = capsys.readouterr().err
    assert "outside the accepted range" in err and "Traceback" not in err
