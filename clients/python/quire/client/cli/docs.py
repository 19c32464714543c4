"""`quire docs upload|ls|status|read`: a collection's documents."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress, TaskID

from quire.client import AsyncQuireClient, CollectionNotFound, DocumentNotFound
from quire.client.cli import connection, exit_codes, upload, upload_files
from quire.client.cli.collections import resolve
from quire.client.cli.output import Output, as_dict, pairs, rate, table
from quire.client.cli.runner import explain, run
from quire.v1 import knowledge_pb2

_MIB = 1024 * 1024


def _status(doc: knowledge_pb2.Document) -> str:
    name = knowledge_pb2.DocumentStatus.Name(doc.status).removeprefix("DOCUMENT_STATUS_")
    return "READY (no text)" if doc.extract_error == upload.NO_TEXT else name


# ------------------------------------------------------------------ upload


class _Bar:
    """One progress task with its own rate (files/s) next to rich's ETA."""

    def __init__(self, progress: Progress, label: str, total: int) -> None:
        self.progress = progress
        self.started = time.perf_counter()
        self.done = 0
        self.task: TaskID = progress.add_task(label, total=total, rate="", detail="")

    def tick(self, detail: str) -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.started
        self.progress.update(
            self.task, advance=1, rate=rate(self.done, elapsed, "files"), detail=detail[:40]
        )


def _summary(
    run: upload.Run, collection: knowledge_pb2.Collection | str, waited: bool, address: str
) -> dict[str, Any]:
    """`collection` is the name asked for when nothing was sent and no such collection exists
    (none is created then): its id is null."""
    actions = Counter(item.action for item in run.items)
    ready = [i for i in run.items if i.status == "DOCUMENT_STATUS_READY"]
    if isinstance(collection, str):
        collection_id, name = None, collection
    else:
        collection_id, name = collection.collection_id, collection.name
    return {
        "collection_id": collection_id,
        "collection": name,
        "files": len(run.items),
        "uploaded": actions["uploaded"],
        "replaced": actions["replaced"],
        "skipped_unchanged": actions["skipped"],
        "failed": len(run.failed()),
        "waited": waited,
        "ready": len(ready),
        "no_text": sum(1 for i in ready if i.extract_error == upload.NO_TEXT),
        "uploaded_bytes": run.uploaded_bytes,
        "upload_seconds": round(run.upload_seconds, 3),
        "wait_seconds": round(run.wait_seconds, 3),
        "serving_generation": run.index.serving_generation if run.index else None,
        "stopped": explain(run.stopped_by, address) if run.stopped_by else None,
        "failures": [
            {"file": upload.shown(i.path), "stage": i.stage, "reason": i.reason}
            for i in run.failed()
        ],
        "documents": [
            {
                "file": upload.shown(i.path),
                "document_id": i.document_id,
                "action": i.action,
                "status": i.status,
                "extract_error": i.extract_error,
            }
            for i in run.items
            if i.document_id
        ],
    }


def _render_summary(summary: dict[str, Any]) -> Any:
    def render(console: Console) -> None:
        seconds = summary["upload_seconds"]
        moved = summary["uploaded"] + summary["replaced"]
        created = summary["collection_id"] is not None
        rows = [
            (
                "collection",
                f"{summary['collection']} ({summary['collection_id']})"
                if created
                else f"{summary['collection']} (not created: no file to upload)",
            ),
            ("files", summary["files"]),
            ("uploaded", summary["uploaded"]),
            ("replaced (changed)", summary["replaced"]),
            ("skipped (unchanged)", summary["skipped_unchanged"]),
            ("failed", summary["failed"]),
            (
                "upload time",
                f"{seconds:.1f} s, {summary['uploaded_bytes'] / _MIB:.1f} MiB"
                + (f", {rate(moved, seconds, 'files')}" if moved else ""),
            ),
        ]
        if summary["waited"]:
            rows += [
                ("ready", f"{summary['ready']} (of which no text: {summary['no_text']})"),
                ("wait time", f"{summary['wait_seconds']:.1f} s"),
                ("serving generation", summary["serving_generation"]),
            ]
        console.print(pairs("Upload", rows))
        if summary["failures"]:
            console.print(
                table(
                    "Failures",
                    ["file", "stage", "reason"],
                    [(f["file"], f["stage"], f["reason"]) for f in summary["failures"]],
                )
            )

    return render


