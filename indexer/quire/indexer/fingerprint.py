"""Index fingerprints, digests and revisions (design §3, §4).

The fingerprint hashes everything that changes stored vectors: the embedding model, the
chunking parameters, the text normalisation and the index version. A change means re-embedding
(pages) or a new index generation (collections).
"""

from __future__ import annotations

import hashlib
import json

from quire.indexer.chunking import DEFAULT_CEILING

# Bump when the text sent to the embedder changes shape (chunking.embedding_text).
EMBEDDING_TEXT_FORMAT = "title>headings\\n\\ntext/v2;readable-text+breadcrumb;title-once"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def index_fingerprint(
    *, embedder: str, transform: str, index_version: str, ceiling: int = DEFAULT_CEILING
) -> str:
    """Hash of the embedding model, chunking parameters, normalisation and index_version."""
    material = json.dumps(
        {
            "embedder": embedder,
            "chunk_ceiling": ceiling,
            "chunk_overlap": 0,
            "embedding_text": EMBEDDING_TEXT_FORMAT,
            "transform": transform,
            "index_version": index_version,
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def revision(text_digest: str, fingerprint: str) -> str:
    return hashlib.sha256(f"{text_digest}:{fingerprint}".encode()).hexdigest()[:32]


# Chunks of extracted text, each embedded with the document title (worker.pipeline.TITLE_MODE),
# the title also in every chunk's tsvector.
KNOWLEDGE_NORMALISATION = "extracted-text/v1;title=first_line;tsv-title=A"


def collection_fingerprint(embedder: str, index_version: str) -> str:
    """The fingerprint of a knowledge collection's index generation."""
    return index_fingerprint(
        embedder=embedder, transform=KNOWLEDGE_NORMALISATION, index_version=index_version
    )
