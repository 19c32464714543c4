"""Binary documents through kreuzberg: PDF, Office (OOXML and legacy), OpenDocument text and
spreadsheets, RTF, HTML/XML, email; ODP through odfpy, which kreuzberg does not read.

kreuzberg is imported lazily so that the process that only resolves types or runs the pool
(``pool.py``) never loads its native core; the extraction workers do.
"""

from __future__ import annotations

import io
from functools import cache
from typing import TYPE_CHECKING

from quire.indexer.extraction.formats import FileType
from quire.indexer.extraction.refusals import ExtractionFailed
from quire.indexer.extraction.zipguard import check_zip

if TYPE_CHECKING:
    import kreuzberg

__all__ = [
    "document_text",
    "kreuzberg_extract",
    "markup_text",
    "odf_presentation_text",
    "pages_text",
    "spreadsheet_text",
]

#: Canonical MIME types that kreuzberg knows under another name.
_KREUZBERG_MIME = {
    "application/vnd.apple.pages": "application/x-iwork-pages-sffpages",
}

#: Zip-based packages, checked by ``zipguard`` before any parser sees them.
_ZIP_EXTENSIONS = frozenset({"docx", "xlsx", "xlsm", "pptx", "odt", "ods", "odp", "pages"})

_MAX_REASON = 300


@cache
def _config() -> kreuzberg.ExtractionConfig:
    import kreuzberg

    return kreuzberg.ExtractionConfig(
        use_cache=False,  # no on-disk cache: every upload is extracted from its bytes
        ocr=None,  # no OCR: image-only pages give no text (DESIGN §4)
        force_ocr=False,
        images=None,
        pdf_options=kreuzberg.PdfConfig(extract_images=False, extract_annotations=False),
        output_format="plain",
        concurrency=kreuzberg.ConcurrencyConfig(max_threads=1),  # one file per worker process
    )


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


def kreuzberg_extract(data: bytes, file_type: FileType) -> kreuzberg.ExtractionResult:
    """Run kreuzberg on ``data`` (a zip package checked by ``zipguard`` first); its errors (and
    Rust panics) become :class:`ExtractionFailed`."""
    if file_type.extension in _ZIP_EXTENSIONS:
        check_zip(data, file_type.extension)
    return _kreuzberg(data, file_type)


def _kreuzberg(data: bytes, file_type: FileType) -> kreuzberg.ExtractionResult:
    import kreuzberg

    mime = _KREUZBERG_MIME.get(file_type.mime_type, file_type.mime_type)
    try:
        return kreuzberg.extract_bytes_sync(data, mime, _config())
    except (MemoryError, RecursionError, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # pyo3 panics derive from BaseException
        if isinstance(exc, GeneratorExit):
            raise
        raise ExtractionFailed(
            f"could not read the file as .{file_type.extension}: {_reason(exc)}"
        ) from None


def _warnings(result: kreuzberg.ExtractionResult, warnings: list[str]) -> None:
    for warning in result.processing_warnings:
        warnings.append(f"{warning.source}: {warning.message}"[:_MAX_REASON])


def document_text(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    """PDF, docx/doc, odt, rtf, pptx/ppt, eml/msg: kreuzberg's plain-text rendering."""
    result = kreuzberg_extract(data, file_type)
    _warnings(result, warnings)
    return result.content


def markup_text(text: str, file_type: FileType, warnings: list[str]) -> str:
    """HTML / XHTML / XML as readable text; the decoded source when kreuzberg cannot parse it.

    The caller decodes the bytes (``decoding.py``) so kreuzberg only sees valid UTF-8. An HTML
    ``<title>`` that the body does not repeat is kept as the first line.
    """
    try:
        result = kreuzberg_extract(text.encode("utf-8"), file_type)
    except ExtractionFailed as exc:
        warnings.append(f"{exc}; kept as plain text")
        return text
    _warnings(result, warnings)
    content = result.content
    title = result.metadata.get("title")
    if isinstance(title, str) and title.strip() and title.strip() not in content:
        content = f"{title.strip()}\n\n{content}"
    return content


def _cell(value: object) -> str:
    return " ".join(str(value).split())


def spreadsheet_text(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    """Each sheet as its name followed by its rows as tab-separated lines, sheets blank-separated.

    kreuzberg (calamine) reads xlsx/xlsm/xls/ods; its tables carry the 1-based sheet index in
    ``page_number`` and ``metadata["sheet_names"]`` the names. Empty rows and trailing empty cells
    are dropped; a sheet without cells contributes its name only.
    """
    result = kreuzberg_extract(data, file_type)
    _warnings(result, warnings)
    names = result.metadata.get("sheet_names")
    if not isinstance(names, list) or (not result.tables and result.content.strip()):
        return result.content  # not the shape we expect: keep kreuzberg's own rendering
    rows_by_sheet: dict[int, list[str]] = {}
    for table in result.tables:
        lines = rows_by_sheet.setdefault(table.page_number, [])
        for row in table.cells:
            cells = [_cell(cell) for cell in row]
            while cells and not cells[-1]:
                cells.pop()
            if cells:
                lines.append("\t".join(cells))
    blocks = []
    for index, name in enumerate(names, start=1):
        lines = rows_by_sheet.pop(index, [])
        blocks.append("\n".join([str(name), *lines]))
    for index in sorted(rows_by_sheet):  # tables without a known sheet name
        blocks.append("\n".join([f"Sheet {index}", *rows_by_sheet[index]]))
    return "\n\n".join(block for block in blocks if block.strip())


def pages_text(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    """Apple Pages through kreuzberg's iWork reader, best effort.

    The format is undocumented, so a package it cannot read is stored and found by file name
    (no text, with a warning) rather than failed; a corrupt or unsafe zip still fails.
    """
    check_zip(data, file_type.extension)
    try:
        result = _kreuzberg(data, file_type)
    except ExtractionFailed as exc:
        warnings.append(f"{exc}; stored by file name only")
        return ""
    _warnings(result, warnings)
    return result.content


def odf_presentation_text(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    """ODP slides through odfpy: the text of every paragraph and heading, in document order."""
    from odf import opendocument, teletype  # type: ignore[import-untyped]
    from odf.namespaces import TEXTNS  # type: ignore[import-untyped]

    check_zip(data, file_type.extension)
    try:
        document = opendocument.load(io.BytesIO(data))
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # odfpy raises zip, xml and key errors alike
        raise ExtractionFailed(
            f"could not read the file as .{file_type.extension}: {_reason(exc)}"
        ) from None
    blocks: list[str] = []
    stack = [document.presentation]
    while stack:
        node = stack.pop()
        if getattr(node, "qname", None) in ((TEXTNS, "p"), (TEXTNS, "h")):
            line = " ".join(teletype.extractText(node).split())
            if line:
                blocks.append(line)
            continue
        stack.extend(reversed(getattr(node, "childNodes", [])))
    return "\n".join(blocks)
