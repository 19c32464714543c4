"""How a network command shows its result: JSON on stdout for scripts (`--json`), rich tables
otherwise; progress and messages on stderr, progress drawn only when stderr is a terminal.

Every `--json` result is one envelope (docs/cli.md, "JSON output"):
`{"command": "collections ls", "result": {...}}` on success and
`{"command": ..., "error": {"code", "message", "exit_code"}}` on failure; `result` is always an
object, and each command's shape is a JSON Schema under docs/cli-schemas/.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text


def as_dict(message: Message) -> dict[str, Any]:
    """A message as JSON-ready data: proto field names, enums by name, zero values kept."""
    return json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


def envelope(command: str, result: dict[str, Any]) -> dict[str, Any]:
    return {"command": command, "result": result}


def error_envelope(command: str, code: str, message: str, exit_code: int) -> dict[str, Any]:
    return {
        "command": command,
        "error": {"code": code, "message": message, "exit_code": exit_code},
    }


def write_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class Output:
    def __init__(self, as_json: bool, command: str = "", plain: bool = False) -> None:
        self.as_json = as_json
        self.command = command
        self.plain = plain
        self.out = Console(highlight=False)
        if not self.out.is_terminal:
            # Piped into a file or less: rich would assume 80 columns and fold every UUID.
            self.out = Console(highlight=False, width=200)
        self.err = Console(stderr=True, highlight=False)

    def result(self, data: dict[str, Any], render: Callable[[Console], None]) -> None:
        """The command's result: `data` in the JSON envelope, or drawn by `render`."""
        if self.as_json:
            write_json(envelope(self.command, data))
        else:
            render(self.out)

    def note(self, text: str) -> None:
        """A line for the person at the terminal; kept off stdout so --json stays parsable."""
        self.err.print(text, markup=False, soft_wrap=True)

    def progress(self) -> Progress:
        """A progress display with rate and ETA; a no-op unless stderr is a terminal. On a
        narrow terminal the least important columns are left out (see `progress_columns`)."""
        return Progress(
            *progress_columns(self.err.width),
            console=self.err,
            transient=False,
            # Progress goes to stderr, so it may be drawn beside --json output on stdout.
            disable=not self.err.is_terminal,
        )


@dataclass(frozen=True)
class _Column:
    name: str
    width: int  # the most it usually takes, in cells
    make: Callable[[int], ProgressColumn]


# In the order drawn; `_PRIORITY` says which are kept first when the terminal is narrow.
_COLUMNS = (
    _Column("stage", 12, lambda _: TextColumn("{task.description:<12}")),
    _Column("bar", 10, lambda width: BarColumn(bar_width=width)),
    _Column("count", 13, lambda _: MofNCompleteColumn()),
    _Column("percent", 4, lambda _: TaskProgressColumn()),
    _Column("rate", 14, lambda _: TextColumn("{task.fields[rate]}")),
    _Column("elapsed", 7, lambda _: TimeElapsedColumn()),
    _Column("remaining", 7, lambda _: TimeRemainingColumn()),
    _Column("detail", 28, lambda _: TextColumn("{task.fields[detail]}")),
)
# The counts matter most (what is done of how much), the decoration least.
_PRIORITY = ("stage", "count", "bar", "percent", "remaining", "rate", "detail", "elapsed")
_BAR_MAX = 40


def progress_column_names(width: int) -> list[str]:
    """The columns that fit in `width` cells (one space between columns), most important
    first, in drawing order."""
    by_name = {c.name: c for c in _COLUMNS}
    kept: set[str] = set()
    used = 0
    for name in _PRIORITY:
        need = by_name[name].width + (1 if kept else 0)
        if used + need <= width:
            kept.add(name)
            used += need
    return [c.name for c in _COLUMNS if c.name in kept]


def progress_columns(width: int) -> list[ProgressColumn]:
    names = progress_column_names(width)
    taken = sum(c.width + 1 for c in _COLUMNS if c.name in names and c.name != "bar")
    bar = max(10, min(_BAR_MAX, width - taken - 1))
    return [c.make(bar) for c in _COLUMNS if c.name in names]


_HIGHLIGHT = re.compile(r"</?b>")


def highlighted(snippet: str, plain: bool, max_chars: int = 200) -> Text:
    """A search snippet whose `<b>…</b>` marks (PostgreSQL's ts_headline) are drawn bold;
    with `plain` the marks are only removed. Cut to `max_chars` after the marks are read, so
    no half mark is left."""
    text = Text()
    bold = False
    for part in re.split(r"(</?b>)", " ".join(snippet.split())):
        if _HIGHLIGHT.fullmatch(part):
            bold = part == "<b>"
        elif part:
            text.append(part, style="bold" if bold and not plain else None)
    text.truncate(max_chars, overflow="ellipsis")
    return text


def _cell(value: Any) -> Text | str:
    return value if isinstance(value, Text) else "" if value is None else str(value)


def table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        t.add_column(column, overflow="fold")
    for row in rows:
        t.add_row(
            *(cell if isinstance(cell, Text) else "" if cell is None else str(cell) for cell in row)
        )
    return t


def plain_rows(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Tab-separated lines, a header first: for `--plain`, to pipe into cut or awk."""
    lines = ["\t".join(columns)]
    for row in rows:
        cells = (c.plain if isinstance(c, Text) else "" if c is None else str(c) for c in row)
        lines.append("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells))
    return "\n".join(lines)


def pairs(title: str | None, items: Iterable[tuple[str, Any]]) -> Table:
    """A two-column key/value table."""
    t = Table(title=title, title_justify="left", show_header=False)
    t.add_column("field", style="bold")
    t.add_column("value", overflow="fold")
    for key, value in items:
        t.add_row(key, "" if value is None else str(value))
    return t


def rate(done: float, seconds: float, unit: str) -> str:
    return f"{done / seconds:,.1f} {unit}/s" if seconds > 0 and done else ""


__all__ = [
    "Output",
    "as_dict",
    "envelope",
    "error_envelope",
    "highlighted",
    "pairs",
    "plain_rows",
    "progress_column_names",
    "progress_columns",
    "rate",
    "table",
    "write_json",
]
