"""Console tables, reports, compare, leaderboard and the regression gate."""
