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
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
