"""Tests for quire.indexer.pages.fetch against the loopback SiteServer (faults, bounds, retries)."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator
from email.utils import formatdate
from typing import Any

import pytest
import pytest_asyncio

from quire.indexer.pages.fetch import (
    DEFAULT_ATTEMPT_TIMEOUT,
    DEFAULT_CONCURRENCY,
    DEFAULT_FETCH_DEADLINE,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_REDIRECTS,
    FetchError,
    PageFetcher,
    parse_retry_after,
)
from quire.indexer.pages.guard import SourcePolicy
from tests.support.site_server import Reply, Request, SiteServer

MiB = 1024 * 1024


@pytest.fixture
def server() -> Iterator[SiteServer]:
    site = SiteServer()
    with site:
        yield site


def make(server: SiteServer, **kwargs: Any) -> PageFetcher:
    options: dict[str, Any] = {"backoff_base": 0.01, "backoff_cap": 0.05, "rng": random.Random(7)}
    options.update(kwargs)
    return PageFetcher(SourcePolicy([server.url]), **options)


@pytest_asyncio.fixture
async def fetcher(server: SiteServer) -> AsyncIterator[PageFetcher]:
    async with make(server) as f:
        yield f


def test_defaults_are_the_designed_bounds() -> None:
    assert DEFAULT_CONCURRENCY == 8
    assert DEFAULT_MAX_BYTES == 4 * 1024 * 1024
    assert DEFAULT_ATTEMPT_TIMEOUT == 10.0
    assert DEFAULT_FETCH_DEADLINE == 30.0
    assert DEFAULT_MAX_ATTEMPTS == 4
    assert DEFAULT_MAX_REDIRECTS == 5
    f = PageFetcher(SourcePolicy())
    assert (f.concurrency, f.max_bytes, f.attempt_timeout, f.fetch_deadline, f.max_attempts) == (
        8,
        4 * MiB,
        10.0,
        30.0,
        4,
    )


async def test_fetches_text_and_metadata(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/a.md", Reply.text("# Hi ünï\n", headers={"ETag": '"v1"', "Last-Modified": "x"}))
    got = await fetcher.fetch(server.url + "/a.md")
    assert got.text == "# Hi ünï\n"
    assert (got.status, got.url, got.final_url) == (200, server.url + "/a.md", server.url + "/a.md")
    assert got.etag == '"v1"' and got.content_type is not None and got.attempts == 1
    sent = server.requests[-1].headers
    assert "text/markdown" in sent["Accept"] and sent["User-Agent"].startswith("Quire")


async def test_invalid_utf8_is_replaced(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/b.md", Reply.text(b"caf\xe9 \xff ok"))
    assert (await fetcher.fetch(server.url + "/b.md")).text == "caf\ufffd \ufffd ok"


async def test_5xx_is_retried_until_success(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/f.md", Reply(500), Reply(502), Reply.text("ok"))
    got = await fetcher.fetch(server.url + "/f.md")
    assert got.text == "ok" and got.attempts == 3
    assert server.count("/f.md") == 3


async def test_5xx_gives_up_after_max_attempts(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/down.md", Reply(503))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/down.md")
    assert caught.value.kind == "server_error" and caught.value.status == 503
    assert caught.value.attempts == 4 and server.count("/down.md") == 4


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (404, "not_found"),
        (410, "not_found"),
        (403, "http_error"),
        (400, "http_error"),
        (401, "http_error"),
        (300, "http_error"),
    ],
)
async def test_other_statuses_are_not_retried(
    server: SiteServer, fetcher: PageFetcher, status: int, kind: str
) -> None:
    server.route("/s.md", Reply(status))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/s.md")
    assert caught.value.kind == kind and caught.value.status == status
    assert server.count("/s.md") == 1


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
async def test_429_honours_retry_after_seconds(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/rl.md", Reply.retry_after(1), Reply.text("ok"))
    started = time.monotonic()
    got = await fetcher.fetch(server.url + "/rl.md")
    assert got.text == "ok" and server.count("/rl.md") == 2
    assert time.monotonic() - started >= 0.95


async def test_retry_after_beyond_the_deadline_fails_at_once(server: SiteServer) -> None:
    server.route("/rl.md", Reply.retry_after(120))
    async with make(server, fetch_deadline=5.0) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(server.url + "/rl.md")
    assert time.monotonic() - started < 1.0
    assert caught.value.kind == "rate_limited" and caught.value.retry_after == 120.0
    assert server.count("/rl.md") == 1


async def test_503_with_http_date_retry_after(server: SiteServer, fetcher: PageFetcher) -> None:
    past = formatdate(time.time() - 5, usegmt=True)
    server.route("/d.md", Reply.retry_after(past, 503), Reply.text("ok"))
    assert (await fetcher.fetch(server.url + "/d.md")).text == "ok"
    assert server.count("/d.md") == 2


def test_parse_retry_after() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30.0)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0
    for bad in (None, "", "-1", "1.5", "soon", "Mon, 99 Foo 2024"):
        assert parse_retry_after(bad, now=now) is None


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
async def test_hanging_server_times_out_each_attempt(server: SiteServer) -> None:
    server.route("/hang.md", Reply.hang())
    async with make(server, attempt_timeout=0.3, max_attempts=2) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(server.url + "/hang.md")
    assert caught.value.kind == "timeout" and caught.value.attempts == 2
    assert 0.55 <= time.monotonic() - started < 2.0
    assert server.count("/hang.md") == 2


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
async def test_deadline_bounds_the_whole_fetch(server: SiteServer) -> None:
    server.route("/hang.md", Reply.hang())
    async with make(server, attempt_timeout=0.3, fetch_deadline=0.8, max_attempts=50) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(server.url + "/hang.md")
    assert time.monotonic() - started < 1.2
    assert caught.value.kind in ("timeout", "deadline")
    assert 2 <= server.count("/hang.md") <= 3


async def test_hang_then_success(server: SiteServer) -> None:
    server.route("/h.md", Reply.hang(), Reply.text("ok"))
    async with make(server, attempt_timeout=0.2) as fetcher:
        assert (await fetcher.fetch(server.url + "/h.md")).text == "ok"


async def test_connection_reset_is_retried(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/r.md", Reply.reset(), Reply.reset(), Reply.text("ok"))
    got = await fetcher.fetch(server.url + "/r.md")
    assert got.text == "ok" and got.attempts == 3


async def test_connection_reset_always(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/r.md", Reply.reset())
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/r.md")
    assert caught.value.kind == "connection" and server.count("/r.md") == 4


async def test_connection_refused_is_a_connection_error() -> None:
    dead = SiteServer()
    with dead:
        url = dead.url
    async with PageFetcher(SourcePolicy([url]), max_attempts=2, backoff_base=0.01) as fetcher:
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(url + "/x.md")
    assert caught.value.kind == "connection" and caught.value.attempts == 2


async def test_truncated_body_is_retried(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/t.md", Reply.truncated("partial body"), Reply.text("full body"))
    got = await fetcher.fetch(server.url + "/t.md")
    assert got.text == "full body" and server.count("/t.md") == 2


async def test_truncated_always(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/t.md", Reply.truncated("partial", missing=1))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/t.md")
    assert caught.value.kind == "truncated" and server.count("/t.md") == 4


async def test_slow_body_within_the_attempt_timeout(server: SiteServer) -> None:
    server.route("/slow.md", Reply.slow("x" * 4000, chunk_size=1000, chunk_delay=0.05))
    async with make(server, attempt_timeout=2.0) as fetcher:
        assert len((await fetcher.fetch(server.url + "/slow.md")).text) == 4000


async def test_slow_body_past_the_attempt_timeout(server: SiteServer) -> None:
    server.route("/slow.md", Reply.slow("x" * 4000, chunk_size=100, chunk_delay=0.05))
    async with make(server, attempt_timeout=0.3, max_attempts=1) as fetcher:
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(server.url + "/slow.md")
    assert caught.value.kind == "timeout"


async def test_body_of_exactly_4_mib_is_accepted(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/big.md", Reply.endless(4 * MiB))
    assert len((await fetcher.fetch(server.url + "/big.md")).text) == 4 * MiB


async def test_body_growing_past_4_mib_is_too_large(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route("/grow.md", Reply.endless(4 * MiB + 1))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/grow.md")
    assert caught.value.kind == "too_large" and server.count("/grow.md") == 1


async def test_declared_length_over_the_bound_is_refused_before_reading(
    server: SiteServer, fetcher: PageFetcher
) -> None:
    server.route("/cl.md", Reply(200, b"x" * 101))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/cl.md", max_bytes=100)
    assert caught.value.kind == "too_large" and "Content-Length" in caught.value.message
    assert (await fetcher.fetch(server.url + "/cl.md", max_bytes=101)).text == "x" * 101


async def test_same_origin_redirects_are_followed(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/old.md", Reply.redirect("/new.md", 301))
    server.route("/new.md", Reply.redirect("newer.md", 308))
    server.route("/newer.md", Reply.text("here"))
    got = await fetcher.fetch(server.url + "/old.md")
    assert got.text == "here" and got.final_url == server.url + "/newer.md"
    assert got.url == server.url + "/old.md"


async def test_at_most_five_redirects(server: SiteServer, fetcher: PageFetcher) -> None:
    for hop in range(6):
        server.route(f"/r{hop}.md", Reply.redirect(f"/r{hop + 1}.md"))
    server.route("/r6.md", Reply.text("end"))
    assert (await fetcher.fetch(server.url + "/r1.md")).text == "end"  # 5 hops
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/r0.md")  # 6 hops
    assert caught.value.kind == "redirect"
    assert server.count("/r6.md") == 1


async def test_redirect_loop_ends(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/a.md", Reply.redirect("/b.md"))
    server.route("/b.md", Reply.redirect("/a.md"))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/a.md")
    assert caught.value.kind == "redirect"
    assert server.count("/a.md") + server.count("/b.md") == 6


async def test_redirect_without_location(server: SiteServer, fetcher: PageFetcher) -> None:
    server.route("/x.md", Reply(302))
    with pytest.raises(FetchError) as caught:
        await fetcher.fetch(server.url + "/x.md")
    assert caught.value.kind == "redirect" and server.count("/x.md") == 1


async def test_off_origin_redirect_is_rejected(server: SiteServer, fetcher: PageFetcher) -> None:
    other = SiteServer()
    with other as other_url:
        other.route("/x.md", Reply.text("elsewhere"))
        server.route("/x.md", Reply.redirect(other_url + "/x.md"))
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(server.url + "/x.md")
        assert caught.value.kind == "rejected" and other.total() == 0


async def test_concurrency_is_bounded(server: SiteServer) -> None:
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    def slow(_request: Request) -> Reply:
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.1)
        with lock:
            state["now"] -= 1
        return Reply.text("ok")

    server.route("/c.md", slow)
    async with make(server, concurrency=3) as fetcher:
        results = await asyncio.gather(*(fetcher.fetch(server.url + "/c.md") for _ in range(9)))
    assert len(results) == 9 and state["max"] == 3


async def test_backoff_is_full_jitter_with_a_cap() -> None:
    f = PageFetcher(SourcePolicy(), backoff_base=1.0, backoff_cap=5.0, rng=random.Random(1))
    for attempt, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (10, 5.0)):
        delays = [f.backoff(attempt) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8 and min(delays) < ceiling * 0.2
    await f.aclose()


async def test_context_manager_closes_the_client(server: SiteServer) -> None:
    async with make(server) as fetcher:
        pass
    assert fetcher._client.is_closed


async def test_invalid_arguments() -> None:
    with pytest.raises(ValueError):
        PageFetcher(SourcePolicy(), concurrency=0)
    with pytest.raises(ValueError):
        PageFetcher(SourcePolicy(), max_attempts=0)
