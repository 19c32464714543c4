"""Session consistency with read replicas: the highest consistency token a client has seen.

A Quire server with read replicas answers every write with response metadata
`quire-consistency-token` (the primary's WAL position after the write, e.g. `0/16B3748`), and a
read sent with such a token is served only by a database node that has caught up to it. A
client remembers the highest token any response carried and sends it on every read, so it
always reads its own writes (and never an older state than one it has read). Servers without
replicas send no token, and a client then sends none.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable
from typing import Any

TOKEN_KEY = "quire-consistency-token"
_TOKEN = re.compile(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})")


def token_position(token: str) -> int:
    """A token's WAL position, to compare tokens; ValueError for anything else."""
    match = _TOKEN.fullmatch(token.strip())
    if match is None:
        raise ValueError(f"not a Quire consistency token: {token[:40]!r}")
    return (int(match[1], 16) << 32) | int(match[2], 16)


class ConsistencyTokens:
    """The highest token seen by one client (shared by its threads or tasks).

    `enabled=False` turns session consistency off: nothing is remembered or sent, and reads
    go to whichever replica is healthy, possibly a little behind the client's own writes."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._lock = threading.Lock()
        self._token: str | None = None
        self._position = -1

    @property
    def current(self) -> str | None:
        """The highest token seen (or set), None before any."""
        return self._token

    def advance(self, token: str) -> None:
        """Remembers `token` if it is past the current one (e.g. a token another process
        handed over); ValueError if it is not a token."""
        position = token_position(token)
        with self._lock:
            if position > self._position:
                self._position, self._token = position, token.strip()

    def observe_token(self, token: str) -> None:
        """Takes a token a message carried (WatchDocumentsResponse.consistency_token): an
        empty or malformed one is ignored, as a server without replicas sends none."""
        if not self.enabled or not token:
            return
        with contextlib.suppress(ValueError):  # a server bug must not fail the caller's call
            self.advance(token)

    def observe(self, metadata: Iterable[tuple[str, Any]] | None) -> None:
        """Takes the token from a response's metadata, if it carries one."""
        for key, value in metadata or ():
            if key == TOKEN_KEY:
                self.observe_token(value.decode() if isinstance(value, bytes) else str(value))
                return

    def request_metadata(self) -> tuple[tuple[str, str], ...]:
        """What a read sends: the highest token seen, if any."""
        if not self.enabled or self._token is None:
            return ()
        return ((TOKEN_KEY, self._token),)


__all__ = ["TOKEN_KEY", "ConsistencyTokens", "token_position"]
