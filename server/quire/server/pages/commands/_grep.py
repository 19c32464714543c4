"""grep and rg over pages, with regex time budgets.

Regex engine: the `regex` module (a superset of `re`, V0 semantics) because its matching
functions take a `timeout`; the stdlib `re` cannot be interrupted. Syntax:

- `grep` (and `grep -G`): POSIX basic regular expressions as GNU grep reads them (``\\|``,
  ``\\(…\\)``, ``\\{m,n\\}``, ``\\+``, ``\\?`` are operators; ``| ( ) + ? { }`` are literal),
  translated to the `regex` dialect.
- `grep -E`: extended regular expressions (``| ( ) + ? {m,n}`` are operators).
- `grep -P` and `rg`: the `regex` module's own syntax (Perl/Python style: ``\\d``, lookarounds,
  ``(?i)``, …); close to ripgrep's Rust syntax for everyday patterns.
- Every dialect: ``\\<`` and ``\\>`` are word boundaries, ``\\w \\s \\b`` work, POSIX classes
  like ``[[:alpha:]]`` work, and a backslash inside a bracket expression is literal (POSIX)
  except in -P/rg mode.

Patterns without regex operators run as plain substring tests, and a page whose body cannot
contain any of the literals is skipped without splitting it into lines.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import Literal

import regex

from quire.server.pages.body_cache import PageEntry
from quire.server.pages.commands._files import resolve, split_lines
from quire.server.pages.commands._lexer import Word
from quire.server.pages.commands._runtime import (
    Ctx,
    OptionSpec,
    Stop,
    UsageError,
    bounded_int,
    parse_options,
)
from quire.server.pages.grep import clip_line, original_index

Dialect = Literal["fixed", "bre", "ere", "perl"]

GREP = OptionSpec(
    "ilcwFnrRhHvqsEGPx",
    valued="emCAB",
    long={
        "ignore-case": "i",
        "files-with-matches": "l",
        "count": "c",
        "word-regexp": "w",
        "line-regexp": "x",
        "fixed-strings": "F",
        "extended-regexp": "E",
        "basic-regexp": "G",
        "perl-regexp": "P",
        "line-number": "n",
        "recursive": "r",
        "dereference-recursive": "R",
        "no-filename": "h",
        "with-filename": "H",
        "invert-match": "v",
        "quiet": "q",
        "silent": "q",
        "no-messages": "s",
        "regexp": "e",
        "max-count": "m",
        "context": "C",
        "after-context": "A",
        "before-context": "B",
    },
    digits="C",
)

RG = OptionSpec(
    "ilcwFnNrHIvqsSx",
    valued="emCAB",
    long={
        "ignore-case": "i",
        "case-sensitive": "s",
        "smart-case": "S",
        "files-with-matches": "l",
        "count": "c",
        "word-regexp": "w",
        "line-regexp": "x",
        "fixed-strings": "F",
        "line-number": "n",
        "no-line-number": "N",
        "with-filename": "H",
        "no-filename": "I",
        "invert-match": "v",
        "quiet": "q",
        "regexp": "e",
        "max-count": "m",
        "context": "C",
        "after-context": "A",
        "before-context": "B",
    },
)

_BRE_SPECIAL = frozenset("\\.[*^$")
_ERE_SPECIAL = frozenset("\\.[]*+?{}()|^$")
_KEPT_ESCAPES = frozenset("wWsSbBdD")


def _bracket(pattern: str, start: int, perl: bool) -> tuple[str, int]:
    """Translates the bracket expression at `start`; returns (text, index after it)."""
    n = len(pattern)
    j = start + 1
    out = ["["]
    if j < n and pattern[j] == "^":
        out.append("^")
        j += 1
    if j < n and pattern[j] == "]":
        out.append("\\]")
        j += 1
    while j < n and pattern[j] != "]":
        if pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end < 0:
                raise UsageError("Unmatched [, [^, [:, [., or [=")
            out.append(pattern[j : end + 2])
            j = end + 2
            continue
        char = pattern[j]
        if char == "\\" and perl and j + 1 < n:
            out.append(pattern[j : j + 2])
            j += 2
            continue
        out.append("\\" + char if char in "\\[&~|" else char)
        j += 1
    if j >= n:
        raise UsageError("Unmatched [, [^, [:, [., or [=")
    out.append("]")
    return "".join(out), j + 1


def translate(pattern: str, dialect: Dialect) -> str:
    """A GNU grep BRE/ERE (or a -P pattern) as a `regex` V0 pattern."""
    if dialect == "perl":
        return pattern.replace("\\<", r"\b(?=\w)").replace("\\>", r"\b(?<=\w)")
    out: list[str] = []
    i = 0
    n = len(pattern)
    at_start = True
    basic = dialect == "bre"
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise UsageError("Trailing backslash")
            escaped = pattern[i + 1]
            i += 2
            if basic and escaped in "(|":
                out.append(escaped)
                at_start = True
                continue
            at_start = False
            if basic and escaped in "){}+?":
                out.append(escaped)
            elif escaped == "<":
                out.append(r"\b(?=\w)")
            elif escaped == ">":
                out.append(r"\b(?<=\w)")
            elif escaped in _KEPT_ESCAPES or (escaped.isdigit() and escaped != "0"):
                out.append("\\" + escaped)
            else:
                out.append(regex.escape(escaped))
            continue
        if char == "[":
            text, i = _bracket(pattern, i, perl=False)
            out.append(text)
            at_start = False
            continue
        i += 1
        if char == "^":
            out.append("^" if at_start or not basic else "\\^")
            continue
        if char == "$":
            anchor = not basic or i == n or pattern.startswith(("\\)", "\\|"), i)
            out.append("$" if anchor else "\\$")
            at_start = False
            continue
        if char == "*":
            out.append("\\*" if at_start else "*")
            at_start = False
            continue
        if basic and char in "+?{}|()":
            out.append("\\" + char)
            at_start = False
            continue
        if not basic and char in "(|":
            out.append(char)
            at_start = True
            continue
        if not basic and char in "+?" and at_start:
            out.append("\\" + char)
            continue
        out.append(char if char in ".)+?{}" else regex.escape(char))
        at_start = False
    return "".join(out)


def _is_literal(pattern: str, dialect: Dialect) -> bool:
    if dialect == "fixed":
        return True
    special = _BRE_SPECIAL if dialect == "bre" else _ERE_SPECIAL
    return not any(char in special for char in pattern)


class Matcher:
    """Line predicate with a fast literal path and time-bounded regex search."""

    def __init__(
        self,
        ctx: Ctx,
        patterns: Sequence[str],
        dialect: Dialect,
        ignore_case: bool,
        word: bool,
        line: bool,
    ) -> None:
        self.budget = ctx.budget
        self.per_line = ctx.limits.regex_line_timeout_s
        self.command_budget = ctx.limits.regex_command_budget_s
        self.ignore_case = ignore_case
        self.literals: list[str] | None = None
        self.compiled: regex.Pattern[str] | None = None
        literal = all(_is_literal(p, dialect) for p in patterns)
        if literal:
            self.literals = [p.casefold() if ignore_case else p for p in patterns]
        if literal and not word and not line:
            return
        parts = [regex.escape(p) if literal else translate(p, dialect) for p in patterns]
        combined = "|".join(f"(?:{part})" for part in parts)
        if word:
            combined = rf"(?<!\w)(?:{combined})(?!\w)"
        if line:
            combined = rf"^(?:{combined})$"
        flags = regex.V0 | (regex.IGNORECASE | regex.FULLCASE if ignore_case else 0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.compiled = regex.compile(combined, flags)
        except (regex.error, OverflowError, RecursionError, ValueError) as exc:
            raise UsageError(f"invalid regular expression: {exc}") from None

    def body_may_match(self, body: str) -> bool:
        """False only when no line of `body` can match (a necessary-condition prefilter)."""
        if self.literals is None:
            return True
        haystack = body.casefold() if self.ignore_case else body
        return any(literal in haystack for literal in self.literals)

    def matches(self, line: str) -> bool:
        if self.compiled is None:
            assert self.literals is not None
            text = line.casefold() if self.ignore_case else line
            return any(literal in text for literal in self.literals)
        return self._search(line) is not None

    def position(self, line: str) -> int:
        """Where the first match starts in `line` (0 when none), for clipping long lines."""
        if self.compiled is not None:
            found = self._search(line)
            return found.start() if found is not None else 0
        assert self.literals is not None
        text = line.casefold() if self.ignore_case else line
        starts = [text.find(literal) for literal in self.literals]
        first = min((s for s in starts if s >= 0), default=0)
        return original_index(line, first) if self.ignore_case else first

    def _search(self, line: str) -> regex.Match[str] | None:
        assert self.compiled is not None
        timeout = min(self.per_line, self.budget.regex_left)
        if timeout <= 0:
            raise self._exhausted()
        started = time.perf_counter()
        try:
            found = self.compiled.search(line, timeout=timeout)
        except TimeoutError:
            self.budget.regex_left -= time.perf_counter() - started
            if self.budget.regex_left <= 0:
                raise self._exhausted() from None
            raise Stop(
                f"pattern too expensive: matching one line took over {self.per_line:g} s; "
                "simplify it (avoid nested quantifiers such as (a+)+) or use -F; "
                "output is partial"
            ) from None
        self.budget.regex_left -= time.perf_counter() - started
        return found

    def _exhausted(self) -> Stop:
        return Stop(
            f"regex time budget of {self.command_budget:g} s per command exhausted; "
            "narrow the path or simplify the pattern; output is partial"
        )


class _Printer:
    """GNU grep output: "path:N:line" for matches, "path-N-line" for context, "--" between
    non-adjacent groups."""

    def __init__(
        self, ctx: Ctx, matcher: Matcher, with_filename: bool, numbers: bool, context: bool
    ) -> None:
        self.ctx = ctx
        self.matcher = matcher
        self.with_filename = with_filename
        self.numbers = numbers
        self.context = context
        self.clip = ctx.limits.grep_line_chars
        self.last: tuple[str, int] | None = None

    def emit(self, path: str, index: int, line: str, selected: bool) -> None:
        if self.context and self.last is not None and self.last != (path, index - 1):
            self.ctx.out.line("--")
        self.last = (path, index)
        sep = ":" if selected else "-"
        prefix = f"{path}{sep}" if self.with_filename else ""
        if self.numbers:
            prefix += f"{index + 1}{sep}"
        if self.clip and len(line) > self.clip:
            start = self.matcher.position(line) if selected else 0
            line, _ = clip_line(line, start, self.clip)
        self.ctx.out.line(prefix + line)


async def grep(ctx: Ctx, args: Sequence[Word]) -> int:
    return await _search(ctx, args, ripgrep=False)


async def rg(ctx: Ctx, args: Sequence[Word]) -> int:
    return await _search(ctx, args, ripgrep=True)


async def _search(ctx: Ctx, args: Sequence[Word], ripgrep: bool) -> int:
    options, operands = parse_options(ctx.name, args, RG if ripgrep else GREP)
    flags: set[str] = set()
    patterns: list[str] = []
    before = after = 0
    max_count: int | None = None
    case: str = ""
    for flag, value in options:
        if flag == "e":
            patterns.append(value)
        elif flag == "m":
            max_count = bounded_int("-m", value, 0, ctx.limits.max_lines)
        elif flag in "CAB":
            amount = bounded_int(f"-{flag}", value, 0, ctx.limits.max_context)
            if flag in "CA":
                after = amount
            if flag in "CB":
                before = amount
        elif flag == "i" or (ripgrep and flag in "sS"):
            case = flag
        else:
            flags.add(flag)
    if not patterns:
        if not operands:
            usage = (
                "rg [OPTIONS] PATTERN [PATH...]" if ripgrep else "grep [OPTIONS] PATTERN [FILE...]"
            )
            raise UsageError(f"no pattern given; usage: {usage}")
        patterns = [operands[0].text]
        operands = operands[1:]
    patterns = [piece for pattern in patterns for piece in pattern.split("\n")]
    size = sum(len(p) for p in patterns)
    if size > ctx.limits.max_pattern_chars:
        raise UsageError(
            f"pattern too long: {size} characters (limit {ctx.limits.max_pattern_chars})"
        )
    if "F" in flags:
        dialect: Dialect = "fixed"
    elif ripgrep or "P" in flags:
        dialect = "perl"
    elif "E" in flags:
        dialect = "ere"
    else:
        dialect = "bre"
    smart = not any(c.isupper() for p in patterns for c in p)
    ignore_case = smart if case == "S" else case == "i"
    matcher = Matcher(ctx, patterns, dialect, ignore_case, "w" in flags, "x" in flags)

    recursive = ripgrep or bool(flags & {"r", "R"})
    namespace, paths = await resolve(ctx, operands)
    files: list[PageEntry] = []
    searched_dir = not operands
    for path in paths:
        entry = namespace.file(path)
        if entry is not None:
            files.append(entry)
        elif namespace.is_dir(path):
            if recursive or not operands:
                files.extend(namespace.files_under(path))
                searched_dir = True
            elif "s" not in flags:
                ctx.error(f"{path}: Is a directory")
        elif "s" not in flags:
            ctx.error(f"{path}: No such file or directory")
    if ripgrep:
        with_filename = "I" not in flags and ("H" in flags or len(paths) > 1 or searched_dir)
    else:
        with_filename = "H" in flags or ("h" not in flags and (len(paths) > 1 or searched_dir))
    numbers = "n" in flags and "N" not in flags
    files_only, count_only, quiet = "l" in flags, "c" in flags, "q" in flags
    invert = "v" in flags
    show_lines = not (files_only or count_only or quiet)
    printer = _Printer(
        ctx, matcher, with_filename, numbers, show_lines and (before > 0 or after > 0)
    )
    any_selected = False

    async for entry, body in ctx.bodies(files):
        if max_count == 0 or (not invert and not matcher.body_may_match(body)):
            if count_only and not ripgrep:
                ctx.out.line(f"{entry.path}:0" if with_filename else "0")
            continue
        lines = split_lines(body)
        count = 0
        last_printed = -1
        pending_after = 0
        index = 0
        while index < len(lines):
            if index & 255 == 0:
                await ctx.budget.breathe()
            line = lines[index]
            if matcher.matches(line) != invert:
                count += 1
                any_selected = True
                if quiet:
                    return 0
                if files_only:
                    break
                if show_lines:
                    for j in range(max(index - before, last_printed + 1), index):
                        printer.emit(entry.path, j, lines[j], selected=False)
                    printer.emit(entry.path, index, line, selected=True)
                    last_printed = index
                    pending_after = after
                if max_count is not None and count >= max_count:
                    if show_lines:
                        for j in range(index + 1, min(index + 1 + after, len(lines))):
                            printer.emit(entry.path, j, lines[j], selected=False)
                    break
            elif pending_after > 0 and show_lines:
                printer.emit(entry.path, index, line, selected=False)
                last_printed = index
                pending_after -= 1
            if ctx.out.full:
                break
            index += 1
        if files_only and count:
            ctx.out.line(entry.path)
        elif count_only and (count or not ripgrep):
            ctx.out.line(f"{entry.path}:{count}" if with_filename else str(count))
    if ctx.errors and not (quiet and any_selected):
        return 2
    return 0 if any_selected else 1
