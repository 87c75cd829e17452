"""Hugging Face Hub names: loaded through the Hub's own download code, or a clear offline message."""
from __future__ import annotations

import pytest

NAME = "sentence-transformers/all-MiniLM-L6-v2"


def test_offline_hub_name_says_it_needs_the_network_and_names_the_alternatives(tmp_path, monkeypatch, capsys):
    from bench.cli.main import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))  # nothing cached
    rc = main(["evaluate", "--model", NAME, "--generators", "EXTRAPUNC", "--out", str(tmp_path / "run"),
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    for part in ("Hugging Face Hub name", "needs the network", "HF_HUB_OFFLINE", "minilm-l6", "bm25",
                 f"SentenceTransformer('{NAME}').save('DIR')", "--model DIR"):
        assert part in err, part
    assert not (tmp_path / "run").exists()


def test_unreachable_hub_is_the_same_message_not_a_traceback(monkeypatch):
    import huggingface_hub

    from bench.core.errors import ResourceError
    from bench.models.spec import resolve_model

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    calls = []

    def fake(**kw):
        calls.append(kw)
        raise ConnectionError("no route to host")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    with pytest.raises(ResourceError, match=r"needs the network \(the Hub could not be reached: ConnectionError\)"):
        resolve_model(NAME)
    assert calls[0]["local_files_only"] and calls[1]["etag_timeout"] <= 10  # the cache first, then a bounded wait


def test_a_cached_hub_model_is_read_as_its_folder(tiny_bert, monkeypatch):
    import huggingface_hub

    from bench.models.spec import resolve_model, spec_from_folder

    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda **kw: str(tiny_bert))
    spec = resolve_model("someone/tiny-bert")
    assert spec.name == "tiny-bert" and spec.modules == spec_from_folder(tiny_bert).modules


def test_paths_that_are_not_hub_names_keep_the_folder_message():
    from bench.core.errors import ResourceError
    from bench.models.spec import resolve_model

    for text in ("./missing/model", "/no/such/folder", "a/b/c"):
        with pytest.raises(ResourceError, match="model folder .* does not exist"):
            resolve_model(text)
