"""docs/methods.md's RoDR and IAA tables state what the code does: the values they name are read
back from the modules they cite (a change to either side without the other fails here)."""
import re
from pathlib import Path

import pytest

from bench.core.errors import BenchError
from bench.training.recipe_config import PAPER_WEIGHTS, RecipeConfig
from bench.tuning.config import DEFAULT_LR, PAPER_LR, TuningConfig
from bench.tuning.plans import check_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


def _rows(section: str) -> dict:
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index(section):]
    nxt = body.find("\n## ", 3)
    body = body if nxt < 0 else body[:nxt]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and not set(cells[0]) <= {"-"} and cells[0] != "item":
            rows[cells[0]] = cells[1:]
    return rows


def _weights(text: str) -> tuple:
    m = re.search(r"(\d+(?:\.\d+)?) / (\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)", text)
    assert m, text
    return tuple(float(x) for x in m.groups())


def test_rodr_table_matches_the_code():
    rows = _rows("## RoDR training")
    assert _weights(rows["loss weights, RoDR on an existing retriever"][1]) == PAPER_WEIGHTS["existing-retriever"]
    assert _weights(rows["loss weights, RoDR on top of DR_OQ"][0]) == PAPER_WEIGHTS["from-dr-oq"]
    assert _weights(rows["loss weights, RoDR on top of DR_OQ"][1]) == PAPER_WEIGHTS["from-dr-oq"]
    assert f"`--passage-rows {RecipeConfig().passage_rows}`" in rows["passage-centred term"][1]
    assert RecipeConfig().weights() == dict(zip(("w_nll", "w_query", "w_passage"),
                                                 PAPER_WEIGHTS["existing-retriever"]))


def test_iaa_table_matches_the_code():
    rows = _rows("## Parameter-efficient methods")
    lr = rows["learning rate"]
    assert "PET methods 1e-4, full fine-tuning 2e-5" == lr[0]
    paper_pet = {m for m, v in PAPER_LR.items() if v == 1e-4}
    assert paper_pet == {"bitfit", "prefix", "lora", "adapter", "iaa-s", "iaa-l", "iaa-m"}
    for m in ("bitfit", "prefix", "lora", "adapter", "iaa-s/l/m", "pfeiffer"):
        assert m in lr[1]
    assert all(DEFAULT_LR[m] == 1e-4 for m in paper_pet | {"pfeiffer"})
    assert all(DEFAULT_LR[m] == 2e-5 for m in ("full-tune", "qry-tune", "psg-tune"))
    assert "5e-4" in rows["methods outside the paper"][1]
    assert DEFAULT_LR["parallel-adapter"] == DEFAULT_LR["rem"] == 5e-4
    # default split: one width for every module (no fixed inside share); budget 0 and share end points allowed
    assert TuningConfig().iaa_inside_share is None and "one hidden size" in rows[
        "budget split between inside and aside modules"][1]
    for cfg in (TuningConfig(iaa_budget=0.0), TuningConfig(iaa_inside_share=0.0), TuningConfig(iaa_inside_share=1.0)):
        check_config("iaa-s", cfg)
    with pytest.raises(BenchError):
        check_config("iaa-s", TuningConfig(iaa_budget=-1.0))


def _ddr_rows() -> list:
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index("## DDR"):]
    nxt = body.find("\n## ", 3)
    body = body if nxt < 0 else body[:nxt]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and not set(cells[0]) <= {"-"} and cells[0] != "paper says":
            rows.append(cells)
    return rows


def _e(x: float) -> str:
    """A learning rate as the table writes it: 1e-5, 5e-4."""
    return f"{x:.0e}".replace("e-0", "e-")


def test_ddr_table_matches_the_code():
    from bench.training.contrastive import TrainConfig
    from bench.training.ddr import MLMConfig
    from bench.training.mlm_head import PLATEAU_TOL
    from suites.domain_systems import DEVIATION_TEXT, PAIRS

    rows = _ddr_rows()
    by_id = {r[3].split("`")[1]: r for r in rows if r[3].startswith("`DDR-")}
    assert set(by_id) == set(DEVIATION_TEXT)  # every deviation a run can print has its row, and no more
    mlm, train = MLMConfig(), TrainConfig()
    budget = by_id["DDR-1"][1]
    assert f"{mlm.epochs} epoch over its corpus at lr {_e(mlm.lr)}, batch {mlm.batch_size}, sequence {mlm.max_length}" \
        in budget
    assert f"over {mlm.warmup_ratio * 100:g} % of the steps" in budget
    assert f"REM and DR {train.epochs} epoch, {train.hard_negatives} hard negative" in budget
    assert f"REM lr {_e(DEFAULT_LR['rem'])}" in budget
    head = by_id["DDR-2"][1]
    assert f"AdamW lr {_e(mlm.head_warmup_lr)}" in head
    assert f"< {mlm.head_warmup_target:g} ln V" in head and f"< {PLATEAU_TOL * 100:g} %" in head
    assert f"every {mlm.head_warmup_check_every} steps" in head and f"or {mlm.head_warmup_max_steps} steps" in head
    assert f"({mlm.probe_texts} corpus texts" in head
    claims = next(r for r in rows if r[0].startswith("Claim:"))
    assert all(f"`{a} vs {b}`" in claims[1] for a, b in PAIRS)
