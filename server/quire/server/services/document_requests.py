"""What document requests carry, checked: an upload's metadata (name, type, target, key,
metadata), external keys, and the "by id or by (collection, key)" reference of GetDocument,
DeleteDocument and UpdateDocumentMetadata. Each failure is a QuireError naming the field."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import uuid
from dataclasses import dataclass

from quire.indexer.extraction import UnsupportedMediaType, resolve_type
from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, invalid
from quire.server.knowledge import metadata
from quire.server.knowledge.document_store import COLLECTION_NOT_FOUND, DOCUMENT_NOT_FOUND
from quire.server.knowledge.document_writes import Upload
from quire.server.validation import clean_text, number, parse_uuid
from quire.v1 import errors_pb2, knowledge_service_pb2

KEY_BOUNDS = contract_bounds.UploadMetadata.external_key
KEY_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
KEY_BOUND = f"{KEY_BOUNDS.min_chars}–{KEY_BOUNDS.max_chars} characters, no control characters"
REFERENCE_BOUND = "exactly one of document_id, or collection_id with external_key"
# UploadDocuments: documents per call (the bytes are bounded by QUIRE_MAX_UPLOAD_BYTES).
MAX_BATCH_DOCUMENTS = 1000


def file_name(value: str) -> str:
    longest = number(contract_bounds.UploadMetadata.file_name.max_chars)
    clean_text("metadata.file_name", value, max_chars=longest)
    if "/" in value or "\\" in value or value in (".", ".."):
        raise invalid("metadata.file_name", "a file name, not a path")
    return value


def external_key(value: str, field: str) -> str:
    """A key: 1–256 characters, none of them a control character (U+0000–U+001F, U+007F)."""
    longest = number(KEY_BOUNDS.max_chars)
    if not value:
        raise invalid(field, "must not be empty (leave it unset for no key)", KEY_BOUND)
    if len(value) > longest:
        raise invalid(field, f"at most {longest} characters (got {len(value)})", KEY_BOUND)
    if KEY_CONTROL.search(value):
        control = "must not contain control characters (U+0000–U+001F, U+007F)"
        raise invalid(field, control, KEY_BOUND)
    return value


def upload_target(meta: knowledge_service_pb2.UploadMetadata) -> Upload:
    """The upload `meta` describes, checked, without its bytes (`with_content` adds them)."""
    name = file_name(meta.file_name)
    longest = number(contract_bounds.UploadMetadata.mime_type.max_chars)
    if len(meta.mime_type) > longest:
        raise invalid("metadata.mime_type", f"at most {longest} characters")
    collection_id = parse_uuid(meta.collection_id, COLLECTION_NOT_FOUND)
    replaces = parse_uuid(meta.document_id, DOCUMENT_NOT_FOUND) if meta.document_id else None
    key = (
        external_key(meta.external_key, "metadata.external_key")
        if meta.HasField("external_key")
        else None
    )
    checked = metadata.from_struct(meta.metadata) if meta.HasField("metadata") else None
    try:
        file_type = resolve_type(name, meta.mime_type or None)
    except UnsupportedMediaType as exc:
        raise QuireError(errors_pb2.ERROR_CODE_UNSUPPORTED_MEDIA_TYPE, str(exc)) from None
    return Upload(
        collection_id=collection_id,
        file_name=name,
        mime_type=meta.mime_type or file_type.mime_type,
        content=b"",
        sha256="",
        replaces=replaces,
        external_key=key,
        metadata=checked,
    )


def with_content(target: Upload, content: bytes) -> Upload:
    return dataclasses.replace(target, content=content, sha256=hashlib.sha256(content).hexdigest())


@dataclass(frozen=True)
class DocumentRef:
    """A document named by id, or by its collection and external key."""

    document_id: uuid.UUID | None = None
    collection_id: uuid.UUID | None = None
    external_key: str | None = None


def document_ref(
    request: knowledge_service_pb2.GetDocumentRequest
    | knowledge_service_pb2.DeleteDocumentRequest
    | knowledge_service_pb2.UpdateDocumentMetadataRequest,
) -> DocumentRef:
    """Exactly one way: document_id, or collection_id with external_key."""
    has_key = request.HasField("external_key")
    if bool(request.document_id) == has_key or (request.document_id and request.collection_id):
        raise invalid(
            "document_id",
            "name the document by document_id, or by collection_id and external_key (not both)",
            REFERENCE_BOUND,
        )
    if not has_key:
        return DocumentRef(document_id=parse_uuid(request.document_id, DOCUMENT_NOT_FOUND))
    if not request.collection_id:
        raise invalid("collection_id", "required with external_key", REFERENCE_BOUND)
    key = external_key(request.external_key, "external_key")
    # A malformed collection id cannot hold the key: not found, as for an unknown key.
    collection_id = parse_uuid(request.collection_id, DOCUMENT_NOT_FOUND)
    return DocumentRef(collection_id=collection_id, external_key=key)
