"""Versions of the libraries a result depends on (recorded in every result file)."""
from __future__ import annotations

from typing import Dict

#: drbench's own version (``bench.__version__``; kept here so no module imports the ``bench`` package)
__version__ = "0.1.0"


def library_versions() -> Dict[str, str]:
    """Versions of the libraries that can change a number (recorded in every result file)."""
    from importlib import metadata

    out = {}
    for dist in ("torch", "transformers", "tokenizers", "faiss-cpu", "bm25s", "ir-measures", "pytrec-eval-terrier",
                 "numpy", "scipy", "nlpaug", "spacy", "nltk", "lemminflect", "peft", "matplotlib"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return out
