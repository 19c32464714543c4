"""`quire agents ls|show|create|attach|detach|rm`: the agents `quire search --agent` and the
agent tools search through. An agent is a name and the collections attached to it; attach and
detach read the agent, change its list and write it back with UpsertAgent."""

from __future__ import annotations

import argparse

from rich.console import Console

from quire.client import AsyncQuireClient
from quire.client.cli import connection, exit_codes
from quire.client.cli.collections import names, resolve
from quire.client.cli.output import Output, as_dict, pairs, table
from quire.client.cli.runner import confirm, run
from quire.v1 import knowledge_pb2


def _agent_data(agent: knowledge_pb2.Agent, by_id: dict[str, str]) -> dict[str, object]:
    data = as_dict(agent)
    data["attached_collection_names"] = [by_id.get(c, "") for c in agent.attached_collection_ids]
    return data


def _attached(agent: knowledge_pb2.Agent, by_id: dict[str, str]) -> str:
    # A deleted collection stays in the list (searches skip it); it shows by id.
    return ", ".join(by_id.get(c, f"{c} (deleted)") for c in agent.attached_collection_ids)


def _show(output: Output, agent: knowledge_pb2.Agent, by_id: dict[str, str]) -> None:
    def render(console: Console) -> None:
        rows = [
            ("collections", _attached(agent, by_id) or "none"),
            ("config version", agent.config_version),
        ]
        console.print(pairs(f"agent {agent.agent_id}", rows))

    output.result({"agent": _agent_data(agent, by_id)}, render)


async def _collection_ids(client: AsyncQuireClient, refs: list[str]) -> list[str]:
    return [(await resolve(client, ref)).collection_id for ref in refs]


async def cmd_ls(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    agents = [a async for a in client.iter_agents()]
    by_id = await names(client)

    def render(console: Console) -> None:
        rows = [(a.agent_id, _attached(a, by_id), a.config_version) for a in agents]
        console.print(table(None, ["agent", "collections", "config version"], rows))

    output.result({"agents": [_agent_data(a, by_id) for a in agents]}, render)
    return exit_codes.OK


async def cmd_show(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    _show(output, await client.get_agent(agent_id=args.agent), await names(client))
    return exit_codes.OK


async def cmd_create(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    """Creates the agent, or replaces an existing one's attachments with the given ones."""
    ids = await _collection_ids(client, args.collection or [])
    agent = await client.upsert_agent(agent_id=args.agent, attached_collection_ids=ids)
    _show(output, agent, await names(client))
    return exit_codes.OK


async def cmd_attach(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    current = await client.get_agent(agent_id=args.agent)
    ids = list(
        dict.fromkeys(
            [*current.attached_collection_ids, *await _collection_ids(client, args.collection)]
        )
    )
    agent = await client.upsert_agent(agent_id=args.agent, attached_collection_ids=ids)
    _show(output, agent, await names(client))
    return exit_codes.OK


async def cmd_detach(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    current = await client.get_agent(agent_id=args.agent)
    gone = set(await _collection_ids(client, args.collection))
    ids = [c for c in current.attached_collection_ids if c not in gone]
    agent = await client.upsert_agent(agent_id=args.agent, attached_collection_ids=ids)
    _show(output, agent, await names(client))
    return exit_codes.OK


async def cmd_rm(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    agent = await client.get_agent(agent_id=args.agent)
    confirm(f'Delete agent "{agent.agent_id}" (its collections stay)?', args.yes)
    deleted = await client.delete_agent(agent_id=args.agent)
    by_id = await names(client)

    def render(console: Console) -> None:
        attached = _attached(deleted, by_id)
        console.print(
            f'deleted agent "{deleted.agent_id}"'
            + (f" (its collections stay: {attached})" if attached else ""),
            markup=False,
        )

    output.result({"deleted": _agent_data(deleted, by_id)}, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shared = connection.flags()
    parser = sub.add_parser(
        "agents", help="the agents that `quire search --agent` and the agent tools search"
    )
    actions = parser.add_subparsers(dest="agents_command", required=True, metavar="ACTION")

    ls = actions.add_parser("ls", parents=[shared], help="the organisation's agents")
    ls.set_defaults(func=run(cmd_ls))

    show = actions.add_parser("show", parents=[shared], help="one agent and its collections")
    show.add_argument("agent", help="the agent's id")
    show.set_defaults(func=run(cmd_show))

    create = actions.add_parser(
        "create",
        parents=[shared],
        help="create an agent searching the given collections (an existing agent's "
        "collections are replaced)",
    )
    create.add_argument("agent", help="the agent's id: 1–128 characters of [A-Za-z0-9._:-]")
    create.add_argument(
        "--collection", action="append", help="collection id or name to attach; repeatable"
    )
    create.set_defaults(func=run(cmd_create))

    for name, func, verb in (("attach", cmd_attach, "add"), ("detach", cmd_detach, "remove")):
        action = actions.add_parser(
            name, parents=[shared], help=f"{verb} collections of an existing agent"
        )
        action.add_argument("agent", help="the agent's id")
        action.add_argument(
            "--collection", action="append", required=True, help="collection id or name; repeatable"
        )
        action.set_defaults(func=run(func))

    rm = actions.add_parser("rm", parents=[shared], help="delete an agent (its collections stay)")
    rm.add_argument("agent", help="the agent's id")
    rm.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    rm.set_defaults(func=run(cmd_rm))


__all__ = ["register"]
