"""SWAPSYN-GLOVE and SWAPSYN-WNET: one content word replaced by a synonym chosen in context.

``candidates`` lists targets and candidates with their context-free features, ``context`` the
MiniLM in-context features, ``chooser`` the fitted models (``chooser.json``, refitted by
``benchmarks/lexsub/fit.py``) and the ranking, ``generator`` the generator both sets share
(the pick, the set-level word cap, :meth:`lexsub`); ``glove`` and ``wordnet`` declare the two sets."""
