"""The gate's low-power warnings are printed once, and only where they change the reading
(PASS / INCONCLUSIVE); a FAIL that shows its regression despite the coarseness has none shown."""
from bench.cli.main import main
from bench.reporting.gate import GateOptions, gate_arrays
from runfactory import rng_for, write_run


def _noisy(n, drop, noise, seed=0):
    rng = rng_for(seed, "noisy")
    b = {"ORIGINAL": rng.random(n) * 0.5 + 0.3, "A": rng.random(n) * 0.5 + 0.2}
    c = {s: v - drop + rng.normal(0, noise, n) for s, v in b.items()}
    return b, c


def test_a_fail_far_beyond_the_detectable_size_shows_no_power_warning():
    b, c = _noisy(30, drop=0.3, noise=0.1)
    v = gate_arrays(b, c, GateOptions(max_drop_rate=1.0))
    assert v.status == "FAIL" and v.warnings  # computed, and kept in the JSON
    assert v.shown_warnings == [] and "low power" not in v.markdown()
    assert not [a for a in v.annotations() if "power::" in a]
    assert v.to_dict()["warnings"] == v.warnings and v.to_dict()["warnings_shown"] == []


def test_an_inconclusive_verdict_shows_each_warning_once(tmp_path, capsys):
    rng = rng_for(0, "tiny")
    vals = {"ORIGINAL": {"MRR@10": rng.random(50)}, "A": {"MRR@10": rng.random(50)}}
    cvals = {s: {m: v + rng_for(1, s).normal(0, 0.01, 50) for m, v in mm.items()} for s, mm in vals.items()}
    main(["gate", "--baseline", str(write_run(tmp_path / "b", vals)), "--candidate",
          str(write_run(tmp_path / "c", cvals))])
    captured = capsys.readouterr()
    assert "**INCONCLUSIVE**" in captured.out
    warnings = [l for l in captured.out.splitlines() if l.startswith("> low power:")]
    assert warnings and len(warnings) == len(set(warnings))
    assert "low power" not in captured.err  # not repeated on stderr
