"""Tests for quire.indexer.extraction: type resolution and in-process extraction of real files."""

from __future__ import annotations

import codecs
import io
import zipfile
from collections.abc import Callable

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
from quire.indexer.extraction.decoding import DETECT_BYTES, DetectionNeeded, decode_text
from quire.indexer.extraction.formats import file_type_for_extension
from tests.support.sample_files import (
    CORRUPT,
    SAMPLES,
    make_docx,
    make_docx_lying_sizes,
    make_empty_docx,
    make_pdf,
    make_xlsx,
    rezip,
)

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


@pytest.mark.slow  # 3 s for the sample files under load (`make test-fast` leaves it out)
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


def test_bytes_no_encoding_explains_are_replaced_with_a_warning() -> None:
    result = extract_text(b"ok " + bytes(range(256)) * 4, resolve_type("a.txt", None))
    assert result.text.startswith("ok ") and "\ufffd" in result.text
    assert result.encoding == "utf-8"
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


# --- text encodings (decoding.py) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"plain ascii", "utf-8"),
        ("naïve ✓".encode(), "utf-8"),
        (codecs.BOM_UTF8 + "naïve".encode(), "utf-8"),
        ("naïve".encode("utf-16"), "utf-16-le"),  # with its BOM
        (codecs.BOM_UTF16_BE + "naïve".encode("utf-16-be"), "utf-16-be"),
        (codecs.BOM_UTF32_LE + "naïve".encode("utf-32-le"), "utf-32-le"),
        ("Hello wörld, sixteen bits without a mark\n".encode("utf-16-le"), "utf-16-le"),
    ],
)
def test_unicode_is_decoded_by_mark_or_validity(data: bytes, encoding: str) -> None:
    decoded = decode_text(data, [])
    assert decoded.encoding == encoding
    assert decoded.text in (
        "plain ascii",
        "naïve ✓",
        "naïve",
        "Hello wörld, sixteen bits without a mark\n",
    )


@pytest.mark.parametrize(
    ("text", "encoding", "detected"),
    [
        # too short for statistics: cp1252 wins the tie (cp1006 would make it "Cafﻠ rﻠsumﻠ")
        ("Café résumé", "cp1252", {"cp1252"}),
        ("“smart quotes” – dash", "cp1252", {"cp1252"}),
        ("Grüße aus München, schöne Straße.\n", "latin-1", {"cp1252"}),  # the same bytes
        ("日本語のテキストです。東京で会いましょう。\n", "shift_jis", {"cp932", "shift_jis"}),
        ("Привет, как дела? Это русский текст, довольно длинный.\n", "cp1251", {"cp1251"}),
        ("你好，世界。这是中文文本。\n", "gb18030", {"gb18030", "gbk", "gb2312"}),
    ],
)
def test_legacy_encodings_are_detected(text: str, encoding: str, detected: set[str]) -> None:
    warnings: list[str] = []
    decoded = decode_text(text.encode(encoding), warnings)
    assert decoded.text == text
    assert decoded.encoding in detected
    assert not warnings


_JAPANESE = "日本語のテキストです。東京で会いましょう。昨日はお店に行って、新しいパンを買いました。"
_MIXED = "Voilà une crème brûlée, servie après le dîner. Привет, как дела? 日本語のテキスト。"
# Short texts of each kind, cut at every word end from 30 to 200 bytes. Below about 30 bytes some
# cannot be told apart (docs/extraction.md, "Text encodings").
SHORT_TEXTS = [
    (
        "latin-1",
        "Voilà une crème brûlée, servie après le dîner. Déjà vu, naïve, façade, résumé. Le garçon "
        "a préféré la pâtisserie à côté de l'église. Noël approche et les élèves sont contents.",
    ),
    (
        "latin-1",
        "Grüße aus München! Die Straße ist schön, und die Bäume blühen. Über den Fluß führt eine "
        "alte Brücke. Ärger gibt es nur selten; die Mädchen hören Musik und öffnen die Tür.",
    ),
    (
        "latin-1",
        "El niño comió una piña en la montaña. ¿Dónde está el señor Muñoz? ¡Qué día más bonito! "
        "La canción habla del corazón. Según el médico, la situación crítica requiere atención.",
    ),
    (
        "latin-1",
        "A educação é fundamental para o coração da nação. São Paulo e João estão à espera da "
        "solução. Não há razão para preocupação, disse o irmão à mãe. Há três lições práticas.",
    ),
    (
        "cp1252",
        "« Voilà », dit-il – l’œuvre coûte 12 € ; c’est déjà trop… Le cœur de l’été, où l’on "
        "mange une crème glacée, est très chaud. Les sœurs préfèrent le thé.",
    ),
    (
        "cp1250",
        "Včera večer jsme byli v divadle na hře od Čapka. Režie byla vydařená a herci hráli s "
        "velkým nasazením. Po představení jsme večeřeli v malé restauraci, kde podávali svíčkovou.",
    ),
    (
        "cp1250",
        "Wczoraj wieczorem byliśmy w teatrze na sztuce Mrożka. Reżyseria była udana, a aktorzy "
        "grali z wielkim zaangażowaniem. Po przedstawieniu zjedliśmy kolację w małej restauracji.",
    ),
    (
        "iso8859-2",
        "Ministerstvo zveřejnilo podrobnou zprávu o kvalitě vody v přímořských oblastech. Podle "
        "studií se znečištění za posledních deset let výrazně snížilo, ale problémy přetrvávají.",
    ),
    (
        "cp1251",
        "Привет, как дела? Это русский текст. Вчера я ходил в магазин и купил свежий хлеб. Река "
        "течёт под мостом, где играют дети.",
    ),
    ("shift_jis", _JAPANESE),
    ("euc_jp", _JAPANESE),
    ("utf-8", _MIXED),
    ("utf-16", _MIXED),  # with its byte order mark
]


