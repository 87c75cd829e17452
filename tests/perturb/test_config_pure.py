"""Every generator's config() is a function of its inputs only (issue 21): the same before and after
the process loaded its resources (WordNet, GloVe, spaCy, translators) by generating. Checked in a fresh
process per protocol, since inside the test session other tests have loaded everything already."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json, sys
from perturb import PROTOCOLS, make
from bench.core.io import canonical_json
protocol = sys.argv[1]
queries = [("1", "what is the effect of pressure on the boundary layer"), ("2", "HOW DO I FIND A GOOD MOVIE"),
           ("3", "which experiments measured heat transfer in composite slabs?")]
out, gens = {}, {}
for name in PROTOCOLS[protocol]:  # every config first, before anything is loaded by generating
    gen = make(name, protocol=protocol)
    try:
        gen.check()
    except Exception as exc:  # a missing resource: nothing to load, nothing to compare
        out[name] = {"skipped": str(exc)[:80]}
        continue
    gens[name] = gen
    out[name] = {"before": canonical_json(gen.config())}
for name, gen in gens.items():
    gen.perturb_batch(queries, 0)
for name, gen in gens.items():
    out[name]["after"] = canonical_json(gen.config())
    out[name]["fresh_after"] = canonical_json(make(name, protocol=protocol).config())
print(json.dumps(out))
"""


@pytest.mark.parametrize("protocol", ["validated", "rodr"])
def test_config_does_not_depend_on_what_the_process_loaded(protocol, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "DRBENCH_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, protocol], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(result) == 8
    ran = {n: r for n, r in result.items() if "skipped" not in r}
    assert len(ran) >= 7, result  # at most one generator may lack its resource here (none should)
    for name, r in ran.items():
        assert r["after"] == r["before"], f"{name}: config changed once the process had generated"
        assert r["fresh_after"] == r["before"], f"{name}: a new instance's config differs after loading"
