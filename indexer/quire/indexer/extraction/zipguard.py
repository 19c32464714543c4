"""Up-front checks for zip-based packages (OOXML, OpenDocument, iWork) against zip bombs.

The central directory is read with :mod:`zipfile` (nothing is decompressed) and the archive is
rejected before any parser sees it when it has too many entries, declares too much uncompressed
data, or compresses suspiciously well. Declared sizes can lie; :mod:`zipfile` never reads past a
declared size, kreuzberg applies its own per-entry limit, and the worker's memory and time bounds
(``pool.py``) catch the rest.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from quire.indexer.extraction.errors import ExtractionFailed

__all__ = ["ZipLimits", "check_zip"]

_MIB = 1024 * 1024


@dataclass(frozen=True)
class ZipLimits:
    max_entries: int = 10_000
    max_total_uncompressed: int = 256 * _MIB
    max_entry_uncompressed: int = 100 * _MIB
    #: Uncompressed/compressed ratio allowed once the declared total passes ``ratio_floor``.
    max_ratio: float = 200.0
    ratio_floor: int = 16 * _MIB


DEFAULT_ZIP_LIMITS = ZipLimits()


def check_zip(data: bytes, kind: str, limits: ZipLimits = DEFAULT_ZIP_LIMITS) -> None:
    """Raise :class:`ExtractionFailed` unless ``data`` is a zip archive within ``limits``."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
        raise ExtractionFailed(f"not a valid {kind} file (corrupt or mislabelled: {exc})") from None
    if len(infos) > limits.max_entries:
        raise ExtractionFailed(f"{kind} package has too many entries ({len(infos)})")
    total = 0
    compressed = 0
    for info in infos:
        if info.file_size > limits.max_entry_uncompressed:
            raise ExtractionFailed(
                f"{kind} package entry {info.filename!r} declares {info.file_size} bytes "
                f"uncompressed (limit {limits.max_entry_uncompressed})"
            )
        total += info.file_size
        compressed += info.compress_size
    if total > limits.max_total_uncompressed:
        raise ExtractionFailed(
            f"{kind} package declares {total} bytes uncompressed "
            f"(limit {limits.max_total_uncompressed})"
        )
    if total > limits.ratio_floor and total > limits.max_ratio * max(compressed, 1):
        raise ExtractionFailed(
            f"{kind} package compression ratio {total / max(compressed, 1):.0f}:1 looks like a "
            f"zip bomb (limit {limits.max_ratio:.0f}:1)"
        )
