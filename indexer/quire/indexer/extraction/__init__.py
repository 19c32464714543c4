"""Extraction of uploaded files to text (DESIGN §4); see ``docs/extraction.md``.

- ``formats``: the supported types and :func:`resolve_type` (extension first, then MIME type).
- ``extract``: :func:`extract_text`, in-process and synchronous.
- ``pool``: :class:`ExtractionPool`, the same in worker processes with time and memory bounds.
- one module per format family: ``text``, ``documents``, ``records``, ``transcripts``, plus
  ``zipguard`` for zip-based packages.
"""

from quire.indexer.extraction.extract import NO_TEXT_MARKER, Extracted, extract_text
from quire.indexer.extraction.formats import (
    SUPPORTED_EXTENSIONS,
    Extractor,
    Family,
    FileType,
    resolve_type,
)
from quire.indexer.extraction.pool import ExtractionPool
from quire.indexer.extraction.refusals import ExtractionFailed, UnsupportedMediaType

__all__ = [
    "NO_TEXT_MARKER",
    "SUPPORTED_EXTENSIONS",
    "Extracted",
    "ExtractionFailed",
    "ExtractionPool",
    "Extractor",
    "Family",
    "FileType",
    "UnsupportedMediaType",
    "extract_text",
    "resolve_type",
]
