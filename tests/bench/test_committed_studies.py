"""The committed studies under results/ say what their files hold: the IAA runs were trained with
the current default skip placement, every RoDR / DR_QV training
record that states the quota rule has no unchanged (q, q) pair, the records that do not are the
seeds the README names as not re-run, and the README tables' figures are the files' figures."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "results"
PEFT = RESULTS / "fewshot-peft"
RODR = RESULTS / "rodr-study"


def _peft_result() -> dict:
    return json.loads(next(PEFT.glob("*/result.json")).read_text())


def test_the_committed_iaa_runs_use_the_default_skip():
    from bench.tuning.config import TuningConfig

    r = _peft_result()
    iaa = [m for m in r["methods"] if m.startswith("iaa-")]
    assert iaa
    for m in iaa:
        assert r["methods"][m]["tuning"]["iaa_skip"] == TuningConfig().iaa_skip, m


def test_the_fewshot_peft_readme_table_has_the_runs_numbers():
    r = _peft_result()
    md = (PEFT / "README.md").read_text(encoding="utf-8")
    rows = {c[0]: c for c in (
        [x.strip() for x in l.strip().strip("|").split("|")] for l in md.splitlines() if l.startswith("| "))}
    for m, mo in r["methods"].items():
        k = mo["k"]["5"]
        after = [cell.split("->")[1].strip() for cell in rows[m][1:4]]
        assert after == [f"{100 * k[s]['mean']:.1f}" for s in ("base", "novel", "all")], m


def _not_rerun_seeds() -> set[str]:
    top = (RODR / "README.md").read_text(encoding="utf-8").split("Training, per seed")[0]
    said = re.search(r"\*\*Seeds? ([0-9, and]+) (?:was|were) not re-run\*\*", top)
    return set(re.findall(r"\d", said.group(1))) if said else set()


def test_rodr_training_records_state_their_sampling_and_unchanged_pairs():
    old = _not_rerun_seeds()
    records = sorted((RODR / "training").glob("*.json"))
    assert records
    for f in records:
        t = json.loads(f.read_text())
        if t["recipe"] == "dr":
            continue
        seed = str(t["config"]["seed"])
        v = t.get("variations") or {}
        if seed in old:
            continue
        assert v.get("rule") == "quota", f.name
        assert v["unchanged_pairs"]["n"] == 0, f.name
        assert not any("unchanged" in k for k in t["variation_use"]), f.name


def test_rodr_readme_seed_0_figures_are_the_files_figures():
    md = (RODR / "README.md").read_text(encoding="utf-8")
    for run, label in [("minilm-heldout-s0", "minilm-l6 (DR_O)"), ("dr-heldout-s0", "DR (originals)"),
                       ("dr-qv-heldout-s0", "DR_QV (variations)"), ("rodr-heldout-s0", "RoDR")]:
        r = json.loads((RODR / run / "result.json").read_text())
        orig = next(s for s in r["sets"] if s["name"] == "ORIGINAL")["metrics"]["MRR@10"]
        avg = r["summary"]["VARIATIONS (AVG.)"]
        row = next(l for l in md.splitlines() if l.startswith(f"| {label} |"))
        seed0 = row.split("|")[2].split("->")[-1].strip()
        assert seed0 == f"{orig:.4f} / {avg['metrics']['MRR@10']:.4f} / {100 * avg['drop_rate']['MRR@10']:.1f}%", label


@pytest.mark.parametrize("name", ["fewshot-peft", "rodr-study", "domain-study"])
def test_each_study_folder_has_a_readme(name):
    assert (RESULTS / name / "README.md").is_file()
