"""Delimited tables (csv / tsv) through the stdlib csv module."""

from __future__ import annotations

import csv
import io

__all__ = ["delimited_text"]

#: Longest csv field accepted (characters); longer fields make the file fall back to raw text.
_CSV_FIELD_LIMIT = 10 * 1024 * 1024


def _clean_cell(cell: str) -> str:
    return " ".join(cell.split())


def delimited_text(text: str, delimiter: str, warnings: list[str]) -> str:
    """CSV / TSV rows as tab-separated lines (cells with tabs or line breaks are flattened).

    A file the csv module rejects (e.g. a field over 10 MiB) is kept as decoded text.
    """
    previous_limit = csv.field_size_limit()
    csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        lines = []
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False):
            cells = [_clean_cell(cell) for cell in row]
            while cells and not cells[-1]:
                cells.pop()
            if cells:
                lines.append("\t".join(cells))
        return "\n".join(lines)
    except csv.Error as exc:
        warnings.append(f"not parsed as delimited text ({exc}); kept as plain text")
        return text
    finally:
        csv.field_size_limit(previous_limit)
