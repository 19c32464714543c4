"""The supported upload types (DESIGN §4): extension → family, canonical MIME type, extractor.

One table, :data:`_TABLE`, is the single source: :func:`resolve_type`, :data:`SUPPORTED_EXTENSIONS`
and ``docs/extraction.md`` follow from it. A type either has body text (``extracts_text``) or is
stored and found by its file name only (images, audio, video, EPUB, Numbers, Keynote).

Resolution order for an upload:

1. The extension of the file name (after the last dot, case-insensitive), when the table knows it.
2. The MIME type (parameters such as ``; charset=utf-8`` dropped, case-insensitive), by its
   canonical value or a common alias; any other ``text/*`` type is read as plain text, and
   ``+json`` / ``+xml`` structured-syntax suffixes as JSON / XML.
3. A few well-known extensionless names (``Makefile``, ``Dockerfile``, ``README``, ...) as text.
4. Otherwise :class:`UnsupportedMediaType`, naming the extension and the MIME type.

Legacy binary Office formats (doc, xls, ppt) and Outlook ``msg`` are in the table because
kreuzberg reads them natively (no LibreOffice); see ``docs/extraction.md``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from quire.indexer.extraction.refusals import UnsupportedMediaType

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "Extractor",
    "Family",
    "FileType",
    "file_type_for_extension",
    "resolve_type",
]


class Family(enum.StrEnum):
    """The format family of DESIGN §4 a type belongs to."""

    TEXT = "text"  # text, markup, data and source code
    RECORD = "record"  # business records: email, calendars, contacts
    TRANSCRIPT = "transcript"
    PDF = "pdf"
    SPREADSHEET = "spreadsheet"
    WORD_PROCESSING = "word_processing"
    PRESENTATION = "presentation"
    EBOOK = "ebook"
    IMAGE = "image"
    AUDIO = "audio"
    VIDEO = "video"


class Extractor(enum.StrEnum):
    """How the body text of a type is obtained (see ``extract.py``)."""

    PLAIN = "plain"  # decoded as text (UTF-8 / BOM), kept verbatim
    DELIMITED = "delimited"  # csv / tsv via the csv module, rows as tab-separated lines
    MARKUP = "markup"  # html / xml via kreuzberg, falling back to the decoded text
    DOCUMENT = "document"  # kreuzberg: PDF, Office, OpenDocument text, RTF, email
    SPREADSHEET = "spreadsheet"  # kreuzberg tables: sheet name + tab-separated rows
    ODF_PRESENTATION = "odf_presentation"  # odfpy (kreuzberg has no ODP reader)
    IWORK_PAGES = "iwork_pages"  # kreuzberg, best effort: failures give no text
    MBOX = "mbox"  # stdlib mailbox, each message through kreuzberg's email reader
    CALENDAR = "calendar"  # icalendar
    CONTACTS = "contacts"  # vobject
    TRANSCRIPT = "transcript"  # webvtt-py (srt, vtt, sbv)
    NONE = "none"  # stored and found by file name only


@dataclass(frozen=True)
class FileType:
    """A supported type: ``extension`` is lower case without the dot."""

    extension: str
    family: Family
    mime_type: str
    extractor: Extractor

    @property
    def extracts_text(self) -> bool:
        """False for types that are stored and found by file name only."""
        return self.extractor is not Extractor.NONE


@dataclass(frozen=True)
class _Row:
    family: Family
    extractor: Extractor
    mime_type: str
    extensions: tuple[str, ...]
    mime_aliases: tuple[str, ...] = ()


_T, _R, _S = Family.TEXT, Family.RECORD, Family.SPREADSHEET
_W, _P = Family.WORD_PROCESSING, Family.PRESENTATION
_X = Extractor

_TABLE: tuple[_Row, ...] = (
    # --- text and markup -------------------------------------------------------------------------
    _Row(_T, _X.PLAIN, "text/plain", ("txt", "text", "log", "out", "nfo")),
    _Row(_T, _X.PLAIN, "text/markdown", ("md", "markdown", "mdown", "mkd"), ("text/x-markdown",)),
    _Row(_T, _X.PLAIN, "text/mdx", ("mdx",)),
    _Row(_T, _X.PLAIN, "text/x-rst", ("rst",), ("text/prs.fallenstein.rst",)),
    _Row(_T, _X.PLAIN, "text/asciidoc", ("adoc", "asciidoc", "asc"), ("text/x-asciidoc",)),
    _Row(_T, _X.PLAIN, "text/org", ("org",), ("text/x-org",)),
    _Row(
        _T,
        _X.PLAIN,
        "text/x-tex",
        ("tex", "latex", "ltx", "sty", "cls", "bib"),
        ("application/x-tex", "application/x-latex", "text/x-bibtex"),
    ),
    _Row(
        _T,
        _X.PLAIN,
        "application/json",
        ("json", "geojson", "ipynb", "har"),
        ("text/json", "application/geo+json", "application/x-ipynb+json"),
    ),
    _Row(
        _T,
        _X.PLAIN,
        "application/jsonl",
        ("jsonl", "ndjson"),
        ("application/x-ndjson", "application/x-jsonlines"),
    ),
    _Row(
        _T,
        _X.PLAIN,
        "application/yaml",
        ("yaml", "yml"),
        ("application/x-yaml", "text/yaml", "text/x-yaml"),
    ),
    _Row(_T, _X.PLAIN, "application/toml", ("toml",), ("text/x-toml",)),
    _Row(_T, _X.PLAIN, "text/x-ini", ("ini", "cfg", "conf", "properties", "env", "editorconfig")),
    _Row(_T, _X.PLAIN, "application/sql", ("sql", "psql"), ("text/x-sql",)),
    _Row(_T, _X.PLAIN, "text/x-diff", ("diff", "patch"), ("text/x-patch",)),
    _Row(_T, _X.PLAIN, "text/css", ("css", "scss", "sass", "less")),
    _Row(_T, _X.MARKUP, "text/html", ("html", "htm", "shtml")),
    _Row(_T, _X.MARKUP, "application/xhtml+xml", ("xhtml", "xht")),
    _Row(
        _T,
        _X.MARKUP,
        "application/xml",
        ("xml", "xsd", "xsl", "xslt", "rss", "atom", "opml"),
        ("text/xml", "application/rss+xml", "application/atom+xml"),
    ),
    # source code: read verbatim (identifiers and comments are what people search for)
    _Row(_T, _X.PLAIN, "text/x-python", ("py", "pyi", "pyw"), ("text/x-script.python",)),
    _Row(_T, _X.PLAIN, "text/javascript", ("js", "mjs", "cjs", "jsx"), ("application/javascript",)),
    _Row(
        _T,
        _X.PLAIN,
        "text/typescript",
        ("ts", "mts", "cts", "tsx"),
        ("application/typescript", "application/x-typescript"),
    ),
    _Row(_T, _X.PLAIN, "text/x-go", ("go",)),
    _Row(_T, _X.PLAIN, "text/rust", ("rs",), ("text/x-rust",)),
    _Row(_T, _X.PLAIN, "text/x-java", ("java",), ("text/x-java-source",)),
    _Row(_T, _X.PLAIN, "text/x-kotlin", ("kt", "kts")),
    _Row(_T, _X.PLAIN, "text/x-scala", ("scala", "sc")),
    _Row(_T, _X.PLAIN, "text/x-groovy", ("groovy", "gradle")),
    _Row(_T, _X.PLAIN, "text/x-c", ("c", "h"), ("text/x-csrc", "text/x-chdr")),
    _Row(
        _T,
        _X.PLAIN,
        "text/x-c++",
        ("cpp", "cc", "cxx", "hpp", "hh", "hxx"),
        ("text/x-c++src", "text/x-c++hdr"),
    ),
    _Row(_T, _X.PLAIN, "text/x-csharp", ("cs",)),
    _Row(_T, _X.PLAIN, "text/x-swift", ("swift",)),
    _Row(_T, _X.PLAIN, "text/x-objective-c", ("m", "mm")),
    _Row(_T, _X.PLAIN, "text/x-ruby", ("rb",), ("application/x-ruby",)),
    _Row(_T, _X.PLAIN, "application/x-httpd-php", ("php",), ("text/x-php",)),
    _Row(_T, _X.PLAIN, "text/x-perl", ("pl", "pm"), ("application/x-perl",)),
    _Row(_T, _X.PLAIN, "text/x-lua", ("lua",)),
    _Row(_T, _X.PLAIN, "text/x-r", ("r",)),
    _Row(_T, _X.PLAIN, "text/x-julia", ("jl",)),
    _Row(_T, _X.PLAIN, "text/x-dart", ("dart",)),
    _Row(_T, _X.PLAIN, "text/x-elixir", ("ex", "exs")),
    _Row(_T, _X.PLAIN, "text/x-erlang", ("erl", "hrl")),
    _Row(_T, _X.PLAIN, "text/x-haskell", ("hs",)),
    _Row(_T, _X.PLAIN, "text/x-ocaml", ("ml", "mli")),
    _Row(_T, _X.PLAIN, "text/x-clojure", ("clj", "cljs", "edn")),
    _Row(_T, _X.PLAIN, "text/x-zig", ("zig",)),
    _Row(_T, _X.PLAIN, "text/x-vue", ("vue", "svelte")),
    _Row(_T, _X.PLAIN, "text/x-protobuf", ("proto",)),
    _Row(_T, _X.PLAIN, "application/graphql", ("graphql", "gql")),
    _Row(_T, _X.PLAIN, "text/x-terraform", ("tf", "tfvars", "hcl")),
    _Row(_T, _X.PLAIN, "application/x-sh", ("sh", "bash", "zsh", "fish"), ("text/x-shellscript",)),
    _Row(_T, _X.PLAIN, "text/x-powershell", ("ps1", "psm1")),
    _Row(_T, _X.PLAIN, "text/x-bat", ("bat", "cmd")),
    _Row(_T, _X.PLAIN, "text/x-makefile", ("mk", "cmake")),
    _Row(_T, _X.PLAIN, "text/x-dockerfile", ("dockerfile",)),
    # --- business records ------------------------------------------------------------------------
    _Row(_R, _X.DOCUMENT, "message/rfc822", ("eml",)),
    _Row(_R, _X.DOCUMENT, "application/vnd.ms-outlook", ("msg",)),
    _Row(_R, _X.MBOX, "application/mbox", ("mbox",), ("application/x-mbox",)),
    _Row(_R, _X.CALENDAR, "text/calendar", ("ics", "ical", "ifb"), ("text/x-vcalendar",)),
    _Row(_R, _X.CONTACTS, "text/vcard", ("vcf", "vcard"), ("text/x-vcard", "text/directory")),
    # --- transcripts -----------------------------------------------------------------------------
    _Row(Family.TRANSCRIPT, _X.TRANSCRIPT, "application/x-subrip", ("srt",), ("text/srt",)),
    _Row(Family.TRANSCRIPT, _X.TRANSCRIPT, "text/vtt", ("vtt",)),
    _Row(Family.TRANSCRIPT, _X.TRANSCRIPT, "text/x-sbv", ("sbv",)),
    # --- PDF -------------------------------------------------------------------------------------
    _Row(Family.PDF, _X.DOCUMENT, "application/pdf", ("pdf",), ("application/x-pdf",)),
    # --- spreadsheets ----------------------------------------------------------------------------
    _Row(
        _S,
        _X.SPREADSHEET,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ("xlsx",),
    ),
    _Row(_S, _X.SPREADSHEET, "application/vnd.ms-excel.sheet.macroenabled.12", ("xlsm",)),
    _Row(_S, _X.SPREADSHEET, "application/vnd.ms-excel", ("xls",)),
    _Row(_S, _X.SPREADSHEET, "application/vnd.oasis.opendocument.spreadsheet", ("ods",)),
    _Row(_S, _X.DELIMITED, "text/csv", ("csv",), ("application/csv", "text/x-csv")),
    _Row(_S, _X.DELIMITED, "text/tab-separated-values", ("tsv", "tab")),
    _Row(
        _S,
        _X.NONE,
        "application/vnd.apple.numbers",
        ("numbers",),
        ("application/x-iwork-numbers-sffnumbers",),
    ),
    # --- word processing -------------------------------------------------------------------------
    _Row(
        _W,
        _X.DOCUMENT,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ("docx",),
    ),
    _Row(_W, _X.DOCUMENT, "application/msword", ("doc",)),
    _Row(_W, _X.DOCUMENT, "application/vnd.oasis.opendocument.text", ("odt",)),
    _Row(_W, _X.DOCUMENT, "application/rtf", ("rtf",), ("text/rtf",)),
    _Row(
        _W,
        _X.IWORK_PAGES,
        "application/vnd.apple.pages",
        ("pages",),
        ("application/x-iwork-pages-sffpages",),
    ),
    # --- presentations ---------------------------------------------------------------------------
    _Row(
        _P,
        _X.DOCUMENT,
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ("pptx",),
    ),
    _Row(_P, _X.DOCUMENT, "application/vnd.ms-powerpoint", ("ppt",)),
    _Row(_P, _X.ODF_PRESENTATION, "application/vnd.oasis.opendocument.presentation", ("odp",)),
    _Row(
        _P,
        _X.NONE,
        "application/vnd.apple.keynote",
        ("key",),
        ("application/x-iwork-keynote-sffkey",),
    ),
    # --- stored and found by file name only ------------------------------------------------------
    _Row(Family.EBOOK, _X.NONE, "application/epub+zip", ("epub",)),
    _Row(Family.IMAGE, _X.NONE, "image/png", ("png",)),
    _Row(Family.IMAGE, _X.NONE, "image/jpeg", ("jpg", "jpeg", "jpe", "jfif"), ("image/jpg",)),
    _Row(Family.IMAGE, _X.NONE, "image/gif", ("gif",)),
    _Row(Family.IMAGE, _X.NONE, "image/webp", ("webp",)),
    _Row(Family.IMAGE, _X.NONE, "image/tiff", ("tiff", "tif")),
    _Row(Family.IMAGE, _X.NONE, "image/bmp", ("bmp",), ("image/x-ms-bmp", "image/x-bmp")),
    _Row(Family.IMAGE, _X.NONE, "image/svg+xml", ("svg",)),
    _Row(Family.IMAGE, _X.NONE, "image/heic", ("heic", "heif"), ("image/heif",)),
    _Row(Family.IMAGE, _X.NONE, "image/avif", ("avif",)),
    _Row(Family.AUDIO, _X.NONE, "audio/mpeg", ("mp3",), ("audio/mp3",)),
    _Row(Family.AUDIO, _X.NONE, "audio/wav", ("wav",), ("audio/x-wav", "audio/wave")),
    _Row(Family.AUDIO, _X.NONE, "audio/mp4", ("m4a",), ("audio/x-m4a",)),
    _Row(Family.AUDIO, _X.NONE, "audio/aac", ("aac",)),
    _Row(Family.AUDIO, _X.NONE, "audio/ogg", ("ogg", "oga"), ("application/ogg",)),
    _Row(Family.AUDIO, _X.NONE, "audio/opus", ("opus",)),
    _Row(Family.AUDIO, _X.NONE, "audio/flac", ("flac",), ("audio/x-flac",)),
    _Row(Family.VIDEO, _X.NONE, "video/mp4", ("mp4", "m4v")),
    _Row(Family.VIDEO, _X.NONE, "video/quicktime", ("mov",)),
    _Row(Family.VIDEO, _X.NONE, "video/webm", ("webm",)),
    _Row(Family.VIDEO, _X.NONE, "video/x-matroska", ("mkv",)),
    _Row(Family.VIDEO, _X.NONE, "video/x-msvideo", ("avi",)),
)

#: Extensionless file names that are plain text (compared case-insensitively).
_TEXT_FILE_NAMES = frozenset(
    {
        "makefile",
        "dockerfile",
        "containerfile",
        "readme",
        "license",
        "licence",
        "copying",
        "notice",
        "authors",
        "changelog",
        "changes",
        "todo",
        "gemfile",
        "rakefile",
        "procfile",
        "jenkinsfile",
        "vagrantfile",
        "justfile",
    }
)


def _build() -> tuple[Mapping[str, FileType], Mapping[str, FileType]]:
    by_extension: dict[str, FileType] = {}
    by_mime: dict[str, FileType] = {}
    for row in _TABLE:
        types = [FileType(ext, row.family, row.mime_type, row.extractor) for ext in row.extensions]
        for file_type in types:
            if file_type.extension in by_extension:
                raise AssertionError(f"extension {file_type.extension!r} listed twice")
            by_extension[file_type.extension] = file_type
        for mime in (row.mime_type, *row.mime_aliases):
            by_mime.setdefault(mime, types[0])
    return by_extension, by_mime


_BY_EXTENSION, _BY_MIME = _build()

#: Every supported extension (lower case, no dot).
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_BY_EXTENSION)


def file_type_for_extension(extension: str) -> FileType:
    """The type of a known extension (``"docx"`` or ``".DOCX"``); KeyError when unknown."""
    return _BY_EXTENSION[extension.lower().lstrip(".")]


def _extension(file_name: str) -> str:
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem.strip("."):
        return ""  # no dot, or a dot file such as ".bashrc"
    return ext.lower()


def _by_mime(mime_type: str | None) -> FileType | None:
    if not mime_type:
        return None
    mime = mime_type.split(";", 1)[0].strip().lower()
    if mime in _BY_MIME:
        return _BY_MIME[mime]
    if mime.endswith("+json"):
        return _BY_EXTENSION["json"]
    if mime.endswith("+xml"):
        return _BY_EXTENSION["xml"]
    if mime.startswith("text/") and len(mime) > len("text/"):
        return _BY_EXTENSION["txt"]
    return None


def resolve_type(file_name: str, mime_type: str | None) -> FileType:
    """The type of an upload, by extension first and MIME type second (see the module doc).

    Raises :class:`UnsupportedMediaType` when neither is supported.
    """
    extension = _extension(file_name)
    if extension in _BY_EXTENSION:
        return _BY_EXTENSION[extension]
    by_mime = _by_mime(mime_type)
    if by_mime is not None:
        return by_mime
    if not extension:
        base = file_name.replace("\\", "/").rsplit("/", 1)[-1].strip().lower()
        if base in _TEXT_FILE_NAMES:
            return _BY_EXTENSION["txt"]
    what = f"extension .{extension}" if extension else "no extension"
    mime = f"MIME type {mime_type!r}" if mime_type else "no MIME type"
    raise UnsupportedMediaType(f"unsupported file type: {file_name!r} has {what} and {mime}")
