"""Index fingerprints, digests and revisions (design §3, §4).

The fingerprint hashes everything that changes stored vectors: the embedding model, the
chunking parameters, the text normalisation and the index version. A change means re-embedding
(pages) or a new index generation (collections).
"""

from __future__ import annotations

import hashlib
import json

from quire.indexer.chunking import CHUNKING_FORMAT, DEFAULT_CEILING

# Bump when the text sent to the embedder changes shape (chunking.embedding_text).
EMBEDDING_TEXT_FORMAT = "title>headings\\n\\ntext/v2;readable-text+breadcrumb;title-once"
# Bump when what a page's tsvectors hold changes (pages.store.ChunkLexicalText): field
# weights, the stemming configuration, identifiers, CJK bigrams.
PAGE_LEXICAL_FORMAT = (
    "title=A;headings=B;summary=C;text=D;stem=page-language;identifiers;cjk=2-by-script"
)
# Pages only: the first chunk's embedding text also carries the page's description.
PAGE_EMBEDDING_EXTRA = "summary-in-first-chunk"


def digest(text: str, *, summary: tuple[str, ...] = (), language: str = "") -> str:
    """sha256 of a page's text; with front matter fields that are indexed (description,
    keywords, a declared language), of those too, so a change to them is a change."""
    if not any(summary) and not language:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    extra = json.dumps([list(summary), language], ensure_ascii=False)
    return hashlib.sha256(f"{text}\0{extra}".encode()).hexdigest()


def index_fingerprint(
    *,
    embedder: str,
    transform: str,
    index_version: str,
    ceiling: int = DEFAULT_CEILING,
    language: str | None = None,
) -> str:
    """Hash of the embedding model, chunking parameters, normalisation and index_version;
    for pages (`language` set: the namespace's default language) also the lexical format."""
    fields: dict[str, object] = {
        "embedder": embedder,
        "chunk_ceiling": ceiling,
        "chunk_overlap": 0,
        "chunking": CHUNKING_FORMAT,
        "embedding_text": EMBEDDING_TEXT_FORMAT,
        "transform": transform,
        "index_version": index_version,
    }
    if language is not None:
        fields |= {
            "lexical": PAGE_LEXICAL_FORMAT,
            "page_embedding": PAGE_EMBEDDING_EXTRA,
            "language": language,
        }
    material = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def revision(text_digest: str, fingerprint: str) -> str:
    return hashlib.sha256(f"{text_digest}:{fingerprint}".encode()).hexdigest()[:32]


# Chunks of extracted text, each embedded with the document title
# (worker.chunk_and_embed.TITLE_MODE), the title also in every chunk's tsvector.
KNOWLEDGE_NORMALISATION = "extracted-text/v1;title=first_line;tsv-title=A"
# The text analysis of new generations' lexical arm (index_generations.text_config, migration
# 0020): English Snowball stems, which raised SciFact HYBRID by 1.2-1.4 points with either
# model (docs/retrieval-quality.md). Generations built before it keep 'simple'.
KNOWLEDGE_TEXT_CONFIG = "english"


def collection_fingerprint(embedder: str, index_version: str, text_config: str = "") -> str:
    """The fingerprint of a knowledge collection's index generation analysed with
    `text_config` (default: KNOWLEDGE_TEXT_CONFIG, read at the call); a 'simple' one's is what
    it was before text configs existed."""
    text_config = text_config or KNOWLEDGE_TEXT_CONFIG
    transform = KNOWLEDGE_NORMALISATION
    if text_config != "simple":
        transform += f";tsv-config={text_config}"
    return index_fingerprint(embedder=embedder, transform=transform, index_version=index_version)
