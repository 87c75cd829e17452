"""Measures (trec_eval-equal) and statistics kernels."""
