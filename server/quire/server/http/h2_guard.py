"""A guard for a connection-killing bug in Hypercorn's HTTP/2 protocol (0.18 and earlier).

When a response ends before the client has sent all of its request body, Hypercorn forgets the
stream; a DATA frame that then arrives for it raises KeyError out of
`H2Protocol._handle_events` and the whole connection dies, with every other call on it. For
Connect this is routine, not rare: a stream refused before its request is read (no key, bidi
over a closed request) ends first, and a client's closing DATA frame follows. Hypercorn already
ignores END_STREAM for a forgotten stream; the open upstream pull requests (pgjones/hypercorn
#312, #334, #365) add the same for DATA. Until a release has it, `install()` does that here:
DATA for a forgotten stream is acknowledged for flow control and dropped.
"""

from __future__ import annotations

from typing import Any

import h2.events
from hypercorn.protocol.h2 import H2Protocol

_installed = False


def install() -> None:
    """Wraps `H2Protocol._handle_events` once per process."""
    global _installed
    if _installed:
        return
    _installed = True
    handle_events = H2Protocol._handle_events

    async def guarded(self: Any, events: list[h2.events.Event]) -> None:
        for event in events:  # one at a time: a stream may end between two events of a batch
            if isinstance(event, h2.events.DataReceived) and event.stream_id not in self.streams:
                # The connection's flow-control window still counts these bytes.
                self.connection.acknowledge_received_data(
                    event.flow_controlled_length, event.stream_id
                )
                await self._flush()
            else:
                await handle_events(self, [event])

    H2Protocol._handle_events = guarded  # type: ignore[method-assign]
