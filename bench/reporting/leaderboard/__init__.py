"""``bench leaderboard``: runs ranked per group of comparable runs, as a long CSV, a wide CSV and
Markdown (the groups, the ranking and the columns: :mod:`bench.reporting.leaderboard.board`).

- ``rows``: the long rows of a run and the per-query scores that rank the runs of a group;
- ``ranking``: point rank, rank interval and ties from one family of corrected pairwise tests;
- ``md``: the Markdown page (headline columns, the method block);
- ``board``: :class:`Leaderboard`, :func:`build` and :func:`table_csv`, the only module that
  imports the other three.
"""
from bench.reporting.leaderboard.board import ENTRY_COLUMNS, Leaderboard, build, table_csv

__all__ = ["ENTRY_COLUMNS", "Leaderboard", "build", "table_csv"]
