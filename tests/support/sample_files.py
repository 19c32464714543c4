"""Real files of every supported family, generated in memory by the libraries that write them.

Each ``make_*`` function returns the bytes of one file; ``SAMPLES`` maps a file name to its
generator and to words its extracted text must contain (an empty tuple: no body text expected).
``CORRUPT`` and ``HOSTILE`` hold broken and malicious files. Reusable by any test that needs
uploads (extraction, the upload RPC, the worker).

Writers (dev-only): python-docx, openpyxl, xlwt, odfpy, python-pptx, fpdf2, Pillow (through
fpdf2); everything else is the standard library (email, mailbox format, zipfile, zlib, wave).
"""

from __future__ import annotations

import email.message
import email.utils
import io
import json
import struct
import wave
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

__all__ = [
    "CORRUPT",
    "HOSTILE",
    "SAMPLES",
    "Sample",
]

_MIB = 1024 * 1024


@dataclass(frozen=True)
class Sample:
    make: Callable[[], bytes]
    words: tuple[str, ...]  # each must occur in the extracted text; () means no body text


# --- text and markup -----------------------------------------------------------------------------


def make_txt() -> bytes:
    return "\ufeffPlain aardvark notes — naïve café\r\nsecond line\n".encode()


def make_markdown() -> bytes:
    return b"# Bandicoot guide\n\nSome *emphasis* about the bandicoot.\n\n## Care\n\nFeed daily.\n"


def make_rst() -> bytes:
    return b"Cassowary\n=========\n\nThe cassowary is a large bird.\n"


def make_json() -> bytes:
    return json.dumps({"animal": "dugong", "count": 3, "tags": ["sea", "cow"]}).encode()


def make_jsonl() -> bytes:
    return b'{"name": "echidna"}\n{"name": "platypus"}\n'


def make_yaml() -> bytes:
    return b"service:\n  name: fennec\n  replicas: 2\n"


def make_toml() -> bytes:
    return b'[project]\nname = "gharial"\nversion = "1.0"\n'


def make_xml() -> bytes:
    return b'<?xml version="1.0"?><zoo><animal kind="bird">hoatzin</animal></zoo>'


def make_html() -> bytes:
    return (
        b"<!doctype html><html><head><title>Ibex page</title><style>p{color:red}</style>"
        b"<script>var secret = 'scriptword';</script></head><body><h1>Ibex habitat</h1>"
        b"<p>The <b>ibex</b> climbs cliffs.</p><ul><li>jackal</li></ul></body></html>"
    )


def make_xhtml() -> bytes:
    return (
        b'<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        b"<head><title>K</title></head><body><p>kinkajou paragraph</p></body></html>"
    )


def make_python() -> bytes:
    return b'def lemur_count() -> int:\n    """Count the lemurs."""\n    return 42\n'


def make_sql() -> bytes:
    return b"SELECT name FROM marmoset WHERE id = 1;\n"


def make_tex() -> bytes:
    return b"\\documentclass{article}\\begin{document}Numbat section\\end{document}\n"


def make_csv() -> bytes:
    return b'name,habitat\nokapi,"rain forest, Congo"\n"pangolin\nline",savanna\n'


def make_tsv() -> bytes:
    return b"name\thabitat\nquoll\tAustralia\n"


def make_cp1252() -> bytes:
    return "Légère café crème for the rhea, “quoted”\n".encode("cp1252")  # not UTF-8


def make_utf16() -> bytes:
    return "UTF-16 saiga text".encode("utf-16")  # with BOM


# --- business records ----------------------------------------------------------------------------


def _message(subject: str, body: str, *, html: str | None = None) -> email.message.EmailMessage:
    message = email.message.EmailMessage()
    message["From"] = "Tamarin Sender <tamarin@example.org>"
    message["To"] = "uakari@example.org"
    message["Subject"] = subject
    message["Date"] = email.utils.format_datetime(
        email.utils.parsedate_to_datetime("Mon, 01 Jan 2024 10:00:00 +0000")
    )
    if body:
        message.set_content(body)
        if html is not None:
            message.add_alternative(html, subtype="html")
    elif html is not None:
        message.set_content(html, subtype="html")
    return message


