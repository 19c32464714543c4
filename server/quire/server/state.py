"""What every service shares for the life of the process."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from quire.server.auth import KeyVerifier
from quire.server.config import Settings


@dataclass
class AppState:
    settings: Settings
    pool: asyncpg.Pool
    verifier: KeyVerifier
