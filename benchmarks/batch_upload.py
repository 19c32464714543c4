"""Batch upload (UploadDocuments) against one UploadDocument stream per file, same files, same
concurrency, same run. Prints JSON.

    .venv/bin/python benchmarks/batch_upload.py [--files 1000] [--concurrency 8] [--batch 100]

The files are the first `--files` SciFact abstracts as `<id>.txt` (title, blank line, text: a
few hundred bytes to a few KB of real prose), each uploaded with its file name as external key.
Quire runs in this process **without the worker**: what is timed is the upload acknowledgement
(the documents stored, PENDING, their extraction jobs queued), not extraction. The client runs in
a child process (two cores: it must not share the server's event loop) and reads every file
before the clock starts; each side uploads into a fresh collection:

- **single**: `--concurrency` tasks, each sending one UploadDocument stream per file;
- **batch**: `--concurrency` tasks, each sending UploadDocuments calls of `--batch` files.

Both use the generated gRPC stubs directly, so the comparison is of the RPCs, not of client
helpers. The order alternates over `--rounds`; the best round of each side is compared.
Goal: batch ≥ 3 × single in files/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import _harness as h

GOAL_RATIO = 3.0

# The client, run in a child process: prints {"single": seconds} or {"batch": seconds}.
CLIENT = """
import asyncio, json, sys, time
from pathlib import Path
import grpc
from quire.v1 import knowledge_service_pb2 as ks, knowledge_service_pb2_grpc as ksg

async def main(address, token, side, collection_id, folder, concurrency, batch):
    files = [(p.name, p.read_bytes()) for p in sorted(Path(folder).iterdir())]
    md = (("authorization", f"Bearer {token}"),)
    def meta(name):
        return ks.UploadMetadata(collection_id=collection_id, file_name=name, external_key=name)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = ksg.KnowledgeServiceStub(channel)
        async def one(name, data):
            async def messages():
                yield ks.UploadDocumentRequest(metadata=meta(name))
                yield ks.UploadDocumentRequest(data=data)
            response = await stub.UploadDocument(messages(), metadata=md)
            assert response.outcome == 1, response
        async def many(group):
            async def messages():
                for name, data in group:
                    yield ks.UploadDocumentsRequest(metadata=meta(name))
                    yield ks.UploadDocumentsRequest(data=data)
            response = await stub.UploadDocuments(messages(), metadata=md)
            assert all(r.outcome == 1 for r in response.results), response
        if side == "single":
            work = iter([lambda f=f: one(*f) for f in files])
        else:
            groups = [files[i:i + batch] for i in range(0, len(files), batch)]
            work = iter([lambda g=g: many(g) for g in groups])
        async def worker():
            for call in work:
                await call()
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        print(json.dumps({side: time.perf_counter() - started}))

asyncio.run(main(*sys.argv[1:6], int(sys.argv[6]), int(sys.argv[7])))
"""


def write_files(folder: Path, n: int) -> dict[str, Any]:
    corpus = h.SCIFACT / "corpus.jsonl"
    if not corpus.is_file():
        raise SystemExit(f"SciFact not found at {corpus} (expected ../shared)")
    sizes: list[int] = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if len(sizes) >= n:
                break
            doc = json.loads(line)
            text = f"{doc.get('title', '')}\n\n{doc.get('text', '')}".strip() + "\n"
            data = text.encode()
            (folder / f"{doc['_id']}.txt").write_bytes(data)
            sizes.append(len(data))
    return {
        "files": len(sizes),
        "bytes_min": min(sizes),
        "bytes_max": max(sizes),
        "bytes_mean": round(sum(sizes) / len(sizes)),
    }


async def run_side(
    quire: h.Quire, side: str, name: str, folder: Path, files: int, arguments: argparse.Namespace
) -> float:
    key = await quire.key(name)
    async with quire.client(key.token) as client:
        collection = await client.create_collection(name=name)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CLIENT,
        quire.address,
        key.token,
        side,
        collection.collection_id,
        str(folder),
        str(arguments.concurrency),
        str(arguments.batch),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{side} failed ({process.returncode}): {err.decode()[-3000:]}")
    async with quire.client(key.token) as client:
        stored = await client.get_collection(collection_id=collection.collection_id)
    assert stored.document_count == files, (side, stored.document_count)
    seconds: float = json.loads(out)[side]
    return seconds


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    at_start = h.machine()
    with tempfile.TemporaryDirectory(prefix="quire-batch-upload-") as tmp:
        folder = Path(tmp)
        corpus = write_files(folder, arguments.files)
        h.note(f"{corpus}")
        rounds: list[dict[str, Any]] = []
        async with h.database("bench_batch_upload") as url, h.Quire(url) as quire:
            for r in range(arguments.rounds):
                sides: dict[str, Any] = {}
                for side in ("single", "batch") if r % 2 == 0 else ("batch", "single"):
                    seconds = await run_side(
                        quire, side, f"{side}-{r}", folder, corpus["files"], arguments
                    )
                    sides[side] = {
                        "seconds": round(seconds, 3),
                        "files_per_s": round(corpus["files"] / seconds, 1),
                    }
                    h.note(f"round {r} {side}: {sides[side]}")
                rounds.append(sides)
    best = {side: max(r[side]["files_per_s"] for r in rounds) for side in ("single", "batch")}
    ratio = h.ratio(best["batch"], best["single"], 2)
    return {
        "benchmark": "batch_upload",
        "machine_at_start": at_start,
        "measured": "upload acknowledgement (worker not running)",
        "corpus": corpus,
        "concurrency": arguments.concurrency,
        "batch_size": arguments.batch,
        "rounds": rounds,
        "best_files_per_s": best,
        "ratio_batch_over_single": ratio,
        "goal_ratio": GOAL_RATIO,
        "met": ratio is not None and ratio >= GOAL_RATIO,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--batch", type=int, default=100, help="files per UploadDocuments call")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    arguments = parser.parse_args()
    h.setup_logging(arguments.verbose)
    h.emit(h.run(main(arguments)), arguments.out)
