"""Model specs, checkpoints and the one place that loads weights."""
