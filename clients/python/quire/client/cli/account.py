"""`quire whoami`, `quire keys ls` and `quire policy show|set`: who a key is, the
organisation's keys, and the retrieval policy that bounds its searches."""

from __future__ import annotations

import argparse
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from rich.console import Console

from quire.client import AsyncQuireClient
from quire.client.cli import connection, exit_codes
from quire.client.cli.output import Output, as_dict, pairs, table
from quire.client.cli.runner import run
from quire.v1 import admin_pb2, knowledge_pb2

# The contract's ceiling for max_search_limit (SetRetrievalPolicyRequest).
MOST_SEARCH_LIMIT = 50


def scope_names(scopes: Any) -> list[str]:
    """`[SCOPE_READ, SCOPE_WRITE]` → `["read", "write"]`."""
    return [admin_pb2.Scope.Name(s).removeprefix("SCOPE_").lower() for s in scopes]


def _mode(mode: int) -> str:
    return knowledge_pb2.RetrievalMode.Name(mode).removeprefix("RETRIEVAL_MODE_")  # type: ignore[arg-type]


def _when(stamp: Timestamp, present: bool = True) -> str:
    if not present:
        return "never"
    return stamp.ToDatetime().astimezone().strftime("%Y-%m-%d %H:%M %Z")


def _key_data(key: admin_pb2.ApiKey) -> dict[str, Any]:
    data = as_dict(key)
    data.pop("secret", None)  # always empty here; left out so no one looks for it
    data["scopes"] = scope_names(key.scopes)
    return data


def _policy_rows(policy: admin_pb2.RetrievalPolicy) -> list[tuple[str, Any]]:
    return [
        (
            "search limit",
            f"at most {policy.max_search_limit} hits per search "
            f"(an admin raises it, up to {MOST_SEARCH_LIMIT}, with `quire policy set`)",
        ),
        (
            "retrieval mode",
            _mode(policy.effective_mode)
            + (" (kill switch engaged)" if policy.kill_switch_engaged else "")
            + ("" if policy.mode else " (the deployment's default)"),
        ),
    ]


async def cmd_whoami(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    me = await client.who_am_i()
    data = {
        "organisation": me.organisation,
        "key": _key_data(me.key),
        "policy": as_dict(me.policy),
        "max_concurrent_calls": me.max_concurrent_calls,
        "address": args.address,
    }

    def render(console: Console) -> None:
        rows: list[tuple[str, Any]] = [
            ("organisation", me.organisation),
            ("key id", me.key.key_id + (f" ({me.key.name})" if me.key.name else "")),
            ("scopes", ", ".join(scope_names(me.key.scopes))),
            ("server", args.address),
            *_policy_rows(me.policy),
            ("concurrent calls", f"at most {me.max_concurrent_calls} per server process"),
        ]
        console.print(pairs(None, rows))

    output.result(data, render)
    return exit_codes.OK


async def cmd_keys_ls(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    reply = await client.list_api_keys()

    def render(console: Console) -> None:
        rows = [
            (
                k.key_id,
                k.name,
                ", ".join(scope_names(k.scopes)),
                _when(k.created_at),
                _when(k.last_used_at, k.HasField("last_used_at")),
            )
            for k in reply.keys
        ]
        title = f"{len(reply.keys)} keys" + (" (only the newest)" if reply.truncated else "")
        console.print(table(title, ["key id", "name", "scopes", "created", "last used"], rows))

    output.result(
        {"keys": [_key_data(k) for k in reply.keys], "truncated": reply.truncated}, render
    )
    return exit_codes.OK


async def cmd_policy(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    if args.policy_command == "set":
        policy = await client.set_retrieval_policy(
            mode=args.mode, max_search_limit=args.max_search_limit, reset=args.reset
        )
    else:
        policy = await client.get_retrieval_policy()

    def render(console: Console) -> None:
        console.print(pairs("Retrieval policy", _policy_rows(policy)))

    output.result({"policy": as_dict(policy)}, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    whoami = sub.add_parser(
        "whoami",
        parents=[connection.flags()],
        help="the key's organisation, id and scopes, and the limits its calls are held to",
    )
    whoami.set_defaults(func=run(cmd_whoami))

    policy = sub.add_parser(
        "policy", help="the organisation's retrieval policy: search limit and mode (admin)"
    )
    actions = policy.add_subparsers(dest="policy_command", required=True, metavar="ACTION")
    show = actions.add_parser("show", parents=[connection.flags()], help="the current policy")
    show.set_defaults(func=run(cmd_policy))
    modes = [
        name.removeprefix("RETRIEVAL_MODE_")
        for name, _ in knowledge_pb2.RetrievalMode.items()
        if name != "RETRIEVAL_MODE_UNSPECIFIED"
    ]
    change = actions.add_parser("set", parents=[connection.flags()], help="change the policy")
    change.add_argument(
        "--max-search-limit",
        type=int,
        metavar="N",
        help=f"the most hits a search may ask for, 1–{MOST_SEARCH_LIMIT}",
    )
    change.add_argument("--mode", choices=modes, help="the organisation's retrieval mode")
    change.add_argument(
        "--reset",
        action="store_true",
        help="first return to the defaults (the deployment's mode, limit 8)",
    )
    change.set_defaults(func=run(cmd_policy))


def extend_keys(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ls = actions.add_parser(
        "ls",
        parents=[connection.flags()],
        help="the organisation's keys: ids, names, scopes, created, last used; never secrets "
        "(over the network; needs scope admin)",
    )
    ls.set_defaults(func=run(cmd_keys_ls))


__all__ = ["extend_keys", "register", "scope_names"]
