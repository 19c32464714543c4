"""Bytes of a text-like file to ``str``, and the encoding they were read as.

In order: a byte order mark (UTF-8, UTF-16, UTF-32; the mark is dropped); strict UTF-8; otherwise
the encoding charset-normalizer detects. The answer's ``encoding`` is a Python codec name as
:func:`codecs.lookup` spells it (``"utf-8"``, ``"utf-16-le"``, ``"cp1252"``, ``"cp932"``, ...).

Detection is statistical. On short texts many single-byte code pages explain the bytes equally
well ("Café" is valid cp1252, cp1250, cp1006, ...); cp1252, the web's default for unlabelled
legacy text (WHATWG Encoding), wins such ties. It looks at the first :data:`DETECT_BYTES`
(cut at a line end, so no multi-byte character is split), which bounds its cost whatever the
file's size; the whole file is then decoded with the answer.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = ["DETECT_BYTES", "Decoded", "DetectionNeeded", "decode_text"]

#: Bytes the detector looks at, at most (about 25 ms of detection).
DETECT_BYTES = 1024 * 1024
#: Wins a tie between equally likely code pages.
_TIE_BREAKER = "cp1252"

# UTF-32 BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str


class DetectionNeeded(Exception):
    """Neither a byte order mark nor valid UTF-8: only detection can tell the encoding.

    Raised by ``decode_text(..., detect=False)``, which callers use to keep the cheap cases
    (a decode, microseconds) apart from detection (milliseconds).
    """


def _decode(data: bytes | memoryview, encoding: str, warnings: list[str]) -> Decoded:
    try:
        return Decoded(str(data, encoding), encoding)
    except UnicodeDecodeError:
        warnings.append(f"invalid {encoding} byte sequences were replaced")
        return Decoded(str(data, encoding, errors="replace"), encoding)


def _sample(data: bytes) -> bytes:
    if len(data) <= DETECT_BYTES:
        return data
    end = data.rfind(b"\n", 0, DETECT_BYTES) + 1
    if end <= 0:
        return data[:DETECT_BYTES]
    if data[end : end + 1] == b"\x00":  # a UTF-16-LE line end is two bytes
        end += 1
    return data[:end]


def _detect(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    matches = from_bytes(_sample(data))
    best = matches.best()
    if best is None:
        return None
    for match in matches:
        if (match.chaos, match.coherence) != (best.chaos, best.coherence):
            continue
        if _TIE_BREAKER in match.could_be_from_charset:
            return _TIE_BREAKER
    return codecs.lookup(best.encoding).name


def decode_text(data: bytes, warnings: list[str], *, detect: bool = True) -> Decoded:
    """``data`` as text (see the module doc); never raises on bad bytes.

    Invalid sequences for the chosen encoding become U+FFFD and add a warning; so does a file
    no encoding explains (binary data), decoded as UTF-8. With ``detect=False`` a file that
    needs detection raises :class:`DetectionNeeded` instead.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return _decode(memoryview(data)[len(bom) :], name, warnings)
    try:
        return Decoded(str(data, "utf-8"), "utf-8")
    except UnicodeDecodeError:
        if not detect:
            raise DetectionNeeded from None
    encoding = _detect(data)
    if encoding is None:
        warnings.append("no text encoding recognised: invalid utf-8 byte sequences were replaced")
        return Decoded(str(data, "utf-8", errors="replace"), "utf-8")
    return _decode(data, encoding, warnings)
