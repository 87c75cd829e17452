"""BACKTRANS: the query translated to a pivot language and back.

``generator`` runs the round trips and picks among the verified candidates; ``score`` splits a
round trip into edits (``edits``: word edits and the candidates, each an :class:`perturb.spec.Edit`)
and scores each on weighted evidence (``evidence``: names, terms, question words, shared senses;
``rules``: the structure rules and the lemma and same-form synonym tests of single words, which ask
:func:`perturb.resources.senses.synonymy`)."""
