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
    from suites.domain.systems import DEVIATION_TEXT, PAIRS

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


# --------------------------------------------------------------------------------------------
# every number in the four tables: read back from the code, or named as a fact the code does not hold

_NUM = re.compile(r"(?<![\w.\-/`])(\d+(?:\.\d+)?(?:e-\d+)?k?)")


def _table_numbers(section: str) -> set:
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index(section):]
    nxt = body.find("\n## ", 3)
    body = body if nxt < 0 else body[:nxt]
    out = set()
    for line in body.splitlines():
        if line.startswith("|") and not set(line) <= set("|- "):
            out |= set(_NUM.findall(re.sub(r"`[^`]*`", "", line)))  # code spans name options, not values
    return out


def _value(token: str) -> float:
    return float(token[:-1]) * 1000 if token.endswith("k") else float(token)


def _check(section: str, from_code: dict, not_in_code: dict) -> None:
    """Every number of the section's table is a key of ``from_code`` (its values: the code's values
    the number stands for, each must equal it) or of ``not_in_code`` (why the code cannot hold it)."""
    found = _table_numbers(section)
    unexplained = sorted(found - set(from_code) - set(not_in_code))
    assert not unexplained, f"{section}: numbers with no source in the code: {unexplained}"
    for token, values in from_code.items():
        for v in values:
            assert _value(token) == pytest.approx(float(v)), f"{section}: {token} in the table, {v} in the code"
    stale = sorted((set(from_code) | set(not_in_code)) - found)
    assert not stale, f"{section}: the test maps numbers the table no longer has: {stale}"


def test_every_number_of_the_rodr_table_comes_from_the_code():
    from bench.models.spec import MODELS
    from bench.training.contrastive import TrainConfig
    from bench.training.recipe_config import PAPER_DOCUMENT_WEIGHTS, PAPER_LRS, PAPER_NEGATIVE_DEPTH, PAPER_SCHEDULE, PHASES

    t, minilm = TrainConfig(), MODELS.get("minilm-l6")()
    _check("## RoDR training", {
        "1": [PAPER_WEIGHTS["existing-retriever"][0], t.epochs, t.hard_negatives],
        "2": [len(PHASES["dr-oq-qv"])],  # stage 2
        "4": [PAPER_SCHEDULE["epochs"], len(PAPER_LRS)],
        "7": [PAPER_SCHEDULE["hard_negatives"]],
        "30": [t.negative_depth], "32": [t.max_query_length], "128": [t.max_passage_length],
        "64": [minilm.max_query_length], "256": [minilm.max_passage_length],
        "0.1": [PAPER_DOCUMENT_WEIGHTS[1]], "1000": [PAPER_NEGATIVE_DEPTH],
        "0.2": [PAPER_WEIGHTS["from-dr-oq"][2]],
        "0.05": [t.resolved("full-tune", "cos")["temperature"]],
        "2e-5": [DEFAULT_LR["full-tune"]],
        "5e-6": [PAPER_SCHEDULE["lr"], PAPER_LRS[0], PAPER_LRS[2]], "3e-5": [PAPER_LRS[1]], "5e-7": [PAPER_LRS[3]],
    }, {"39.0": "measured: share of (q, q) draws under --variation-sampling sets, validated sets",
        "8.6": "measured: the same with --protocol rodr", "442": "chatterbot's training queries at --holdout 0.5"})


def test_every_number_of_the_iaa_table_comes_from_the_code():
    from bench.tuning.plans import _width_for

    _check("## Parameter-efficient methods", {
        "0": [_width_for(0, 1, 8)],  # budget 0: width 0
        "1e-4": [PAPER_LR["adapter"], DEFAULT_LR["pfeiffer"]], "2e-5": [PAPER_LR["full-tune"]],
        "5e-4": [DEFAULT_LR["parallel-adapter"], DEFAULT_LR["rem"]],
    }, {**{v: "measured: step-0 table (benchmarks/iaa_step0.py)" for v in (
        "0.443", "0.068", "0.117", "0.363", "0.276", "0.294", "0.398", "0.180", "0.270", "0.28", "0.45", "0.87",
        "0.74", "0.81", "0.91", "0.54", "0.73")},
        "1": "the backbone's cosine to itself", "10": "MRR@10, the measure of the step-0 table"})


