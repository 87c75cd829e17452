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


def _steps(clock, n, seconds, **options):
    """The lines a progress bar (interval 10 s) prints for ``n`` steps of ``seconds`` each, closed."""
    out = io.StringIO()
    bar = P.progress(stream=out, interval=10, **options)
    for _ in range(n):
        clock.t += seconds
        bar.update(1)
    bar.close()
    return out.getvalue().splitlines()


def test_lines_are_rate_limited_and_the_final_line_appears(clock):
    out = io.StringIO()
    bar = P.progress(total=100, desc="encode queries", unit="text", stream=out, interval=10)
    for _ in range(100):  # 100 updates over 25 s: the estimate after 3, a line 10 s and 20 s later, the final one
        clock.t += 0.25
        bar.update(1)
    bar.close()
    bar.close()  # closing twice prints once
    lines = out.getvalue().splitlines()
    assert lines == ["[encode queries] 3/100 (3%) 4.0/s ETA 00:24 (estimate from the first 3 texts)",
                     "[encode queries] 43/100 (43%) 4.0/s ETA 00:14",
                     "[encode queries] 83/100 (83%) 4.0/s ETA 00:04",
                     "[encode queries] 100/100 (100%) 4.0/s in 00:25"]


def test_a_long_stage_says_its_estimate_after_its_first_steps(clock):
    """Basic learning, each K's trials: the time left at the pace of the first steps, before the
    first regular line (10 s later); a loop that ends within the interval says no estimate."""
    out = io.StringIO()
    bar = P.progress(total=345, desc="basic learning (base classes)", unit="step", stream=out, interval=10)
    for _ in range(P.EARLY_STEPS):
        clock.t += 1.5
        bar.update(1)
        bar.set_postfix(loss="0.5")
    assert out.getvalue().splitlines() == [
        "[basic learning (base classes)] 3/345 (1%) 1.5 s/step ETA 08:33 (estimate from the first 3 steps) (loss=0.5)"]
    assert _steps(clock, 20, 0.1, total=20, desc="train", unit="step") == ["[train] 20/20 (100%) 10.0/s in 00:02"]


def test_a_fast_loop_prints_only_the_final_line(clock):
    out = io.StringIO()
    with P.progress(desc="corpus shards encoded", unit="shard", stream=out) as bar:
        for _ in range(3):
            clock.t += 1
            bar.update(1)
            bar.set_postfix(loss="0.125")
    assert out.getvalue().splitlines() == ["[corpus shards encoded] 3 shards 1.0/s in 00:03 (loss=0.125)"]


def test_a_loop_with_nothing_to_do_prints_nothing(clock):
    out = io.StringIO()
    P.progress(desc="corpus shards encoded", unit="shard", stream=out).close()
    assert out.getvalue() == ""  # every shard cached: no "0 shards in 00:00"
    P.progress(total=3, desc="encode queries", stream=out).close()
    assert out.getvalue() == "[encode queries] 0/3 (0%) in 00:00\n"  # a known total that did not run is said


def test_the_last_step_is_printed_once_and_a_slow_rate_reads_per_unit(clock):
    out = io.StringIO()
    bar = P.progress(desc="corpus shards encoded", unit="shard", stream=out, interval=10)
    clock.t += 84  # one shard in 84 s: the interval passed, but the final line alone says it
    bar.update(1)
    bar.close()
    assert out.getvalue().splitlines() == ["[corpus shards encoded] 1 shard 84.0 s/shard in 01:24"]
    assert _steps(clock, 4, 20, total=4, desc="encode corpus", unit="text") == ["[encode corpus] 1/4 (25%) 20.0 s/text ETA 01:00",
                                           "[encode corpus] 2/4 (50%) 20.0 s/text ETA 00:40",
                                           "[encode corpus] 3/4 (75%) 20.0 s/text ETA 00:20",
                                           "[encode corpus] 4/4 (100%) 20.0 s/text in 01:20"]


def test_a_line_carries_the_postfix_of_its_own_step(clock):
    out = io.StringIO()
    bar = P.progress(total=3, desc="train", unit="step", stream=out, interval=10)
    for step, loss in enumerate(("0.900", "0.500", "0.300"), 1):
        clock.t += 10
        bar.update(1)  # as training loops do: update, then the step's loss
        bar.set_postfix(loss=loss)
    bar.close()
    assert out.getvalue().splitlines() == ["[train] 1/3 (33%) 10.0 s/step ETA 00:20 (loss=0.900)",
                                           "[train] 2/3 (67%) 10.0 s/step ETA 00:10 (loss=0.500)",
                                           "[train] 3/3 (100%) 10.0 s/step in 00:30 (loss=0.300)"]


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


def test_model_load_has_a_status_line_unless_progress_is_off(tiny_bert, capsys):
    """Loading torch and the weights can take tens of seconds: the run says so (issue 26 item 7)."""
    from bench.encoding.encoder import Encoder
    from bench.models.spec import spec_from_folder

    spec = spec_from_folder(tiny_bert)
    Encoder(spec, "query", progress=True).load()
    err = capsys.readouterr().err
    assert f"loading model {spec.name} (torch, cpu) ... done in" in err
    Encoder(spec, "query", progress=False).load()
    assert "loading model" not in capsys.readouterr().err
