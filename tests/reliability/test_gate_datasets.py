"""RunGate reads data sets only by name from the directory the operator configured
(`--gate-datasets`), and its refusals say nothing about the rest of the server's filesystem:
every name that is not a data set there (a system path, a traversal, a symlink out of the
directory, a plain file, a name that does not exist) gets one and the same answer, and a
server with no directory configured refuses RunGate outright.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from grpc import aio

from quire.v1 import admin_service_pb2, admin_service_pb2_grpc, errors_pb2
from tests.conftest import Harness, Keys, bearer
from tests.reliability._support import typed_detail

pytestmark = pytest.mark.asyncio(loop_scope="session")
NEEDS_MODEL = True

# Three documents, two judged queries: enough for a real gate run in seconds.
CORPUS = {
    "d1": ("Walruses", "Walruses haul out on sea ice and eat clams on the sea floor."),
    "d2": ("Okapis", "The okapi is a forest giraffid of the Congo with striped legs."),
    "d3": ("Gnus", "Wildebeest migrate across the Serengeti following the rains."),
}
QUERIES = {"q1": "what do walruses eat", "q2": "striped forest giraffe relative"}
QRELS = {"q1": "d1", "q2": "d2"}


def write_dataset(root: Path) -> Path:
    """A BEIR-layout data set (corpus.jsonl, queries.jsonl, qrels/test.tsv) at `root`."""
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as out:
        for doc_id, (title, text) in CORPUS.items():
            out.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w") as out:
        for query_id, text in QUERIES.items():
            out.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    rows = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t1" for q, d in QRELS.items()]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    return root


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The configured directory holds one data set, a plain file, a directory that is not a
    data set, and a symlink to a valid data set outside it; another data set lies outside."""
    base = tmp_path_factory.mktemp("gate")
    configured = base / "datasets"
    configured.mkdir()
    write_dataset(configured / "tiny")
    outside = write_dataset(base / "outside" / "secret-set")
    (configured / "notes.txt").write_text("not a data set\n")
    (configured / "empty").mkdir()
    os.symlink(outside, configured / "escape")
    os.symlink("/etc", configured / "etc-link")
    return {"configured": configured, "outside": outside, "base": base}


async def _server(harness: Harness, gate_datasets: str) -> AsyncIterator[aio.Channel]:
    from quire.server.app import start
    from quire.server.config import Settings
    from quire.server.storage.database import create_pool

    base = harness.running.state.settings  # type: ignore[attr-defined]
    settings = Settings(
        address="127.0.0.1:0",
        database_url=base.database_url,
        grace_seconds=0.5,
        gate_datasets=gate_datasets,
    )
    pool = await create_pool(base.database_url, min_size=1, max_size=6)
    model = harness.running.state.embeddings  # type: ignore[attr-defined]
    running = await start(settings, pool, model)
    channel = aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield channel
    finally:
        await channel.close(None)
        await running.stop(grace=0.5)
        await pool.close()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def configured(harness: Harness, layout: dict[str, Path]) -> AsyncIterator[aio.Channel]:
    async for channel in _server(harness, str(layout["configured"])):
        yield channel


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def unconfigured(harness: Harness) -> AsyncIterator[aio.Channel]:
    async for channel in _server(harness, ""):
        yield channel


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def keys(harness: Harness) -> Keys:
    return await harness.keys("gate-probe")


async def _run(
    channel: aio.Channel, keys: Keys, dataset: str, split: str = "test"
) -> list[admin_service_pb2.RunGateResponse]:
    admin = admin_service_pb2_grpc.AdminServiceStub(channel)
    request = admin_service_pb2.RunGateRequest(dataset=dataset, split=split)
    return [m async for m in admin.RunGate(request, metadata=bearer(keys.admin), timeout=300)]


async def _refusal(
    channel: aio.Channel, keys: Keys, dataset: str, split: str = "test"
) -> tuple[grpc.StatusCode, errors_pb2.ErrorDetail]:
    with pytest.raises(aio.AioRpcError) as refused:
        await _run(channel, keys, dataset, split)
    return refused.value.code(), typed_detail(refused.value)


def _probes(layout: dict[str, Path]) -> list[str]:
    return [
        "/root",
        "/etc",
        "../..",
        "..",
        ".",
        "/",
        str(layout["outside"]),  # an absolute path to a valid data set
        str(layout["configured"] / "tiny"),  # even the configured one, by path
        "tiny/",
        "tiny/../tiny",
        "escape",  # symlink to a valid data set outside the directory
        "etc-link",
        "notes.txt",  # a plain file
        "empty",  # a directory without corpus.jsonl
        "no-such-set",
        "x" * 300,
    ]


async def test_probes_all_get_one_answer_that_names_no_path(
    configured: aio.Channel, keys: Keys, layout: dict[str, Path]
) -> None:
    answers = {}
    for probe in _probes(layout):
        code, detail = await _refusal(configured, keys, probe)
        answers[probe] = (code, detail.code, detail.message, tuple(detail.field_violations))
    distinct = set(answers.values())
    assert len(distinct) == 1, "\n".join(f"{p!r}: {a}" for p, a in answers.items())
    code, error_code, message, violations = distinct.pop()
    assert code == grpc.StatusCode.NOT_FOUND and error_code == errors_pb2.ERROR_CODE_NOT_FOUND
    assert "/" not in message and str(layout["base"]) not in message, message
    assert not violations


async def test_a_configured_name_runs(configured: aio.Channel, keys: Keys) -> None:
    replies = await _run(configured, keys, "tiny")
    result = replies[-1].result
    assert replies[-1].WhichOneof("message") == "result"
    assert result.dataset == "tiny" and result.split == "test"
    assert result.documents == 3 and result.queries == 2
    assert {m.label for m in result.metrics} == {"legacy_fts", "hybrid", "vector_only"}


async def test_an_unknown_split_names_no_path(
    configured: aio.Channel, keys: Keys, layout: dict[str, Path]
) -> None:
    code, detail = await _refusal(configured, keys, "tiny", split="nosuch")
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in detail.field_violations] == ["split"]
    assert str(layout["base"]) not in detail.message and "/tmp" not in detail.message


async def test_without_a_configured_directory_run_gate_is_refused(
    unconfigured: aio.Channel, keys: Keys, layout: dict[str, Path]
) -> None:
    answers = set()
    for probe in ("tiny", "/root", str(layout["configured"] / "tiny")):
        code, detail = await _refusal(unconfigured, keys, probe)
        answers.add((code, detail.code, detail.message))
    assert len(answers) == 1, answers
    code, error_code, message = answers.pop()
    assert code == grpc.StatusCode.UNIMPLEMENTED
    assert error_code == errors_pb2.ERROR_CODE_UNIMPLEMENTED
    assert "gate-datasets" in message and "/" not in message, message
