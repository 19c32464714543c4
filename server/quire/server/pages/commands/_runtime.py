"""Shared machinery: limits, the bounded output, time budgets, option parsing, body loading."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from quire.server.pages.body_cache import BodyCache, PageEntry, PageStore, load_bodies
from quire.server.pages.commands._lexer import Word
from quire.server.pages.commands._namespace import Namespace, normalize


@dataclass(frozen=True, slots=True)
class CommandLimits:
    """Bounds of one command; defaults are the service's."""

    max_command_chars: int = 1_024
    max_output_chars: int = 30_000
    max_pattern_chars: int = 256
    regex_line_timeout_s: float = 0.05
    regex_command_budget_s: float = 2.0
    command_timeout_s: float = 10.0
    max_tree_depth: int = 20
    max_lines: int = 100_000
    max_context: int = 100
    max_find_depth: int = 1_000
    grep_line_chars: int = 2_000
    max_error_chars: int = 4_000
    read_batch: int = 16


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """stdout (bounded), the exit code (0, 1 or 2), whether output is incomplete, stderr."""

    output: str
    exit_code: int
    truncated: bool = False
    error: str = ""


class UsageError(Exception):
    """Bad flags or operands: exit code 2 with this message and no output."""


class Stop(Exception):
    """The command ran out of a budget; output so far is kept and marked partial."""