def test_every_number_of_the_fewdr_table_comes_from_the_code():
    import json

    from bench.data.collections import load_dataset
    from bench.training.contrastive import TrainConfig
    from suites.fewshot.config import PAPER_SCHEDULE, FewShotConfig
    from suites.fewshot.metrics import boosting_gradient
    from suites.fewshot.sampler import DEFAULT_KS, DEFAULT_TRIALS, build_plan

    t, f = TrainConfig(), FewShotConfig()
    plan = build_plan(load_dataset("chatterbot"), seed=0, ks=[5], n_trials=1)
    sizes = [len(v) for v in plan.queries.test.values()]
    committed = next((DOC.parents[1] / "results" / "fewshot-peft").glob("*/result.json"))
    steps = {s for m in json.loads(committed.read_text())["methods"].values() for s in m["k"]["5"]["steps_per_trial"]}
    schedule = DOC.read_text(encoding="utf-8").split("| Schedule for every stage")[1].split("\n")[0]
    assert (f"{_e(DEFAULT_LR['full-tune'])} for full-/qry-/psg-tune, {_e(DEFAULT_LR['bitfit'])} for "
            f"bitfit/LoRA/adapters/IAA, {_e(DEFAULT_LR['rem'])} for parallel-adapter/rem") in schedule
    assert all(DEFAULT_LR[m] == DEFAULT_LR["bitfit"] for m in ("lora", "adapter", "iaa-s", "iaa-l", "iaa-m"))
    assert DEFAULT_LR["parallel-adapter"] == DEFAULT_LR["rem"]
    _check("## FewDR", {
        "0": [boosting_gradient([(0, 0.1), (5, 0.2)])[0]["from_k"]],
        "1": [t.epochs, t.hard_negatives, f.min_class_test, min(sizes)], "140": [max(sizes)],
        "5": [DEFAULT_KS[0], DEFAULT_TRIALS], "20": [DEFAULT_KS[1]], "100": [DEFAULT_KS[2]],
        "6": sorted(steps),  # the committed chatterbot run's steps per K=5 trial
        "10": [f.cutoff], "16": [t.batch_size], "128": [t.max_passage_length],
        "32": [PAPER_SCHEDULE["batch_size"], PAPER_SCHEDULE["max_query_length"], t.max_query_length],
        "40": [PAPER_SCHEDULE["epochs"]], "256": [PAPER_SCHEDULE["max_passage_length"]],
        "5e-6": [PAPER_SCHEDULE["lr"]], "2e-5": [DEFAULT_LR["full-tune"]],
        "1e-4": [DEFAULT_LR["bitfit"], DEFAULT_LR["lora"], DEFAULT_LR["adapter"], DEFAULT_LR["iaa-s"]],
        "5e-4": [DEFAULT_LR["parallel-adapter"], DEFAULT_LR["rem"]],
        "0.05": [t.resolved("full-tune", "cos")["temperature"]],
    }, {"30": "FewDR's own collection: 30 base / 30 novel classes (not shipped)",
        "60": "FewDR's own collection: 60 classes (not shipped)"})


def test_every_number_of_the_ddr_table_comes_from_the_code():
    from bench.training.contrastive import TrainConfig
    from bench.training.ddr import MLMConfig
    from suites.domain.systems import DEVIATION_TEXT

    mlm, t, tuning = MLMConfig(), TrainConfig(), TuningConfig()
    printed = " ".join(DEVIATION_TEXT.values())  # what a run prints as DDR's side
    in_text = {tok: [_value(tok)] for tok in ("100k", "5e-5", "50k", "2e-5", "5", "3", "192", "768", "1e-5")}
    for tok in in_text:
        assert re.search(rf"(?<![\w.]){re.escape(tok)}(?![\w])", printed), f"{tok} is not in the printed DDR text"
    _check("## DDR", {
        **in_text,
        "1": [mlm.epochs, t.epochs, t.hard_negatives],
        "4": [tuning.rem_adapter_reduction], "16": [mlm.batch_size, t.batch_size],
        "128": [mlm.max_length], "15": [100 * mlm.mlm_probability], "80": [100 * mlm.mask_ratio],
        "10": [100 * mlm.random_ratio, 100 * mlm.warmup_ratio],
        "1e-5": [mlm.lr], "2e-5": [DEFAULT_LR["full-tune"]], "5e-4": [DEFAULT_LR["rem"]],
        "1e-3": [mlm.head_warmup_lr], "0.5": [mlm.head_warmup_target], "25": [mlm.head_warmup_check_every],
        "300": [mlm.head_warmup_max_steps], "64": [mlm.probe_texts],
        "0.05": [t.resolved("full-tune", "cos")["temperature"]],
    }, {"2": "DDR's training order, step (2)", "100": "released commands: DAM sequence length, short documents",
        "190": "released commands: DAM sequence length, long documents", "512": "released commands: DAM batch, long documents",
        "1024": "released commands: DAM batch, short documents", "1000": "released commands: warm-up steps",
        "384": "minilm-l6's hidden size (96 = 384 / 4 is checked below)", "96": "384 / 4",
        "88": "measured", "11.2": "measured", "10.3": "measured (ln of minilm-l6's vocabulary)", "7.2": "measured",
        "10.78": "measured", "6.39": "measured", "200": "measured", "0.62": "measured"})
    assert 384 // 4 == 96 and (384 // 4) * tuning.rem_adapter_reduction == 384


# --------------------------------------------------------------------------------------------
# every deviation a run can print has its row in docs/methods.md, and every row that names a
# deviation is one a run prints


