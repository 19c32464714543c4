"""Where Quire keeps its local state: the embedded database, prepared models, the dev key."""

from __future__ import annotations

import os
from pathlib import Path


def quire_home() -> Path:
    """`$QUIRE_HOME`, default `~/.local/share/quire`; created on first use."""
    raw = os.environ.get("QUIRE_HOME")
    home = Path(raw).expanduser() if raw else Path.home() / ".local" / "share" / "quire"
    home.mkdir(parents=True, exist_ok=True)
    return home


def models_dir() -> Path:
    path = quire_home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path