def make_eml() -> bytes:
    return _message(
        "Quarterly vicuna report", "Plain body about the vicuna.", html="<p>HTML twin</p>"
    ).as_bytes()


def make_eml_html_only() -> bytes:
    return _message("HTML only", "", html="<p>Only <b>wallaby</b> html</p>").as_bytes()


def make_mbox() -> bytes:
    out = io.BytesIO()
    for subject, body in (("First xerus", "Body one yapok."), ("Second zorilla", "Body two.")):
        out.write(b"From tamarin@example.org Mon Jan  1 10:00:00 2024\n")
        out.write(_message(subject, body).as_bytes().replace(b"\nFrom ", b"\n>From "))
        out.write(b"\n")
    return out.getvalue()


def make_ics() -> bytes:
    return (
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Quire//Tests//EN\r\n"
        b"BEGIN:VEVENT\r\nUID:1@quire.test\r\nDTSTAMP:20240101T000000Z\r\n"
        b"DTSTART:20240102T100000Z\r\nDTEND:20240102T110000Z\r\nSUMMARY:Standup ocelot\r\n"
        b"DESCRIPTION:Discuss the tapir\\, briefly\r\nLOCATION:Room capybara\r\nEND:VEVENT\r\n"
        b"END:VCALENDAR\r\n"
    )


def make_vcf() -> bytes:
    return (
        b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Quokka\r\nN:Quokka;Jane;;;\r\n"
        b"EMAIL;TYPE=work:jane@quokka.example\r\nTEL;TYPE=cell:+1 555 0100\r\n"
        b"ORG:Wombat Inc\r\nEND:VCARD\r\n"
        b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Second Numbat\r\nEND:VCARD\r\n"
    )


# --- transcripts ---------------------------------------------------------------------------------


def make_srt() -> bytes:
    return (
        b"1\n00:00:01,000 --> 00:00:02,500\nHello armadillo\n\n"
        b"2\n00:00:03,000 --> 00:00:04,000\n<i>Second</i> cue binturong\n"
    )


def make_vtt() -> bytes:
    return (
        b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello caracal\n\n"
        b"note\n00:00:03.000 --> 00:00:04.000\n<v Bob>Second dhole cue\n"
    )


def make_sbv() -> bytes:
    return b"0:00:01.000,0:00:02.000\nHello eland\n\n0:00:03.000,0:00:04.000\nSecond fossa cue\n"


# --- PDF -----------------------------------------------------------------------------------------


def make_pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 10, "Galago report page one.")
    pdf.add_page()
    pdf.multi_cell(0, 10, "Hyrax on page two.")
    return bytes(pdf.output())


