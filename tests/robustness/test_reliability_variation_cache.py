"""Issue 25, cases 1 and 12: the variation cache cannot change what a run evaluates."""
from __future__ import annotations

import json

import pytest

from bench.cli.main import main
from perturb.io.cache import cache_root


def _evaluate(beir_dir, out):
    return main(["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--generators", "MISSPELL",
                 "--no-progress", "--out", str(out)])


def _shard():
    shards = sorted((cache_root() / "MISSPELL").glob("*.json"))
    assert len(shards) == 1
    return shards[0]


@pytest.mark.parametrize("damage", ["edit_text", "null", "flip_applied", "not_a_list"])
def test_an_edited_variation_cache_entry_is_regenerated_with_a_warning(beir_dir, tmp_path, monkeypatch, capsys, damage):
    monkeypatch.setenv("DRBENCH_HOME", str(tmp_path / "home"))  # an empty cache
    assert _evaluate(beir_dir, tmp_path / "a") == 0
    fresh = (tmp_path / "a" / "result.json").read_bytes()
    shard = _shard()
    doc = json.loads(shard.read_text(encoding="utf-8"))
    key = sorted(doc["entries"])[0]
    if damage == "edit_text":
        doc["entries"][key][0] = "zzz qqq"
    elif damage == "null":
        doc["entries"][key] = None
    elif damage == "flip_applied":
        doc["entries"][key][1] = not doc["entries"][key][1]
    else:
        doc["entries"][key] = "zzz"
    shard.write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert _evaluate(beir_dir, tmp_path / "b") == 0
    err = capsys.readouterr().err
    assert "do not match their checksum" in err and str(shard) in err
    # the same sets (their content hashes are in result.json) and the same numbers as the fresh run
    assert (tmp_path / "b" / "result.json").read_bytes() == fresh
    # the entry was replaced: the next run is silent
    assert _evaluate(beir_dir, tmp_path / "c") == 0
    assert "checksum" not in capsys.readouterr().err


def test_the_result_records_the_content_hash_of_every_set_used(beir_dir, tmp_path):
    assert _evaluate(beir_dir, tmp_path / "a") == 0
    result = json.loads((tmp_path / "a" / "result.json").read_text())
    from perturb.io.sets import read_tsv

    for entry in result["sets"]:
        if entry["name"] == "ORIGINAL":
            continue
        vs = read_tsv(tmp_path / "a" / "variations" / f"{entry['name']}.tsv")
        assert entry["fingerprint"] == vs.fingerprint()
