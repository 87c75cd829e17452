"""The eight validated generators (the default protocol) and their verifiers: MISSPELL
(``misspell``), EXTRAPUNC (``punctuation``), BACKTRANS (``backtrans`` with ``backtrans_rules``,
``backtrans_evidence``, ``backtrans_score``), SWAPSYN-GLOVE / SWAPSYN-WNET (``glove``, ``wordnet``,
sharing ``_swap``), TRANSTENSE (``tense``), NOSTOPWORD (``stopwords``), SWAPWORDS (``swapwords``
with ``wordorder`` and ``phraseorder``).

Registered by name in :data:`perturb.GENERATORS`; imports :mod:`perturb.resources` and
:mod:`perturb.base` only."""
