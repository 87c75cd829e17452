"""Test collections: the dataset model and its readers (BEIR, MS MARCO, TREC, ir_datasets, chatterbot)."""