async def cmd_upload(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    found = upload_files.find(args.paths)
    items = upload.plan(found.files)
    for argument, reason in found.missing:
        items.append(
            upload.Item(
                path=Path(argument), name=argument, action="failed", stage="find", reason=reason
            )
        )
    run = upload.Run(collection_id="", items=items)
    # A run with no file to send creates nothing: it only reports what it could not use.
    if not run.to_send():
        try:
            collection: knowledge_pb2.Collection | str = await resolve(client, args.collection)
        except CollectionNotFound:
            collection = args.collection
    else:
        collection = await resolve(client, args.collection, create=True)
    if not isinstance(collection, str):
        run.collection_id = collection.collection_id
        run.remote = await upload.existing(client, collection.collection_id)
    waited = False
    with output.progress() as progress:
        sent = _Bar(progress, "upload", len(items))
        await upload.upload_all(
            client, run, args.concurrency, lambda item: sent.tick(upload.shown(item.name))
        )
        if run.stopped_by is None and not args.no_wait and run.collection_id:
            waited = True
            started = time.perf_counter()
            pending = upload.waiting(run)
            if pending:
                extracted = _Bar(progress, "extract", len(pending))
                await upload.wait_extracted(
                    client, run, pending, lambda item: extracted.tick(upload.shown(item.name))
                )
            if any(i.status == "DOCUMENT_STATUS_READY" for i in run.items):
                index = progress.add_task("index", total=None, rate="", detail="")

                def show(status: knowledge_pb2.IndexStatus) -> None:
                    building = [
                        g for g in status.generations if g.generation == status.building_generation
                    ]
                    if building:
                        g = building[0]
                        progress.update(
                            index,
                            total=g.documents_total or None,
                            completed=g.documents_indexed,
                            detail=f"building generation {g.generation}",
                        )
                    else:
                        progress.update(
                            index,
                            total=1,
                            completed=1,
                            detail=f"serving generation {status.serving_generation}",
                        )

                await upload.wait_indexed(client, run, show)
            run.wait_seconds = time.perf_counter() - started
    summary = _summary(run, collection, waited, args.address)
    output.result(summary, _render_summary(summary))
    if run.stopped_by is not None:
        done = sum(1 for i in run.items if i.action in {"uploaded", "replaced", "skipped"})
        output.note(
            f"quire: stopped after {done} of {len(items)} files: "
            f"{explain(run.stopped_by, args.address)}. Files not yet sent were not stored; "
            "run the same command again to resume (unchanged files are skipped)."
        )
        return exit_codes.for_error(run.stopped_by)
    return exit_codes.PARTLY_FAILED if run.failed() else exit_codes.OK


# ------------------------------------------------------------------ ls / status / read


async def _documents(client: AsyncQuireClient, collection_id: str) -> list[knowledge_pb2.Document]:
    return [d async for d in client.iter_documents(collection_id=collection_id, page_size=500)]


def _doc_rows(docs: list[knowledge_pb2.Document]) -> list[list[object]]:
    return [
        [
            d.file_name,
            d.document_id,
            _status(d),
            d.size_bytes,
            d.text_length,
            d.extract_error if d.status == knowledge_pb2.DOCUMENT_STATUS_FAILED else "",
        ]
        for d in docs
    ]


_DOC_COLUMNS = ["file", "id", "status", "bytes", "text length", "failure"]


async def cmd_ls(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    collection = await resolve(client, args.collection)
    docs = await _documents(client, collection.collection_id)

    def render(console: Console) -> None:
        console.print(
            table(f"{collection.name}: {len(docs)} documents", _DOC_COLUMNS, _doc_rows(docs))
        )

    output.result(
        {"collection": as_dict(collection), "documents": [as_dict(d) for d in docs]}, render
    )
    return exit_codes.OK


async def _find(
    client: AsyncQuireClient, collection: knowledge_pb2.Collection, refs: list[str]
) -> list[knowledge_pb2.Document]:
    docs = await _documents(client, collection.collection_id)
    found = []
    for ref in refs:
        match = [d for d in docs if ref in (d.document_id, d.file_name)]
        if not match:
            raise DocumentNotFound(f'document "{ref}" not found in collection "{collection.name}"')
        found.append(match[0])
    return found


async def cmd_status(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    """One or more documents in detail, or the whole collection's counts and index."""
    collection = await resolve(client, args.collection)
    if args.documents:
        docs = await _find(client, collection, args.documents)

        def render_docs(console: Console) -> None:
            console.print(table(None, _DOC_COLUMNS, _doc_rows(docs)))

        output.result({"documents": [as_dict(d) for d in docs]}, render_docs)
        failed = any(d.status == knowledge_pb2.DOCUMENT_STATUS_FAILED for d in docs)
        return exit_codes.PARTLY_FAILED if failed else exit_codes.OK
    docs = await _documents(client, collection.collection_id)
    index = await client.get_index_status(collection_id=collection.collection_id)
    counts = Counter(_status(d) for d in docs)
    failures = [d for d in docs if d.status == knowledge_pb2.DOCUMENT_STATUS_FAILED]
    data = {
        "collection": as_dict(collection),
        "statuses": dict(counts),
        "failures": [as_dict(d) for d in failures],
        "index": as_dict(index),
    }

    def render(console: Console) -> None:
        rows: list[tuple[str, Any]] = [("documents", len(docs))]
        rows += sorted(counts.items())
        rows += [
            ("serving generation", index.serving_generation),
            ("building generation", index.building_generation or "none"),
        ]
        console.print(pairs(collection.name, rows))
        if failures:
            console.print(
                table(
                    "Failures",
                    ["file", "id", "reason"],
                    [(d.file_name, d.document_id, d.extract_error) for d in failures],
                )
            )

    output.result(data, render)
    return exit_codes.OK


async def cmd_read(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    """A 4,000-character slice as the agent tool reads it, or the whole text with --all."""
    collection = await resolve(client, args.collection)
    doc = (await _find(client, collection, [args.document]))[0]
    offset, slices = args.offset, []
    while True:
        piece = await client.read_document(
            document_id=doc.document_id,
            collection_ids=[collection.collection_id],
            offset=offset,
            max_chars=args.max_chars,
        )
        slices.append(piece)
        if not (args.all and piece.truncated):
            break
        offset = piece.next_offset
    last = slices[-1]
    data = {
        "document_id": doc.document_id,
        "file_name": doc.file_name,
        "text": "".join(s.text for s in slices),
        "offset": slices[0].offset,
        "next_offset": last.next_offset,
        "total_length": last.total_length,
        "truncated": last.truncated,
    }

    def render(console: Console) -> None:
        console.print(data["text"], markup=False, highlight=False)
        if last.truncated:
            output.note(
                f"[{last.offset}–{last.next_offset} of {last.total_length}; continue with "
                f"--offset {last.next_offset}, or --all]"
            )

    output.result(data, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shared = connection.flags()
    parser = sub.add_parser("docs", help="upload, list, inspect and read a collection's documents")
    actions = parser.add_subparsers(dest="docs_command", required=True, metavar="ACTION")

    up = actions.add_parser(
        "upload",
        parents=[shared],
        help="upload files, folders and globs; skips unchanged files; waits for extraction "
        "and indexing",
    )
    up.add_argument("paths", nargs="+", metavar="PATH", help="files, folders (recursive), globs")
    up.add_argument(
        "--collection", required=True, help="collection id or name (a new name is created)"
    )
    up.add_argument("--concurrency", type=int, default=8, help="uploads at once (default 8)")
    up.add_argument(
        "--no-wait", action="store_true", help="return once uploaded; do not wait for extraction"
    )
    up.set_defaults(func=run(cmd_upload))

    ls = actions.add_parser("ls", parents=[shared], help="a collection's documents")
    ls.add_argument("--collection", required=True, help="collection id or name")
    ls.set_defaults(func=run(cmd_ls))

    status = actions.add_parser(
        "status",
        parents=[shared],
        help="extraction status of documents (by id or file name), or the collection's counts "
        "and index",
    )
    status.add_argument("documents", nargs="*", metavar="DOCUMENT")
    status.add_argument("--collection", required=True, help="collection id or name")
    status.set_defaults(func=run(cmd_status))

    read = actions.add_parser(
        "read", parents=[shared], help="a document's extracted text, 4,000 characters at a time"
    )
    read.add_argument("document", help="document id or file name")
    read.add_argument("--collection", required=True, help="collection id or name")
    read.add_argument("--offset", type=int, default=0, help="start, in characters (default 0)")
    read.add_argument("--max-chars", type=int, default=None, help="1–4000 (default 4000)")
    read.add_argument("--all", action="store_true", help="read to the end, slice by slice")
    read.set_defaults(func=run(cmd_read))


__all__ = ["register"]
