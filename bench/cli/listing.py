"""`bench models`: what is registered (models, datasets, generators, suites, executors)."""
from __future__ import annotations
from bench.data.collections import DATASETS
from bench.encoding.executor import EXECUTORS
from bench.models.spec import MODELS
from bench.results.suite import SUITES
from perturb import GENERATORS


def add_arguments(p) -> None:
    pass


def run(args) -> int:
    for title, reg in (("models", MODELS), ("datasets", DATASETS), ("generators", GENERATORS), ("suites", SUITES),
                       ("executors", EXECUTORS)):
        print(f"{title}: {', '.join(reg.names())}")
    print("datasets also: any BEIR or MS MARCO-style folder, irds:<id>, trec:corpus=..,topics=..,qrels=..")
    print("models also: any local Hugging Face / sentence-transformers folder")
    return 0
