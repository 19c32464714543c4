"""GrepPages: literal substring search over a namespace, line by line, in path order.

Semantics (also in docs/commands.md):

- The query is a literal string (no regex), searched in each line; lines are split on "\\n"
  only, a trailing "\\r" is dropped from the reported line, line numbers are 1-based.
- `ignore_case` compares ``str.casefold()`` of query and text: full Unicode case folding, so
  "STRASSE" matches "straße" and "ΣΑΣ" matches "σας"; no normalisation (NFC "é" and NFD "é" do not
  match each other).
- A page whose body does not contain the query at all is skipped with one substring test.
- Stops: after `limit` matches, when one more match exists (`stop_reason="limit"`; if the
  `limit`-th match is the last one the result is complete); before a match that would push the
  output over `max_output_chars` (`"output_limit"`); at the deadline (`"deadline"`). Any stop
  means `complete=False`: absence of further matches cannot be concluded.
- Lines longer than `CLIP_CHARS` (500) are clipped to a 500-character window that includes the
  start of the first match when possible, with "…" marking each cut end; `clipped=True`.
- Output budget: each match costs ``len(path) + len(line) + MATCH_OVERHEAD_CHARS`` (32) chars.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import invalid
from quire.server.pages.body_cache import BodyCache, PageEntry, PageStore, load_bodies
from quire.server.validation import number

StopReason = Literal["limit", "output_limit", "deadline"]

CLIP_CHARS = 500
MATCH_OVERHEAD_CHARS = 32
DEFAULT_LIMIT = number(contract_bounds.GrepPagesRequest.limit.default)
MAX_LIMIT = number(contract_bounds.GrepPagesRequest.limit.max)
DEFAULT_DEADLINE_S = 5.0
DEFAULT_MAX_OUTPUT_CHARS = 24_000
MAX_QUERY_CHARS = number(contract_bounds.GrepPagesRequest.query.max_chars)
READ_BATCH = 64


@dataclass(frozen=True, slots=True)
class Match:
    path: str
    line_number: int
    line: str
    clipped: bool = False


@dataclass(frozen=True, slots=True)
class GrepOutcome:
    matches: list[Match]
    complete: bool
    stop_reason: StopReason | None
    pages_scanned: int = 0
    warnings: list[str] = field(default_factory=list)


def clip_line(line: str, position: int, width: int = CLIP_CHARS) -> tuple[str, bool]:
    """A `width`-character window of `line` that starts before `position` when it can."""
    if len(line) <= width:
        return line, False
    start = max(0, min(position - width // 4, len(line) - width))
    end = start + width
    text = line[start:end]
    return ("…" if start > 0 else "") + text + ("…" if end < len(line) else ""), True


def original_index(line: str, folded_position: int) -> int:
    """Index in `line` of the character whose casefold covers `folded_position`."""
    seen = 0
    for index, char in enumerate(line):
        seen += len(char.casefold())
        if seen > folded_position:
            return index
    return len(line)


def _check(query: str, prefix: str, limit: int, max_output_chars: int) -> None:
    if not query:
        raise invalid("query", "must not be empty", "at least one character")
    if len(query) > MAX_QUERY_CHARS:
        longest = f"at most {MAX_QUERY_CHARS} characters"
        raise invalid("query", f"{longest} (got {len(query)})", longest)
    if "\n" in query or "\r" in query:
        raise invalid("query", "must be a single line", "one line")
    if not prefix.startswith("/"):
        raise invalid("prefix", 'must start with "/"', 'starts with "/"')
    if not 1 <= limit <= MAX_LIMIT:
        raise invalid("limit", f"must be 1–{MAX_LIMIT}", f"1–{MAX_LIMIT}")
    if max_output_chars < 1:
        raise invalid("max_output_chars", "must be >= 1")


async def grep_pages(
    store: PageStore,
    cache: BodyCache | None,
    query: str,
    prefix: str = "/",
    ignore_case: bool = False,
    limit: int = DEFAULT_LIMIT,
    deadline_s: float = DEFAULT_DEADLINE_S,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> GrepOutcome:
    """Literal grep over the pages under `prefix`. Invalid arguments raise INVALID_REQUEST."""
    _check(query, prefix, limit, max_output_chars)
    deadline = time.monotonic() + deadline_s
    matches: list[Match] = []
    spent = 0
    scanned = 0

    def stop(reason: StopReason) -> GrepOutcome:
        return GrepOutcome(matches, False, reason, scanned)

    if deadline_s <= 0:
        return stop("deadline")
    try:
        async with asyncio.timeout_at(_loop_time(deadline)) as listing:
            entries = await store.list_entries(prefix)
    except TimeoutError:
        if listing.expired():
            return stop("deadline")
        raise
    entries = [e for e in entries if e.path.startswith(prefix)]
    needle = query.casefold() if ignore_case else query

    for start in range(0, len(entries), READ_BATCH):
        batch: Sequence[PageEntry] = entries[start : start + READ_BATCH]
        if time.monotonic() >= deadline:
            return stop("deadline")
        try:
            async with asyncio.timeout_at(_loop_time(deadline)) as reading:
                bodies = await load_bodies(store, cache, batch)
        except TimeoutError:
            if reading.expired():
                return stop("deadline")
            raise
        for entry in batch:
            if time.monotonic() >= deadline:
                return stop("deadline")
            body = bodies.get(entry.path)
            if body is None:
                continue
            scanned += 1
            if not ignore_case:
                haystack = body
            elif cache is not None:
                haystack = cache.folded(entry, body)
            else:
                haystack = body.casefold()
            position = haystack.find(needle)
            if position < 0:
                continue
            # Folding kept every character one character long (no "ß" → "ss"): positions in
            # the haystack are positions in the body, and a match's line is sliced out of it
            # without splitting the whole page (the release notes are 700,000 characters).
            aligned = haystack is body or len(haystack) == len(body)
            lines = None if aligned else body.split("\n")
            line_index = haystack.count("\n", 0, position)
            line_start = haystack.rfind("\n", 0, position) + 1
            while position >= 0:
                if len(matches) == limit:
                    return stop("limit")
                column = position - line_start
                if lines is None:
                    line_end = body.find("\n", position)
                    line = body[line_start:] if line_end < 0 else body[line_start:line_end]
                else:
                    line = lines[line_index]
                    column = min(original_index(line, column), len(line))
                if line.endswith("\r"):
                    line = line[:-1]
                text, clipped = clip_line(line, column)
                cost = len(entry.path) + len(text) + MATCH_OVERHEAD_CHARS
                if spent + cost > max_output_chars:
                    return stop("output_limit")
                spent += cost
                matches.append(Match(entry.path, line_index + 1, text, clipped))
                next_line = haystack.find("\n", position)
                if next_line < 0:
                    break
                position = haystack.find(needle, next_line + 1)
                if position >= 0:
                    line_index += haystack.count("\n", next_line, position)
                    line_start = haystack.rfind("\n", 0, position) + 1
        await asyncio.sleep(0)
    return GrepOutcome(matches, True, None, scanned)


def _loop_time(deadline_monotonic: float) -> float:
    """Converts a time.monotonic() deadline to the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline_monotonic - time.monotonic())
