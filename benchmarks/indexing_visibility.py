"""HYBRID SearchKnowledge while indexing catches up (docs/knowledge.md, "Documents not yet
indexed"): this tree's server beside a baseline tree's (e.g. `main` before the change), on one
database, in one run. Prints JSON.

    git archive main | tar -x -C /tmp/quire-main
    .venv/bin/python benchmarks/indexing_visibility.py --baseline /tmp/quire-main
        [--documents 0] [--requests 300]

Ingests SciFact (`--documents`, 0 = the whole corpus, 5,183 abstracts) into one collection
through the upload path and the in-process worker, until settled. Starts this tree's server
and the baseline tree's, each in a process of its own, on the same database (the baseline
skips the migrations it does not know), and sends the same SciFact training claims to both
(HYBRID, limit 10, concurrency 1), interleaved in ten alternating blocks
(`_harness.run_side_by_side`), after a VACUUM ANALYZE, in two states:

1. `indexed`: every document in the serving generation, the common case. Also: how many
   queries get the same top 10 from both servers, and `scope_query`: the one statement the
   common case changes (scope resolution, `LIVE_COLLECTIONS`, now with one index probe into
   the backlog), both trees' text timed alternately on one connection.
2. `backlog`: 421 documents (5,183 − 4,762, the state the finding was reported in) READY but
   not in the serving generation: their chunks deleted and their text stored again through
   the worker's store path, with no job to index them. They are the judged documents of the
   claims (then others), so every cell also counts how many of them each server returns in
   the top 10 of a claim they are judged relevant to (in `indexed`: while still indexed).

First, `calibration`: the baseline against a second baseline server, the same code on both
sides: how far apart two identical servers measure on this machine at this moment (on a
shared 2-core machine the query embedding dominates and moves with the load), to read the
two cells against. No gate result exists in the fresh database, so no HYBRID answer is cached.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import os
import socket
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import _harness as h

LIMIT = 10
PENDING = 421


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def server(tree: Path, database_url: str) -> AsyncIterator[str]:
    """`quire serve` from `tree`'s sources (its paths first on sys.path) on a free port, in
    a process of its own (both servers compared alike)."""
    address = f"127.0.0.1:{free_port()}"
    paths = [str(tree / p) for p in ("indexer", "server", "clients/python")]
    code = (
        f"import sys; sys.path[:0] = {paths!r}; "
        "import quire.server.knowledge.search as s; "
        f"assert s.__file__.startswith({str(tree)!r}), s.__file__; "
        "from quire.server.cli import main; sys.exit(main(['serve']))"
    )
    env = dict(os.environ, QUIRE_DATABASE_URL=database_url, QUIRE_ADDRESS=address)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, env=env, stdout=sys.stderr
    )
    try:
        yield address
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def wait_serving(client: Any, collection_id: str) -> None:
    for _ in range(600):
        with contextlib.suppress(Exception):
            await client.get_collection(collection_id=collection_id)
            return
        await asyncio.sleep(0.2)
    raise SystemExit("the baseline server did not start")


async def ingest(quire: h.Quire, org_id: uuid.UUID, cid: uuid.UUID, corpus: dict[str, str]) -> Any:
    from quire.server.gate import runner

    started = time.perf_counter()
    await runner.store_texts(quire.pool, org_id, cid, list(corpus.items()))
    await runner.wait_settled(quire.pool, org_id)
    async with quire.pool.acquire() as conn:
        gen = await conn.fetchval(
            "SELECT serving_generation FROM collections WHERE org_id = $1 AND collection_id = $2",
            org_id,
            cid,
        )
        chunks = await conn.fetchval(
            "SELECT count(*) FROM knowledge_chunks WHERE org_id = $1 AND generation = $2",
            org_id,
            gen,
        )
    return {
        "documents": len(corpus),
        "chunks": chunks,
        "generation": gen,
        "seconds": round(time.perf_counter() - started, 1),
    }


def baseline_constant(tree: Path, module: str, name: str) -> str:
    """A string constant of one of `tree`'s modules, read from its source."""
    source = (tree / "server" / "quire" / "server" / module).read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            value: str = ast.literal_eval(node.value)
            return value
    raise SystemExit(f"{name} not found in {module}")


async def scope_query(
    quire: h.Quire, org_id: uuid.UUID, cid: uuid.UUID, baseline: str, rounds: int = 2000
) -> dict[str, Any]:
    """p50 of this tree's LIVE_COLLECTIONS and the baseline's, alternating on one connection."""
    from quire.server.knowledge import reachable

    times: tuple[list[float], list[float]] = ([], [])
    async with quire.pool.acquire() as conn:
        for i in range(rounds):
            for which in (0, 1) if i % 2 == 0 else (1, 0):
                sql = reachable.LIVE_COLLECTIONS if which == 0 else baseline
                t0 = time.perf_counter()
                await conn.fetch(sql, org_id, [cid])
                times[which].append(time.perf_counter() - t0)
    this, base = h.summary_ms(times[0]), h.summary_ms(times[1])
    return {
        "this_tree": this,
        "baseline": base,
        "p50_ratio": h.ratio(this["p50_ms"], base["p50_ms"]),
    }


