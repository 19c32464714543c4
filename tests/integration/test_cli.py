"""The `quire` network commands run as subprocesses against a real server on loopback: a docs
site synced with --json, a folder uploaded (with an unsupported and a no-text file), a re-run
that skips what is unchanged, a wrong key, and a server that goes away mid-upload and a re-run
that resumes. Every --json output is checked against its command's JSON Schema
(docs/cli-schemas)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
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
SCHEMAS = Path(__file__).parents[2] / "docs" / "cli-schemas"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """The whole --json envelope."""
        return json.loads(self.stdout)

    def result(self) -> Any:
        envelope = self.json()
        assert "result" in envelope, envelope
        return envelope["result"]


def schema_of(command: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (SCHEMAS / f"{command.replace(' ', '-')}.schema.json").read_text()
    )
    return loaded


def check_schema(result: Result) -> None:
    """A --json output is one envelope, valid against its command's schema."""
    envelope = result.json()
    jsonschema.validate(envelope, schema_of(envelope["command"]))
    if "error" in envelope:
        assert envelope["error"]["exit_code"] == result.code


async def cli(
    *args: str, stdin: int | bytes | None = None, env: dict[str, str] | None = None
) -> Result:
    """`quire ARGS…` in a child process (the server runs in this process's event loop, so the
    child is awaited, never waited for). `stdin`: bytes to send, or a file descriptor (a
    pseudo-terminal)."""
    environ = {k: v for k, v in os.environ.items() if k != "QUIRE_API_KEY"} | (env or {})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "quire.server.cli",
        *args,
        stdin=asyncio.subprocess.PIPE
        if isinstance(stdin, bytes)
        else stdin
        if stdin is not None
        else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=environ,
    )
    out, err = await process.communicate(stdin if isinstance(stdin, bytes) else None)
    assert process.returncode is not None
    result = Result(process.returncode, out.decode(), err.decode())
    if "--json" in args and result.code != 2:
        check_schema(result)
    return result


async def quire(
    address: str,
    key: str,
    *args: str,
    stdin: int | bytes | None = None,
    env: dict[str, str] | None = None,
) -> Result:
    """`quire ARGS… --address A --api-key K`."""
    return await cli(*args, "--address", address, "--api-key", key, stdin=stdin, env=env)


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


@pytest.mark.slow  # over 10 s under load (`make test-fast` leaves it out)
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
    report = synced.result()
    assert report["status"] == "SYNC_STATUS_COMPLETED"
    assert report["discovered"] == SITE_PAGES and report["updated"] == SITE_PAGES
    assert report["embedded_chunks"] > 0
    assert report["embedding_model"] == "all-minilm-l6-v2"  # the default, none named
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
    hits = found.result()["hits"]
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
    assert read.code == 0 and read.result()["content"]
    grep = await quire(
        harness.address, keys.all, "pages", "grep", "Tidewater", "--namespace", "docs", "--json"
    )
    assert grep.code == 0 and grep.result()["matches"]
    listed = await quire(harness.address, keys.all, "pages", "ls", "--namespace", "docs")
    assert listed.code == 0 and f"{SITE_PAGES} pages" in listed.stdout  # the human table
    namespaces = await quire(harness.address, keys.all, "pages", "ls", "--json")
    assert namespaces.code == 0, namespaces.stderr
    shown = {n["name"]: n for n in namespaces.result()["namespaces"]}
    assert shown["docs"]["embedding_model"] == "all-minilm-l6-v2"


@pytest.mark.slow  # over 10 s under load (`make test-fast` leaves it out)
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
    summary = first.result()
    assert summary["files"] == 5  # the hidden file is left out
    assert summary["uploaded"] == 4 and summary["waited"]
    assert summary["ready"] == 4 and summary["no_text"] == 1
    assert [(f["stage"], Path(f["file"]).name) for f in summary["failures"]] == [
        ("upload", "tool.exe")
    ]
    assert "UNSUPPORTED_MEDIA_TYPE" in summary["failures"][0]["reason"]
    assert summary["serving_generation"] >= 1

    again = await upload(folder)
    assert again.result()["skipped_unchanged"] == 4 and again.result()["uploaded"] == 0

    (folder / "notes.txt").write_text("The clam budget now comes from ticket sales.\n")
    changed = await upload(folder / "*.txt")
    assert changed.result()["replaced"] == 1 and changed.result()["skipped_unchanged"] == 1

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
        assert picked.result()["mode"] == f"RETRIEVAL_MODE_{mode}"
        assert any(h["file_name"] == "walrus.md" for h in picked.result()["hits"])
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
    assert "ticket sales" in read.result()["text"]


