"""The `quire` command line (`pip install 'quire-client[cli]'`): the network commands, which
talk to a running server through this client, so they work against any deployment. The server
package (quire-server) adds its own commands (`up`, `serve`, `worker`, …) to the same `quire`
through the entry-point group named in `extensions`.

This module stays light (no rich, no argparse set-up): the `quire` script of a client installed
without the `cli` extra starts here and says what to install.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from quire.client.cli.command_line import main as run
    except ModuleNotFoundError as exc:
        if exc.name != "rich":
            raise
        print(
            "quire: the command line needs the client's cli extra: pip install 'quire-client[cli]'",
            file=sys.stderr,
        )
        return 2
    return run(argv)


__all__ = ["main"]
