"""Measure candidate chunk ceilings on SciFact and time the chunker; prints one JSON document.

    .venv/bin/python benchmarks/chunk_ceiling.py [--corpus PATH]

For the SciFact abstracts (the ``text`` field; the title goes into ``embedding_text``) it reports
length statistics in characters and approximate tokens, and for each candidate ceiling the chunks
per document and the share of chunks whose embedding text would not fit the embedder's window
(256 word pieces including ``[CLS]``/``[SEP]``). Tokens are counted with the real WordPiece
tokenizer when ``$QUIRE_HOME/models/all-minilm-l6-v2/tokenizer.json`` exists (``quire model
prepare``) and the ``tokenizers`` package is importable, else estimated as ``chars / 4.2``.
Finally it times ``chunk_text`` on about 1 MB of Markdown (the FastAPI docs), of prose, and of a
pathological text without any whitespace. See docs/chunking.md for the reading.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "indexer"))
sys.path.insert(0, str(ROOT))

from quire.indexer.chunking import DEFAULT_CEILING, chunk_text, embedding_text  # noqa: E402
from tests.support.shared_data import SHARED  # noqa: E402

CANDIDATES = (600, 800, 900, 1000, 1200, 1500, 2000)
WINDOW = 256  # max_seq_length of all-MiniLM-L6-v2, special tokens included
SPECIAL_TOKENS = 2
CHARS_PER_TOKEN = 4.2


def _token_counter() -> tuple[str, Callable[[str], int]]:
    home = Path(os.environ.get("QUIRE_HOME", Path.home() / ".local" / "share" / "quire"))
    path = home / "models" / "all-minilm-l6-v2" / "tokenizer.json"
    if path.is_file():
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(path))
            tokenizer.no_truncation()
            return f"wordpiece:{path}", lambda s: len(tokenizer.encode(s).ids)
        except ImportError:
            pass
    return (
        f"estimate: ceil(chars / {CHARS_PER_TOKEN}) + {SPECIAL_TOKENS}",
        lambda s: math.ceil(len(s) / CHARS_PER_TOKEN) + SPECIAL_TOKENS,
    )


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)

    def q(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {
        "min": ordered[0],
        "p10": q(0.10),
        "p25": q(0.25),
        "median": q(0.50),
        "p75": q(0.75),
        "p90": q(0.90),
        "p95": q(0.95),
        "p99": q(0.99),
        "max": ordered[-1],
        "mean": round(statistics.fmean(ordered), 1),
    }


def _share(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def measure_ceilings(docs: list[dict[str, str]], tokens: Callable[[str], int]) -> list[object]:
    rows: list[object] = []
    for ceiling in CANDIDATES:
        per_doc: list[int] = []
        sizes: list[int] = []
        over_chunk = over_embed = 0
        for doc in docs:
            chunks = chunk_text(doc["text"], ceiling=ceiling)
            per_doc.append(len(chunks))
            for chunk in chunks:
                sizes.append(len(chunk.text))
                over_chunk += tokens(chunk.text) > WINDOW
                over_embed += tokens(embedding_text(chunk, doc["title"])) > WINDOW
        total = len(sizes)
        rows.append(
            {
                "ceiling": ceiling,
                "chunks": total,
                "chunks_per_doc_mean": round(statistics.fmean(per_doc), 3),
                "chunks_per_doc_max": max(per_doc),
                "docs_in_1_chunk": _share(sum(n == 1 for n in per_doc), len(per_doc)),
                "docs_in_le_2_chunks": _share(sum(n <= 2 for n in per_doc), len(per_doc)),
                "chunk_chars_median": statistics.median(sizes),
                "chunks_under_200_chars": _share(sum(s < 200 for s in sizes), total),
                "chunks_over_window": _share(over_chunk, total),
                "chunks_over_window_with_title": _share(over_embed, total),
            }
        )
    return rows


def _timed(text: str) -> dict[str, object]:
    best = math.inf
    chunks = 0
    for _ in range(3):
        started = time.perf_counter()
        chunks = len(chunk_text(text))
        best = min(best, time.perf_counter() - started)
    return {"chars": len(text), "chunks": chunks, "seconds": round(best, 4)}


def measure_speed() -> dict[str, object]:
    site = SHARED / "data" / "docs-fastapi" / "site"
    pages = sorted(site.rglob("*.md")) if site.is_dir() else []
    markdown = ""
    while pages and len(markdown) < 1_000_000:
        for page in pages:
            markdown += page.read_text(encoding="utf-8") + "\n\n"
    prose = " ".join(["A fairly ordinary sentence of scientific prose, with words."] * 17_000)
    result: dict[str, object] = {
        "prose_one_paragraph_1mb": _timed(prose[:1_000_000]),
        "no_whitespace_1mb": _timed("x" * 1_000_000),
    }
    if markdown:
        result["fastapi_markdown_1mb"] = _timed(markdown[:1_000_000])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=SHARED / "data" / "scifact" / "corpus.jsonl")
    args = parser.parse_args()
    with args.corpus.open(encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    method, tokens = _token_counter()
    report = {
        "corpus": str(args.corpus),
        "documents": len(docs),
        "default_ceiling": DEFAULT_CEILING,
        "window_tokens": WINDOW,
        "token_count": method,
        "abstract_chars": _quantiles([len(d["text"]) for d in docs]),
        "abstract_tokens": _quantiles([tokens(d["text"]) for d in docs]),
        "title_chars": _quantiles([len(d["title"]) for d in docs]),
        "ceilings": measure_ceilings(docs, tokens),
        "speed": measure_speed(),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
