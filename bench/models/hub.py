"""Hugging Face Hub names (``--model sentence-transformers/all-MiniLM-L6-v2``).

A name of the form ``owner/name`` that is not a local folder is fetched as sentence-transformers and
transformers fetch it (``huggingface_hub.snapshot_download``, into the Hugging Face cache; the
local cache first, so a model fetched once loads offline), then read as a local folder
(:func:`bench.models.spec.spec_from_folder`). Only the files a model needs are fetched (configs,
tokenizer files, safetensors weights; not the ONNX / OpenVINO exports). Offline
(``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set, or the Hub not answering within
:data:`TIMEOUT_S`) and not cached, the error names the registered models and the folder route.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from bench.core.errors import ResourceError

#: seconds to wait for the Hub before calling it unreachable
TIMEOUT_S = 10
_HUB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ALLOW = ["*.json", "*.txt", "*.safetensors", "*.model", "*.py.lock"]
_IGNORE = ["onnx/*", "openvino/*", "*.onnx", "*.msgpack", "*.h5", "*.ot"]


def looks_like_hub_name(text: str) -> bool:
    """``owner/name`` (one slash, no leading ``.``, ``/`` or ``~``): a Hub repository id."""
    return bool(_HUB_NAME.match(text)) and ".." not in text


def offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def offline_message(name: str, why: str, registered: Sequence[str]) -> str:
    return (f"model {name!r} is a Hugging Face Hub name: loading it needs the network ({why}) and it is neither in the "
            f"local Hugging Face cache nor a local folder. Fix: use a registered model (bench models: {', '.join(registered)}), or a "
            f"local folder: on a machine with the network run python -c \"from sentence_transformers import "
            f"SentenceTransformer; SentenceTransformer('{name}').save('DIR')\", copy DIR here and give --model DIR")


def hub_folder(name: str, registered: Sequence[str]) -> Path:
    """The local folder of Hub model ``name`` (the Hugging Face cache's snapshot), fetched if needed."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise ResourceError(offline_message(name, "huggingface_hub is not installed", registered)) from None
    kw = dict(repo_id=name, allow_patterns=_ALLOW, ignore_patterns=_IGNORE)
    try:
        return Path(snapshot_download(local_files_only=True, **kw))
    except Exception:  # not cached (huggingface_hub raises several types): fetch it below
        pass
    if offline():
        raise ResourceError(offline_message(name, "HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set", registered))
    try:
        return Path(snapshot_download(etag_timeout=TIMEOUT_S, **kw))
    except Exception as exc:  # network errors, an unknown or gated repository
        text = " ".join(str(exc).split())[:200]
        if "404" in text or "Repository Not Found" in text or "401" in text:
            raise ResourceError(f"model {name!r}: no such public model on the Hugging Face Hub ({text}). Fix: check "
                                f"the name, or give a registered model ({', '.join(registered)}) or a local "
                                f"folder") from None
        raise ResourceError(offline_message(name, f"the Hub could not be reached: {type(exc).__name__}",
                                            registered)) from None
