"""Training loops and recipes (contrastive, RoDR, DDR)."""
