"""What a shorter embedding window would buy and cost: the FastAPI sync's texts at the model's
window and at `--window`, in tokens, in embedding speed, and in ranking. Prints JSON.

    .venv/bin/python benchmarks/token_window.py [--window 128] [--sample 240] [--no-ranking]

Texts: every page of the FastAPI site chunked as a sync chunks it (`chunk_text` with the sync's
ceiling, `embedding_text` with the page's first line as title; the site's Markdown, not the
sync's transformed bodies, so counts are close to the sync's 3,916 chunks, not equal).
Tokens: each text's MiniLM tokens, capped at each window. Speed: `--sample` of the texts
embedded by one single-threaded `Embedder` at each window, interleaved twice, best of each.
Ranking (unless --no-ranking): benchmarks/pages_quality.py with the embedder's window set to
`--window` (chunks unchanged, vectors truncated there), beside the serving figures it prints
for the model's own window in its own run (`pages_quality.py --arms`). The window is an
experiment here, not a setting: docs/benchmarks.md says what it showed (issue 31).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import _harness as h

# Characters kept per token of the window (quire.indexer.embedding._CHARS_PER_TOKEN_CAP).
CHARS_PER_TOKEN_CAP = 128


def site_texts() -> list[str]:
    from quire.indexer.chunking import chunk_text, embedding_text
    from quire.indexer.pages.sync import PAGE_CEILING

    texts: list[str] = []
    for path in sorted(Path(h.FASTAPI_SITE).rglob("*.md")):
        body = path.read_text(encoding="utf-8")
        title = body.splitlines()[0].lstrip("# ") if body else path.stem
        texts.extend(embedding_text(c, title) for c in chunk_text(body, ceiling=PAGE_CEILING))
    return texts


def set_window(embedder: Any, window: int) -> None:
    """Truncates this embedder's texts at `window` tokens (an experiment: its fingerprint is
    marked so no vector store or cache could mistake its vectors for the model's)."""
    embedder._tokenizer.enable_truncation(max_length=window)
    embedder._char_cap = window * CHARS_PER_TOKEN_CAP
    embedder.max_tokens = window
    if "-window" not in embedder.fingerprint:
        embedder.fingerprint = f"{embedder.fingerprint}-window{window}"


def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.indexer.embedding import Embedder

    h.setup_logging()
    texts = site_texts()
    embedder = Embedder.load(None, threads=1)
    full = embedder.max_tokens
    embedder._tokenizer.no_truncation()
    lengths = [len(embedder._tokenizer.encode(t).ids) for t in texts]
    report: dict[str, Any] = {
        "benchmark": "token_window",
        "machine_at_start": h.machine(),
        "texts": len(texts),
        "tokens": {
            str(w): {
                "total": sum(min(n, w) for n in lengths),
                "texts_over": sum(n > w for n in lengths),
            }
            for w in (full, args.window)
        },
    }
    sample = random.Random(1).sample(texts, min(args.sample, len(texts)))
    rates: dict[int, list[float]] = {full: [], args.window: []}
    for _ in range(2):
        for window in rates:
            set_window(embedder, window)
            started = time.perf_counter()
            embedder.embed(sample)
            rates[window].append(round(len(sample) / (time.perf_counter() - started), 1))
    report["texts_per_s_one_thread"] = {str(w): r for w, r in rates.items()}
    report["speed_ratio"] = h.ratio(max(rates[args.window]), max(rates[full]), 2)
    if not args.no_ranking:
        report["ranking"] = ranking(args.window)
    report["machine_at_end"] = h.machine()
    return report


def ranking(window: int) -> dict[str, Any]:
    import pages_quality

    load = h.load_model

    def windowed(threads: int | None = None, name: str | None = None) -> Any:
        service = load(threads=threads, name=name)
        set_window(service.embedder, window)
        return service

    h.load_model = windowed
    try:
        options = pages_quality.argument_parser().parse_args(["--arms"])
        run = h.run(pages_quality.main(options))
    finally:
        h.load_model = load
    serving = run["variants"][0]
    return {
        "window": window,
        "sync": run["sync"],
        **{k: serving[k] for k in ("plain", "alternatives", "vector_alone")},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=int, default=128)
    parser.add_argument("--sample", type=int, default=240)
    parser.add_argument("--no-ranking", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    h.emit(main(arguments), arguments.out)
