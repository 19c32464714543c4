"""What the batch helpers send: `UploadItem`s split into UploadDocuments calls, and a folder's
files planned into batches of small files and single streams for large ones.

The server takes at most 1,000 documents and QUIRE_MAX_UPLOAD_BYTES (default 64 MiB) per
UploadDocuments call; the client cannot ask for the latter, so `max_bytes` defaults to 64 MiB
and is a parameter of the helpers.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quire.client.exceptions import InvalidRequest, QuireError
from quire.client.structs import to_struct
from quire.client.uploads import CHUNK_SIZE, iter_chunks
from quire.v1 import knowledge_pb2, knowledge_service_pb2

MAX_BATCH_DOCUMENTS = 1000
DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024
# Files above this go in a stream of their own (UploadDocument) instead of a batch.
LARGE_FILE_BYTES = 1024 * 1024

MetadataArg = Mapping[str, Any]
KeyFunc = Callable[[Path], str]
MetadataFunc = Callable[[Path], MetadataArg | None]


@dataclass(frozen=True)
class UploadItem:
    """One document of `upload_documents`: its bytes and what to store them as."""

    file_name: str
    data: bytes
    external_key: str | None = None
    metadata: MetadataArg | None = None
    mime_type: str | None = None


ItemArg = UploadItem | tuple[Any, ...]


def as_item(value: ItemArg) -> UploadItem:
    """An UploadItem, or a tuple (file_name, data[, external_key[, metadata[, mime_type]]])."""
    return value if isinstance(value, UploadItem) else UploadItem(*value)


def split_batches(
    sizes: Sequence[int],
    *,
    max_documents: int = MAX_BATCH_DOCUMENTS,
    max_bytes: int = DEFAULT_MAX_BATCH_BYTES,
) -> list[list[int]]:
    """Positions grouped into consecutive calls of at most `max_documents` documents and
    `max_bytes` bytes of file data; a document larger than `max_bytes` gets a call of its own
    (the server then refuses that call alone)."""
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for position, size in enumerate(sizes):
        if current and (len(current) >= max_documents or total + size > max_bytes):
            batches.append(current)
            current, total = [], 0
        current.append(position)
        total += size
    if current:
        batches.append(current)
    return batches


def shown_name(value: str) -> str:
    """`value` fit to print: the bytes of a file name that are not UTF-8 (which Python holds as
    lone surrogates, os.fsdecode's "surrogateescape") as ``\\xNN`` escapes."""
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def utf8_error(field_name: str, value: str) -> InvalidRequest | None:
    """The error for a name that is not UTF-8 text (Quire's names are; protobuf strings must
    be), or None. A file whose name is not UTF-8 is refused rather than renamed: any renaming
    would store a name that is not the file's."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return InvalidRequest(
            f"{field_name} is not valid UTF-8: {shown_name(value)} (rename the file)"
        )
    return None


def upload_metadata(
    collection_id: str,
    file_name: str,
    *,
    mime_type: str | None = None,
    document_id: str | None = None,
    external_key: str | None = None,
    metadata: MetadataArg | None = None,
) -> knowledge_service_pb2.UploadMetadata:
    """The UploadMetadata message; `external_key`/`metadata` left unset when None. Raises
    InvalidRequest for a file name or key that is not UTF-8 text."""
    for field_name, value in (("file_name", file_name), ("external_key", external_key or "")):
        if (error := utf8_error(field_name, value)) is not None:
            raise error
    message = knowledge_service_pb2.UploadMetadata(
        collection_id=collection_id,
        file_name=file_name,
        mime_type=mime_type or "",
        document_id=document_id or "",
    )
    if external_key is not None:
        message.external_key = external_key
    if metadata is not None:
        message.metadata.CopyFrom(to_struct(metadata))
    return message


def batch_requests(
    collection_id: str, items: Iterable[UploadItem], size: int = CHUNK_SIZE
) -> Iterator[knowledge_service_pb2.UploadDocumentsRequest]:
    """One UploadDocuments stream: each item's metadata message, then its bytes in pieces."""
    for item in items:
        yield knowledge_service_pb2.UploadDocumentsRequest(
            metadata=upload_metadata(
                collection_id,
                item.file_name,
                mime_type=item.mime_type,
                external_key=item.external_key,
                metadata=item.metadata,
            )
        )
        for chunk in iter_chunks(item.data, size):
            yield knowledge_service_pb2.UploadDocumentsRequest(data=chunk)


def renumber(
    results: Iterable[knowledge_service_pb2.UploadResult], positions: Sequence[int]
) -> list[knowledge_service_pb2.UploadResult]:
    """A call's results with `index` turned into the position in the helper's input."""
    out = []
    for result in results:
        copy = knowledge_service_pb2.UploadResult()
        copy.CopyFrom(result)
        copy.index = positions[result.index]
        out.append(copy)
    return out


# ------------------------------------------------------------------ folders


@dataclass(frozen=True)
class FolderFile:
    """A file found under the folder: its path, its key and size."""

    path: Path
    key: str
    size: int


@dataclass
class FileResult:
    """What `upload_folder` did with one file: the outcome and document, or the error."""

    path: Path
    key: str
    outcome: knowledge_pb2.UploadOutcome.ValueType = knowledge_pb2.UPLOAD_OUTCOME_UNSPECIFIED
    document: knowledge_pb2.Document | None = None
    error: QuireError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def outcome_name(self) -> str:
        """ "CREATED", "REPLACED", "UNCHANGED", "METADATA_UPDATED" or "" when it failed."""
        if self.error is not None:
            return ""
        return knowledge_pb2.UploadOutcome.Name(self.outcome).removeprefix("UPLOAD_OUTCOME_")


def walk_folder(root: Path, include: Sequence[str] | None = None) -> list[FolderFile]:
    """Regular files under `root` (symlinks not followed, hidden entries skipped), sorted by
    key; with `include`, only those whose key matches one of the glob patterns."""
    found: list[FolderFile] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(directory, name)
            if path.is_symlink() or not path.is_file():
                continue
            key = path.relative_to(root).as_posix()
            if include and not any(fnmatch.fnmatchcase(key, p) for p in include):
                continue
            found.append(FolderFile(path=path, key=key, size=path.stat().st_size))
    found.sort(key=lambda f: f.key)
    return found


def refuse_misnamed(
    files: Sequence[FolderFile], key: KeyFunc | None = None
) -> tuple[list[FolderFile], list[FileResult]]:
    """`files` split into those to upload and a failed FileResult for each whose name or key
    is not UTF-8 text (`utf8_error`), so that one such file fails alone."""
    kept: list[FolderFile] = []
    refused: list[FileResult] = []
    for f in files:
        file_key = key(f.path) if key else f.key
        error = utf8_error("file_name", f.path.name) or utf8_error("external_key", file_key)
        if error is None:
            kept.append(f)
        else:
            refused.append(FileResult(path=f.path, key=file_key, error=error))
    return kept, refused


@dataclass
class FolderPlan:
    """Small files grouped into batches; large ones each in a stream of their own."""

    batches: list[list[FolderFile]] = field(default_factory=list)
    singles: list[FolderFile] = field(default_factory=list)


def plan_folder(
    files: Sequence[FolderFile],
    *,
    batch_documents: int = 100,
    batch_bytes: int = 8 * 1024 * 1024,
    large_bytes: int = LARGE_FILE_BYTES,
) -> FolderPlan:
    """Batches stay well under the server's bounds (100 files, 8 MiB by default) so that
    `concurrency` calls have work to share and one refused call touches few files."""
    small = [f for f in files if f.size <= large_bytes]
    plan = FolderPlan(singles=[f for f in files if f.size > large_bytes])
    groups = split_batches(
        [f.size for f in small], max_documents=batch_documents, max_bytes=batch_bytes
    )
    plan.batches = [[small[i] for i in group] for group in groups]
    return plan


__all__ = [
    "DEFAULT_MAX_BATCH_BYTES",
    "LARGE_FILE_BYTES",
    "MAX_BATCH_DOCUMENTS",
    "FileResult",
    "FolderFile",
    "FolderPlan",
    "KeyFunc",
    "MetadataFunc",
    "UploadItem",
    "as_item",
    "batch_requests",
    "plan_folder",
    "refuse_misnamed",
    "renumber",
    "shown_name",
    "split_batches",
    "upload_metadata",
    "utf8_error",
    "walk_folder",
]
