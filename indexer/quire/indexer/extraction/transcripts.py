"""Transcripts (SubRip, WebVTT, YouTube SBV) through webvtt-py: cue text without timestamps."""

from __future__ import annotations

import io

__all__ = ["transcript_text"]

_FORMATS = {"srt": "srt", "vtt": "vtt", "sbv": "sbv"}


def transcript_text(text: str, extension: str, warnings: list[str]) -> str:
    """The text of every cue, one cue per line, consecutive duplicates (roll-up captions) merged.

    A file webvtt-py cannot parse is kept as its decoded text (timestamps included) with a warning:
    its words stay searchable.
    """
    import webvtt
    from webvtt.errors import MalformedCaptionError, MalformedFileError

    try:
        captions = webvtt.WebVTT.from_buffer(io.StringIO(text), format=_FORMATS[extension])
    except (MalformedFileError, MalformedCaptionError, ValueError, IndexError) as exc:
        warnings.append(f"transcript not parsed ({exc}); kept as plain text")
        return text
    lines: list[str] = []
    for caption in captions.captions:
        line = " ".join(caption.text.split())
        if line and (not lines or lines[-1] != line):
            lines.append(line)
    return "\n".join(lines)