def make_image_only_pdf() -> bytes:
    """A page with a drawn shape and an embedded raster image, and no text at all."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_fill_color(200, 30, 30)
    pdf.rect(20, 20, 80, 40, style="F")
    pdf.image(io.BytesIO(make_png()), x=20, y=80, w=40)
    return bytes(pdf.output())


def make_many_pages_pdf(pages: int = 3000) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for number in range(pages):
        pdf.add_page()
        pdf.cell(text=f"page {number} indri")
    return bytes(pdf.output())


def make_pdf_flate_bomb(decompressed_mib: int = 200) -> bytes:
    """A one-page PDF whose content stream inflates to ``decompressed_mib`` MiB of text operators.

    A few hundred KiB on disk; parsing it needs many times the inflated size in memory.
    """
    compressor = zlib.compressobj(9)
    block = b"BT /F1 12 Tf 10 10 Td (bomb) Tj ET\n" * 30_000
    parts, total = [], 0
    while total < decompressed_mib * _MIB:
        parts.append(compressor.compress(block))
        total += len(block)
    parts.append(compressor.flush())
    stream = b"".join(parts)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


# --- spreadsheets --------------------------------------------------------------------------------


def make_xlsx() -> bytes:
    import openpyxl  # type: ignore[import-untyped, unused-ignore]

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Budget"
    sheet.append(["item", "amount"])
    sheet.append(["walrus food", 42])
    sheet.append(["multi\nline", None, "after gap"])
    workbook.create_sheet("Empty")
    other = workbook.create_sheet("Inventory")
    other.append(["yak", 3.5, True])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def make_xls() -> bytes:
    import xlwt  # type: ignore[import-untyped]

    workbook = xlwt.Workbook()
    sheet = workbook.add_sheet("Legacy")
    sheet.write(0, 0, "koala")
    sheet.write(0, 1, 7)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def make_ods() -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet  # type: ignore[import-untyped]
    from odf.table import Table, TableCell, TableRow  # type: ignore[import-untyped]
    from odf.text import P  # type: ignore[import-untyped]

    document = OpenDocumentSpreadsheet()
    table = Table(name="Ledger")
    for values in (("lynx", "5"), ("margay", "6")):
        row = TableRow()
        for value in values:
            cell = TableCell(valuetype="string")
            cell.addElement(P(text=value))
            row.addElement(cell)
        table.addElement(row)
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# --- word processing -----------------------------------------------------------------------------


def make_docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Zebra handbook", level=1)
    document.add_paragraph("Paragraph about the alpaca.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "cellone"
    table.cell(0, 1).text = "celltwo"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_odt() -> bytes:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Otter notes"))
    document.text.addElement(P(text="The otter swims."))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_rtf() -> bytes:
    return rb"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard Rich tortoise text.\par}"


# --- presentations -------------------------------------------------------------------------------


def make_pptx() -> bytes:
    import pptx

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    assert slide.shapes.title is not None
    slide.shapes.title.text = "Penguin slide"
    slide.placeholders[1].text = "bullet about the narwhal"
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def make_odp() -> bytes:
    from odf.draw import Frame, Page, TextBox  # type: ignore[import-untyped]
    from odf.opendocument import OpenDocumentPresentation
    from odf.style import MasterPage, PageLayout  # type: ignore[import-untyped]
    from odf.text import P

    document = OpenDocumentPresentation()
    layout = PageLayout(name="layout")
    document.automaticstyles.addElement(layout)
    master = MasterPage(name="master", pagelayoutname=layout)
    document.masterstyles.addElement(master)
    for text in ("Badger slide title", "Second slide about the civet"):
        page = Page(masterpagename=master)
        document.presentation.addElement(page)
        frame = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        page.addElement(frame)
        box = TextBox()
        frame.addElement(box)
        box.addElement(P(text=text))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# --- file-name-only types ------------------------------------------------------------------------


def make_png(width: int = 4, height: int = 4) -> bytes:
    """A real RGB PNG (stdlib only)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xcc\x22\x22" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def make_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(b"\x00\x00" * 800)
    return out.getvalue()


def make_svg() -> bytes:
    return b'<svg xmlns="http://www.w3.org/2000/svg"><text>svgword</text></svg>'


def make_mp4_stub() -> bytes:
    """The first box of an MP4 (``ftyp``); enough for a file stored by name."""
    return struct.pack(">I", 24) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isomiso2"


def make_epub() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("OEBPS/chapter.xhtml", "<html><body><p>epubword</p></body></html>")
    return out.getvalue()


# --- registries ----------------------------------------------------------------------------------

