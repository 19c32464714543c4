"""Coordinates one sync of a namespace: lock, discover, validate, fetch, embed, publish, prune.

The server's SyncPages drives it (the stream, the discovery check's answer, cancellation) and
relays its progress; everything from discovery to the stored report happens here, in the
server's process (docs/architecture.md, "One ingestion pipeline", says why).

Pages flow through the ingestion pipeline the knowledge worker uses too (quire.indexer.ingest):
up to 8 fetches at a time → unchanged detection → chunking → the process's embedding stage,
which takes the sync's chunks in turns with every other tenant's pages and documents → one
transaction per page, in the order pages come out of the embedder. Pruning happens only after
a complete discovery with no failure and no cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

import asyncpg
from google.protobuf import timestamp_pb2
from opentelemetry import metrics

from quire.indexer import fingerprint
from quire.indexer.chunking import DEFAULT_CEILING
from quire.indexer.ingest.chunks import ChunkedText, chunk_for_embedding
from quire.indexer.ingest.embed_stage import EmbedEntry, EmbedStage, Vectors
from quire.indexer.pages import discovery as discovery_mod
from quire.indexer.pages import store, term_stats
from quire.indexer.pages.fetch import FetchError, PageFetcher
from quire.indexer.pages.guard import SourcePolicy
from quire.indexer.pages.language import DEFAULT_LANGUAGE, page_language
from quire.indexer.pages.paths import citation_url
from quire.indexer.pages.transforms import apply_transform, title_from_markdown
from quire.v1 import errors_pb2, pages_pb2

log = logging.getLogger(__name__)
sync_outcomes = metrics.get_meter("quire.indexer").create_counter(
    "quire.sync.outcomes", description="Sync reports by status"
)

MAX_LISTED = 20
# Pages of one sync fetched and not yet published: fetches wait while this many are waiting
# for the embedder or the writes (it bounds the text and vectors a sync holds).
PAGES_AHEAD = 32
# Pages fetched at once.
FETCH_CONCURRENCY = 8
# Character ceiling of page chunks (docs/chunking.md, "Pages").
PAGE_CEILING = DEFAULT_CEILING
# How often a running sync checks its namespace's term statistics for drift.
STATS_EVERY_S = 10.0
DISCOVERY_DECISION_TIMEOUT_S = 60.0
# The stages a sync's log line times (_Tally.seconds); the embedding stage's own busy time is
# logged beside them.
STAGES = ("fetch", "transform", "chunk", "write", "statistics")

_ANALYSIS = ThreadPoolExecutor(1, thread_name_prefix="page-analysis")

LOCK = "SELECT pg_advisory_lock(hashtextextended($1, 0))"
UNLOCK = "SELECT pg_advisory_unlock(hashtextextended($1, 0))"


@dataclass(frozen=True)
class SyncRequest:
    namespace: str
    url: str
    # The embedding model the sync embeds with (PageSync's `embedding` is its stage): the
    # namespace's own, or another one only with `reindex` (PageSync._check_model).
    embedding_model: str
    public_url: str = ""
    transform: str = "markdown"
    index_version: str = "1"
    reindex: bool = False
    validate_discovery: bool = False
    # The namespace's default language (normalised BCP 47).
    language: str = DEFAULT_LANGUAGE
    # The contract version stamped on every message the sync makes (the server's).
    schema_version: int = 1


class SyncRefused(Exception):
    """The sync stopped before changing anything. `code` (an ErrorCode) says why; `field`
    names the request field at fault, if one is; `retry_after_s` is the source's own hint
    when it is busy. The server turns it into its typed error."""

    def __init__(
        self,
        code: errors_pb2.ErrorCode.ValueType,
        message: str,
        *,
        field: str = "",
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.retry_after_s = retry_after_s


Progress = Callable[[pages_pb2.PageSyncProgress], Awaitable[None]]
DiscoveryCheck = Callable[[pages_pb2.DiscoveryCheck], Awaitable[bool]]


@dataclass
class _Pending:
    page: store.NewPage
    chunks: list[store.NewChunk]
    texts: list[str]
    vectors: Vectors | None = None


@dataclass
class _Tally:
    discovered: int = 0
    processed: int = 0
    updated: int = 0
    metadata_only: int = 0
    deleted: int = 0
    failed: int = 0
    embedded_chunks: int = 0
    errors: list[str] = field(default_factory=list)
    failed_paths: list[str] = field(default_factory=list)
    # Wall seconds spent in each stage, summed over pages (stages overlap: pages are fetched,
    # embedded and written at once). Logged when the sync ends.
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def fail(self, path: str, message: str) -> None:
        self.failed += 1
        if len(self.failed_paths) < MAX_LISTED:
            self.failed_paths.append(path)
        self.error(f"{path}: {message}")

    def error(self, message: str) -> None:
        if len(self.errors) < MAX_LISTED:
            self.errors.append(message)


def _now() -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.GetCurrentTime()
    return ts


class PageSync:
    def __init__(
        self,
        *,
        pool: asyncpg.Pool,
        embedding: EmbedStage,
        policy: SourcePolicy,
        org_id: uuid.UUID,
        request: SyncRequest,
        on_progress: Progress,
        on_discovery: DiscoveryCheck,
        decision_timeout_s: float = DISCOVERY_DECISION_TIMEOUT_S,
        lock_pool: asyncpg.Pool | None = None,
    ) -> None:
        """`lock_pool` gives the connection that holds the namespace's session advisory lock
        for the whole sync: `pool` when none is given; direct connections when `pool` goes
        through a transaction pooler (which would lend the lock's session to others)."""
        self.pool = pool
        self.lock_pool = lock_pool or pool
        self.embedding = embedding
        self.policy = policy
        self.org_id = org_id
        self.request = request
        self.on_progress = on_progress
        self.on_discovery = on_discovery
        self.decision_timeout_s = decision_timeout_s
        self.tally = _Tally()
        self.cancelled = False
        self.fingerprint = fingerprint.index_fingerprint(
            embedder=embedding.fingerprint,
            transform=request.transform,
            index_version=request.index_version,
            ceiling=PAGE_CEILING,
            language=request.language,
        )
        self._lock_key = f"pages:{org_id}:{request.namespace}"
        self._stats_checked = time.monotonic()
        self._analyzed_chunks = 0
        self._room = asyncio.Semaphore(PAGES_AHEAD)
        self._embedded: asyncio.Queue[_Pending | None] = asyncio.Queue()
        self._at_embedder = 0  # pages in the embedding stage
        self._none_at_embedder = asyncio.Event()
        self._none_at_embedder.set()
        # The shared embedder's busy time when this sync began (its log line reports the
        # difference: other syncs' and the worker's embedding count too, if any ran).
        self._busy_at_start = embedding.busy_s
        self._ended = False  # the fetch stage is over (done, or failed)
        # The namespace's model this reindex replaces with the request's (None: no change).
        self._replaces_model: str | None = None

    def cancel(self) -> None:
        """Stops cooperatively: no new page starts; the one in flight finishes its transaction.
        Pages waiting for the embedder are taken out (they stay as they were)."""
        self.cancelled = True
        self._drop_waiting()

    def _drop_waiting(self) -> None:
        for _ in self.embedding.clear(self):
            self._left_embedder()
            self._room.release()

    def _left_embedder(self) -> None:
        self._at_embedder -= 1
        if self._at_embedder == 0:
            self._none_at_embedder.set()

    async def _progress(self, stage: int, path: str = "") -> None:
        t = self.tally
        await self.on_progress(
            pages_pb2.PageSyncProgress(
                schema_version=self.request.schema_version,
                stage=stage,  # type: ignore[arg-type]
                discovered=t.discovered,
                processed=t.processed,
                updated=t.updated + t.metadata_only,
                failed=t.failed,
                deleted=t.deleted,
                path=path,
            )
        )

    async def run(self) -> pages_pb2.SyncReport:
        started = _now()
        waited_from = time.time()
        async with self.lock_pool.acquire() as lock_conn:
            await self._progress(pages_pb2.SYNC_STAGE_LOCKING)
            await lock_conn.execute(LOCK, self._lock_key)
            try:
                await self._check_model(lock_conn)
                earlier = await self._finished_while_waiting(lock_conn, waited_from)
                if earlier is not None:
                    return earlier
                report = await self._sync(started)
            finally:
                with contextlib.suppress(Exception):
                    await lock_conn.execute(UNLOCK, self._lock_key)
        return report

    async def _check_model(self, conn: asyncpg.Connection) -> None:
        """Under the lock, before anything changes: a namespace keeps its model (its vectors
        and its queries' would not compare) unless this sync is a reindex, which moves every
        page to the request's model."""
        req = self.request
        row = await store.get_namespace(conn, self.org_id, req.namespace)
        if row is None or row["embedding_model"] == req.embedding_model:
            return
        if not req.reindex:
            raise SyncRefused(
                errors_pb2.ERROR_CODE_INVALID_REQUEST,
                f"namespace {req.namespace!r} is embedded with {row['embedding_model']}; its "
                f"model changes only by a reindex, which re-embeds every page with "
                f"{req.embedding_model}: `quire pages sync {req.url} --namespace "
                f"{req.namespace} --model {req.embedding_model} --reindex` (SyncStart.reindex), "
                f"or leave the model out to keep {row['embedding_model']}",
                field="start.embedding_model",
            )
        self._replaces_model = row["embedding_model"]

    async def _finished_while_waiting(
        self, conn: asyncpg.Connection, since: float
    ) -> pages_pb2.SyncReport | None:
        """A sync of the same source that ended while we waited did our work already."""
        if self.request.reindex:
            return None
        row = await store.get_namespace(conn, self.org_id, self.request.namespace)
        if row is None or row["last_report"] is None or row["source_url"] != self.request.url:
            return None
        last = pages_pb2.SyncReport.FromString(row["last_report"])
        if last.finished_at.ToDatetime().timestamp() < since or last.cancelled:
            return None
        return pages_pb2.SyncReport(
            schema_version=self.request.schema_version,
            namespace=self.request.namespace,
            status=pages_pb2.SYNC_STATUS_UNCHANGED,
            discovered=last.discovered,
            filesystem_version=row["filesystem_version"],
            started_at=last.started_at,
            finished_at=_now(),
            embedding_model=row["embedding_model"],
        )

    async def _sync(self, started: timestamp_pb2.Timestamp) -> pages_pb2.SyncReport:
        req = self.request
        t = self.tally
        async with PageFetcher(self.policy) as fetcher:
            await self._progress(pages_pb2.SYNC_STAGE_DISCOVERING)
            try:
                found = await discovery_mod.discover(req.url, fetcher)
            except ValueError as exc:  # rejected or unsupported source
                raise SyncRefused(
                    errors_pb2.ERROR_CODE_INVALID_REQUEST, str(exc), field="start.url"
                ) from None
            pages = _relative_to_site(found.pages, req.url)
            if not pages and found.errors:
                # Nothing to compare against: the source is down or not a docs site. Fail the
                # call and leave the namespace exactly as it was.
                if found.source_busy:
                    raise SyncRefused(
                        errors_pb2.ERROR_CODE_PAGE_SOURCE_BUSY,
                        f"The page source is rate-limiting or busy: {found.errors[0]}",
                        retry_after_s=found.retry_after,
                    )
                raise SyncRefused(
                    errors_pb2.ERROR_CODE_SYNC_FAILED,
                    f"Discovery found no pages: {found.errors[0]}",
                )
            t.discovered = len(pages)
            for message in found.errors:
                t.error(f"discovery: {message}")
            async with self.pool.acquire() as conn:
                states = await store.page_states(conn, self.org_id, req.namespace)
            if req.validate_discovery:
                await self._progress(pages_pb2.SYNC_STAGE_VALIDATING)
                check = pages_pb2.DiscoveryCheck(
                    schema_version=req.schema_version,
                    discovered=t.discovered,
                    published=len(states),
                )
                try:
                    accepted = await asyncio.wait_for(
                        self.on_discovery(check), self.decision_timeout_s
                    )
                except (TimeoutError, StopAsyncIteration):
                    accepted = False
                if not accepted:
                    raise SyncRefused(
                        errors_pb2.ERROR_CODE_DISCOVERY_REJECTED,
                        "Sync aborted at the discovery check; nothing was changed",
                    )
            async with self.pool.acquire() as conn, conn.transaction():
                await store.ensure_namespace(
                    conn,
                    self.org_id,
                    req.namespace,
                    source_url=req.url,
                    public_url=req.public_url,
                    transform=req.transform,
                    index_version=req.index_version,
                    language=req.language,
                    embedding_model=req.embedding_model,
                )
                if self._replaces_model is not None:
                    await store.drop_chunks(conn, self.org_id, req.namespace)
                    log.info(
                        "namespace model replaced",
                        extra={
                            "namespace": req.namespace,
                            "from": self._replaces_model,
                            "to": req.embedding_model,
                        },
                    )
            await self._progress(pages_pb2.SYNC_STAGE_FETCHING)
            await self._fetch_and_publish(fetcher, pages, states)
        complete = found.complete and not found.errors
        if complete and t.failed == 0 and not self.cancelled:
            stale = sorted(set(states) - {p.path for p in pages})
            if stale:
                await self._progress(pages_pb2.SYNC_STAGE_PRUNING)
                async with self.pool.acquire() as conn:
                    await store.delete_pages(conn, self.org_id, req.namespace, stale)
                t.deleted = len(stale)
        return await self._finish(started, complete)

    async def _fetch_and_publish(
        self,
        fetcher: PageFetcher,
        pages: list[discovery_mod.DiscoveredPage],
        states: dict[str, store.PageState],
    ) -> None:
        publisher = asyncio.create_task(self._publish_embedded())
        gate = asyncio.Semaphore(FETCH_CONCURRENCY)

        async def one(page: discovery_mod.DiscoveredPage) -> None:
            async with gate:
                if self.cancelled or self._ended:
                    return
                try:
                    pending = await self._prepare(fetcher, page, states.get(page.path))
                except FetchError as exc:
                    self.tally.fail(page.path, str(exc))
                except ValueError as exc:  # transform rejected (e.g. NUL)
                    self.tally.fail(page.path, str(exc))
                else:
                    if pending is not None:
                        await self._room.acquire()
                        if self.cancelled or self._ended:  # the page stays as it was
                            self._room.release()
                            return
                        self._embed(pending)
                        return
                self.tally.processed += 1
                await self._progress(pages_pb2.SYNC_STAGE_FETCHING, page.path)

        try:
            await asyncio.gather(*(one(p) for p in pages))
            await self._none_at_embedder.wait()
        finally:
            # A failed sync leaves nothing in the shared schedule, and its fetches still
            # running (gather does not cancel them) add nothing to it.
            self._ended = True
            self._drop_waiting()
            self._embedded.put_nowait(None)
            await publisher

    def _embed(self, pending: _Pending) -> None:
        """Into the process's embedding stage: one lane per namespace, taking turns with the
        other lanes of the organisation and with other organisations."""

        async def embedded(outcome: Vectors | Exception) -> None:
            self._left_embedder()
            if isinstance(outcome, Exception):
                self.tally.fail(pending.page.path, f"embedding failed: {type(outcome).__name__}")
                self.tally.processed += 1
                self._room.release()
                return
            pending.vectors = outcome
            self._embedded.put_nowait(pending)

        self._at_embedder += 1
        self._none_at_embedder.clear()
        self.embedding.put(
            EmbedEntry(
                org_id=self.org_id,
                lane=("pages", self.request.namespace),
                owner=self,
                texts=pending.texts,
                on_done=embedded,
                subject=pending,
            )
        )

    async def _prepare(
        self,
        fetcher: PageFetcher,
        found: discovery_mod.DiscoveredPage,
        state: store.PageState | None,
    ) -> _Pending | None:
        """Fetches and classifies a page; returns work for the embedder, or None when done."""
        req = self.request
        seconds = self.tally.seconds
        started = time.perf_counter()
        fetched = await fetcher.fetch(found.url)
        fetched_at = time.perf_counter()
        seconds["fetch"] += fetched_at - started
        page_text = apply_transform(req.transform, fetched.text)
        seconds["transform"] += time.perf_counter() - fetched_at
        text = page_text.text
        title = found.title or page_text.title or title_from_markdown(text) or found.path
        url = citation_url(req.public_url or _site_base(req.url), found.path)
        description = page_text.description or ""
        text_digest = fingerprint.digest(
            text,
            summary=(description, *page_text.keywords),
            language=page_text.language or "",
        )
        same_content = (
            state is not None
            and state.digest == text_digest
            and state.index_fingerprint == self.fingerprint
            and state.vectors_valid
            and not req.reindex
        )
        if same_content and state is not None:
            if state.title != title or state.url != url:
                async with self.pool.acquire() as conn:
                    await store.publish_metadata(
                        conn, self.org_id, req.namespace, found.path, title=title, url=url
                    )
                self.tally.metadata_only += 1
            return None
        # CPU work (language detection, chunking) off the event loop, on one thread shared by
        # every sync: the language detector run on the default pool's many threads held
        # 250 MB more at peak (freed buffers kept per thread) for no gain on two cores.
        started = time.perf_counter()
        language, chunked = await asyncio.get_running_loop().run_in_executor(
            _ANALYSIS,
            _analyse,
            found.path,
            text,
            page_text.language,
            req.language,
            title,
            description,
        )
        seconds["chunk"] += time.perf_counter() - started
        new_chunks = [
            store.NewChunk(content, heading)
            for content, heading in zip(chunked.contents, chunked.headings, strict=True)
        ]
        return _Pending(
            page=store.NewPage(
                path=found.path,
                url=url,
                title=title,
                body=text,
                digest=text_digest,
                index_fingerprint=self.fingerprint,
                revision=fingerprint.revision(text_digest, self.fingerprint),
                language=language,
                description=description,
                keywords=page_text.keywords,
            ),
            chunks=new_chunks,
            texts=chunked.texts,
        )

    async def _publish_embedded(self) -> None:
        """Publishes embedded pages one transaction each, while later pages are embedded (the
        model runs in a thread, the writes on the loop)."""
        while (pending := await self._embedded.get()) is not None:
            try:
                if not self.cancelled:  # cancelled: the page stays as it was (unknown)
                    await self._publish(pending)
            finally:
                self._room.release()
            if time.monotonic() - self._stats_checked > STATS_EVERY_S:
                # A long first sync keeps its own statistics usable for searches meanwhile.
                self._stats_checked = time.monotonic()
                await self._refresh_term_stats(force=False)

    async def _publish(self, p: _Pending) -> None:
        assert p.vectors is not None
        started = time.perf_counter()
        try:
            async with self.pool.acquire() as conn:
                await store.publish_page(
                    conn, self.org_id, self.request.namespace, p.page, p.chunks, p.vectors
                )
        except (asyncpg.PostgresError, OSError) as exc:
            self.tally.fail(p.page.path, f"publish failed: {type(exc).__name__}")
            self.tally.processed += 1
            return
        finally:
            self.tally.seconds["write"] += time.perf_counter() - started
        self.tally.updated += 1
        self.tally.embedded_chunks += len(p.texts)
        self.tally.processed += 1
        await self._progress(pages_pb2.SYNC_STAGE_FETCHING, p.page.path)

    async def _refresh_term_stats(self, *, force: bool) -> None:
        started = time.perf_counter()
        try:
            async with self.pool.acquire() as conn:
                written = self.tally.embedded_chunks
                if force:  # the end of a sync that changed chunks: judged on all it wrote
                    await term_stats.refresh(conn, self.org_id, self.request.namespace)
                    await store.refresh_languages(conn, self.org_id, self.request.namespace)
                    await term_stats.analyze_if_grown(conn, written, vacuum=True)
                else:
                    await term_stats.refresh_if_drifted(conn, self.org_id, self.request.namespace)
                    await term_stats.analyze_if_grown(conn, written - self._analyzed_chunks)
                self._analyzed_chunks = written
        except (asyncpg.PostgresError, OSError):
            # Statistics only weight the full-text arm; the next sync refreshes them.
            log.warning("term statistics refresh failed", exc_info=True)
        finally:
            self.tally.seconds["statistics"] += time.perf_counter() - started

    async def _finish(
        self, started: timestamp_pb2.Timestamp, complete: bool
    ) -> pages_pb2.SyncReport:
        t = self.tally
        if self.cancelled:
            t.error("cancelled by the client; nothing was pruned")
        changed = t.updated + t.metadata_only + t.deleted
        await self._refresh_term_stats(force=bool(t.updated or t.deleted))
        if t.errors or t.failed or not complete:
            status = pages_pb2.SYNC_STATUS_PARTIAL
        elif changed:
            status = pages_pb2.SYNC_STATUS_COMPLETED
        else:
            status = pages_pb2.SYNC_STATUS_UNCHANGED
        async with self.pool.acquire() as conn:
            row = await store.get_namespace(conn, self.org_id, self.request.namespace)
            version = row["filesystem_version"] if row is not None else 0
            report = pages_pb2.SyncReport(
                schema_version=self.request.schema_version,
                namespace=self.request.namespace,
                status=status,
                discovered=t.discovered,
                updated=t.updated + t.metadata_only,
                deleted=t.deleted,
                failed=t.failed,
                unknown=max(0, t.discovered - t.processed),
                errors=t.errors,
                failed_paths=t.failed_paths,
                embedded_chunks=t.embedded_chunks,
                filesystem_version=version,
                started_at=started,
                finished_at=_now(),
                metadata_only=t.metadata_only,
                cancelled=self.cancelled,
                embedding_model=self.request.embedding_model,
            )
            if row is not None:
                await store.store_report(
                    conn, self.org_id, self.request.namespace, report.SerializeToString()
                )
        sync_outcomes.add(1, {"status": pages_pb2.SyncStatus.Name(status)})
        log.info(
            "sync finished",
            extra={
                "namespace": self.request.namespace,
                "status": pages_pb2.SyncStatus.Name(status),
                "embedded_chunks": t.embedded_chunks,
                "stage_seconds": {k: round(v, 3) for k, v in t.seconds.items()},
                "embedder_busy_s": round(self.embedding.busy_s - self._busy_at_start, 3),
            },
        )
        await self._progress(pages_pb2.SYNC_STAGE_DONE)
        return report


def _analyse(
    path: str, text: str, declared: str | None, default: str, title: str, description: str
) -> tuple[str, ChunkedText]:
    """The page's language, and its chunks with their embedding texts (the first one carries
    the description)."""
    language = page_language(path=path, text=text, declared=declared, default=default)
    return language, chunk_for_embedding(text, title, ceiling=PAGE_CEILING, summary=description)


def _site_base(url: str) -> str:
    """The site's root URL: the sync URL's directory (`https://x/docs/llms.txt` → `https://x/docs`)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{_base_path(url).rstrip('/')}"


def _base_path(url: str) -> str:
    """`/docs/llms.txt` → `/docs/`; a directory URL (`/docs`, `/docs/`) is its own base."""
    path = urlsplit(url).path or "/"
    if path.endswith("/"):
        return path
    head, _, last = path.rpartition("/")
    return f"{head}/" if "." in last else f"{path}/"


def _relative_to_site(
    pages: list[discovery_mod.DiscoveredPage], url: str
) -> list[discovery_mod.DiscoveredPage]:
    """Namespace paths are relative to the site root (the sync URL's directory), so a site
    served under `/docs/v2/` publishes `/guide/intro.md`, not `/docs/v2/guide/intro.md`.
    Pages outside that directory keep their full path."""
    base = _base_path(url)
    if base == "/":
        return pages
    out = []
    for page in pages:
        path = page.path
        if path.startswith(base):
            path = "/" + path[len(base) :]
        out.append(replace(page, path=path))
    return out
