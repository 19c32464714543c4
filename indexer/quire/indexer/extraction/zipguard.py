"""Up-front checks for zip-based packages (OOXML, OpenDocument, iWork): bombs and corruption.

Before any parser sees a package, :func:`check_zip`

1. reads the central directory with :mod:`zipfile` and refuses too many entries, too much
   declared uncompressed data, or a suspicious compression ratio (:class:`ZipLimits`);
2. checks that the package has the part its format cannot do without (``[Content_Types].xml``
   for OOXML, ``META-INF/manifest.xml`` for OpenDocument), so a zip of something else is not
   read as an empty document;
3. inflates every entry once, in 1 MiB steps, and refuses one that inflates past its declared
   size (it stops one byte past it, so a lying header costs no more than the truth), falls short
   of it, fails its CRC, or cannot be read (truncated deflate data, encryption, an unknown
   compression method).

After that every entry inflates to exactly the size the directory declares, so the declared
limits bound the actual data. Parsers are lenient with broken entries: kreuzberg returns empty
text for some (a docx whose ``document.xml`` header lies about its size, an xlsx sheet that
fails its CRC) instead of an error, which would store a corrupt file as a valid file without
text. Every refusal is :class:`ExtractionFailed` with a reason starting "corrupt or unsafe
archive" (or "not a valid ... file" when the bytes are not a zip at all).
"""

from __future__ import annotations

import copy
import io
import zipfile
import zlib
from dataclasses import dataclass

from quire.indexer.extraction.refusals import ExtractionFailed

__all__ = ["ZipLimits", "check_zip"]

_MIB = 1024 * 1024
_STEP = _MIB

#: The part each format requires (OPC: ``[Content_Types].xml``; ODF: the manifest).
_REQUIRED_PART = {
    "docx": "[Content_Types].xml",
    "xlsx": "[Content_Types].xml",
    "xlsm": "[Content_Types].xml",
    "pptx": "[Content_Types].xml",
    "odt": "META-INF/manifest.xml",
    "ods": "META-INF/manifest.xml",
    "odp": "META-INF/manifest.xml",
}


@dataclass(frozen=True)
class ZipLimits:
    max_entries: int = 10_000
    #: 4× the default 64 MiB upload limit.
    max_total_uncompressed: int = 256 * _MIB
    max_entry_uncompressed: int = 100 * _MIB
    #: Uncompressed/compressed ratio allowed once the declared total passes ``ratio_floor``.
    max_ratio: float = 200.0
    ratio_floor: int = 16 * _MIB


DEFAULT_ZIP_LIMITS = ZipLimits()

_UNSAFE = "corrupt or unsafe archive"


def check_zip(data: bytes, kind: str, limits: ZipLimits = DEFAULT_ZIP_LIMITS) -> None:
    """Raise :class:`ExtractionFailed` unless ``data`` is an intact zip within ``limits``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
        raise ExtractionFailed(f"not a valid {kind} file (corrupt or mislabelled: {exc})") from None
    with archive:
        infos = archive.infolist()
        _check_declared(infos, kind, limits)
        required = _REQUIRED_PART.get(kind)
        if required is not None and required not in archive.namelist():
            raise ExtractionFailed(f"{_UNSAFE}: {kind} package lacks its required {required}")
        for info in infos:
            _check_entry(archive, info, kind)


def _check_declared(infos: list[zipfile.ZipInfo], kind: str, limits: ZipLimits) -> None:
    if len(infos) > limits.max_entries:
        raise ExtractionFailed(
            f"{_UNSAFE}: {kind} package has too many entries "
            f"({len(infos)}, limit {limits.max_entries})"
        )
    total = 0
    compressed = 0
    for info in infos:
        if info.file_size > limits.max_entry_uncompressed:
            raise ExtractionFailed(
                f"{_UNSAFE}: {kind} package entry {info.filename!r} declares {info.file_size} "
                f"bytes uncompressed (limit {limits.max_entry_uncompressed})"
            )
        total += info.file_size
        compressed += info.compress_size
    if total > limits.max_total_uncompressed:
        raise ExtractionFailed(
            f"{_UNSAFE}: {kind} package declares {total} bytes uncompressed "
            f"(limit {limits.max_total_uncompressed})"
        )
    if total > limits.ratio_floor and total > limits.max_ratio * max(compressed, 1):
        raise ExtractionFailed(
            f"{_UNSAFE}: {kind} package compression ratio {total / max(compressed, 1):.0f}:1 "
            f"looks like a zip bomb (limit {limits.max_ratio:.0f}:1)"
        )


def _check_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, kind: str) -> None:
    """Inflates ``info`` up to one byte past its declared size; raises unless it is exactly
    that size with the declared CRC."""
    declared = info.file_size
    # zipfile stops reading an entry at its declared size; a copy that declares one byte more
    # lets a longer stream show itself without inflating more than that byte. zipfile checks
    # the CRC when the stream or the (probe's) size ends, so a longer stream fails it too.
    probe = copy.copy(info)
    probe.file_size = declared + 1
    size = 0
    where = f"{_UNSAFE}: {kind} entry {info.filename!r}"
    try:
        with archive.open(probe) as entry:
            while chunk := entry.read(_STEP):
                size += len(chunk)
    except zipfile.BadZipFile:
        raise ExtractionFailed(
            f"{where} fails its CRC check (corrupt, or its header lies about its size)"
        ) from None
    except (EOFError, zlib.error, NotImplementedError, RuntimeError, ValueError) as exc:
        # truncated data, invalid deflate data, unknown compression method, encryption
        reason = str(exc) or type(exc).__name__
        raise ExtractionFailed(f"{where} cannot be read ({reason})") from None
    if size > declared:
        raise ExtractionFailed(f"{where} inflates past its declared {declared} bytes")
    if size < declared:
        raise ExtractionFailed(f"{where} is truncated ({size} of {declared} bytes)")
