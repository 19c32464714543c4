"""Errors of the extraction package: unsupported uploads and files that cannot be read."""

from __future__ import annotations

__all__ = ["ExtractionFailed", "UnsupportedMediaType"]


class UnsupportedMediaType(ValueError):
    """Neither the file name's extension nor the MIME type names a supported type.

    The upload RPC maps it to ``UNSUPPORTED_MEDIA_TYPE`` (DESIGN §4).
    """


class ExtractionFailed(Exception):
    """The file could not be turned into text: corrupt, mislabelled, hostile or over a bound.

    ``str(exc)`` is a short human-readable reason, suitable for ``extract_error``.
    ``permanent`` is True when the bytes themselves are at fault (corrupt, unsafe, unparsable):
    the same bytes fail the same way, so a retry cannot help. Bounds and crashes of the worker
    process (time, memory) are not permanent.
    """

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent
