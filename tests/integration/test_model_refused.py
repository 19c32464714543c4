"""A prepared model whose files were changed after `quire model prepare` is refused when the
server starts (issue 31): serving it would mix its vectors with the ones already stored. A
model that was never prepared still lets the server start (warning; embedding calls fail)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from quire.indexer.embedding import DEFAULT_MODEL_NAME
from quire.indexer.home import models_dir


async def _serve(home: Path, database_url: str) -> tuple[int, str]:
    env = {
        **os.environ,
        "QUIRE_HOME": str(home),
        "QUIRE_DATABASE_URL": database_url,
        "QUIRE_ADDRESS": "127.0.0.1:0",
        "QUIRE_HTTP_ADDRESS": "",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "quire.server.cli",
        "serve",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError("quire serve kept running on a tampered model") from None
    assert process.returncode is not None
    return process.returncode, stderr.decode()


@pytest.mark.slow  # 5 s under load (`make test-fast` leaves it out)
async def test_serve_refuses_a_tampered_model(
    tmp_path: Path, database_url: str, embeddings: Any
) -> None:
    model = tmp_path / "models" / DEFAULT_MODEL_NAME
    shutil.copytree(models_dir() / DEFAULT_MODEL_NAME, model)
    tokenizer = model / "tokenizer.json"
    data = bytearray(tokenizer.read_bytes())
    data[-2] = ord(" ") if data[-2] != ord(" ") else ord("\n")  # same size, other bytes
    tokenizer.write_bytes(bytes(data))

    code, stderr = await _serve(tmp_path, database_url)

    assert code == 1, stderr
    assert "quire: cannot start" in stderr
    assert "tokenizer.json does not match its sha256" in stderr
    assert "run `quire model prepare" in stderr
    assert "Traceback" not in stderr