def _recipe_deviations() -> list:
    """Every deviation RecipeConfig can print, over a grid that reaches every branch."""
    import itertools

    from bench.training.contrastive import TrainConfig
    from bench.training.recipes import variation_data_deviations
    from bench.training.recipe_data import Pair

    out = []
    for recipe, sampling, protocol, rows, neg, method in itertools.product(
            ("rodr", "dr", "dr-qv", "dr-oq-qv"), ("quota", "sets", "changed"), ("validated", "rodr"),
            ("all", "positives"), ("model", "bm25", "none"), ("full-tune", "iaa-s")):
        for tuning in (TuningConfig(), TuningConfig(iaa_inside_share=0.5)):
            cfg = RecipeConfig(recipe=recipe, variation_sampling=sampling, protocol=protocol, passage_rows=rows,
                               method=method, tuning=tuning, w_query=0.5 if recipe == "rodr" else None,
                               train=TrainConfig(negatives_from=neg, temperature=0.5, lr=1e-3))
            out += cfg.deviations("cos") + cfg.deviations("dot")
    pairs = [Pair("a", "x", ("d",), (), (("MISSPELL", "y"),), 1), Pair("b", "x", ("d",), (), (("MISSPELL", "z"),), 1),
             Pair("c", "x", ("d",), (), (("MISSPELL", "w"),), 1), Pair("d", "x", ("d",), (), (), 0)]
    out += variation_data_deviations(RecipeConfig(recipe="rodr"), pairs, ["MISSPELL", "SWAPWORDS"])
    return sorted(set(out))


def test_every_training_deviation_is_documented_and_every_documented_one_is_printed():
    from bench.training.recipe_config import DEVIATION_ITEMS, RECIPES
    from bench.tuning.config import DEVIATION_ITEMS as IAA_ITEMS

    rodr_rows, iaa_rows = _rows("## RoDR training"), _rows("## Parameter-efficient methods")
    seen = set()
    for d in _recipe_deviations():
        who, text = d.split(": ", 1)
        items = DEVIATION_ITEMS if who in RECIPES else IAA_ITEMS
        rows = rodr_rows if who in RECIPES else iaa_rows
        hits = [k for k in items if k in text]
        assert hits, f"a printed deviation no table row names: {d}"
        row = rows.get(items[hits[0]])
        assert row is not None and row[2] != "-", f"{items[hits[0]]!r}: no row saying why it differs ({d})"
        seen.add((who in RECIPES, hits[0]))
    assert {k for r, k in seen if r} == set(DEVIATION_ITEMS), "a mapped deviation no configuration prints"
    assert {k for r, k in seen if not r} == set(IAA_ITEMS), "a mapped IAA deviation no configuration prints"
    # rows that say why they differ are printed deviations, or named here with the reason they are not
    not_printed = {"teacher DR_O": "same function, recorded as loss.teacher.lengths",
                   "DR_OQ->QV baseline": "same as the paper", "loss weights, RoDR on an existing retriever": "-",
                   "loss weights, RoDR on top of DR_OQ": "-", "query-centred term": "-",
                   "loss weights, document ranking": "recorded, not applied"}
    for item, (_, _, why) in rodr_rows.items():
        if why != "-":
            assert item in set(DEVIATION_ITEMS.values()) | set(not_printed), f"RoDR row {item!r}: printed by no run"
    assert set(IAA_ITEMS.values()) <= set(iaa_rows)


def test_every_fewdr_deviation_has_its_row_and_every_row_is_printed():
    import itertools

    from bench.training.contrastive import TrainConfig
    from suites.fewshot.config import FewShotConfig, active_deviations

    names = set()
    for basic, full, methods, steps in itertools.product((True, False), (True, False), (["full-tune"], ["bitfit"]),
                                                          (None, 3)):
        cfg = FewShotConfig(basic_learning=basic, full_shot=full, methods=methods, train=TrainConfig(max_steps=steps))
        names |= {d["name"] for d in active_deviations(cfg, "cos")}
    from bench.data.collections import load_dataset
    from suites.fewshot.config import short_class_deviations
    from suites.fewshot.sampler import build_plan

    names |= {d["name"] for d in short_class_deviations(build_plan(load_dataset("chatterbot"), seed=0, ks=[20],
                                                                   n_trials=1))}
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index("## FewDR"):]
    body = body[:body.find("\n## ", 3)]
    recorded = set()
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4:
            recorded |= set(re.findall(r"^`([^`]+)`", cells[3]))
    assert names == recorded, f"printed {sorted(names)}, documented {sorted(recorded)}"


def test_every_remaining_rodr_difference_is_documented():
    from perturb.rodr.protocol import TEXTFLINT_DEVIATIONS, textflint_deviations

    text = DOC.read_text(encoding="utf-8")
    body = text[text.index("**Remaining differences from the authors' operations**"):]
    body = body[:body.index("\n\n", body.index("\n- "))]
    assert set(TEXTFLINT_DEVIATIONS) == {"MISSPELL", "BACKTRANS", "SWAPSYN-GLOVE", "SWAPSYN-WNET", "TRANSTENSE",
                                          "NOSTOPWORD"}
    for name, line in TEXTFLINT_DEVIATIONS.items():
        assert f"- {line}\n" in body + "\n", f"{name}: its remaining difference is not in docs/methods.md as printed"
    assert textflint_deviations(["ORIGINAL", "EXTRAPUNC", "MISSPELL"]) == [TEXTFLINT_DEVIATIONS["MISSPELL"]]
