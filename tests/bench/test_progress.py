"""Progress outside a terminal: plain lines at a bounded rate, the final line always, nothing
with progress off; a tqdm bar only in a terminal."""
import io

import pytest

from bench.core import progress as P


class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(P, "_clock", c)
    return c


def test_lines_are_rate_limited_and_the_final_line_appears(clock):
    out = io.StringIO()
    bar = P.progress(total=100, desc="encode queries", unit="text", stream=out, interval=10)
    for _ in range(100):  # 100 updates over 25 s: one line at 10 s, one at 20 s, then the final one
        clock.t += 0.25
        bar.update(1)
    bar.close()
    bar.close()  # closing twice prints once
    lines = out.getvalue().splitlines()
    assert lines == ["[encode queries] 40/100 (40%) 4.0/s ETA 00:15",
                     "[encode queries] 80/100 (80%) 4.0/s ETA 00:05",
                     "[encode queries] 100/100 (100%) 4.0/s in 00:25"]


def test_a_fast_loop_prints_only_the_final_line(clock):
    out = io.StringIO()
    with P.progress(desc="corpus shards encoded", unit="shard", stream=out) as bar:
        for _ in range(3):
            clock.t += 1
            bar.update(1)
            bar.set_postfix(loss="0.125")
    assert out.getvalue().splitlines() == ["[corpus shards encoded] 3 shards 1.0/s in 00:03 (loss=0.125)"]


def test_a_loop_with_nothing_to_do_still_ends_with_a_line(clock):
    out = io.StringIO()
    P.progress(desc="corpus shards encoded", unit="shard", stream=out).close()
    assert out.getvalue() == "[corpus shards encoded] 0 shards in 00:00\n"


def test_nothing_is_printed_with_progress_off(clock, capsys):
    bar = P.progress(total=10, desc="x", enabled=False, interval=0)
    for _ in range(10):
        clock.t += 100
        bar.update(1)
    bar.close()
    with P.stage("generating MISSPELL: 10 queries", enabled=False):
        clock.t += 1
    assert capsys.readouterr() == ("", "")


def test_stage_status_line(clock):
    out = io.StringIO()
    with P.stage("generating MISSPELL: 884 queries", stream=out):
        clock.t += 3.21
    assert out.getvalue() == "generating MISSPELL: 884 queries ... done in 3.2 s\n"


def test_a_terminal_gets_a_tqdm_bar(clock):
    pytest.importorskip("tqdm")
    out = io.StringIO()
    bar = P.progress(total=5, desc="train", stream=out, tty=True)
    assert bar._bar is not None
    bar.update(5)
    bar.close()
    assert "[train]" not in out.getvalue()


def test_labels():
    assert P.plural("query") == "queries" and P.plural("passage") == "passages" and P.plural("day") == "days"
