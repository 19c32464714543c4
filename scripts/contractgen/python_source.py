"""Generated Python modules pass `ruff format --check` like hand-written ones: the generator
writes plain code and lets ruff lay it out (with the repository's settings)."""

from __future__ import annotations

import subprocess
import sys

from scripts.contractgen.contract import ROOT


def formatted(source: str, path: str) -> str:
    """`source` as `ruff format` lays out the file at `path` (relative to the root)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", path, "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return done.stdout