def _short_cuts(text: str, encoding: str) -> list[str]:
    """Prefixes of ``text`` ending at a word (or, without spaces, a character) of 30-200 bytes."""
    ends = [i for i, char in enumerate(text) if char == " "] or list(range(1, len(text)))
    return [text[:i] for i in ends if 30 <= len(text[:i].encode(encoding)) <= 200]


@pytest.mark.parametrize(("encoding", "text"), SHORT_TEXTS, ids=lambda v: v[:12])
def test_short_texts_read_back_exactly(encoding: str, text: str) -> None:
    cuts = _short_cuts(text, encoding)
    assert len(cuts) >= 5
    misread = {}
    for cut in cuts:
        decoded = decode_text(cut.encode(encoding), [])
        if decoded.text != cut:
            misread[len(cut.encode(encoding))] = (decoded.encoding, decoded.text[:40])
    assert not misread


def test_latin1_of_about_a_hundred_bytes_is_not_read_as_cp1250() -> None:
    # The report's case: 86-118 bytes of Latin-1 came back as cp1250, "crème" as "crčme".
    text = "Voilà une crème. " * 6
    for size in range(60, len(text) + 1, 17):
        decoded = decode_text(text[:size].encode("latin-1"), [])
        assert (decoded.text, decoded.encoding) == (text[:size], "cp1252")


def test_detection_looks_at_a_bounded_prefix_cut_at_a_line_end() -> None:
    line = "日本語のテキストです。東京で会いましょう。\n".encode("shift_jis")
    data = line * (2 * DETECT_BYTES // len(line))
    decoded = decode_text(data, [])
    assert decoded.encoding in {"cp932", "shift_jis"}
    assert decoded.text == data.decode("shift_jis")


def test_detection_can_be_left_to_the_caller() -> None:
    with pytest.raises(DetectionNeeded):
        decode_text("Café".encode("cp1252"), [], detect=False)
    assert decode_text(b"caf\xc3\xa9", [], detect=False).text == "café"


@pytest.mark.parametrize("file_name", ["notes.txt", "table.csv", "page.html", "talk.vtt"])
def test_text_like_types_record_their_encoding(file_name: str) -> None:
    body = "Café résumé, crème brûlée\n"
    if file_name == "talk.vtt":
        body = "WEBVTT\n\n00:00.000 --> 00:01.000\n" + body
    result = extract_text(body.encode("cp1252"), resolve_type(file_name, None))
    assert "Café résumé" in result.text
    assert result.encoding == "cp1252"


def test_parsed_formats_record_no_encoding() -> None:
    assert extract_text(make_docx(), resolve_type("x.docx", None)).encoding == ""


# --- corrupt and unsafe packages (zipguard.py) ---------------------------------------------------


@pytest.mark.parametrize("file_name", sorted(CORRUPT))
def test_corrupt_files_are_permanent_failures(file_name: str) -> None:
    with pytest.raises(ExtractionFailed) as info:
        extract_text(CORRUPT[file_name](), resolve_type(file_name, None))
    assert info.value.permanent


_NOT_A_DOCUMENT = {"readme.txt": b"a zip of something else"}


@pytest.mark.parametrize(
    ("file_name", "make", "reason"),
    [
        ("x.docx", lambda: make_docx_lying_sizes(inflated_mib=8), "fails its CRC check"),
        ("x.docx", lambda: rezip(make_docx(), "word/document.xml", crc=1), "fails its CRC"),
        ("x.docx", lambda: rezip(make_docx(), "word/document.xml", size=+100), "is truncated"),
        ("x.docx", lambda: rezip(make_docx(), "word/document.xml", cut=True), "fails its CRC"),
        ("x.xlsx", lambda: rezip(make_xlsx(), "xl/worksheets/sheet1.xml", crc=1), "fails its CRC"),
        ("x.pptx", lambda: _zip(_NOT_A_DOCUMENT), "lacks its required [Content_Types].xml"),
        ("x.odt", lambda: _zip(_NOT_A_DOCUMENT), "lacks its required META-INF/manifest.xml"),
    ],
)
def test_corrupt_archives_fail_with_a_reason(
    file_name: str, make: Callable[[], bytes], reason: str
) -> None:
    with pytest.raises(ExtractionFailed, match="corrupt or unsafe archive") as info:
        extract_text(make(), resolve_type(file_name, None))
    assert reason in str(info.value)
    assert info.value.permanent


def test_corrupt_pages_package_fails_but_an_unreadable_one_is_kept_by_name() -> None:
    with pytest.raises(ExtractionFailed, match="corrupt or unsafe archive"):
        extract_text(make_docx_lying_sizes(inflated_mib=2), resolve_type("x.pages", None))
    # an intact zip the iWork reader finds nothing in: stored by file name, best effort
    assert extract_text(_zip({"index.xml": b"<x/>"}), resolve_type("x.pages", None)).text == ""


def test_a_valid_document_without_text_is_not_corrupt() -> None:
    assert extract_text(make_empty_docx(), resolve_type("x.docx", None)).text == ""


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return out.getvalue()
