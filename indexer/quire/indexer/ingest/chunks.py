"""The chunk stage shared by page sync and knowledge indexing: a text's chunks, with the
titled texts the embedder gets for them (chunking.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from quire.indexer.chunking import DEFAULT_CEILING, chunk_text, embedding_text


@dataclass
class ChunkedText:
    """Parallel lists, one row per chunk: what is stored, its heading path, what is embedded."""

    contents: list[str] = field(default_factory=list)
    headings: list[tuple[str, ...]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def chunk_for_embedding(
    text: str, title: str | None, *, ceiling: int = DEFAULT_CEILING, summary: str | None = None
) -> ChunkedText:
    """`summary` (a page's description) goes into the first chunk's embedding text only."""
    out = ChunkedText()
    for chunk in chunk_text(text, ceiling=ceiling):
        out.contents.append(chunk.text)
        out.headings.append(chunk.heading_path)
        out.texts.append(
            embedding_text(chunk, title, summary=summary if chunk.chunk_ordinal == 0 else None)
        )
    return out
