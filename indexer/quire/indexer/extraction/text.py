"""Text, markup, data and source files: decoding and delimited tables (stdlib only)."""

from __future__ import annotations

import codecs
import csv
import io

__all__ = ["decode_text", "delimited_text"]

# UTF-32 BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Longest csv field accepted (characters); longer fields make the file fall back to raw text.
_CSV_FIELD_LIMIT = 10 * 1024 * 1024


def decode_text(data: bytes, warnings: list[str]) -> str:
    """Decode as UTF-8, or UTF-16/32 when a byte order mark says so; the BOM is dropped.

    Invalid sequences become U+FFFD (never passed through) and add a warning.
    """
    encoding, start = "utf-8", 0
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding, start = name, len(bom)
            break
    body = memoryview(data)[start:]
    try:
        return str(body, encoding)
    except UnicodeDecodeError:
        warnings.append(f"invalid {encoding} byte sequences were replaced")
        return str(body, encoding, errors="replace")


def _clean_cell(cell: str) -> str:
    return " ".join(cell.split())


def delimited_text(data: bytes, delimiter: str, warnings: list[str]) -> str:
    """CSV / TSV rows as tab-separated lines (cells with tabs or line breaks are flattened).

    A file the csv module rejects (e.g. a field over 10 MiB) is kept as decoded text.
    """
    text = decode_text(data, warnings)
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
