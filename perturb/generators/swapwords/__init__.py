"""SWAPWORDS: two words or phrases of the query exchange places.

``generator`` is the generator; ``pairs`` proposes word pairs and scores every candidate by its
kind (the kind table); ``phrases`` proposes the phrase reorderings."""
