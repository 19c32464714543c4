"""`quire keys revoke`, `quire gate status`, `quire index status|rebuild|rollback`: the
admin commands that run over the network (`quire keys ls` is in account.py).

`quire keys create` and `quire gate run` (the server package's quire.server.cli) work on the
local database directly; they are added to the `keys` and `gate` groups made here.
`quire keys revoke` goes through RevokeApiKey and needs a key with scope admin.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console

from quire.client import AsyncQuireClient
from quire.client.cli import account, connection, exit_codes
from quire.client.cli.collections import resolve
from quire.client.cli.extensions import Actions
from quire.client.cli.output import Output, as_dict, pairs, table
from quire.client.cli.runner import run
from quire.v1 import knowledge_pb2


async def cmd_keys_revoke(
    client: AsyncQuireClient, args: argparse.Namespace, output: Output
) -> int:
    await client.revoke_api_key(key_id=args.key_id)
    output.result(
        {"key_id": args.key_id, "revoked": True},
        lambda console: console.print(f"revoked key {args.key_id}"),
    )
    return exit_codes.OK


async def cmd_gate_status(
    client: AsyncQuireClient, args: argparse.Namespace, output: Output
) -> int:
    reply = await client.get_gate_status()

    def render(console: Console) -> None:
        result = reply.result
        has = reply.HasField("result")
        console.print(
            pairs(
                "Gate",
                [
                    ("current fingerprint", reply.current_fingerprint),
                    ("result", ("passed" if result.passed else "failed") if has else "none yet"),
                    ("data set", f"{result.dataset} ({result.split})" if has else ""),
                    (
                        "queries / documents",
                        f"{result.queries} / {result.documents}" if has else "",
                    ),
                ],
            )
        )
        if has:
            rows = [
                (
                    m.label or knowledge_pb2.RetrievalMode.Name(m.mode),
                    f"{m.ndcg_at_10:.4f}",
                    f"{m.recall_at_10:.4f}",
                    f"{m.recall_at_100:.4f}",
                    f"{m.mrr_at_10:.4f}",
                )
                for m in result.metrics
            ]
            console.print(table(None, ["mode", "nDCG@10", "R@10", "R@100", "MRR@10"], rows))

    output.result(as_dict(reply), render)
    return exit_codes.OK


def _render_index(status: knowledge_pb2.IndexStatus) -> Callable[[Console], None]:
    def render(console: Console) -> None:
        rows = [
            (
                g.generation,
                knowledge_pb2.GenerationState.Name(g.state).removeprefix("GENERATION_STATE_"),
                f"{g.documents_indexed}/{g.documents_total}",
                g.embedding_model,
                g.text_analysis,
                g.index_version,
                g.fingerprint[:12],
                g.error,
            )
            for g in status.generations
        ]
        title = (
            f"serving {status.serving_generation or 'none'} ({status.embedding_model}), "
            f"building {status.building_generation or 'none'}"
        )
        columns = [
            "generation",
            "state",
            "indexed",
            "model",
            "text",
            "version",
            "fingerprint",
            "error",
        ]
        console.print(table(title, columns, rows))

    return render


async def cmd_index(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    """`status`, `rebuild` or `rollback`, each answered with the collection's IndexStatus."""
    collection_id = (await resolve(client, args.collection)).collection_id
    if args.index_command == "rebuild":
        status = await client.rebuild_index(
            collection_id=collection_id,
            index_version=args.index_version,
            embedding_model=args.model,
        )
    elif args.index_command == "rollback":
        status = await client.rollback_index(collection_id=collection_id)
    else:
        status = await client.get_index_status(collection_id=collection_id)
    output.result(as_dict(status), _render_index(status))
    return exit_codes.OK


def register(sub: Actions) -> dict[str, Actions]:
    """`keys`, `gate` and `index`; returns the `keys` and `gate` groups, to which the server
    package adds its local actions (`keys create`, `gate run`)."""
    keys = sub.add_parser("keys", help="manage API keys")
    keys_actions = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    _add_key_actions(keys_actions)
    gate = sub.add_parser("gate", help="the FTS baseline gate")
    gate_actions = gate.add_subparsers(dest="gate_command", required=True, metavar="ACTION")
    _add_gate_actions(gate_actions)

    shared = connection.flags()
    index = sub.add_parser("index", help="a collection's index generations")
    actions = index.add_subparsers(dest="index_command", required=True, metavar="ACTION")
    status = actions.add_parser("status", parents=[shared], help="the generations")
    status.add_argument("--collection", required=True, help="collection id or name")
    status.set_defaults(func=run(cmd_index))
    rebuild = actions.add_parser(
        "rebuild", parents=[shared], help="build a new generation beside the serving one"
    )
    rebuild.add_argument("--collection", required=True, help="collection id or name")
    rebuild.add_argument("--index-version", help="(default: the serving generation's)")
    rebuild.add_argument(
        "--model",
        help="embedding model of the new generation (`quire models`; default: the serving "
        "generation's); it serves once built, `quire index rollback` goes back",
    )
    rebuild.set_defaults(func=run(cmd_index))
    rollback = actions.add_parser(
        "rollback", parents=[shared], help="serve the newest retired generation again"
    )
    rollback.add_argument("--collection", required=True, help="collection id or name")
    rollback.set_defaults(func=run(cmd_index))
    return {"keys": keys_actions, "gate": gate_actions}


def _add_key_actions(actions: Actions) -> None:
    account.extend_keys(actions)
    revoke = actions.add_parser(
        "revoke", parents=[connection.flags()], help="revoke a key by id (over the network)"
    )
    revoke.add_argument("key_id")
    revoke.set_defaults(func=run(cmd_keys_revoke))


def _add_gate_actions(actions: Actions) -> None:
    status = actions.add_parser(
        "status",
        parents=[connection.flags()],
        help="the gate result for the server's current fingerprint (over the network)",
    )
    status.set_defaults(func=run(cmd_gate_status))


__all__ = ["register"]
