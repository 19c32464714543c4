"""Business records: mailboxes (stdlib ``mailbox`` + kreuzberg's email reader), calendars
(icalendar) and contacts (vobject)."""

from __future__ import annotations

import mailbox
import os
import tempfile
from collections.abc import Iterable
from datetime import date, datetime

from quire.indexer.extraction.binary_documents import document_text
from quire.indexer.extraction.formats import file_type_for_extension
from quire.indexer.extraction.refusals import ExtractionFailed

__all__ = ["calendar_text", "contacts_text", "mbox_text"]

_EML = file_type_for_extension("eml")


def mbox_text(data: bytes, warnings: list[str]) -> str:
    """Every message of an mbox rendered like an ``.eml`` (headers, then the text body).

    :mod:`mailbox` reads only from a path, so the bytes go to a private temporary file. A message
    that cannot be read is skipped with a warning.
    """
    blocks: list[str] = []
    fd, path = tempfile.mkstemp(prefix="quire-", suffix=".mbox")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        box = mailbox.mbox(path, create=False)
        try:
            for index, message in enumerate(box):
                try:
                    text = document_text(message.as_bytes(), _EML, warnings)
                except ExtractionFailed as exc:
                    warnings.append(f"mbox message {index + 1} skipped: {exc}")
                    continue
                if text.strip():
                    blocks.append(text.strip())
        finally:
            box.close()
    finally:
        os.unlink(path)
    if not blocks and data.strip() and not data.lstrip().startswith(b"From "):
        raise ExtractionFailed("not a valid mbox file (no 'From ' separator line)")
    return "\n\n".join(blocks)


def _when(value: object) -> str:
    decoded = getattr(value, "dt", value)
    if isinstance(decoded, datetime):
        return decoded.isoformat(sep=" ", timespec="minutes")
    if isinstance(decoded, date):
        return decoded.isoformat()
    return str(decoded)


def _texts(value: object) -> list[str]:
    values: Iterable[object] = value if isinstance(value, list) else [value]
    return [" ".join(str(item).split()) for item in values if str(item).strip()]


_EVENT_FIELDS = (
    ("SUMMARY", ""),
    ("LOCATION", "Location: "),
    ("DESCRIPTION", ""),
    ("ORGANIZER", "Organizer: "),
    ("ATTENDEE", "Attendee: "),
    ("CATEGORIES", "Categories: "),
)


def calendar_text(text: str) -> str:
    """Events, to-dos and journal entries: summary, start–end, location, description, people."""
    import icalendar

    try:
        calendars = icalendar.Calendar.from_ical(text, multiple=True)
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # icalendar raises ValueError and friends
        raise ExtractionFailed(
            f"not a valid iCalendar file: {' '.join(str(exc).split())}"
        ) from None
    if not calendars:
        raise ExtractionFailed("not a valid iCalendar file (no complete VCALENDAR)")
    blocks: list[str] = []
    for calendar in calendars:
        name = calendar.get("X-WR-CALNAME")
        if name:
            blocks.append(str(name))
        for component in calendar.walk():
            if component.name not in ("VEVENT", "VTODO", "VJOURNAL"):
                continue
            lines: list[str] = []
            start = component.get("DTSTART")
            end = component.get("DTEND") or component.get("DUE")
            for key, label in _EVENT_FIELDS:
                value = component.get(key)
                if value is not None:
                    if key == "CATEGORIES":
                        items = value if isinstance(value, list) else [value]
                        value = [cat for item in items for cat in getattr(item, "cats", [item])]
                    lines.extend(label + item for item in _texts(value))
                if key == "SUMMARY" and start is not None:
                    span = _when(start) + (f" – {_when(end)}" if end is not None else "")
                    lines.append(f"When: {span}")
            if lines:
                blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


_CONTACT_FIELDS = (
    ("fn", ""),
    ("n", "Name: "),
    ("nickname", "Nickname: "),
    ("org", "Organization: "),
    ("title", "Title: "),
    ("role", "Role: "),
    ("email", "Email: "),
    ("tel", "Phone: "),
    ("adr", "Address: "),
    ("url", "URL: "),
    ("bday", "Birthday: "),
    ("note", "Note: "),
)


_NAME_PARTS = ("prefix", "given", "additional", "family", "suffix")
_ADDRESS_PARTS = ("box", "extended", "street", "city", "region", "code", "country")


def _contact_value(value: object) -> str:
    if isinstance(value, list | tuple):
        return " ".join(_contact_value(item) for item in value if item)
    if hasattr(value, "family") and hasattr(value, "given"):  # vobject.vcard.Name
        parts = (getattr(value, part, "") for part in _NAME_PARTS)
        return " ".join(text for text in map(_contact_value, parts) if text)
    if hasattr(value, "street") and hasattr(value, "city"):  # vobject.vcard.Address
        parts = (getattr(value, part, "") for part in _ADDRESS_PARTS)
        return ", ".join(text for text in map(_contact_value, parts) if text)
    return " ".join(str(value).split())


def contacts_text(text: str) -> str:
    """Each vCard: formatted name, name, organisation, title, emails, phones, addresses, notes."""
    import vobject  # type: ignore[import-untyped]

    blocks: list[str] = []
    cards = 0
    try:
        for card in vobject.readComponents(text, ignoreUnreadable=True):
            if card.name != "VCARD":
                continue
            cards += 1
            lines: list[str] = []
            for key, label in _CONTACT_FIELDS:
                for line in card.contents.get(key, []):
                    value = _contact_value(line.value)
                    if value and (key != "n" or value not in lines):
                        lines.append(label + value)
            if lines:
                blocks.append("\n".join(lines))
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # vobject raises ParseError and friends
        raise ExtractionFailed(f"not a valid vCard file: {' '.join(str(exc).split())}") from None
    if not cards:
        raise ExtractionFailed("not a valid vCard file (no complete VCARD)")
    return "\n\n".join(blocks)
