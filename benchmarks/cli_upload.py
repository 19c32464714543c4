"""`quire docs upload` of SciFact abstracts as files, against the fastest client-side upload
loop, in one run. Prints JSON.

    .venv/bin/python benchmarks/cli_upload.py [--documents 5183] [--concurrency 8] [--quick]

Each abstract is written as `<id>.txt` (title, blank line, text) into a temporary folder.
Quire runs in this process without the worker (the uploads are measured, not extraction). Both
sides run as child processes against it, each into a fresh collection of its own organisation,
in the same run:

- **loop**: a script that reads every file and calls `AsyncQuireClient.upload_document` with
  `--concurrency` workers: the least a client can do.
- **cli**: `quire docs upload FOLDER --collection C --no-wait --json --concurrency N`, with its
  stderr on a pseudo-terminal so the progress bar is drawn the whole time, as a person sees it.
  It also lists the (empty) collection and hashes every file to skip unchanged ones.

Both are timed from process start to exit, interpreter start-up included. Goal: cli ≤ 1.1 ×
loop. The order alternates over `--rounds` and the best round of each side is compared.
`--quick` uploads 500 files.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import _harness as h

GOAL_RATIO = 1.1
CLI = [sys.executable, "-m", "quire.server.cli"]

# The baseline, run in a child process like the CLI: read each file, upload it; no listing,
# no hashing, no progress.
LOOP = """
import asyncio, sys, time
from pathlib import Path
from quire.client import AsyncQuireClient

async def main(address, key, collection_id, folder, concurrency):
    files = sorted(Path(folder).iterdir())
    async with AsyncQuireClient(address, api_key=key) as client:
        queue = iter(files)
        async def worker():
            for path in queue:
                await client.upload_document(
                    collection_id=collection_id, file_name=path.name, data=path.read_bytes())
        await asyncio.gather(*(worker() for _ in range(concurrency)))

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
"""


def write_files(folder: Path, n: int) -> int:
    corpus = h.SCIFACT / "corpus.jsonl"
    if not corpus.is_file():
        raise SystemExit(f"SciFact not found at {corpus} (expected ../shared)")
    written = 0
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if n and written >= n:
                break
            doc = json.loads(line)
            text = f"{doc.get('title', '')}\n\n{doc.get('text', '')}".strip() + "\n"
            (folder / f"{doc['_id']}.txt").write_text(text, encoding="utf-8")
            written += 1
    return written


def _drain(fd: int) -> None:
    """Reads the pseudo-terminal so the child never blocks on a full buffer."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        return


async def run_child(args: list[str], *, terminal: bool) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    master = slave = -1
    if terminal:
        master, slave = pty.openpty()
        threading.Thread(target=_drain, args=(master,), daemon=True).start()
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=slave if terminal else asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await process.communicate()
    seconds = time.perf_counter() - started
    if terminal:
        os.close(slave)
    if process.returncode != 0:
        raise SystemExit(f"{args[:4]} failed ({process.returncode}): {err!r} {out[-2000:]!r}")
    return seconds, out.decode()


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    n = 500 if arguments.quick else arguments.documents
    with tempfile.TemporaryDirectory(prefix="quire-cli-upload-") as tmp:
        folder = Path(tmp) / "scifact"
        folder.mkdir()
        files = write_files(folder, n)
        h.note(f"{files} files in {folder}")
        rounds: list[dict[str, Any]] = []
        async with h.database("bench_cli_upload") as url, h.Quire(url) as quire:
            for r in range(arguments.rounds):
                sides: dict[str, Any] = {}
                order = ("loop", "cli") if r % 2 == 0 else ("cli", "loop")
                for side in order:
                    key = await quire.key(f"{side}-{r}")
                    async with quire.client(key.token) as client:
                        name = f"{side}-{r}"
                        collection = await client.create_collection(name=name)
                    if side == "loop":
                        seconds, _ = await run_child(
                            [
                                sys.executable,
                                "-c",
                                LOOP,
                                quire.address,
                                key.token,
                                collection.collection_id,
                                str(folder),
                                str(arguments.concurrency),
                            ],
                            terminal=False,
                        )
                        sides[side] = {"seconds": round(seconds, 3)}
                    else:
                        seconds, out = await run_child(
                            [
                                *CLI,
                                "docs",
                                "upload",
                                str(folder),
                                "--collection",
                                name,
                                "--no-wait",
                                "--json",
                                "--concurrency",
                                str(arguments.concurrency),
                                "--address",
                                quire.address,
                                "--api-key",
                                key.token,
                            ],
                            terminal=True,
                        )
                        summary = json.loads(out)["result"]  # the --json envelope
                        assert summary["uploaded"] == files, summary
                        sides[side] = {
                            "seconds": round(seconds, 3),
                            "upload_phase_seconds": summary["upload_seconds"],
                        }
                    async with quire.client(key.token) as client:
                        stored = await client.get_collection(collection_id=collection.collection_id)
                    assert stored.document_count == files, (side, stored.document_count)
                    sides[side]["files_per_s"] = round(files / sides[side]["seconds"], 1)
                    h.note(f"round {r} {side}: {sides[side]}")
                rounds.append(sides)
    best_loop = min(r["loop"]["seconds"] for r in rounds)
    best_cli = min(r["cli"]["seconds"] for r in rounds)
    ratio = h.ratio(best_cli, best_loop)
    return {
        "benchmark": "cli_upload",
        "machine_at_start": h.machine(),
        "files": files,
        "concurrency": arguments.concurrency,
        "rounds": rounds,
        "best_seconds": {"loop": best_loop, "cli": best_cli},
        "ratio_cli_over_loop": ratio,
        "goal_ratio": GOAL_RATIO,
        "met": ratio is not None and ratio <= GOAL_RATIO,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=5183, help="first N abstracts (0: all)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="500 files")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    arguments = parser.parse_args()
    h.setup_logging(arguments.verbose)
    h.emit(h.run(main(arguments)), arguments.out)
