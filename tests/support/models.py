"""Prepared embedding models for tests: a model other than the default is prepared by
`make model` (`quire model prepare --model <name>`); a test run without it skips, saying what to
run, rather than downloading during the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.indexer.home import models_dir
from quire.indexer.model_prepare import is_prepared

# The two models tests use: the default, and the one `make model` also prepares.
MINILM = "all-minilm-l6-v2"
BGE = "bge-small-en-v1.5"


def prepared_or_skip(name: str) -> Path:
    directory = models_dir() / name
    if not is_prepared(directory):
        pytest.skip(f"model {name} is not prepared: run `quire model prepare --model {name}`")
    return directory
