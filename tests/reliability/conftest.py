"""Fixtures shared by the reliability suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import TEST_HOME
from tests.reliability._support import InputCounts


@pytest.fixture(scope="module")
def input_counts(request: pytest.FixtureRequest) -> Iterator[InputCounts]:
    """Counts a module's bad inputs per RPC; written when the module finishes."""
    counts = InputCounts(request.module.__name__.rsplit(".", 1)[-1], TEST_HOME)
    yield counts
    counts.write()
