"""How a network command shows its result: JSON on stdout for scripts (`--json`), rich tables
otherwise; progress and messages on stderr, progress drawn only when stderr is a terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table


def as_dict(message: Message) -> dict[str, Any]:
    """A message as JSON-ready data: proto field names, enums by name, zero values kept."""
    return json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


class Output:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.out = Console(highlight=False)
        if not self.out.is_terminal:
            # Piped into a file or less: rich would assume 80 columns and fold every UUID.
            self.out = Console(highlight=False, width=200)
        self.err = Console(stderr=True, highlight=False)

    def result(self, data: Any, render: Callable[[Console], None]) -> None:
        """The command's result: `data` as JSON, or drawn by `render`."""
        if self.as_json:
            sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            render(self.out)

    def note(self, text: str) -> None:
        """A line for the person at the terminal; kept off stdout so --json stays parsable."""
        self.err.print(text, markup=False, soft_wrap=True)

    def progress(self) -> Progress:
        """A progress display with rate and ETA; a no-op unless stderr is a terminal."""
        return Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
            console=self.err,
            transient=False,
            # Progress goes to stderr, so it may be drawn beside --json output on stdout.
            disable=not self.err.is_terminal,
        )


def table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        t.add_column(column, overflow="fold")
    for row in rows:
        t.add_row(*("" if cell is None else str(cell) for cell in row))
    return t


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


__all__ = ["Output", "as_dict", "pairs", "rate", "table"]
