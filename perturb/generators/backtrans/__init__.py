"""BACKTRANS: the query translated to a pivot language and back.

``generator`` runs the round trips and picks among the verified candidates; ``score`` splits a
round trip into edits and scores each on weighted evidence (``evidence``: names, terms, question
words; ``rules``: lemma and synonym tests of single words)."""
