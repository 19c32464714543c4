"""`quire search QUERY --agent A | --collection C [--mode M]`: SearchKnowledge over collections.

Without `--mode` the organisation's retrieval policy picks the mode; with it, this one call uses
the named mode (the kill switch still forces LEGACY_FTS). The mode that served the hits is
shown with them.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console

from quire.client import AsyncQuireClient
from quire.client.cli import connection, exit_codes
from quire.client.cli.collections import names, resolve
from quire.client.cli.output import Output, as_dict, highlighted, plain_rows, table
from quire.client.cli.runner import run
from quire.v1 import knowledge_pb2

# The serving modes, by their names without the enum prefix (UNSPECIFIED is not one).
MODES = tuple(
    name.removeprefix("RETRIEVAL_MODE_")
    for name, _ in knowledge_pb2.RetrievalMode.items()
    if name != "RETRIEVAL_MODE_UNSPECIFIED"
)


async def cmd_search(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    collection_ids = [(await resolve(client, ref)).collection_id for ref in args.collection or []]
    started = time.perf_counter()
    reply = await client.search_knowledge(
        query=args.query,
        agent_id=args.agent,
        collection_ids=collection_ids,
        limit=args.limit,
        mode=None
        if args.mode is None
        else knowledge_pb2.RetrievalMode.Value(f"RETRIEVAL_MODE_{args.mode}"),
    )
    took_ms = (time.perf_counter() - started) * 1000
    mode = knowledge_pb2.RetrievalMode.Name(reply.mode).removeprefix("RETRIEVAL_MODE_")
    # Hits carry collection ids; one file in two collections is two hits, told apart by name.
    collection_names = await names(client) if reply.hits else {}
    data = as_dict(reply) | {"latency_ms": round(took_ms, 1)}
    for hit in data.get("hits", []):
        hit["collection_name"] = collection_names.get(hit["collection_id"], "")
    columns = ["#", "score", "collection", "file", "section", "snippet"]
    rows = [
        (
            h.rank,
            f"{h.score:.4f}",
            collection_names.get(h.collection_id, h.collection_id),
            h.file_name,
            " › ".join(h.heading_path),
            highlighted(h.snippet, plain=args.plain),
        )
        for h in reply.hits
    ]

    def render(console: Console) -> None:
        if args.plain:
            # Written as is: rich would expand the tabs into spaces.
            console.file.write(plain_rows(columns, rows) + "\n")
            return
        title = f"{len(reply.hits)} hits, mode {mode}, {took_ms:.0f} ms" + (
            " (cached)" if reply.cached else ""
        )
        console.print(table(title, columns, rows))

    output.result(data, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "search",
        parents=[connection.flags()],
        help="search an agent's collections, or the named ones",
    )
    parser.add_argument("query")
    scope = parser.add_mutually_exclusive_group(required=True)
    scope.add_argument("--agent", help="search this agent's attached collections")
    scope.add_argument("--collection", action="append", help="collection id or name; repeatable")
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="hits, from 1 to your organisation's bound (default 8, or the bound if lower; "
        "`quire whoami` shows the bound, an admin raises it with `quire policy set`)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="tab-separated lines without styling; highlight marks removed",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        help="retrieval mode of this call (default: the organisation's policy)",
    )
    parser.set_defaults(func=run(cmd_search))


__all__ = ["register"]
