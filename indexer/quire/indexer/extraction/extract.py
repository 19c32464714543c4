"""``extract_text``: the bytes of an upload to its body text (DESIGN §4), in-process.

Synchronous and CPU-bound; run it through :class:`~quire.indexer.extraction.pool.ExtractionPool`
for untrusted input, which bounds time and memory and survives crashes. Returns ``""`` when the
file has no text (file-name-only types, image-only PDFs, empty files); the caller then stores
:data:`NO_TEXT_MARKER`. Raises :class:`ExtractionFailed` for corrupt or mislabelled files.

The text is always valid Unicode without NUL characters (PostgreSQL ``text`` rejects them),
with ``\\r\\n`` / ``\\r`` line ends normalised to ``\\n`` and trailing whitespace removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from quire.indexer.extraction.documents import (
    document_text,
    markup_text,
    odf_presentation_text,
    pages_text,
    spreadsheet_text,
)
from quire.indexer.extraction.errors import ExtractionFailed
from quire.indexer.extraction.formats import Extractor, FileType
from quire.indexer.extraction.records import calendar_text, contacts_text, mbox_text
from quire.indexer.extraction.text import decode_text, delimited_text
from quire.indexer.extraction.transcripts import transcript_text

__all__ = ["NO_TEXT_MARKER", "Extracted", "extract_text"]

#: Stored as both ``extracted_text`` and ``extract_error`` when extraction yields no text.
NO_TEXT_MARKER = "no text extracted"

_LINE_ENDS = re.compile(r"\r\n?")
_CONTROL = re.compile(r"[\x00\ufeff]")


@dataclass(frozen=True)
class Extracted:
    """Body text (``""`` when none) and non-fatal problems met on the way."""

    text: str
    warnings: list[str] = field(default_factory=list)


def _normalise(text: str) -> str:
    if not text.isascii():
        # lone surrogates (from surrogateescape'd headers, say) cannot be stored or encoded
        text = text.encode("utf-8", "replace").decode("utf-8")
    text = _CONTROL.sub("", _LINE_ENDS.sub("\n", text))
    return text.rstrip() if text.strip() else ""


def _dispatch(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    match file_type.extractor:
        case Extractor.NONE:
            return ""
        case Extractor.PLAIN:
            return decode_text(data, warnings)
        case Extractor.DELIMITED:
            return delimited_text(data, "\t" if file_type.extension != "csv" else ",", warnings)
        case Extractor.MARKUP:
            return markup_text(data, file_type, warnings)
        case Extractor.DOCUMENT:
            return document_text(data, file_type, warnings)
        case Extractor.SPREADSHEET:
            return spreadsheet_text(data, file_type, warnings)
        case Extractor.ODF_PRESENTATION:
            return odf_presentation_text(data, file_type, warnings)
        case Extractor.IWORK_PAGES:
            return pages_text(data, file_type, warnings)
        case Extractor.MBOX:
            return mbox_text(data, warnings)
        case Extractor.CALENDAR:
            return calendar_text(data, warnings)
        case Extractor.CONTACTS:
            return contacts_text(data, warnings)
        case Extractor.TRANSCRIPT:
            return transcript_text(data, file_type.extension, warnings)


def extract_text(data: bytes, file_type: FileType) -> Extracted:
    """The body text of ``data`` read as ``file_type`` (see the module doc).

    ``MemoryError`` propagates (the pool reports it as "exceeded memory limit"); a too deeply
    nested document becomes :class:`ExtractionFailed`.
    """
    warnings: list[str] = []
    if not file_type.extracts_text or not data.strip():
        return Extracted("", warnings)
    try:
        text = _dispatch(data, file_type, warnings)
    except RecursionError:
        raise ExtractionFailed("document is nested too deeply") from None
    return Extracted(_normalise(text), warnings)
