"""Fetching page sources: bounded, retried, guarded (DESIGN §3, ``docs/page-sources.md``).

``PageFetcher.fetch(url)`` returns the body as text or raises ``FetchError`` with a ``kind``:

==================  =====================================================  =========
kind                cause                                                  retried
==================  =====================================================  =========
``timeout``         an attempt exceeded ``attempt_timeout``                yes
``connection``      connect/read/write error, reset, early close           yes
``truncated``       body shorter than ``Content-Length`` / incomplete       yes
``rate_limited``    HTTP 429                                               yes
``server_error``    HTTP 5xx                                               yes
``not_found``       HTTP 404 or 410                                        no
``http_error``      any other non-2xx status (4xx, odd 3xx)                no
``too_large``       body (or ``Content-Length``) over ``max_bytes``        no
``rejected``        SSRF policy refused the URL or an off-origin redirect  no
``redirect``        more than ``max_redirects`` hops, or no ``Location``   no
``deadline``        ``fetch_deadline`` passed before a retry could run      --
==================  =====================================================  =========

The retry loop is tenacity's (``AsyncRetrying``): which errors are retried, the attempt
limit and the deadline are its ``retry``, ``stop`` and ``wait`` strategies. Retries use
exponential backoff with full jitter (``uniform(0, min(backoff_cap,
backoff_base * 2**(n-1)))`` before attempt ``n + 1``), at most ``max_attempts`` attempts. A
``Retry-After`` header (delta seconds or HTTP date) on 429/5xx raises that delay to at least the
header's value; when the wait would end after the fetch deadline the fetch fails at once with
the last error (its ``retry_after`` says how long the server asked for). The deadline bounds the
whole fetch, retries and redirects included; it starts when the fetch first gets a concurrency
slot, so queued fetches are not penalised. A slot is held during an attempt, not while sleeping
between attempts.

Redirects (301, 302, 303, 307, 308) are followed by hand: same origin (scheme, host, port) as
the requested URL only, at most ``max_redirects`` hops, each re-checked by the SSRF guard.
Bodies are decoded as UTF-8 with ``errors="replace"``.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Literal, Self

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
)
from tenacity.stop import stop_base

from quire.indexer.pages.guard import GuardedTransport, SourcePolicy, SourceRejected

__all__ = [
    "DEFAULT_ATTEMPT_TIMEOUT",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_FETCH_DEADLINE",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_REDIRECTS",
    "FetchError",
    "FetchErrorKind",
    "FetchedText",
    "PageFetcher",
    "parse_retry_after",
]

MiB = 1024 * 1024
DEFAULT_CONCURRENCY = 8
DEFAULT_MAX_BYTES = 4 * MiB
DEFAULT_ATTEMPT_TIMEOUT = 10.0
DEFAULT_FETCH_DEADLINE = 30.0
DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_MAX_REDIRECTS = 5
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_CAP = 8.0
USER_AGENT = "Quire-PageSync/0.1 (+https://github.com/quire)"
ACCEPT = "text/markdown, text/plain;q=0.9, text/*;q=0.5, */*;q=0.1"

FetchErrorKind = Literal[
    "timeout",
    "connection",
    "truncated",
    "rate_limited",
    "server_error",
    "not_found",
    "http_error",
    "too_large",
    "rejected",
    "redirect",
    "deadline",
]
_RETRYABLE: frozenset[str] = frozenset(
    {"timeout", "connection", "truncated", "rate_limited", "server_error"}
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class FetchError(Exception):
    """A fetch that failed for good (after any retries)."""

    def __init__(
        self,
        kind: FetchErrorKind,
        message: str,
        *,
        url: str = "",
        status: int | None = None,
        retry_after: float | None = None,
        attempts: int = 0,
    ) -> None:
        super().__init__(message)
        self.kind: FetchErrorKind = kind
        self.message = message
        self.url = url
        self.status = status
        self.retry_after = retry_after
        self.attempts = attempts

    @property
    def retryable(self) -> bool:
        return self.kind in _RETRYABLE

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclass(frozen=True)
class FetchedText:
    """A successfully fetched body."""

    url: str
    final_url: str
    text: str
    status: int
    etag: str | None = None
    last_modified: str | None = None
    content_type: str | None = None
    attempts: int = 1


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` value (delta seconds or HTTP date); None if unusable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


class PageFetcher:
    """Fetches page sources through one shared, SSRF-guarded ``httpx.AsyncClient``.

    Use as ``async with PageFetcher(policy) as fetcher:``; the client is closed on exit.
    ``transport`` replaces the guarded transport (tests only); ``rng`` makes jitter
    deterministic.
    """

    def __init__(
        self,
        policy: SourcePolicy,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_bytes: int = DEFAULT_MAX_BYTES,
        attempt_timeout: float = DEFAULT_ATTEMPT_TIMEOUT,
        fetch_deadline: float = DEFAULT_FETCH_DEADLINE,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        backoff_base: float = DEFAULT_BACKOFF_BASE,
        backoff_cap: float = DEFAULT_BACKOFF_CAP,
        transport: httpx.AsyncBaseTransport | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if concurrency < 1 or max_attempts < 1 or max_bytes < 0 or max_redirects < 0:
            raise ValueError("concurrency and max_attempts must be ≥ 1, bounds ≥ 0")
        self.policy = policy
        self.concurrency = concurrency
        self.max_bytes = max_bytes
        self.attempt_timeout = attempt_timeout
        self.fetch_deadline = fetch_deadline
        self.max_attempts = max_attempts
        self.max_redirects = max_redirects
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._rng = rng if rng is not None else random.Random()
        self._slots = asyncio.Semaphore(concurrency)
        limits = httpx.Limits(
            max_connections=concurrency * 2, max_keepalive_connections=concurrency * 2
        )
        self._client = httpx.AsyncClient(
            transport=transport
            if transport is not None
            else GuardedTransport(policy, limits=limits),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(attempt_timeout),
            headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    def backoff(self, attempt: int) -> float:
        """Full-jitter delay before attempt ``attempt + 1`` (``attempt`` ≥ 1)."""
        ceiling = min(self.backoff_cap, self.backoff_base * (2 ** (attempt - 1)))
        return self._rng.uniform(0.0, ceiling)

    async def fetch(self, url: str, *, max_bytes: int | None = None) -> FetchedText:
        """Fetch ``url`` (see the module docstring); raises ``FetchError``."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        loop = asyncio.get_running_loop()
        # Set by the first attempt once it holds a slot, so time spent queued is not charged.
        deadline = _Deadline(loop)
        attempts = 0

        async def attempt() -> FetchedText:
            nonlocal attempts
            attempts += 1
            async with self._slots:
                remaining = deadline.start(self.fetch_deadline)
                if remaining <= 0:  # the slot came too late; not retried
                    raise FetchError(
                        "deadline", "fetch deadline passed", url=url, attempts=attempts - 1
                    )
                try:
                    fetched = await self._attempt_within(url, limit, remaining)
                except FetchError as error:
                    error.attempts = attempts
                    raise
            return replace(fetched, attempts=attempts)

        retrying = AsyncRetrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.max_attempts) | deadline,
            wait=self._wait,
            sleep=asyncio.sleep,
            reraise=True,  # the caller sees the last FetchError, not tenacity's RetryError
        )
        return await retrying(attempt)

    def _wait(self, state: RetryCallState) -> float:
        """The pause before the next attempt: full jitter, raised to any Retry-After."""
        delay = self.backoff(state.attempt_number)
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, FetchError) and error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return delay

    async def _attempt_within(self, url: str, limit: int, remaining: float) -> FetchedText:
        """One attempt, bounded by the attempt timeout and what is left of the deadline."""
        budget = min(self.attempt_timeout, remaining)
        try:
            async with asyncio.timeout(budget):
                return await self._attempt(url, limit)
        except TimeoutError:
            raise FetchError(
                "timeout", f"no complete response within {budget:g} s", url=url
            ) from None

    async def _attempt(self, url: str, limit: int) -> FetchedText:
        current = url
        origin = self.policy.origin(url)
        for _hop in range(self.max_redirects + 1):
            try:
                request = self._client.build_request("GET", current)
                response = await self._client.send(request, stream=True)
            except SourceRejected as exc:
                raise FetchError("rejected", str(exc), url=url) from None
            except httpx.TimeoutException as exc:
                raise FetchError("timeout", _describe(exc), url=url) from None
            except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
                raise FetchError("rejected", _describe(exc), url=url) from None
            except httpx.TransportError as exc:
                raise FetchError("connection", _describe(exc), url=url) from None
            try:
                status = response.status_code
                if status in _REDIRECTS:
                    location = response.headers.get("location")
                    if not location:
                        raise FetchError(
                            "redirect", f"HTTP {status} without Location", url=url, status=status
                        )
                    target = str(response.url.join(location))
                    try:
                        same = self.policy.origin(target) == origin
                    except SourceRejected as exc:
                        raise FetchError("rejected", str(exc), url=url) from None
                    if not same:
                        raise FetchError(
                            "rejected",
                            f"redirect leaves the origin {origin}: {target}",
                            url=url,
                            status=status,
                        )
                    current = target
                    continue
                return await self._read(url, response, status, limit)
            finally:
                await response.aclose()
        raise FetchError("redirect", f"more than {self.max_redirects} redirects", url=url)

    async def _read(
        self, url: str, response: httpx.Response, status: int, limit: int
    ) -> FetchedText:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if status == 429:
            raise FetchError(
                "rate_limited", "HTTP 429", url=url, status=status, retry_after=retry_after
            )
        if status >= 500:
            raise FetchError(
                "server_error", f"HTTP {status}", url=url, status=status, retry_after=retry_after
            )
        if status in (404, 410):
            raise FetchError("not_found", f"HTTP {status}", url=url, status=status)
        if not 200 <= status < 300:
            raise FetchError("http_error", f"HTTP {status}", url=url, status=status)
        declared = _content_length(response)
        if declared is not None and declared > limit:
            raise FetchError(
                "too_large", f"Content-Length {declared} > {limit} bytes", url=url, status=status
            )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    raise FetchError(
                        "too_large", f"body over {limit} bytes", url=url, status=status
                    )
                chunks.append(chunk)
        except httpx.TimeoutException as exc:
            raise FetchError("timeout", _describe(exc), url=url, status=status) from None
        except httpx.RemoteProtocolError as exc:
            raise FetchError("truncated", _describe(exc), url=url, status=status) from None
        except httpx.TransportError as exc:
            raise FetchError("connection", _describe(exc), url=url, status=status) from None
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if (
            declared is not None
            and encoding in ("", "identity")
            and response.num_bytes_downloaded != declared
        ):
            raise FetchError(
                "truncated",
                f"received {response.num_bytes_downloaded} of {declared} bytes",
                url=url,
                status=status,
            )
        return FetchedText(
            url=url,
            final_url=str(response.url),
            text=b"".join(chunks).decode("utf-8", errors="replace"),
            status=status,
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
            content_type=response.headers.get("content-type"),
        )


class _Deadline(stop_base):
    """The fetch deadline as a tenacity stop: it starts when the first attempt gets a slot,
    and stops the retries when the next pause would end after it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._at: float | None = None

    def start(self, seconds: float) -> float:
        """Starts the clock on the first call; the seconds left."""
        if self._at is None:
            self._at = self._loop.time() + seconds
        return self._at - self._loop.time()

    def __call__(self, retry_state: RetryCallState) -> bool:
        # Tenacity runs `wait` before `stop`, so `upcoming_sleep` includes any Retry-After.
        return self._at is not None and self._loop.time() + retry_state.upcoming_sleep >= self._at


def _retryable(error: BaseException) -> bool:
    return isinstance(error, FetchError) and error.retryable


def _content_length(response: httpx.Response) -> int | None:
    value = response.headers.get("content-length")
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())


def _describe(exc: Exception) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
