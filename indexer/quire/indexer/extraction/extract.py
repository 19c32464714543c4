"""``extract_text``: the bytes of an upload to its body text (DESIGN §4), in-process.

Synchronous and CPU-bound; run it through :class:`~quire.indexer.extraction.pool.ExtractionPool`
for untrusted input, which bounds time and memory and survives crashes. Returns ``""`` when the
file has no text (file-name-only types, image-only PDFs, empty files); the caller then stores
:data:`NO_TEXT_MARKER`. Raises :class:`ExtractionFailed` with ``permanent=True`` for corrupt,
unsafe or mislabelled files: a verdict on the bytes, which a retry would only repeat.

Text-like types (text, csv, markup, calendars, contacts, transcripts) are decoded first
(``decoding.py``); :attr:`Extracted.encoding` records the encoding they were read as.

The text is always valid Unicode without NUL characters (PostgreSQL ``text`` rejects them),
with ``\\r\\n`` / ``\\r`` line ends normalised to ``\\n`` and trailing whitespace removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from quire.indexer.extraction.binary_documents import (
    document_text,
    markup_text,
    odf_presentation_text,
    pages_text,
    spreadsheet_text,
)
from quire.indexer.extraction.decoding import decode_text
from quire.indexer.extraction.formats import Extractor, FileType
from quire.indexer.extraction.records import calendar_text, contacts_text, mbox_text
from quire.indexer.extraction.refusals import ExtractionFailed
from quire.indexer.extraction.text import delimited_text
from quire.indexer.extraction.transcripts import transcript_text

__all__ = ["NO_TEXT_MARKER", "Extracted", "extract_text"]

#: Stored as both ``extracted_text`` and ``extract_error`` when extraction yields no text.
NO_TEXT_MARKER = "no text extracted"

_LINE_ENDS = re.compile(r"\r\n?")
_CONTROL = re.compile(r"[\x00\ufeff]")
#: Extractors that read text: the bytes are decoded (and the encoding recorded) before them.
_DECODED = frozenset(
    {
        Extractor.PLAIN,
        Extractor.DELIMITED,
        Extractor.MARKUP,
        Extractor.CALENDAR,
        Extractor.CONTACTS,
        Extractor.TRANSCRIPT,
    }
)


@dataclass(frozen=True)
class Extracted:
    """Body text (``""`` when none), non-fatal problems met on the way, and the encoding a
    text-like file was decoded from (a codec name such as ``"utf-8"`` or ``"cp1252"``; ``""``
    for formats whose parser reads the bytes)."""

    text: str
    warnings: list[str] = field(default_factory=list)
    encoding: str = ""


def _normalise(text: str) -> str:
    if not text.isascii():
        # lone surrogates (from surrogateescape'd headers, say) cannot be stored or encoded
        text = text.encode("utf-8", "replace").decode("utf-8")
    text = _CONTROL.sub("", _LINE_ENDS.sub("\n", text))
    return text.rstrip() if text.strip() else ""


def _read_text(text: str, file_type: FileType, warnings: list[str]) -> str:
    match file_type.extractor:
        case Extractor.DELIMITED:
            return delimited_text(text, "\t" if file_type.extension != "csv" else ",", warnings)
        case Extractor.MARKUP:
            return markup_text(text, file_type, warnings)
        case Extractor.CALENDAR:
            return calendar_text(text)
        case Extractor.CONTACTS:
            return contacts_text(text)
        case Extractor.TRANSCRIPT:
            return transcript_text(text, file_type.extension, warnings)
        case _:
            return text


def _parse(data: bytes, file_type: FileType, warnings: list[str]) -> str:
    match file_type.extractor:
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
        case _:
            return ""


def extract_text(data: bytes, file_type: FileType, *, detect_encoding: bool = True) -> Extracted:
    """The body text of ``data`` read as ``file_type`` (see the module doc).

    ``MemoryError`` propagates (the pool reports it as "exceeded memory limit"); a too deeply
    nested document becomes :class:`ExtractionFailed`. With ``detect_encoding=False`` a text
    file that is neither UTF-8 nor marked by a BOM raises
    :class:`~quire.indexer.extraction.decoding.DetectionNeeded` (the pool then detects off
    the event loop).
    """
    warnings: list[str] = []
    if not file_type.extracts_text or not data.strip():
        return Extracted("", warnings)
    encoding = ""
    try:
        if file_type.extractor in _DECODED:
            decoded = decode_text(data, warnings, detect=detect_encoding)
            encoding = decoded.encoding
            text = _read_text(decoded.text, file_type, warnings)
        else:
            text = _parse(data, file_type, warnings)
    except RecursionError:
        raise ExtractionFailed("document is nested too deeply", permanent=True) from None
    except ExtractionFailed as exc:
        # Raised while reading these bytes: the same bytes would fail the same way.
        raise ExtractionFailed(exc.message, permanent=True) from None
    return Extracted(_normalise(text), warnings, encoding)
