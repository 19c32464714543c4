"""`quire pages sync|search|read|grep|ls`: a namespace of published documentation pages."""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console

from quire.client import AsyncQuireClient
from quire.client.cli import connection, exit_codes
from quire.client.cli.output import Output, as_dict, pairs, rate, table
from quire.client.cli.runner import run
from quire.v1 import pages_pb2


def _stage(progress: pages_pb2.PageSyncProgress) -> str:
    return pages_pb2.SyncStage.Name(progress.stage).removeprefix("SYNC_STAGE_").lower()


def _report_rows(report: pages_pb2.SyncReport) -> list[tuple[str, Any]]:
    seconds = report.finished_at.ToDatetime() - report.started_at.ToDatetime()
    return [
        ("namespace", report.namespace),
        ("model", report.embedding_model),
        ("status", pages_pb2.SyncStatus.Name(report.status).removeprefix("SYNC_STATUS_")),
        ("discovered", report.discovered),
        ("updated", report.updated),
        ("metadata only", report.metadata_only),
        ("deleted", report.deleted),
        ("failed", report.failed),
        ("unknown", report.unknown),
        ("chunks embedded", report.embedded_chunks),
        ("filesystem version", report.filesystem_version),
        ("took", f"{seconds.total_seconds():.1f} s"),
        ("cancelled", "yes" if report.cancelled else "no"),
    ]


def _render_report(report: pages_pb2.SyncReport) -> Any:
    def render(console: Console) -> None:
        console.print(pairs("Sync report", _report_rows(report)))
        if report.errors:
            rows = [
                (report.failed_paths[i] if i < len(report.failed_paths) else "", error)
                for i, error in enumerate(report.errors)
            ]
            console.print(table("Failed pages (at most 20)", ["path", "error"], rows))

    return render


