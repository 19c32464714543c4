"""`quire collections ls|create|show|rm`, and how every command finds a collection by id or name."""

from __future__ import annotations

import argparse
import uuid

from rich.console import Console

from quire.client import AsyncQuireClient, CollectionNotFound
from quire.client.cli import connection, exit_codes
from quire.client.cli.output import Output, as_dict, pairs, table
from quire.client.cli.runner import confirm, run
from quire.v1 import knowledge_pb2


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


async def resolve(
    client: AsyncQuireClient, ref: str, *, create: bool = False
) -> knowledge_pb2.Collection:
    """The collection whose id or name is `ref`; with `create`, a new one named `ref` when no
    collection has that name."""
    if _is_uuid(ref):
        try:
            return await client.get_collection(collection_id=ref)
        except CollectionNotFound:
            raise CollectionNotFound(f'collection "{ref}" not found') from None
    for collection in await client.list_collections():
        if collection.name == ref:
            return collection
    if create:
        return await client.create_collection(name=ref)
    raise CollectionNotFound(f'collection "{ref}" not found (no collection has that name or id)')


async def names(client: AsyncQuireClient) -> dict[str, str]:
    """Every collection's name by id."""
    return {c.collection_id: c.name for c in await client.list_collections()}


def _rows(collections: list[knowledge_pb2.Collection]) -> list[list[object]]:
    return [
        [
            c.name,
            c.collection_id,
            c.document_count,
            c.serving_generation,
            c.revision,
            c.embedding_model,
        ]
        for c in collections
    ]


_COLUMNS = ["name", "id", "documents", "serving generation", "revision", "model"]


async def cmd_ls(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    collections = await client.list_collections()

    def render(console: Console) -> None:
        console.print(table(None, _COLUMNS, _rows(collections)))

    output.result({"collections": [as_dict(c) for c in collections]}, render)
    return exit_codes.OK


def _show(output: Output, collection: knowledge_pb2.Collection) -> None:
    def render(console: Console) -> None:
        console.print(pairs(collection.name, zip(_COLUMNS, _rows([collection])[0], strict=True)))

    output.result({"collection": as_dict(collection)}, render)


async def cmd_create(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    _show(output, await client.create_collection(name=args.name, embedding_model=args.model))
    return exit_codes.OK


async def cmd_models(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    listed = await client.list_models()
    columns = ["name", "dimensions", "max tokens", "prepared", "loaded", "default"]
    rows: list[list[object]] = [
        [m.name, m.dimensions, m.max_tokens, m.prepared, m.loaded, m.is_default] for m in listed
    ]

    def render(console: Console) -> None:
        console.print(table(None, columns, rows))

    output.result({"models": [as_dict(m) for m in listed]}, render)
    return exit_codes.OK


async def cmd_show(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    _show(output, await resolve(client, args.collection))
    return exit_codes.OK


async def cmd_rm(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    collection = await resolve(client, args.collection)
    confirm(
        f'Delete collection "{collection.name}" ({collection.collection_id}) and its '
        f"{collection.document_count} documents?",
        args.yes,
    )
    deleted = await client.delete_collection(collection_id=collection.collection_id)

    def render(console: Console) -> None:
        console.print(
            f'deleted collection "{deleted.name}" ({deleted.collection_id}) and its '
            f"{collection.document_count} documents",
            markup=False,
        )

    output.result({"deleted": as_dict(deleted)}, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shared = connection.flags()
    models = sub.add_parser(
        "models", parents=[shared], help="the server's embedding models (ListModels)"
    )
    models.set_defaults(func=run(cmd_models))
    parser = sub.add_parser("collections", help="list, create, show and delete collections")
    actions = parser.add_subparsers(dest="collections_command", required=True, metavar="ACTION")
    ls = actions.add_parser("ls", parents=[shared], help="the organisation's collections")
    ls.set_defaults(func=run(cmd_ls))
    create = actions.add_parser("create", parents=[shared], help="create a collection")
    create.add_argument("name")
    create.add_argument(
        "--model",
        default="",
        help="the embedding model, fixed for the collection's life (default: the server's "
        "default; `quire models` lists them)",
    )
    create.set_defaults(func=run(cmd_create))
    show = actions.add_parser("show", parents=[shared], help="one collection, by id or name")
    show.add_argument("collection")
    show.set_defaults(func=run(cmd_show))
    rm = actions.add_parser(
        "rm", parents=[shared], help="delete a collection and its documents, by id or name"
    )
    rm.add_argument("collection")
    rm.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    rm.set_defaults(func=run(cmd_rm))


__all__ = ["names", "register", "resolve"]
