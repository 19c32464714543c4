"""The web console in a real headless Chromium (Debian's `chromium`, driven by Playwright
through `executable_path`) against a real server: embedded PostgreSQL, the ONNX model and the
worker, the console served by the HTTP listener as `quire up` serves it.

Set QUIRE_CONSOLE_SCREENSHOTS=DIR to write a screenshot of each page into DIR (docs/images
holds the ones docs/console.md shows).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from quire.client import AsyncQuireClient, InvalidRequest
from quire.v1 import admin_pb2, knowledge_pb2
from tests.conftest import Harness, Keys
from tests.support.index_waits import wait_indexed
from tests.support.sample_files import make_png
from tests.support.site_server import Reply, SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
HTTP_LISTENER = True

# Everything the page shows is expected within this (the browser, server and worker share
# two cores here; extraction and indexing run in between).
WAIT_MS = 60_000
NOTES = (
    "Quire keeps a knowledge base of uploaded files. The marmalade recipe needs Seville "
    "oranges, sugar and patience; boil until it sets.\n"
)


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip(
            "Debian's chromium is not installed: `make browser-deps` installs it "
            "(apt-get as root); the browser tests need it"
        )
    return path


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    executable = _chromium()
    async with async_playwright() as playwright:
        # --no-sandbox: the tests run as root, where Chromium's sandbox refuses to start.
        launched = await playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        await launched.close()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("console-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Any) -> AsyncIterator[Any]:
    context = await browser.new_context(viewport={"width": 1280, "height": 860})
    opened = await context.new_page()
    opened.set_default_timeout(WAIT_MS)
    yield opened
    await context.close()


def url(harness: Harness, fragment: str = "") -> str:
    return f"http://127.0.0.1:{harness.running.http.port}/{fragment}"  # type: ignore[attr-defined]


async def screenshot(page: Any, name: str) -> None:
    folder = os.environ.get("QUIRE_CONSOLE_SCREENSHOTS")
    if folder:  # Playwright creates the folder
        await page.screenshot(path=os.path.join(folder, f"console-{name}.png"), full_page=True)


async def sign_in(page: Any, harness: Harness, key: str) -> None:
    await page.goto(url(harness))
    await page.fill("#api-key", key)
    await page.click("#signin button[type=submit]")
    await page.wait_for_selector("#create-collection")


async def create_collection(page: Any, name: str) -> str:
    await page.fill("#create-collection input[name=name]", name)
    await page.click("#create-collection button")
    await page.wait_for_selector("#live.on")
    return str(page.url.rsplit("/", 1)[-1])


async def test_first_paint_is_within_a_second(page: Any, harness: Harness) -> None:
    await page.goto(url(harness))
    await page.wait_for_selector("#api-key")
    paint = await page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
    )
    print(json.dumps({"metric": "console_first_contentful_paint_ms", "value": round(paint, 1)}))
    assert 0 < paint <= 1000


async def test_a_wrong_key_gets_a_clear_message(page: Any, harness: Harness) -> None:
    await page.goto(url(harness))
    await screenshot(page, "sign-in")
    await page.fill("#api-key", "qk_not-a-real-key")
    await page.click("#signin button[type=submit]")
    message = page.locator("#signin-message .error")
    await message.wait_for()
    assert "That API key was refused" in await message.inner_text()
    assert await page.evaluate("sessionStorage.getItem('quire.apiKey')") is None
    assert await page.evaluate("localStorage.length") == 0


async def test_a_70_mib_file_is_refused_before_anything_is_sent(
    page: Any, harness: Harness, keys: Keys, client: AsyncQuireClient, tmp_path: Path
) -> None:
    big = tmp_path / "huge.txt"
    with big.open("wb") as out:  # sparse: 70 MiB on paper, nothing on disk
        out.truncate(70 * 1024 * 1024)
    await sign_in(page, harness, keys.all)
    collection_id = await create_collection(page, "too-big")
    await page.set_input_files("#file-input", str(big))
    refused = page.locator("li[data-upload='huge.txt'][data-result=refused]")
    await refused.wait_for()
    text = await refused.inner_text()
    assert "70.0 MiB" in text and "64.0 MiB" in text and "Nothing was uploaded" in text
    listed = await client.list_documents(collection_id=collection_id)
    assert list(listed.documents) == []


async def test_upload_watch_read_search_and_roll_back(
    page: Any, harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    await sign_in(page, harness, keys.all)
    await screenshot(page, "collections")
    # The create form offers the server's models: the default chosen, one not loaded disabled.
    picker = page.locator("#collection-model")
    await expect(picker).to_have_value("")
    await expect(picker.locator("option:checked")).to_have_text("all-minilm-l6-v2 (default)")
    await expect(picker.locator("option[disabled]")).to_have_count(1)
    collection_id = await create_collection(page, "console-docs")
    await expect(page.locator("#collection-embedding")).to_have_text(
        "embedded with all-minilm-l6-v2"
    )
    await page.evaluate("window.sameLoad = true")  # gone if the page reloads

    # The server's side of each status change, as a watching client receives it.
    emitted: dict[tuple[str, str], float] = {}

    async def watch() -> None:
        async for doc in client.watch_documents(collection_id=collection_id):
            status = knowledge_pb2.DocumentStatus.Name(doc.status).removeprefix("DOCUMENT_STATUS_")
            emitted[(doc.file_name, status.lower())] = time.time() * 1000

    watcher = asyncio.create_task(watch())
    try:
        await page.set_input_files(
            "#file-input",
            [
                {"name": "notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()},
                {"name": "random.pdf", "mimeType": "application/pdf", "buffer": os.urandom(4096)},
                {"name": "photo.png", "mimeType": "image/png", "buffer": make_png()},
            ],
        )
        final = {"notes.txt": "ready", "random.pdf": "failed", "photo.png": "ready"}
        seen_at = {}
        for name, status in final.items():
            cell = page.locator(f"tr[data-document='{name}'] td.status[data-status={status}]")
            await cell.wait_for()
            seen_at[name] = float(await cell.get_attribute("data-seen-at") or 0)
        assert await page.evaluate("window.sameLoad") is True
        reason = await page.locator("tr[data-document='random.pdf'] .reason").inner_text()
        assert reason.strip()
        no_text = page.locator("tr[data-document='photo.png'] td.status")
        assert await no_text.get_attribute("data-no-text") == "true"
        assert "no text" in await no_text.inner_text()
        for name in ("notes.txt", "random.pdf", "photo.png"):
            assert await page.locator(f"li[data-upload='{name}'][data-result=uploaded]").count()
        await asyncio.sleep(0.2)  # the watcher's last message
        lags = {n: seen_at[n] - emitted[(n, s)] for n, s in final.items() if (n, s) in emitted}
        print(json.dumps({"metric": "console_status_change_lag_ms", "value": lags}))
        assert lags and max(lags.values()) <= 1000, lags
        await screenshot(page, "documents")
    finally:
        watcher.cancel()

    await page.click("tr[data-document='notes.txt'] a")
    await page.wait_for_selector("#slice-text")
    assert "marmalade" in await page.inner_text("#slice-text")
    assert "of 1" in await page.inner_text("#slice-range")
    await screenshot(page, "document")

    await wait_indexed(client, collection_id)
    await page.goto(url(harness, "#/search"))
    await page.wait_for_selector(f"#search-form input[value='{collection_id}']")
    await page.fill("#search-form input[name=query]", "marmalade oranges")
    await page.click("#search-form button[type=submit]")
    for mode in ("LEGACY_FTS", "HYBRID"):
        column = page.locator(f"section.mode[data-mode={mode}][data-done=true]")
        await column.wait_for()
        assert await column.locator(".hit").count() >= 1, await column.inner_text()
        assert f"served as {mode}" in await column.inner_text()
        # Each hit names its collection.
        assert await column.locator(".hit .collection").first.inner_text() == "in console-docs"
    # The limit box offers the organisation's bound (8 here), not the contract's 50.
    limit = page.locator("#search-form input[name=limit]")
    await expect(limit).to_have_attribute("max", "8")
    await expect(page.locator("#limit-bound")).to_contain_text("Limit 1–8: your organisation")
    await screenshot(page, "search")

    # A gate run on the repository's judged set (tests/fixtures/gate), so the chart has bars.
    async for _ in client.run_gate(dataset="mini", split="pass"):
        pass
    await page.goto(url(harness, f"#/rollout/{collection_id}"))
    serving = page.locator("#serving-generation")
    await expect(serving).to_have_text("1", timeout=WAIT_MS)
    # The serving generation's model, and a rebuild's model picker: the same model by default,
    # another model only if the server has loaded it (bge is not, here).
    await expect(page.locator("#serving-model")).to_have_text("all-minilm-l6-v2")
    rebuild_model = page.locator("#rebuild-model")
    await expect(rebuild_model).to_have_value("")
    await expect(rebuild_model.locator("option[disabled]")).to_have_count(1)
    await expect(page.locator("#generations td.model").first).to_have_text("all-minilm-l6-v2")
    # Each generation's text analysis (stems since 2026-12-03), explained in its tooltip.
    analysis = page.locator("#generations td.text-analysis").first
    await expect(analysis).to_have_text("english")
    assert "stems" in (await analysis.get_attribute("title") or "")
    # The harness's worker beats every 5 s: no "no indexing worker" warning.
    await expect(page.locator("#worker-absent")).to_have_count(0)
    # Timestamps in local time, the server's ISO 8601 text in the tooltip.
    ready = page.locator("#generations time").first
    iso = await ready.get_attribute("title")
    assert iso and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", iso), iso
    assert await ready.get_attribute("datetime") == iso and await ready.inner_text() != iso
    # The organisation's keys, listed without secrets.
    await expect(page.locator("#api-keys tr[data-key]")).to_have_count(5)
    for secret in (keys.all, keys.read, keys.admin):
        assert secret.split("_", 2)[2] not in await page.content()  # the secret may hold "_"
    await page.click("#rebuild")
    # No reload: WatchIndexStatus brings the build's progress and the flip to the page.
    await expect(serving).to_have_text("2", timeout=WAIT_MS)
    assert await page.locator("#gate svg.chart rect").count() >= 2
    await screenshot(page, "rollout")
    await page.click("#rollback")
    await expect(serving).to_have_text("1", timeout=WAIT_MS)
    assert (await client.get_index_status(collection_id=collection_id)).serving_generation == 1


async def test_drop_replace_and_delete(page: Any, harness: Harness, keys: Keys) -> None:
    await sign_in(page, harness, keys.all)
    await create_collection(page, "drop-and-edit")
    # A real drop event carrying a file, as the browser delivers one from the desktop.
    dropped = await page.evaluate_handle(
        "() => { const d = new DataTransfer();"
        " d.items.add(new File(['the first draft of the plan'], 'plan.txt', {type: 'text/plain'}));"
        " return d; }"
    )
    await page.dispatch_event("#drop-zone", "drop", {"dataTransfer": dropped})
    row = page.locator("tr[data-document='plan.txt']")
    await row.locator("td.status[data-status=ready]").wait_for()
    before = await row.locator("td").nth(3).inner_text()
    async with page.expect_file_chooser() as chooser:
        await row.locator("button", has_text="Replace").click()
    await (await chooser.value).set_files(
        {"name": "plan.txt", "mimeType": "text/plain", "buffer": b"a much longer second draft " * 9}
    )
    await page.locator("li[data-upload='plan.txt'][data-result=uploaded]").first.wait_for()
    await expect(row.locator("td").nth(3)).not_to_have_text(before, timeout=WAIT_MS)
    assert await page.locator("tr[data-document]").count() == 1  # a new version, not a copy
    await page.set_input_files(
        "#file-input", {"name": "thing.xyz", "mimeType": "", "buffer": b"what is this"}
    )
    refused = page.locator("li[data-upload='thing.xyz'][data-result=failed] .error")
    await refused.wait_for()
    print(json.dumps({"unsupported_upload_message": await refused.inner_text()}))
    assert "thing.xyz" not in await page.locator("#documents").inner_text()
    # The connection drops mid-upload: the line says so and the server stores nothing.
    await page.route("**/quire.v1.KnowledgeService/UploadDocument", lambda r: r.abort())
    await page.set_input_files(
        "#file-input", {"name": "cut.txt", "mimeType": "text/plain", "buffer": b"never stored"}
    )
    await expect(page.locator("li[data-upload='cut.txt'] .error")).to_contain_text("cut off")
    await page.unroute("**/quire.v1.KnowledgeService/UploadDocument")
    assert "cut.txt" not in await page.locator("#documents").inner_text()
    await row.locator("button", has_text="Delete").click()
    await row.locator("button", has_text="Confirm delete").click()
    await row.wait_for(state="detached")
    # The list names each collection's embedding model.
    await page.click("#nav a[href='#/collections']")
    listed = page.locator("#collections tr[data-collection='drop-and-edit'] td.model")
    await expect(listed).to_have_text("all-minilm-l6-v2")


async def test_a_revoked_key_ends_the_session_with_a_message(
    page: Any, harness: Harness, client: AsyncQuireClient
) -> None:
    made = await client.create_api_key(scopes=[admin_pb2.SCOPE_READ, admin_pb2.SCOPE_WRITE])
    await sign_in(page, harness, made.secret)
    await client.revoke_api_key(key_id=made.key_id)
    await page.click("nav a[href='#/search']")
    message = page.locator("#signin-message .error")
    await message.wait_for()
    assert "Your session ended" in await message.inner_text()
    assert await page.evaluate("sessionStorage.getItem('quire.apiKey')") is None


@pytest.fixture(scope="module")
def site(harness: Harness) -> Iterator[SiteServer]:
    server = SiteServer()
    with server:
        pages = {
            "/guide/intro.md": "# Introduction\n\nQuire keeps documentation searchable.\n",
            "/guide/install.md": "# Install\n\nRun the installer, then start with quire up.\n",
        }
        links = "\n".join(f"- [{p}]({server.url}{p})" for p in pages)
        server.route("/llms.txt", Reply.text(f"# Docs\n\n{links}\n"))
        for path, text in pages.items():
            server.route(path, Reply.text(text, content_type="text/markdown"))
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


async def test_published_pages_report_search_and_read(
    page: Any, harness: Harness, keys: Keys, client: AsyncQuireClient, site: SiteServer
) -> None:
    async for _ in client.sync_pages(namespace="console-docs", url=f"{site.url}/llms.txt"):
        pass
    await sign_in(page, harness, keys.all)
    await page.click("nav a[href='#/pages']")
    # The namespace's embedding model is in its row, and in its last SyncReport.
    row = page.locator("tr", has=page.locator("a[href='#/pages/console-docs']"))
    await expect(row).to_contain_text("all-minilm-l6-v2", timeout=WAIT_MS)
    await page.click("a[href='#/pages/console-docs']")
    await expect(page.locator("#sync-report")).to_contain_text("Discovered", timeout=WAIT_MS)
    await expect(page.locator("#sync-report")).to_contain_text("all-minilm-l6-v2")
    await page.fill("#page-search input[name=query]", "installer")
    await page.click("#page-search button")
    await page.locator("#page-results .hit a").first.click()
    await expect(page.locator("#page-read pre")).to_contain_text("installer", timeout=WAIT_MS)
    # The range says which characters are shown: 1-based, both ends, and the total.
    shown = await page.locator("#page-read pre").inner_text()
    total = len(shown)
    await expect(page.locator("#page-read .range")).to_have_text(
        f"Characters 1–{total:,} of {total:,}"
    )
    finished = page.locator("#sync-report time")
    assert re.match(r"\d{4}-\d\d-\d\dT", await finished.get_attribute("title") or "")
    await screenshot(page, "pages")


async def test_a_search_mode_for_one_call_yields_to_the_kill_switch(
    client: AsyncQuireClient,
) -> None:
    """What the playground relies on: `mode` picks the mode for one call, the policy stays as
    it was, and the kill switch still forces LEGACY_FTS."""
    collection = await client.create_collection(name="modes")
    cid = collection.collection_id
    hybrid = knowledge_pb2.RETRIEVAL_MODE_HYBRID
    legacy = knowledge_pb2.RETRIEVAL_MODE_LEGACY_FTS
    await client.upload_document(collection_id=cid, file_name="m.txt", data=NOTES.encode())
    await wait_indexed(client, cid)
    chosen = await client.search_knowledge(collection_ids=[cid], query="marmalade", mode=hybrid)
    assert chosen.mode == hybrid and chosen.hits
    policy = await client.get_retrieval_policy()
    assert policy.effective_mode == legacy
    await client.set_kill_switch(engaged=True)
    try:
        forced = await client.search_knowledge(collection_ids=[cid], query="marmalade", mode=hybrid)
        assert forced.mode == legacy
    finally:
        await client.set_kill_switch(engaged=False)
    with pytest.raises(InvalidRequest, match="mode"):
        await client.search_knowledge(collection_ids=[cid], query="x", mode=99)  # type: ignore[arg-type]
