"""Parses one command line, checks its grammar and runs it within the command bounds.

Everything the caller did wrong (grammar, unknown command, bad flags, missing paths, budgets)
comes back in `CommandOutcome`; only store failures propagate as exceptions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from quire.server.pages.body_cache import BodyCache, PageStore
from quire.server.pages.commands import _files, _grep
from quire.server.pages.commands._lexer import GrammarError, Word, split_words
from quire.server.pages.commands._runtime import (
    Budget,
    CommandLimits,
    CommandOutcome,
    Ctx,
    Output,
    Stop,
    UsageError,
)

Command = Callable[[Ctx, Sequence[Word]], Awaitable[int]]

COMMANDS: dict[str, Command] = {
    "cat": _files.cat,
    "find": _files.find,
    "grep": _grep.grep,
    "head": _files.head,
    "ls": _files.ls,
    "rg": _grep.rg,
    "tail": _files.tail,
    "tree": _files.tree,
    "wc": _files.wc,
}
_AVAILABLE = ", ".join(sorted(COMMANDS))


def _refused(message: str) -> CommandOutcome:
    return CommandOutcome(output="", exit_code=2, truncated=False, error=message)


def _clip_errors(errors: Sequence[str], limit: int) -> str:
    text = "\n".join(errors)
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    kept = text[:cut] if cut > 0 else text[:limit]
    return f"{kept}\n[{len(errors) - kept.count(chr(10)) - 1} more errors not shown]"


async def run_command(
    store: PageStore,
    cache: BodyCache | None,
    command_line: str,
    *,
    limits: CommandLimits = CommandLimits(),  # noqa: B008 - frozen, shared safely
) -> CommandOutcome:
    """Runs one read-only command over the namespace `store` lists."""
    if len(command_line) > limits.max_command_chars:
        return _refused(
            f"quire: command line too long: {len(command_line)} characters "
            f"(limit {limits.max_command_chars})"
        )
    if "\x00" in command_line:
        return _refused("quire: command line must not contain NUL")
    try:
        words = split_words(command_line)
    except GrammarError as exc:
        return _refused(f"quire: {exc}")
    if not words:
        return _refused(f"quire: empty command; available commands: {_AVAILABLE}")
    name = words[0].text
    command = COMMANDS.get(name)
    if command is None:
        shown = name if len(name) <= 64 else name[:64] + "…"
        return _refused(
            f"quire: {shown}: command not found; available commands: {_AVAILABLE} "
            "(no pipes, redirection or chaining)"
        )
    ctx = Ctx(name, store, cache, limits, Output(limits.max_output_chars), Budget(limits))
    note = ""
    try:
        exit_code = await command(ctx, words[1:])
    except UsageError as exc:
        return _refused(f"{name}: {exc}")
    except Stop as exc:
        note = f"[{name}: {exc}]"
        ctx.errors.append(f"{name}: {exc}")
        exit_code = 2
    output, truncated = ctx.out.finish(note)
    return CommandOutcome(
        output=output,
        exit_code=exit_code,
        truncated=truncated,
        error=_clip_errors(ctx.errors, limits.max_error_chars),
    )
