"""Issue 25, cases 4 and 10: the query store's text-to-row index is checked, and query vectors are
written through the reserved path of corpus shards."""
from __future__ import annotations

import errno
import json

import numpy as np
import pytest

from bench.core.errors import BenchError
from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoder import Encoder
from bench.encoding.integrity import sidecar
from bench.models.spec import spec_from_folder

QUERIES = ["what is the lift of a wing", "heat conduction in slabs", "boundary layer separation", "shock waves"]


def _cache(tiny_bert, root):
    return EmbeddingCache(Encoder(spec_from_folder(tiny_bert), "query", progress=False), root)


def test_a_reordered_keys_file_is_caught_and_re_encoded(tiny_bert, tmp_path, capsys):
    good = _cache(tiny_bert, tmp_path).texts(QUERIES)
    (keys,) = (tmp_path).rglob("texts/*.keys")
    lines = keys.read_text(encoding="ascii").split()
    keys.write_text("\n".join(reversed(lines)) + "\n", encoding="ascii")  # same rows, other texts
    again = _cache(tiny_bert, tmp_path)
    got = again.texts(QUERIES)
    assert got.tobytes() == good.tobytes()
    assert again.misses == len(QUERIES)  # encoded again, not served from the edited index
    assert "text-to-row index was edited" in capsys.readouterr().err
    (keys2,) = (tmp_path).rglob("texts/*.keys")
    assert json.loads(sidecar(keys2.with_suffix(".npy")).read_text())["bound"]["name"] == keys2.name


def test_a_sidecar_from_before_the_index_check_is_completed(tiny_bert, tmp_path):
    good = _cache(tiny_bert, tmp_path).texts(QUERIES)
    (chunk,) = tmp_path.rglob("texts/*.npy")
    side = json.loads(sidecar(chunk).read_text())
    side.pop("bound")
    sidecar(chunk).write_text(json.dumps(side))
    again = _cache(tiny_bert, tmp_path)
    assert again.texts(QUERIES).tobytes() == good.tobytes() and again.misses == 0
    assert "bound" in json.loads(sidecar(chunk).read_text())


def test_disk_full_while_query_vectors_are_written_is_a_clear_error_before_encoding(tiny_bert, tmp_path, monkeypatch):
    from bench.encoding import shards as shards_mod

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shards_mod.os, "posix_fallocate", full, raising=False)
    cache = _cache(tiny_bert, tmp_path)
    encoded = []
    monkeypatch.setattr(cache.encoder, "encode_canonical", lambda texts: encoded.append(1))
    with pytest.raises(BenchError, match=r"cannot write the embedding cache in .*texts.*No space left.*DRBENCH_HOME"):
        cache.texts(QUERIES)
    assert encoded == []
    assert [p.name for p in tmp_path.rglob("texts/*")] == []  # no temporary or half-written file


def test_query_vectors_are_the_bytes_np_save_gave(tiny_bert, tmp_path):
    emb = _cache(tiny_bert, tmp_path).texts(QUERIES)
    (chunk,) = tmp_path.rglob("texts/*.npy")
    stored = np.load(chunk)
    assert stored.dtype == np.float32 and stored.shape == (len(QUERIES), emb.shape[1])