@pytest.mark.slow  # 11 s under load (`make test-fast` leaves it out)
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
    summary = as_json.result()
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
    assert alone.result()["collection_id"] is None and alone.result()["failed"] == 1
    names = [c.name for c in await client.list_collections()]
    assert "latin-alone" not in names and {"latin-json", "latin-human"} <= set(names)


@pytest.mark.slow  # 9 s under load (`make test-fast` leaves it out)
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
        summary = found.result()
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


@pytest.mark.slow  # over 10 s under load (`make test-fast` leaves it out)
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
    summary = resumed.result()
    assert summary["skipped_unchanged"] == len(stored)
    assert summary["uploaded"] == total - len(stored)
    names = [
        d.file_name async for d in client.iter_documents(collection_id=collection.collection_id)
    ]
    assert sorted(names) == sorted(f"note-{i:03}.txt" for i in range(total))  # none twice


# ------------------------------------------------------------------ issue 34: people using it


@pytest.mark.slow  # 9 s under load (`make test-fast` leaves it out)
async def test_version_and_did_you_mean() -> None:
    version = await cli("--version")
    assert version.code == 0 and version.stdout.startswith("quire ")
    typo = await cli("colections", "ls")
    assert typo.code == 2 and "did you mean 'collections'?" in typo.stderr
    action = await cli("agents", "attatch", "x")
    assert action.code == 2 and "did you mean 'attach'?" in action.stderr


@pytest.mark.slow  # 4 s under load (`make test-fast` leaves it out)
async def test_keys_create_prints_scope_names(database_url: str) -> None:
    env = {"QUIRE_DATABASE_URL": database_url, "QUIRE_DATABASE_DIRECT_URL": database_url}
    human = await cli("keys", "create", "--org", "cli-keys", "--scope", "read", env=env)
    assert human.code == 0, human.stderr
    assert "organisation 'cli-keys', scopes read " in human.stderr
    assert "Scope." not in human.stderr and human.stdout.startswith("qk_")
    made = await cli(
        "keys", "create", "--org", "cli-keys", "--scope", "write", "--scope", "read",
        "--name", "ci", "--json", env=env,
    )  # fmt: skip
    assert made.code == 0, made.stderr
    assert made.result()["scopes"] == ["read", "write"] and made.result()["name"] == "ci"


