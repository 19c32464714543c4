"""Where the large shared data sets are: `../shared` beside the repository (as in CI), or the
directory in QUIRE_SHARED_ROOT. Tests (through tests/conftest.py) and benchmarks
(benchmarks/_harness.py) read the location only from here.

The repository's tests pass without it: the small fixtures under tests/fixtures/ cover every
behaviour, and the shared data adds the `large_data` tests (docs/operations.md, "Tests and
their data").
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENV = "QUIRE_SHARED_ROOT"
SHARED = Path(os.environ.get(ENV) or REPO.parent / "shared").resolve()
# What `shared_or_skip` says when the data is missing; the skip guard (tests/support/
# skip_guard.py) recognises these skips by it.
ABSENT = "large data absent"