SAMPLES: dict[str, Sample] = {
    "notes.txt": Sample(make_txt, ("aardvark", "naïve café", "second line")),
    "guide.md": Sample(make_markdown, ("# Bandicoot guide", "## Care")),
    "bird.rst": Sample(make_rst, ("Cassowary",)),
    "data.json": Sample(make_json, ("dugong",)),
    "rows.jsonl": Sample(make_jsonl, ("echidna", "platypus")),
    "config.yaml": Sample(make_yaml, ("fennec",)),
    "pyproject.toml": Sample(make_toml, ("gharial",)),
    "zoo.xml": Sample(make_xml, ("hoatzin",)),
    "page.html": Sample(make_html, ("Ibex habitat", "ibex", "jackal", "Ibex page")),
    "page.xhtml": Sample(make_xhtml, ("kinkajou",)),
    "lemur.py": Sample(make_python, ("lemur_count", "Count the lemurs")),
    "query.sql": Sample(make_sql, ("marmoset",)),
    "paper.tex": Sample(make_tex, ("Numbat",)),
    "table.csv": Sample(make_csv, ("name\thabitat", "okapi\train forest, Congo", "pangolin line")),
    "table.tsv": Sample(make_tsv, ("quoll\tAustralia",)),
    "legacy.txt": Sample(make_cp1252, ("Légère café crème", "rhea", "“quoted”")),
    "wide.txt": Sample(make_utf16, ("UTF-16 saiga text",)),
    "mail.eml": Sample(make_eml, ("Quarterly vicuna report", "tamarin@example.org", "vicuna.")),
    "html-mail.eml": Sample(make_eml_html_only, ("wallaby",)),
    "archive.mbox": Sample(make_mbox, ("First xerus", "yapok", "Second zorilla")),
    "meeting.ics": Sample(make_ics, ("Standup ocelot", "tapir", "Room capybara", "2024-01-02")),
    "people.vcf": Sample(
        make_vcf, ("Jane Quokka", "jane@quokka.example", "+1 555 0100", "Wombat Inc", "Numbat")
    ),
    "talk.srt": Sample(make_srt, ("Hello armadillo", "Second cue binturong")),
    "talk.vtt": Sample(make_vtt, ("Hello caracal", "Second dhole cue")),
    "talk.sbv": Sample(make_sbv, ("Hello eland", "Second fossa cue")),
    "report.pdf": Sample(make_pdf, ("Galago report", "Hyrax")),
    "scan.pdf": Sample(make_image_only_pdf, ()),
    "budget.xlsx": Sample(
        make_xlsx, ("Budget", "item\tamount", "walrus food\t42", "Inventory", "yak\t3.5")
    ),
    "budget.xlsm": Sample(make_xlsx, ("Budget", "walrus food\t42")),
    "legacy.xls": Sample(make_xls, ("Legacy", "koala\t7")),
    "ledger.ods": Sample(make_ods, ("Ledger", "lynx\t5", "margay\t6")),
    "handbook.docx": Sample(make_docx, ("Zebra handbook", "alpaca", "cellone")),
    "notes.odt": Sample(make_odt, ("Otter notes", "otter swims")),
    "letter.rtf": Sample(make_rtf, ("Rich tortoise text",)),
    "deck.pptx": Sample(make_pptx, ("Penguin slide", "narwhal")),
    "deck.odp": Sample(make_odp, ("Badger slide title", "civet")),
    "photo.png": Sample(make_png, ()),
    "drawing.svg": Sample(make_svg, ()),
    "sound.wav": Sample(make_wav, ()),
    "clip.mp4": Sample(make_mp4_stub, ()),
    "book.epub": Sample(make_epub, ()),
}


# --- corrupt files -------------------------------------------------------------------------------