async def cmd_sync(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    report: pages_pb2.SyncReport | None = None
    with output.progress() as progress:
        # Discovery does not know the total yet: the bar is indeterminate until it does.
        task = progress.add_task("discover", total=None, rate="", detail="")
        started = time.perf_counter()
        async for message in client.sync_pages(
            namespace=args.namespace,
            url=args.url,
            transform=args.transform,
            public_url=args.public_url,
            reindex=args.reindex,
            embedding_model=args.model,
        ):
            if isinstance(message, pages_pb2.SyncReport):
                report = message
                continue
            elapsed = time.perf_counter() - started
            progress.update(
                task,
                description=_stage(message),
                total=message.discovered or None,
                completed=message.processed,
                rate=rate(message.processed, elapsed, "pages"),
                # The path is left out: its changing width would make the bar jump.
                detail=f"{message.updated} embedded, {message.failed} failed",
            )
    assert report is not None, "SyncPages ends with its report"
    output.result(as_dict(report), _render_report(report))
    return exit_codes.PARTLY_FAILED if report.failed else exit_codes.OK


async def cmd_report(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    report = await client.get_sync_report(namespace=args.namespace)
    output.result(as_dict(report), _render_report(report))
    return exit_codes.OK


async def cmd_search(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    result = await client.search_pages(namespace=args.namespace, query=args.query, limit=args.limit)

    def render(console: Console) -> None:
        rows = [
            (h.rank, f"{h.score:.4f}", h.path, h.title, " › ".join(h.heading_path), h.content[:200])
            for h in result.hits
        ]
        console.print(table(None, ["#", "score", "path", "title", "section", "text"], rows))
        for warning in result.warnings:
            output.note(f"warning: {warning}")

    output.result(as_dict(result), render)
    return exit_codes.OK


async def cmd_read(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    page = await client.read_page(
        namespace=args.namespace, path=args.path, offset=args.offset, max_chars=args.max_chars
    )

    def render(console: Console) -> None:
        console.print(page.content, markup=False, highlight=False)
        if page.truncated:
            output.note(
                f"[{page.offset}–{page.next_offset} of {page.total_chars}; continue with "
                f"--offset {page.next_offset}]"
            )

    output.result(as_dict(page), render)
    return exit_codes.OK


async def cmd_grep(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    result = await client.grep_pages(
        namespace=args.namespace,
        query=args.pattern,
        prefix=args.prefix,
        ignore_case=args.ignore_case,
        limit=args.limit,
    )

    def render(console: Console) -> None:
        for match in result.matches:
            console.print(f"{match.path}:{match.line_number}: {match.line}", markup=False)
        if not result.complete:
            output.note(
                "[stopped early: " + pages_pb2.GrepStopReason.Name(result.stop_reason) + "]"
            )

    output.result(as_dict(result), render)
    return exit_codes.OK if result.matches else exit_codes.PARTLY_FAILED


async def cmd_ls(client: AsyncQuireClient, args: argparse.Namespace, output: Output) -> int:
    if not args.namespace:
        namespaces = await client.list_namespaces()

        def render_namespaces(console: Console) -> None:
            rows = [
                (n.name, n.page_count, n.filesystem_version, n.embedding_model, n.source_url)
                for n in namespaces
            ]
            columns = ["namespace", "pages", "version", "model", "source"]
            console.print(table(None, columns, rows))

        output.result({"namespaces": [as_dict(n) for n in namespaces]}, render_namespaces)
        return exit_codes.OK
    pages: list[pages_pb2.Page] = []
    cursor: str | None = None
    while True:
        listing = await client.list_pages(
            namespace=args.namespace, prefix=args.prefix, cursor=cursor
        )
        if listing.restart_required:
            pages, cursor = [], None
            continue
        pages.extend(listing.pages)
        if not listing.next_cursor:
            break
        cursor = listing.next_cursor

    def render(console: Console) -> None:
        rows = [(p.path, p.title, p.total_chars, p.url) for p in pages]
        console.print(
            table(f"{args.namespace}: {len(pages)} pages", ["path", "title", "chars", "url"], rows)
        )

    output.result({"namespace": args.namespace, "pages": [as_dict(p) for p in pages]}, render)
    return exit_codes.OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shared = connection.flags()
    parser = sub.add_parser("pages", help="sync, search and read published documentation pages")
    actions = parser.add_subparsers(dest="pages_command", required=True, metavar="ACTION")

    sync = actions.add_parser(
        "sync",
        parents=[shared],
        help="sync a site (llms.txt or sitemap.xml) into a namespace, with progress; prints "
        "the SyncReport",
    )
    sync.add_argument("url", help="the site's llms.txt, sitemap.xml or base URL")
    sync.add_argument("--namespace", required=True)
    sync.add_argument("--transform", help="the page transform (see docs/page-sources.md)")
    sync.add_argument("--public-url", help="the URL readers see, when it differs from URL")
    sync.add_argument("--reindex", action="store_true", help="re-embed every page")
    sync.add_argument(
        "--model",
        default=None,
        help="the embedding model (`quire models` lists them); default: the namespace's, or "
        "the server's default for a new namespace. Another than the namespace's needs --reindex",
    )
    sync.set_defaults(func=run(cmd_sync))

    report = actions.add_parser("report", parents=[shared], help="a namespace's last SyncReport")
    report.add_argument("--namespace", required=True)
    report.set_defaults(func=run(cmd_report))

    search = actions.add_parser("search", parents=[shared], help="search a namespace's pages")
    search.add_argument("query")
    search.add_argument("--namespace", required=True)
    search.add_argument("--limit", type=int, default=None)
    search.set_defaults(func=run(cmd_search))

    read = actions.add_parser("read", parents=[shared], help="read a page, a slice at a time")
    read.add_argument("path")
    read.add_argument("--namespace", required=True)
    read.add_argument("--offset", type=int, default=0)
    read.add_argument("--max-chars", type=int, default=None)
    read.set_defaults(func=run(cmd_read))

    grep = actions.add_parser(
        "grep", parents=[shared], help="lines of a namespace's pages that match (exit 1: none)"
    )
    grep.add_argument("pattern")
    grep.add_argument("--namespace", required=True)
    grep.add_argument("--prefix", help="only pages under this path")
    grep.add_argument("-i", "--ignore-case", action="store_true")
    grep.add_argument("--limit", type=int, default=None)
    grep.set_defaults(func=run(cmd_grep))

    ls = actions.add_parser(
        "ls", parents=[shared], help="the namespaces, or a namespace's pages (--namespace)"
    )
    ls.add_argument("--namespace", default="")
    ls.add_argument("--prefix", help="only pages under this path")
    ls.set_defaults(func=run(cmd_ls))


__all__ = ["register"]
