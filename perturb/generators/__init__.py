"""The eight validated generators (the default protocol), one module or sub-package per family:
MISSPELL (``misspell``, its operations in ``typos``), EXTRAPUNC (``punctuation``), BACKTRANS
(``backtrans/``: ``generator``, ``score``, ``edits``, ``evidence``, ``rules``), SWAPSYN-GLOVE and
SWAPSYN-WNET (``swapsyn/``: ``glove``, ``wordnet``, sharing ``generator``, ``chooser``, ``candidates``,
``context``),
TRANSTENSE (``tense``), NOSTOPWORD (``stopwords``), SWAPWORDS (``swapwords/``: ``generator``,
``pairs``, ``phrases``). Each declares its :class:`perturb.spec.Spec`.

Registered by name in :data:`perturb.GENERATORS`; imports :mod:`perturb.resources`,
:mod:`perturb.spec` and :mod:`perturb.base` only."""