def _truncated(make: Callable[[], bytes]) -> Callable[[], bytes]:
    def truncated() -> bytes:
        data = make()
        return data[: len(data) // 2]

    return truncated


def _random_bytes(size: int = 4096, seed: int = 7) -> bytes:
    state = seed
    out = bytearray()
    while len(out) < size:
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out += state.to_bytes(8, "little")
    return bytes(out[:size])


#: Broken files that must raise ExtractionFailed.
CORRUPT: dict[str, Callable[[], bytes]] = {
    "truncated.docx": _truncated(make_docx),
    "truncated.xlsx": _truncated(make_xlsx),
    "truncated.pptx": _truncated(make_pptx),
    "truncated.odt": _truncated(make_odt),
    "truncated.ods": _truncated(make_ods),
    "truncated.odp": _truncated(make_odp),
    "random.pdf": _random_bytes,
    "random.docx": _random_bytes,
    "random.xls": _random_bytes,
    "random.doc": _random_bytes,
    "random.ppt": _random_bytes,
    "random.msg": _random_bytes,
    "truncated.pdf": lambda: make_pdf()[:200],
    "png.docx": make_png,  # mislabelled: a PNG named .docx
    "png.pdf": make_png,
    "text.xlsx": make_txt,
    "garbage.ics": lambda: b"hello, this is not a calendar\n",
    "garbage.vcf": lambda: b"hello, this is not a contact\n",
    "garbage.mbox": lambda: b"not a mailbox at all\n",
    "lying-sizes.docx": lambda: make_docx_lying_sizes(8),
}


# --- hostile files -------------------------------------------------------------------------------


def _rewrite_zip(data: bytes, edit: Callable[[str, bytes], bytes]) -> bytes:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            target.writestr(info.filename, edit(info.filename, source.read(info.filename)))
    return out.getvalue()


@cache
def make_docx_zip_bomb(entry_mib: int = 300) -> bytes:
    """A valid docx plus one media entry of ``entry_mib`` MiB of zeros (about 1000:1)."""
    out = io.BytesIO(_rewrite_zip(make_docx(), lambda _name, body: body))
    block = b"\x00" * _MIB
    with (
        zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("word/media/bomb.bin", "w", force_zip64=True) as entry,
    ):
        for _ in range(entry_mib):
            entry.write(block)
    return out.getvalue()


def make_docx_text_bomb(text_mib: int = 64) -> bytes:
    """A docx whose document.xml holds ``text_mib`` MiB of one repeated word (under the 100 MiB
    per-entry cap, over the 16 MiB floor of the ratio check)."""

    def edit(name: str, body: bytes) -> bytes:
        if name != "word/document.xml":
            return body
        filler = b"<w:p><w:r><w:t>" + b"bomb " * (text_mib * _MIB // 5) + b"</w:t></w:r></w:p>"
        return body.replace(b"<w:body>", b"<w:body>" + filler, 1)

    return _rewrite_zip(make_docx(), edit)


@dataclass(frozen=True)
class ZipEntry:
    """One entry of :func:`raw_zip`: deflated ``data`` and what the headers declare about it."""

    name: str
    data: bytes
    size: int  # declared uncompressed size
    crc: int  # declared CRC-32


def deflated_entry(name: str, body: bytes) -> ZipEntry:
    """An honest entry: ``body`` deflated, with its real size and CRC."""
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    return ZipEntry(name, deflate.compress(body) + deflate.flush(), len(body), zlib.crc32(body))


def raw_zip(entries: list[ZipEntry]) -> bytes:
    """A zip archive that declares exactly what ``entries`` say, true or not (zipfile cannot
    write a lie): local headers, data, central directory, end record."""
    out = io.BytesIO()
    directory = io.BytesIO()
    for entry in entries:
        offset = out.tell()
        name = entry.name.encode()
        sizes = (entry.crc & 0xFFFFFFFF, len(entry.data), entry.size, len(name))
        # version 2.0, no flags, deflate (8), DOS time/date 0:00 1980-01-01
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, *sizes, 0))
        out.write(name + entry.data)
        directory.write(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                8,
                0,
                0x21,
                *sizes,
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + name
        )
    start = out.tell()
    out.write(directory.getvalue())
    count = len(entries)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, directory.tell(), start, 0))
    return out.getvalue()


