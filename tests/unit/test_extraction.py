"""Tests for quire.indexer.extraction: type resolution and in-process extraction of real files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quire.indexer.extraction import (
    NO_TEXT_MARKER,
    SUPPORTED_EXTENSIONS,
    ExtractionFailed,
    Extractor,
    Family,
    UnsupportedMediaType,
    extract_text,
    resolve_type,
)
from quire.indexer.extraction.formats import file_type_for_extension
from tests.support.sample_files import CORRUPT, SAMPLES, make_docx, make_pdf

# --- resolve_type --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_name", "family", "mime_type"),
    [
        ("a.txt", Family.TEXT, "text/plain"),
        ("README.MD", Family.TEXT, "text/markdown"),
        ("dir/sub/report.PDF", Family.PDF, "application/pdf"),
        ("x.docx", Family.WORD_PROCESSING, None),
        ("x.xlsx", Family.SPREADSHEET, None),
        ("x.csv", Family.SPREADSHEET, "text/csv"),
        ("x.pptx", Family.PRESENTATION, None),
        ("x.odp", Family.PRESENTATION, "application/vnd.oasis.opendocument.presentation"),
        ("mail.eml", Family.RECORD, "message/rfc822"),
        ("cal.ics", Family.RECORD, "text/calendar"),
        ("talk.vtt", Family.TRANSCRIPT, "text/vtt"),
        ("photo.JPEG", Family.IMAGE, "image/jpeg"),
        ("song.mp3", Family.AUDIO, "audio/mpeg"),
        ("clip.mkv", Family.VIDEO, "video/x-matroska"),
        ("book.epub", Family.EBOOK, "application/epub+zip"),
        ("main.rs", Family.TEXT, "text/rust"),
    ],
)
def test_resolve_by_extension(file_name: str, family: Family, mime_type: str | None) -> None:
    file_type = resolve_type(file_name, "application/octet-stream")
    assert file_type.family is family
    if mime_type is not None:
        assert file_type.mime_type == mime_type


def test_extension_wins_over_mime_type() -> None:
    assert resolve_type("notes.md", "application/pdf").extension == "md"


@pytest.mark.parametrize(
    ("mime_type", "extension"),
    [
        ("application/pdf", "pdf"),
        ("Application/PDF; charset=binary", "pdf"),
        ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
        ("text/x-markdown", "md"),
        ("image/jpg", "jpg"),
        ("audio/x-wav", "wav"),
        ("text/plain; charset=utf-8", "txt"),
        ("text/x-unheard-of", "txt"),  # any text/* is text
        ("application/ld+json", "json"),
        ("application/vnd.custom+xml", "xml"),
        ("application/x-iwork-keynote-sffkey", "key"),
    ],
)
def test_resolve_by_mime_type_without_extension(mime_type: str, extension: str) -> None:
    assert resolve_type("upload", mime_type).extension == extension


def test_unknown_extension_falls_back_to_mime_type() -> None:
    assert resolve_type("export.weird", "text/csv").extension == "csv"


def test_extensionless_well_known_names_are_text() -> None:
    assert resolve_type("Makefile", None).extractor is Extractor.PLAIN
    assert resolve_type("Dockerfile", None).extractor is Extractor.PLAIN


@pytest.mark.parametrize(
    ("file_name", "mime_type", "mentions"),
    [
        ("archive.tar.gz", None, ".gz"),
        ("program.exe", "application/x-msdownload", "application/x-msdownload"),
        ("noext", None, "no extension"),
        ("noext", "application/octet-stream", "application/octet-stream"),
        (".bashrc", None, "no extension"),
        ("model.onnx", "", ".onnx"),
    ],
)
def test_unsupported(file_name: str, mime_type: str | None, mentions: str) -> None:
    with pytest.raises(UnsupportedMediaType, match="unsupported file type") as info:
        resolve_type(file_name, mime_type)
    assert mentions in str(info.value)
    assert isinstance(info.value, ValueError)


def test_table_shape() -> None:
    assert len(SUPPORTED_EXTENSIONS) > 80
    name_only = {e for e in SUPPORTED_EXTENSIONS if not file_type_for_extension(e).extracts_text}
    assert {"png", "jpg", "svg", "mp3", "wav", "mp4", "mov", "epub", "numbers", "key"} <= name_only
    assert not {"pdf", "docx", "xlsx", "pptx", "odt", "ods", "odp", "eml", "ics", "vcf"} & (
        name_only
    )
    for extension in SUPPORTED_EXTENSIONS:
        file_type = file_type_for_extension(extension)
        assert file_type.extension == extension == extension.lower()
        assert "/" in file_type.mime_type


@given(st.text(max_size=40), st.one_of(st.none(), st.text(max_size=40)))
@settings(max_examples=300, deadline=None)
def test_resolve_type_total(file_name: str, mime_type: str | None) -> None:
    """Any input resolves or raises UnsupportedMediaType; nothing else escapes."""
    try:
        file_type = resolve_type(file_name, mime_type)
    except UnsupportedMediaType:
        return
    assert file_type.extension in SUPPORTED_EXTENSIONS


# --- extract_text --------------------------------------------------------------------------------


def test_marker() -> None:
    assert NO_TEXT_MARKER == "no text extracted"


@pytest.mark.parametrize("file_name", sorted(SAMPLES))
def test_sample_files(file_name: str) -> None:
    sample = SAMPLES[file_name]
    result = extract_text(sample.make(), resolve_type(file_name, None))
    if not sample.words:
        assert result.text == ""
        return
    for word in sample.words:
        assert word in result.text, f"{word!r} missing from {result.text[:500]!r}"
    assert "\x00" not in result.text and "\r" not in result.text
    assert result.text == result.text.rstrip()


def test_html_drops_scripts_and_styles() -> None:
    text = extract_text(SAMPLES["page.html"].make(), resolve_type("p.html", None)).text
    assert "scriptword" not in text and "color:red" not in text and "<" not in text


def test_email_headers_and_plain_body_preferred() -> None:
    text = extract_text(SAMPLES["mail.eml"].make(), resolve_type("m.eml", None)).text
    for header in ("Subject: Quarterly vicuna report", "From:", "To: uakari@example.org", "Date:"):
        assert header in text
    assert "HTML twin" not in text  # text/plain wins over the HTML alternative


def test_transcripts_have_no_timestamps() -> None:
    for name in ("talk.srt", "talk.vtt", "talk.sbv"):
        text = extract_text(SAMPLES[name].make(), resolve_type(name, None)).text
        assert "-->" not in text and "00:00" not in text and "<i>" not in text, name


def test_spreadsheet_layout() -> None:
    text = extract_text(SAMPLES["budget.xlsx"].make(), resolve_type("b.xlsx", None)).text
    assert text.splitlines()[:3] == ["Budget", "item\tamount", "walrus food\t42"]
    assert "\n\nInventory\nyak\t3.5\t" in text


def test_invalid_utf8_is_replaced_with_a_warning() -> None:
    result = extract_text(b"ok \xff\xfe bytes", resolve_type("a.txt", None))
    assert result.text == "ok \ufffd\ufffd bytes"
    assert result.warnings


def test_nul_and_line_ends_are_normalised() -> None:
    result = extract_text(b"a\x00b\r\nc\rd  \n\n", resolve_type("a.log", None))
    assert result.text == "ab\nc\nd"


@pytest.mark.parametrize("file_name", ["empty.txt", "empty.pdf", "blank.md", "empty.docx"])
def test_empty_files_have_no_text(file_name: str) -> None:
    data = b"" if "empty" in file_name else b"  \n\t\n"
    assert extract_text(data, resolve_type(file_name, None)).text == ""


def test_name_only_types_are_not_parsed() -> None:
    # garbage in a file-name-only type is not an error: it is stored and found by name
    for name in ("x.png", "x.mp4", "x.epub", "x.numbers", "x.key"):
        assert extract_text(b"\x00garbage" * 10, resolve_type(name, None)).text == ""


@pytest.mark.parametrize("file_name", sorted(CORRUPT))
def test_corrupt_files_fail(file_name: str) -> None:
    with pytest.raises(ExtractionFailed) as info:
        extract_text(CORRUPT[file_name](), resolve_type(file_name, None))
    assert str(info.value)


def test_markup_that_does_not_parse_is_kept_as_text() -> None:
    result = extract_text(b"<a><b>unclosed tapir", resolve_type("x.xml", None))
    assert "tapir" in result.text


def test_malformed_transcript_is_kept_as_text() -> None:
    result = extract_text(b"not a transcript but words: sloth", resolve_type("x.vtt", None))
    assert "sloth" in result.text
    assert result.warnings


def test_mime_fallback_extracts_like_the_extension() -> None:
    data = make_docx()
    by_mime = resolve_type(
        "upload", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )
    assert extract_text(data, by_mime) == extract_text(data, resolve_type("x.docx", None))
    assert "Galago" in extract_text(make_pdf(), resolve_type("blob", "application/pdf")).text
