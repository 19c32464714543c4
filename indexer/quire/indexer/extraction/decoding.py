"""Bytes of a text-like file to ``str``, and the encoding they were read as.

In order: a byte order mark (UTF-8, UTF-16, UTF-32; the mark is dropped); strict UTF-8; otherwise
the encoding chardet detects among today's web encodings and the ISO 8859 family. The answer's
``encoding`` is a Python codec name as :func:`codecs.lookup` spells it (``"utf-8"``,
``"utf-16-le"``, ``"cp1252"``, ``"cp932"``, ...).

Detection is statistical. On short texts several single-byte code pages explain the bytes almost
equally well ("Voilà une crème" is valid cp1252 and cp1250, read "Voilŕ une crčme"); cp1252, the
web's default for unlabelled legacy text (WHATWG Encoding), wins a near-tie (:data:`NEAR_TIE`)
and any tie where it reads the same text. It looks at the first :data:`DETECT_BYTES` (cut at a
line end, so no multi-byte character is split), which bounds its cost whatever the file's size;
the whole file is then decoded with the answer.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["DETECT_BYTES", "NEAR_TIE", "Decoded", "DetectionNeeded", "decode_text"]

#: Bytes the detector looks at, at most (about 25 ms of detection; tens of KiB of text are
#: more than enough to tell code pages apart).
DETECT_BYTES = 64 * 1024
#: Wins a near-tie between code pages.
_TIE_BREAKER = "cp1252"
#: cp1252 wins when its confidence is at least this share of the first pick's. Measured on
#: 1,247 short texts (docs/extraction.md): Latin-1 misread as cp1257/cp1251/cp1250 scores
#: 0.47-1.0 of the pick, genuine cp1250 text at most 0.67 as cp1252.
NEAR_TIE = 0.75
#: Names of cp1252 and the code pages that read like it in a tie (Latin-1, Latin-9).
_WESTERN = frozenset({"cp1252", "iso8859-1", "iso8859-15"})
#: Candidates whose reading is checked for :data:`_IMPLAUSIBLE` marks, best first.
_CONSIDERED = 6
#: Marks of a misreading, not of language: a letter of one script directly followed by one of
#: another ("crиme"), or a C1 control character (ISO 8859 read where cp125x was meant).
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_OTHER_SCRIPTS = "\u0370-\u03ff\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u0e00-\u0e7f"  # Greek..Thai
_IMPLAUSIBLE = re.compile(f"[{_LATIN}][{_OTHER_SCRIPTS}]|[{_OTHER_SCRIPTS}][{_LATIN}]|[\x80-\x9f]")

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
    import chardet
    from chardet.enums import EncodingEra

    sample = _sample(data)
    # Mac, DOS, mainframe and regional code pages are left out: files in them are rare today,
    # and on short texts they are where the detector's wrong guesses come from (mac-cyrillic).
    candidates = chardet.detect_all(
        sample,
        ignore_threshold=True,
        encoding_era=EncodingEra.MODERN_WEB | EncodingEra.LEGACY_ISO,
        max_bytes=len(sample),
    )
    ranked = [
        (codecs.lookup(c["encoding"]).name, c["confidence"]) for c in candidates if c["encoding"]
    ]
    if not ranked:
        return None  # binary data
    readings: dict[str, str | None] = {}

    def read(name: str) -> str | None:
        if name not in readings:
            readings[name] = _reading(sample, name)
        return readings[name]

    # A reading that glues Latin to Cyrillic, Greek, ... letters inside a word ("Voilа une
    # crиme": Latin-1 read as cp1251) is a misreading, when a candidate without one exists.
    plausible = [(n, c) for n, c in ranked[:_CONSIDERED] if (r := read(n)) and _plausible(r)]
    first, first_confidence = (plausible or ranked)[0]
    western = read(_TIE_BREAKER)
    if western is None or first == _TIE_BREAKER:
        return first
    if western == read(first):
        return _TIE_BREAKER
    for name, confidence in ranked:
        near = name in _WESTERN and confidence >= NEAR_TIE * first_confidence
        if near and read(name) == western and _plausible(western):
            return _TIE_BREAKER
    return first


def _reading(sample: bytes, encoding: str) -> str | None:
    try:
        return str(sample, encoding)
    except UnicodeDecodeError:
        return None


def _plausible(text: str) -> bool:
    return _IMPLAUSIBLE.search(text) is None


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
