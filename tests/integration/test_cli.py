"""The `quire` network commands run as subprocesses against a real server on loopback: a docs
site synced with --json, a folder uploaded (with an unsupported and a no-text file), a re-run
that skips what is unchanged, a wrong key, and a server that goes away mid-upload and a re-run
that resumes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from tests.conftest import Harness, Keys
from tests.support import docs_site
from tests.support.site_server import SiteServer

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True
NEEDS_WORKER = True
SITE_PAGES = 8


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


async def quire(address: str, key: str, *args: str) -> Result:
    """`quire ARGS… --address A --api-key K` in a child process (the server runs in this
    process's event loop, so the child is awaited, never waited for)."""
    env = {k: v for k, v in os.environ.items() if k != "QUIRE_API_KEY"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "quire.server.cli",
        *args,
        "--address",
        address,
        "--api-key",
        key,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return Result(process.returncode, out.decode(), err.decode())


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("cli-org")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, keys: Keys) -> AsyncIterator[AsyncQuireClient]:
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        yield c


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    """The repository's docs site on loopback, cut to its first pages to keep the sync short."""
    root = docs_site.copy_site(tmp_path_factory.mktemp("site") / "site")
    lines = (root / "llms.txt").read_text().splitlines()
    links = [i for i, line in enumerate(lines) if line.startswith("- [")]
    kept = lines[: links[0]] + lines[links[0] : links[0] + SITE_PAGES]
    (root / "llms.txt").write_text("\n".join(kept) + "\n")
    (root / "sitemap.xml").unlink(missing_ok=True)
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


def write_folder(folder: Path) -> None:
    folder.mkdir()
    (folder / "walrus.md").write_text("# Walruses\n\nWalruses eat clams on the sea floor.\n")
    (folder / "notes.txt").write_text("The budget for clams comes from the aquarium fund.\n")
    (folder / "nested").mkdir()
    (folder / "nested" / "otters.md").write_text("# Otters\n\nOtters hold hands asleep.\n")
    (folder / "empty.txt").write_bytes(b"")  # extracted, but no text
    (folder / "tool.exe").write_bytes(b"MZ\x90\x00")  # not a supported type
    (folder / ".hidden.txt").write_text("left out")


async def test_pages_sync_json_then_search_read_grep_ls(
    harness: Harness, keys: Keys, site: SiteServer
) -> None:
    synced = await quire(
        harness.address,
        keys.all,
        "pages",
        "sync",
        f"{site.url}/llms.txt",
        "--namespace",
        "docs",
        "--json",
    )
    assert synced.code == 0, synced.stderr
    report = synced.json()
    assert report["status"] == "SYNC_STATUS_COMPLETED"
    assert report["discovered"] == SITE_PAGES and report["updated"] == SITE_PAGES
    assert report["embedded_chunks"] > 0
    assert "\x1b[" not in synced.stderr, "no progress drawn without a terminal"

    found = await quire(
        harness.address,
        keys.all,
        "pages",
        "search",
        "dependencies",
        "--namespace",
        "docs",
        "--json",
    )
    assert found.code == 0, found.stderr
    hits = found.json()["hits"]
    assert hits
    read = await quire(
        harness.address,
        keys.all,
        "pages",
        "read",
        hits[0]["path"],
        "--namespace",
        "docs",
        "--json",
    )
    assert read.code == 0 and read.json()["content"]
    grep = await quire(
        harness.address, keys.all, "pages", "grep", "Tidewater", "--namespace", "docs", "--json"
    )
    assert grep.code == 0 and grep.json()["matches"]
    listed = await quire(harness.address, keys.all, "pages", "ls", "--namespace", "docs")
    assert listed.code == 0 and f"{SITE_PAGES} pages" in listed.stdout  # the human table


async def test_upload_folder_reports_failures_and_rerun_skips_unchanged(
    harness: Harness, keys: Keys, tmp_path: Path
) -> None:
    folder = tmp_path / "handbook"
    write_folder(folder)

    async def upload(*paths: Path) -> Result:
        names = [str(p) for p in paths]
        return await quire(
            harness.address,
            keys.all,
            "docs",
            "upload",
            *names,
            "--collection",
            "handbook",
            "--json",
        )

    first = await upload(folder)
    assert first.code == 1, first.stderr  # one file failed
    summary = first.json()
    assert summary["files"] == 5  # the hidden file is left out
    assert summary["uploaded"] == 4 and summary["waited"]
    assert summary["ready"] == 4 and summary["no_text"] == 1
    assert [(f["stage"], Path(f["file"]).name) for f in summary["failures"]] == [
        ("upload", "tool.exe")
    ]
    assert "UNSUPPORTED_MEDIA_TYPE" in summary["failures"][0]["reason"]
    assert summary["serving_generation"] >= 1

    again = await upload(folder)
    assert again.json()["skipped_unchanged"] == 4 and again.json()["uploaded"] == 0

    (folder / "notes.txt").write_text("The clam budget now comes from ticket sales.\n")
    changed = await upload(folder / "*.txt")
    assert changed.json()["replaced"] == 1 and changed.json()["skipped_unchanged"] == 1

    shown = await quire(harness.address, keys.all, "docs", "status", "--collection", "handbook")
    assert shown.code == 0 and "READY (no text)" in shown.stdout
    hits = await quire(harness.address, keys.all, "search", "clams", "--collection", "handbook")
    assert hits.code == 0 and "walrus.md" in hits.stdout
    for mode in ("LEGACY_FTS", "HYBRID"):
        picked = await quire(
            harness.address,
            keys.all,
            "search",
            "clams",
            "--collection",
            "handbook",
            "--mode",
            mode,
            "--json",
        )
        assert picked.code == 0, picked.stderr
        assert picked.json()["mode"] == f"RETRIEVAL_MODE_{mode}"
        assert any(h["file_name"] == "walrus.md" for h in picked.json()["hits"])
    read = await quire(
        harness.address,
        keys.all,
        "docs",
        "read",
        "notes.txt",
        "--collection",
        "handbook",
        "--json",
    )
    assert "ticket sales" in read.json()["text"]


async def test_a_file_name_that_is_not_utf8_fails_alone(
    harness: Harness, keys: Keys, client: AsyncQuireClient, tmp_path: Path
) -> None:
    folder = tmp_path / "latin"
    folder.mkdir()
    (folder / "clams.txt").write_text("Clams live in the sand.\n")
    (folder / "otters.md").write_text("# Otters\n\nOtters eat clams.\n")
    # A name written by a Latin-1 system: the byte 0xE9 is not UTF-8.
    latin_name = os.fsdecode(b"caf\xe9.txt")  # the byte kept as a lone surrogate
    (folder / latin_name).write_bytes(b"Coffee notes.\n")
    assert os.fsencode(folder / latin_name).endswith(b"/caf\xe9.txt")

    as_json = await quire(
        harness.address,
        keys.all,
        "docs",
        "upload",
        str(folder),
        "--collection",
        "latin-json",
        "--json",
        "--no-wait",
    )
    assert as_json.code == 1, as_json.stderr  # one file failed, the others went in
    assert "Traceback" not in as_json.stderr
    summary = as_json.json()
    assert summary["files"] == 3 and summary["uploaded"] == 2
    [failure] = summary["failures"]
    assert failure["file"] == f"{folder}/caf\\xe9.txt"  # the byte shown as \\xe9
    assert failure["stage"] == "upload"
    assert "file name is not valid UTF-8: caf\\xe9.txt" in failure["reason"]
    stored = await client.list_documents(collection_id=summary["collection_id"])
    assert sorted(d.file_name for d in stored.documents) == ["clams.txt", "otters.md"]

    human = await quire(
        harness.address,
        keys.all,
        "docs",
        "upload",
        str(folder),
        "--collection",
        "latin-human",
        "--no-wait",
    )
    assert human.code == 1, human.stderr
    assert "Traceback" not in human.stderr
    assert "caf\\xe9.txt" in human.stdout and "not valid UTF-8" in human.stdout

    # A run whose only file cannot be sent creates no collection.
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (folder / latin_name).rename(lonely / latin_name)
    alone = await quire(
        harness.address,
        keys.all,
        "docs",
        "upload",
        str(lonely),
        "--collection",
        "latin-alone",
        "--json",
    )
    assert alone.code == 1, alone.stderr
    assert alone.json()["collection_id"] is None and alone.json()["failed"] == 1
    names = [c.name for c in await client.list_collections()]
    assert "latin-alone" not in names and {"latin-json", "latin-human"} <= set(names)


async def test_a_run_that_finds_no_file_creates_nothing(
    harness: Harness, keys: Keys, client: AsyncQuireClient, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden.txt").write_text("left out")
    for args in ([str(empty)], [str(tmp_path / "absent")], [str(tmp_path / "*.nothing")]):
        found = await quire(
            harness.address,
            keys.all,
            "docs",
            "upload",
            *args,
            "--collection",
            "never-made",
            "--json",
        )
        assert found.code == 1, found.stderr
        summary = found.json()
        assert summary["collection_id"] is None and summary["files"] == 1
        assert [f["stage"] for f in summary["failures"]] == ["find"]
        human = await quire(
            harness.address, keys.all, "docs", "upload", *args, "--collection", "never-made"
        )
        assert human.code == 1 and "not created: no file to upload" in human.stdout
    assert "never-made" not in [c.name for c in await client.list_collections()]


async def test_wrong_key_is_a_clear_message_and_exit_3(harness: Harness, tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write_folder(folder)
    refused = await quire(
        harness.address, "qk_wrong", "docs", "upload", str(folder), "--collection", "x"
    )
    assert refused.code == 3
    assert "refused the API key" in refused.stderr
    assert "Traceback" not in refused.stderr


async def test_server_gone_mid_upload_then_rerun_resumes(
    harness: Harness, keys: Keys, client: AsyncQuireClient, database_url: str, tmp_path: Path
) -> None:
    from quire.server.app import prepare_database, start
    from quire.server.config import Settings

    folder = tmp_path / "many"
    folder.mkdir()
    total = 300
    for i in range(total):
        (folder / f"note-{i:03}.txt").write_text(f"note number {i} about seals\n" * 50)
    collection = await client.create_collection(name="many")

    # A second server on the same database, to take away mid-upload.
    settings = Settings(address="127.0.0.1:0", http_address="", database_url=database_url)
    doomed = await start(settings, await prepare_database(database_url, settings), None)

    def upload(address: str, *extra: str) -> asyncio.Task[Result]:
        args = ["docs", "upload", str(folder), "--collection", "many", "--no-wait", *extra]
        return asyncio.create_task(quire(address, keys.all, *args))

    cut_off = upload(f"127.0.0.1:{doomed.port}", "--concurrency", "2")
    for _ in range(400):
        page = await client.list_documents(collection_id=collection.collection_id, limit=20)
        if len(page.documents) >= 10:
            break
        await asyncio.sleep(0.05)
    await doomed.stop(grace=0)
    stopped = await cut_off
    assert stopped.code == 5, stopped.stderr
    assert "could not reach" in stopped.stderr and "run the same command again" in stopped.stderr
    stored = [d async for d in client.iter_documents(collection_id=collection.collection_id)]
    assert 10 <= len(stored) < total

    resumed = await upload(harness.address, "--json")
    assert resumed.code == 0, resumed.stderr
    summary = resumed.json()
    assert summary["skipped_unchanged"] == len(stored)
    assert summary["uploaded"] == total - len(stored)
    names = [
        d.file_name async for d in client.iter_documents(collection_id=collection.collection_id)
    ]
    assert sorted(names) == sorted(f"note-{i:03}.txt" for i in range(total))  # none twice
