"""The web console's two targets in a real headless Chromium, with baselines from the same
run. Prints JSON.

    .venv/bin/python benchmarks/console.py [--loads 20] [--files 20]

- first paint: `first-contentful-paint` of the console's page (`/` of the HTTP listener, a
  fresh browser context each load, so nothing is cached), beside the same measure for a
  one-line HTML page (the browser's own floor on this machine). Target: p95 ≤ 1,000 ms.
- status lag: `--files` text files uploaded through the page's file input; for every status
  change of every document, the time the page drew it minus the time a gRPC WatchDocuments
  client in this process received the same change (the baseline: what a client that watches
  the server directly sees). Target: max ≤ 1,000 ms.

Needs Debian's chromium (`make browser-deps`), the model (`make model`) and embedded
PostgreSQL, as the tests do.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

import _harness as h

from quire.v1 import knowledge_pb2

TARGET_MS = 1000.0
FLOOR_PAGE = "data:text/html,<!doctype html><p>Loading…</p>"


async def first_paint(browser: Any, url: str) -> float:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        await page.wait_for_load_state("load")
        for _ in range(100):  # the entry is queued just after the paint
            paint = await page.evaluate(
                "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
            )
            if paint >= 0:
                return float(paint)
            await asyncio.sleep(0.01)
        raise RuntimeError(f"no first-contentful-paint for {url}")
    finally:
        await context.close()


async def status_lags(browser: Any, quire: h.Quire, token: str, files: int) -> list[float]:
    client = quire.client(token)
    async with client:
        collection = await client.create_collection(name="console-bench")
        cid = collection.collection_id
        received: dict[tuple[str, int], float] = {}
        ready = asyncio.Event()

        async def watch() -> None:
            async for doc in client.watch_documents(collection_id=cid):
                received[(doc.file_name, doc.status)] = time.time() * 1000
                done = sum(
                    1
                    for (_, s) in received
                    if s
                    in (knowledge_pb2.DOCUMENT_STATUS_READY, knowledge_pb2.DOCUMENT_STATUS_FAILED)
                )
                if done >= files:
                    ready.set()

        context = await browser.new_context()
        page = await context.new_page()
        page.set_default_timeout(120_000)
        drawn: list[dict[str, Any]] = []
        # Every status cell the page draws, with its time, recorded in the page.
        await page.expose_function("recordDrawn", lambda row: drawn.append(row))
        await page.goto(quire.http_url + "/")
        await page.fill("#api-key", token)
        await page.click("#signin button[type=submit]")
        await page.wait_for_selector("#create-collection")
        await page.goto(f"{quire.http_url}/#/collections/{cid}")
        await page.wait_for_selector("#live.on")
        await page.evaluate(
            """() => new MutationObserver((changes) => {
                 for (const change of changes) for (const node of change.addedNodes) {
                   const cell = node.querySelector?.("td.status");
                   if (cell) window.recordDrawn({name: node.dataset.document,
                     status: cell.dataset.status, at: Number(cell.dataset.seenAt)});
                 }
               }).observe(document.querySelector("#documents tbody"), {childList: true})"""
        )
        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.3)
        payloads = [
            {
                "name": f"note-{i:03}.txt",
                "mimeType": "text/plain",
                "buffer": f"note {i}: the console benchmark writes plain words.\n".encode(),
            }
            for i in range(files)
        ]
        await page.set_input_files("#file-input", payloads)
        await asyncio.wait_for(ready.wait(), 300)
        await asyncio.sleep(0.5)  # the page's last draws
        watcher.cancel()
        await context.close()
    h.note(f"{len(drawn)} draws recorded, {len(received)} changes watched; e.g. {drawn[:2]}")
    names = dict(knowledge_pb2.DocumentStatus.items())
    lags = []
    for row in drawn:
        status = names.get("DOCUMENT_STATUS_" + str(row["status"]).upper())
        emitted = received.get((row["name"], status)) if status is not None else None
        if emitted is not None:
            lags.append(row["at"] - emitted)
    return lags


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed: run `make browser-deps`")
    report: dict[str, Any] = {"benchmark": "console", "machine_at_start": h.machine()}
    embeddings = h.load_model()
    async with (
        h.database("bench_console") as url,
        h.Quire(url, embeddings=embeddings, worker=True, http=True) as quire,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        key = await quire.key()
        console, floor = [], []
        await first_paint(browser, quire.http_url + "/")  # warm the browser process
        for _ in range(args.loads):  # interleaved, so drift falls on both alike
            console.append(await first_paint(browser, quire.http_url + "/"))
            floor.append(await first_paint(browser, FLOOR_PAGE))
        report["first_paint"] = {
            "console": h.summary_ms([x / 1000 for x in console]),
            "baseline_one_line_page": h.summary_ms([x / 1000 for x in floor]),
        }
        lags = await status_lags(browser, quire, key.token, args.files)
        report["status_lag_vs_grpc_watcher"] = {
            "changes": len(lags),
            "p50_ms": round(h.percentile(lags, 50), 1) if lags else None,
            "p95_ms": round(h.percentile(lags, 95), 1) if lags else None,
            "max_ms": round(max(lags), 1) if lags else None,
        }
        await browser.close()
    p95 = report["first_paint"]["console"].get("p95_ms", float("inf"))
    worst = report["status_lag_vs_grpc_watcher"]["max_ms"]
    report["targets"] = {
        "first_paint_p95_ms_at_most": TARGET_MS,
        "first_paint_met": p95 <= TARGET_MS,
        "status_lag_max_ms_at_most": TARGET_MS,
        "status_lag_met": worst is not None and worst <= TARGET_MS,
    }
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=20, help="page loads per side")
    parser.add_argument("--files", type=int, default=20, help="files uploaded for the lag")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    arguments = parser.parse_args()
    h.setup_logging()
    h.emit(h.run(main(arguments)), arguments.out)