async def make_pending(quire: h.Quire, org_id: uuid.UUID, corpus_ids: list[str]) -> int:
    """The documents named `<id>.txt` lose their chunks and get their text stored again
    (READY, a new version), with no job to index them."""
    from quire.indexer.worker import document_queries as documents

    names = [f"{c}.txt" for c in corpus_ids]
    async with quire.pool.acquire() as conn, conn.transaction():
        rows = await conn.fetch(
            "SELECT document_id, extracted_text FROM documents "
            "WHERE org_id = $1 AND file_name = ANY($2::text[])",
            org_id,
            names,
        )
        await conn.execute(
            "DELETE FROM knowledge_chunks WHERE org_id = $1 AND document_id = ANY($2::uuid[])",
            org_id,
            [r["document_id"] for r in rows],
        )
        await documents.store_texts(
            conn, [(org_id, r["document_id"], r["extracted_text"], "") for r in rows]
        )
    return len(rows)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from quire.server.gate import dataset

    h.setup_logging(args.verbose)
    data = dataset.load(h.SCIFACT, "train", max_documents=args.documents)
    claims = list(data.queries.items())[: args.requests]
    # The judged documents of the first claims, in claim order, then others in corpus order.
    judged = dict.fromkeys(d for q, _ in claims for d in data.qrels[q] if d in data.corpus)
    pending_ids = list(dict.fromkeys([*judged, *data.corpus]))[:PENDING]
    pending = set(pending_ids)
    report: dict[str, Any] = {
        "benchmark": "indexing_visibility",
        "machine_at_start": h.machine(),
        "baseline_tree": str(args.baseline),
        "requests_per_cell": len(claims),
        "limit": LIMIT,
    }
    embeddings = h.load_model()
    async with (
        h.database("bench_visibility") as url,
        h.Quire(url, embeddings=embeddings, worker=True) as quire,
    ):
        key = await quire.key()
        async with quire.client(key.token) as client:
            collection = await client.create_collection(name="scifact")
            cid = collection.collection_id
            await client.set_retrieval_policy(mode="HYBRID", max_search_limit=LIMIT)
            h.note(f"ingesting {len(data.corpus)} SciFact documents")
            report["ingest"] = await ingest(quire, key.org_id, uuid.UUID(cid), data.corpus)
            async with quire.pool.acquire() as conn:
                await conn.execute("VACUUM ANALYZE")
            baseline = args.baseline.resolve()
            async with (
                server(h.REPO, url) as this_address,
                server(baseline, url) as base_address,
                server(baseline, url) as twin_address,
                quire.client(key.token, this_address) as this,
                quire.client(key.token, base_address) as base,
                quire.client(key.token, twin_address) as twin,
            ):
                for c in (this, base, twin):
                    await wait_serving(c, cid)
                report["calibration"] = await cell(twin, base, cid, claims, data.qrels, pending)
                report["calibration"]["note"] = "this_tree: a second baseline server"
                report["indexed"] = await cell(this, base, cid, claims, data.qrels, pending)
                report["indexed"]["scope_query"] = await scope_query(
                    quire,
                    key.org_id,
                    uuid.UUID(cid),
                    # The baseline tree predates knowledge/reachable.py's rename.
                    baseline_constant(args.baseline, "knowledge/scope.py", "LIVE_COLLECTIONS"),
                )
                made = await make_pending(quire, key.org_id, pending_ids)
                h.note(f"{made} documents READY and not in the serving generation")
                report["backlog"] = await cell(this, base, cid, claims, data.qrels, pending)
                report["backlog"]["pending_documents"] = made
    return report


async def cell(
    client: Any,
    base: Any,
    cid: str,
    claims: list[tuple[str, str]],
    qrels: dict[str, dict[str, int]],
    chosen: set[str],
) -> dict[str, Any]:
    """Both servers side by side; `found_in_top10`: of the (claim, judged document) pairs
    whose document is in `chosen` (the documents made pending in the `backlog` state), how
    many each server returns in that claim's top 10."""
    tops: tuple[dict[int, list[str]], dict[int, list[str]]] = ({}, {})

    def caller(which: int, c: Any) -> Any:
        async def call(i: int) -> None:
            result = await c.search_knowledge(collection_ids=[cid], query=claims[i][1], limit=LIMIT)
            tops[which][i] = [hit.file_name.removesuffix(".txt") for hit in result.hits]

        return call

    h.note(f"{len(claims)} claims, side by side")
    this, baseline = await h.run_side_by_side(
        caller(0, client),
        caller(1, base),
        requests=len(claims),
        concurrency=1,
        warmup=5,
        rounds=10,
    )
    out: dict[str, Any] = {"this_tree": this.as_dict(), "baseline": baseline.as_dict()}
    out["p50_ratio"] = h.ratio(out["this_tree"].get("p50_ms"), out["baseline"].get("p50_ms"))
    out["same_top10"] = sum(tops[0].get(i) == tops[1].get(i) for i in range(len(claims)))
    wanted = [(i, d) for i, (q, _) in enumerate(claims) for d in qrels[q] if d in chosen]
    out["judged_pairs"] = len(wanted)
    out["found_in_top10"] = {
        "this_tree": sum(d in tops[0].get(i, []) for i, d in wanted),
        "baseline": sum(d in tops[1].get(i, []) for i, d in wanted),
    }
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a source tree to compare")
    parser.add_argument("--documents", type=int, default=0, help="0: the whole corpus")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    h.emit(h.run(main(args)), args.out)