def rezip(package: bytes, target: str, *, crc: int = 0, size: int = 0, cut: bool = False) -> bytes:
    """``package`` written anew with ``target``'s declared CRC xor'ed with ``crc``, its declared
    size moved by ``size`` bytes, or its deflate data cut in half (``cut``)."""
    entries = []
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        for info in archive.infolist():
            entry = deflated_entry(info.filename, archive.read(info.filename))
            if info.filename == target:
                data = entry.data[: len(entry.data) // 2] if cut else entry.data
                entry = ZipEntry(entry.name, data, entry.size + size, entry.crc ^ crc)
            entries.append(entry)
    return raw_zip(entries)


@cache
def make_docx_lying_sizes(inflated_mib: int = 900) -> bytes:
    """A docx whose ``document.xml`` inflates to ``inflated_mib`` MiB (spaces between elements)
    while its headers declare the small size and the CRC of the real part.

    The spaces are deflated once, 1 MiB with a full flush (which resets the compressor's
    history), and that segment repeated: a valid stream, built in milliseconds."""
    entries = []
    with zipfile.ZipFile(io.BytesIO(make_docx())) as source:
        for info in source.infolist():
            body = source.read(info.filename)
            entry = deflated_entry(info.filename, body)
            if info.filename == "word/document.xml":
                head, tail = body.split(b"<w:body>", 1)
                deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
                start = deflate.compress(head + b"<w:body>") + deflate.flush(zlib.Z_FULL_FLUSH)
                spaces = deflate.compress(b" " * _MIB) + deflate.flush(zlib.Z_FULL_FLUSH)
                end = deflate.compress(tail) + deflate.flush()
                data = start + spaces * inflated_mib + end
                entry = ZipEntry(entry.name, data, entry.size, entry.crc)
            entries.append(entry)
    return raw_zip(entries)


def make_empty_docx() -> bytes:
    """A valid docx with no text at all."""
    import docx

    out = io.BytesIO()
    docx.Document().save(out)
    return out.getvalue()


_LAUGHS = b"".join(
    b'<!ENTITY lol%d "%s">' % (level, (b"&lol%d;" % (level - 1)) * 10) for level in range(1, 10)
)


def make_billion_laughs_xml() -> bytes:
    return (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">'
        + _LAUGHS
        + b"]><lolz>&lol9; laughs</lolz>"
    )


def make_billion_laughs_docx() -> bytes:
    def edit(name: str, body: bytes) -> bytes:
        if name != "word/document.xml":
            return body
        doctype = b'<!DOCTYPE w:document [<!ENTITY lol0 "lol">' + _LAUGHS + b"]>"
        body = body.replace(b"<w:document", doctype + b"<w:document", 1)
        return body.replace(b"Paragraph about the alpaca.", b"&lol9;")

    return _rewrite_zip(make_docx(), edit)


def make_billion_laughs_odp() -> bytes:
    def edit(name: str, body: bytes) -> bytes:
        if name != "content.xml":
            return body
        doctype = b'<!DOCTYPE office:document-content [<!ENTITY lol0 "lol">' + _LAUGHS + b"]>"
        body = body.replace(b"<office:document-content", doctype + b"<office:document-content", 1)
        return body.replace(b"Badger slide title", b"&lol9;")

    return _rewrite_zip(make_odp(), edit)


def make_deep_json(depth: int = 200_000) -> bytes:
    return b"[" * depth + b"]" * depth


#: Malicious files: name → generator. Each must end, bounded, in text or ExtractionFailed.
HOSTILE: dict[str, Callable[[], bytes]] = {
    "bomb.docx": make_docx_zip_bomb,
    "textbomb.docx": make_docx_text_bomb,
    "laughs.xml": make_billion_laughs_xml,
    "laughs.html": make_billion_laughs_xml,
    "laughs.docx": make_billion_laughs_docx,
    "laughs.odp": make_billion_laughs_odp,
    "deep.json": make_deep_json,
    "many-pages.pdf": make_many_pages_pdf,
    "flate-bomb.pdf": make_pdf_flate_bomb,
    "image.docx": make_png,
    "lying-sizes.docx": make_docx_lying_sizes,
}
