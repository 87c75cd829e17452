"""Readers of the resources the generators use, found offline: text helpers and word lists
(``_text``), spaCy (``_spacy``), GloVe vectors (``vectors``), WordNet (``wordnet_reader``) and the
lexical relations built on them (``lexicon``), machine-translation backends (``translators``).

Imports only :mod:`perturb.base` (the layers contract in ``pyproject.toml``)."""
