"""The network commands of `quire`: they talk to a running server through the Python client
(quire.client), so they work against any deployment. cli.py registers them with `register`."""

from __future__ import annotations

import argparse

from quire.server.cli_commands import account, admin, agents, collections, docs, pages, search


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pages.register(sub)
    docs.register(sub)
    search.register(sub)
    collections.register(sub)
    agents.register(sub)
    account.register(sub)
    admin.register(sub)


__all__ = ["register"]