class Output:
    """Accumulates stdout; `full` once over the limit so producers can stop early."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[str] = []
        self._size = 0
        self.full = False

    def write(self, text: str) -> None:
        if self.full or not text:
            return
        self._parts.append(text)
        self._size += len(text)
        if self._size > self.limit:
            self.full = True

    def line(self, text: str) -> None:
        self.write(text + "\n")

    def finish(self, note: str = "") -> tuple[str, bool]:
        """The output within the limit; over it, cut at a line boundary and end with a hint.

        With a `note` (the command stopped early) the note is the last line. The result never
        exceeds the limit, note or hint included.
        """
        text = "".join(self._parts)
        if not note and len(text) <= self.limit:
            return text, False
        tail = note or (
            f"[output truncated at {self.limit} characters: narrow the path or use head/grep -m]"
        )
        room = self.limit - len(tail) - 1
        if room <= 0:
            return (tail + "\n")[: max(self.limit, 0)], True
        if len(text) <= room and (not text or text.endswith("\n")):
            kept = text
        elif len(text) + 1 <= room and not text.endswith("\n"):
            kept = text + "\n"
        else:
            cut = text.rfind("\n", 0, room)
            kept = text[: cut + 1] if cut >= 0 else text[: room - 1] + "\n"
        return kept + tail + "\n", True


class Budget:
    """The overall deadline and the cumulative regex time of one command."""

    def __init__(self, limits: CommandLimits) -> None:
        self.limits = limits
        self.deadline = time.monotonic() + limits.command_timeout_s
        self.regex_left = limits.regex_command_budget_s
        self._last_yield = time.perf_counter()

    def check(self) -> None:
        if time.monotonic() >= self.deadline:
            raise Stop(
                f"command stopped after {self.limits.command_timeout_s:g} s; output is partial"
            )

    async def breathe(self) -> None:
        """Checks the deadline and lets other tasks run about every 20 ms of CPU work."""
        self.check()
        now = time.perf_counter()
        if now - self._last_yield > 0.02:
            await asyncio.sleep(0)
            self._last_yield = time.perf_counter()

    def loop_deadline(self) -> float:
        loop = asyncio.get_running_loop()
        return loop.time() + (self.deadline - time.monotonic())


@dataclass
class Ctx:
    """Everything a command implementation gets."""

    name: str
    store: PageStore
    cache: BodyCache | None
    limits: CommandLimits
    out: Output
    budget: Budget
    errors: list[str] = field(default_factory=list)

    def error(self, message: str) -> None:
        self.errors.append(f"{self.name}: {message}")

    async def snapshot(self, paths: Sequence[str]) -> Namespace:
        """One listing covering every path in `paths` (their longest common prefix)."""
        prefix = _common_prefix(paths) if paths else "/"
        try:
            async with asyncio.timeout_at(self.budget.loop_deadline()) as scope:
                entries = await self.store.list_entries(prefix)
        except TimeoutError:
            if scope.expired():
                self.budget.check()
                raise Stop("command timed out while listing pages") from None
            raise
        return Namespace([e for e in entries if e.path.startswith(prefix)])

    async def bodies(self, entries: Sequence[PageEntry]) -> AsyncIterator[tuple[PageEntry, str]]:
        """(entry, body) in order, read in batches; stops when the output is full.

        A page deleted since the listing is reported as missing and skipped.
        """
        batch_size = max(1, self.limits.read_batch)
        for start in range(0, len(entries), batch_size):
            if self.out.full:
                return
            await self.budget.breathe()
            batch = entries[start : start + batch_size]
            try:
                async with asyncio.timeout_at(self.budget.loop_deadline()) as scope:
                    read = await load_bodies(self.store, self.cache, batch)
            except TimeoutError:
                if scope.expired():
                    self.budget.check()
                    raise Stop("command timed out while reading pages") from None
                raise
            for entry in batch:
                body = read.get(entry.path)
                if body is None:
                    self.error(f"{entry.path}: No such file or directory")
                    continue
                yield entry, body
                if self.out.full:
                    return


def _common_prefix(paths: Sequence[str]) -> str:
    low, high = min(paths), max(paths)
    size = 0
    while size < min(len(low), len(high)) and low[size] == high[size]:
        size += 1
    return low[:size] or "/"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """Short flags (no value), short options taking a value, and long names → short."""

    flags: str
    valued: str = ""
    long: dict[str, str] = field(default_factory=dict)
    digits: str = ""  # "-5" means "-<digits> 5" (head/tail: n, grep: C)


def parse_options(
    command: str, args: Sequence[Word], spec: OptionSpec
) -> tuple[list[tuple[str, str]], list[Word]]:
    """GNU-style: clustered flags (-rn), attached values (-C2, -ePAT), options after operands,
    ``--`` ends options, a lone ``-`` is an operand."""
    options: list[tuple[str, str]] = []
    operands: list[Word] = []
    index = 0
    only_operands = False
    while index < len(args):
        word = args[index]
        arg = word.text
        index += 1
        if only_operands or not arg.startswith("-") or arg == "-":
            operands.append(word)
            continue
        if arg == "--":
            only_operands = True
            continue
        if arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            short = spec.long.get(name)
            if short is None:
                raise UsageError(f"unrecognized option '--{name}'")
            if short in spec.valued:
                if not has_value:
                    if index >= len(args):
                        raise UsageError(f"option '--{name}' requires an argument")
                    value = args[index].text
                    index += 1
                options.append((short, value))
            else:
                if has_value:
                    raise UsageError(f"option '--{name}' doesn't allow an argument")
                options.append((short, ""))
            continue
        body = arg[1:]
        if spec.digits and body.isdigit():
            options.append((spec.digits, body))
            continue
        position = 0
        while position < len(body):
            char = body[position]
            position += 1
            if char in spec.valued:
                value = body[position:]
                if not value:
                    if index >= len(args):
                        raise UsageError(f"option requires an argument -- '{char}'")
                    value = args[index].text
                    index += 1
                options.append((char, value))
                break
            if char in spec.flags:
                options.append((char, ""))
                continue
            raise UsageError(f"invalid option -- '{char}'")
    return options, operands


def bounded_int(option: str, value: str, low: int, high: int) -> int:
    text = value.strip()
    if not text.isdigit() or not text.isascii():
        raise UsageError(f"invalid number for {option}: '{value}'")
    number = int(text) if len(text) <= 12 else high + 1
    if not low <= number <= high:
        raise UsageError(f"{option} must be {low}–{high} (got {value})")
    return number


def resolve_words(namespace: Namespace, words: Sequence[Word]) -> list[str]:
    """Normalised operand paths with globs expanded (an unmatched glob stays as typed)."""
    out: list[str] = []
    for word in words:
        if word.glob:
            matched = namespace.glob(word.pattern)
            if matched:
                out.extend(matched)
                continue
        out.append(normalize(word.text))
    return out


def glob_roots(words: Sequence[Word]) -> list[str]:
    """Paths to list before resolving `words`: the literal part in front of any glob."""
    roots: list[str] = []
    for word in words:
        if word.glob:
            text = word.text
            cut = min(i for i, c in enumerate(text) if c in "*?[")
            roots.append(normalize(text[:cut].rsplit("/", 1)[0] if "/" in text[:cut] else "/"))
        else:
            roots.append(normalize(word.text))
    return roots