@pytest.mark.slow  # 26 s under load (`make test-fast` leaves it out)
async def test_whoami_keys_ls_and_agents_without_curl(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    me = await quire(harness.address, keys.all, "whoami", "--json")
    assert me.code == 0, me.stderr
    assert me.result()["organisation"] == "cli-org"
    assert me.result()["key"]["scopes"] == ["read", "write", "admin", "tune"]
    assert me.result()["policy"]["max_search_limit"] == 8
    human = await quire(harness.address, keys.read, "whoami")
    assert human.code == 0 and "cli-org" in human.stdout and "at most 8 hits" in human.stdout

    listed = await quire(harness.address, keys.admin, "keys", "ls", "--json")
    assert listed.code == 0, listed.stderr
    assert len(listed.result()["keys"]) >= 5
    assert not any(k in listed.stdout for k in (keys.all, keys.read, keys.admin))
    refused = await quire(harness.address, keys.read, "keys", "ls", "--json")
    assert refused.code == 3 and refused.json()["error"]["code"] == "permission_denied"

    for name in ("agent-a", "agent-b"):
        await client.create_collection(name=name)
    made = await quire(
        harness.address, keys.all, "agents", "create", "helper", "--collection", "agent-a",
        "--json",
    )  # fmt: skip
    assert made.code == 0, made.stderr
    assert made.result()["agent"]["attached_collection_names"] == ["agent-a"]
    attached = await quire(
        harness.address, keys.all, "agents", "attach", "helper", "--collection", "agent-b",
        "--json",
    )  # fmt: skip
    assert attached.result()["agent"]["attached_collection_names"] == ["agent-a", "agent-b"]
    detached = await quire(
        harness.address, keys.all, "agents", "detach", "helper", "--collection", "agent-a",
        "--json",
    )  # fmt: skip
    assert detached.result()["agent"]["attached_collection_names"] == ["agent-b"]
    ls = await quire(harness.address, keys.all, "agents", "ls")
    assert ls.code == 0 and "helper" in ls.stdout and "agent-b" in ls.stdout
    found = await quire(harness.address, keys.all, "search", "anything", "--agent", "helper")
    assert found.code == 0, found.stderr

    # Without a terminal to ask on, rm needs --yes; the agent stays.
    unasked = await quire(harness.address, keys.all, "agents", "rm", "helper", "--json")
    assert unasked.code == 7 and "--yes" in unasked.json()["error"]["message"]
    assert (await client.get_agent(agent_id="helper")).agent_id == "helper"
    removed = await quire(harness.address, keys.all, "agents", "rm", "helper", "--yes")
    assert removed.code == 0 and 'deleted agent "helper"' in removed.stdout
    again = await quire(harness.address, keys.all, "agents", "rm", "helper", "--yes", "--json")
    assert again.code == 4
    assert again.json()["error"]["message"] == 'agent "helper" not found'


@pytest.mark.slow  # 24 s under load (`make test-fast` leaves it out)
async def test_not_found_messages_name_the_object(harness: Harness, keys: Keys) -> None:
    cases = [
        (("pages", "search", "q", "--namespace", "nope"), 'namespace "nope" not found'),
        (("pages", "report", "--namespace", "nope"), 'no sync report for namespace "nope"'),
        (("pages", "read", "/a.md", "--namespace", "nope"), 'namespace "nope" not found'),
        (("collections", "show", "nope"), 'collection "nope" not found'),
        (("search", "q", "--agent", "ghost"), 'agent "ghost" not found'),
        (
            ("docs", "read", "absent.txt", "--collection", "agent-a"),
            'document "absent.txt" not found in collection "agent-a"',
        ),
    ]
    for args, message in cases:
        shown = await quire(harness.address, keys.all, *args)
        assert shown.code == 4 and f"quire: {message}" in shown.stderr, (args, shown.stderr)
        as_json = await quire(harness.address, keys.all, *args, "--json")
        assert as_json.json()["error"]["message"].startswith(message)


@pytest.mark.slow  # 9 s under load (`make test-fast` leaves it out)
async def test_collections_rm_confirms_and_says_what_was_deleted(
    harness: Harness, keys: Keys, client: AsyncQuireClient
) -> None:
    import pty

    doomed = await client.create_collection(name="doomed")
    await client.upload_document(collection_id=doomed.collection_id, file_name="a.txt", data=b"a")

    async def answered(answer: bytes) -> Result:
        controller, terminal = pty.openpty()
        try:
            os.write(controller, answer)
            return await quire(
                harness.address, keys.all, "collections", "rm", "doomed", stdin=terminal
            )
        finally:
            os.close(controller)
            os.close(terminal)

    declined = await answered(b"n\n")
    assert declined.code == 7 and 'Delete collection "doomed"' in declined.stderr
    assert "and its 1 documents?" in declined.stderr and "nothing deleted" in declined.stderr
    assert (await client.get_collection(collection_id=doomed.collection_id)).name == "doomed"
    confirmed = await answered(b"y\n")
    assert confirmed.code == 0, confirmed.stderr
    assert f'deleted collection "doomed" ({doomed.collection_id}) and its 1 documents' in (
        confirmed.stdout
    )
    with pytest.raises(Exception, match="not found"):
        await client.get_collection(collection_id=doomed.collection_id)

    await client.create_collection(name="doomed-too")
    skipped = await quire(
        harness.address, keys.all, "collections", "rm", "doomed-too", "--yes", "--json"
    )
    assert skipped.code == 0 and skipped.result()["deleted"]["name"] == "doomed-too"


@pytest.mark.slow  # 25 s under load (`make test-fast` leaves it out)
async def test_search_names_collections_renders_highlights_and_states_the_bound(
    harness: Harness, keys: Keys, tmp_path: Path
) -> None:
    note = tmp_path / "seals.txt"
    note.write_text("Grey seals haul out on the sandbanks at low tide.\n")
    for name in ("coast-a", "coast-b"):
        up = await quire(
            harness.address, keys.all, "docs", "upload", str(note), "--collection", name
        )
        assert up.code == 0, up.stderr
    both = ("--collection", "coast-a", "--collection", "coast-b", "--mode", "LEGACY_FTS")
    found = await quire(harness.address, keys.all, "search", "seals", *both, "--json")
    assert found.code == 0, found.stderr
    hits = found.result()["hits"]
    assert sorted(h["collection_name"] for h in hits) == ["coast-a", "coast-b"]
    assert all("<b>" in h["snippet"] for h in hits)  # the data keeps the marks

    terminal = {"TTY_COMPATIBLE": "1", "COLUMNS": "160"}
    drawn = await quire(harness.address, keys.all, "search", "seals", *both, env=terminal)
    assert drawn.code == 0, drawn.stderr
    assert "<b>" not in drawn.stdout and "\x1b[1mseals" in drawn.stdout.replace("\x1b[0m", "")
    assert "coast-a" in drawn.stdout and "coast-b" in drawn.stdout
    plain = await quire(
        harness.address, keys.all, "search", "seals", *both, "--plain", env=terminal
    )
    assert plain.code == 0 and "<b>" not in plain.stdout and "\x1b[" not in plain.stdout
    header, *rows = plain.stdout.splitlines()
    assert header.split("\t") == ["#", "score", "collection", "file", "section", "snippet"]
    assert sorted(r.split("\t")[2] for r in rows) == ["coast-a", "coast-b"]
    assert all("Grey seals haul out" in r for r in rows)

    # The organisation's bound (8), not the contract's 50, and how to raise it.
    over = await quire(harness.address, keys.all, "search", "seals", *both, "--limit", "20")
    assert over.code == 6
    assert "must be 1–8, the organisation's bound" in over.stderr
    assert "quire policy set --max-search-limit N" in over.stderr
    helped = await cli("search", "--help", env={"COLUMNS": "200"})
    assert "your organisation's bound" in helped.stdout and "1–50" not in helped.stdout
    raised = await quire(
        harness.address, keys.all, "policy", "set", "--max-search-limit", "20", "--json"
    )
    try:
        assert raised.code == 0 and raised.result()["policy"]["max_search_limit"] == 20
        now = await quire(harness.address, keys.all, "search", "seals", *both, "--limit", "20")
        assert now.code == 0, now.stderr
        me = await quire(harness.address, keys.read, "whoami", "--json")
        assert me.result()["policy"]["max_search_limit"] == 20
    finally:
        reset = await quire(harness.address, keys.all, "policy", "set", "--max-search-limit", "8")
        assert reset.code == 0, reset.stderr


@pytest.mark.slow  # 4 s under load (`make test-fast` leaves it out)
async def test_sync_progress_keeps_its_counts_at_80_columns(
    harness: Harness, keys: Keys, site: SiteServer
) -> None:
    synced = await quire(
        harness.address,
        keys.all,
        "pages",
        "sync",
        f"{site.url}/llms.txt",
        "--namespace",
        "narrow",
        env={"TTY_COMPATIBLE": "1", "COLUMNS": "80"},
    )
    assert synced.code == 0, synced.stderr
    drawn = synced.stderr.replace("\r", "\n")
    assert f"{SITE_PAGES}/{SITE_PAGES}" in drawn  # the counts, whole
    assert "…" not in drawn
    widest = max(len(_visible(line)) for line in drawn.splitlines())
    assert widest <= 80


def _visible(line: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line)


@pytest.mark.slow  # 18 s under load (`make test-fast` leaves it out)
async def test_up_names_the_dev_keys_organisation_and_the_console(embeddings: Any) -> None:
    import re
    import urllib.request

    from tests.reliability.test_database_supervision import _quire_up

    async with _quire_up("http://127.0.0.1:1") as up:
        deadline = asyncio.get_running_loop().time() + 30
        while "Stop with Ctrl-C." not in (printed := up.out.read_text()):  # its last line
            assert asyncio.get_running_loop().time() < deadline, printed
            await asyncio.sleep(0.05)
        assert "Dev API key of organisation 'dev', all scopes (shown once" in printed
        console = re.search(r"Console: (http://127\.0\.0\.1:\d+/)", printed)
        assert console, printed
        page = await asyncio.to_thread(lambda: urllib.request.urlopen(console.group(1)).read())
        assert b"<html" in page.lower()
        me = await quire(up.address, up.key, "whoami", "--json")
        assert me.code == 0, me.stderr
        assert me.result()["organisation"] == "dev"
