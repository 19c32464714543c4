"""The runnable examples in examples/python work against a live server (CI runs them)."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from tests.conftest import REPO, Harness

# The module takes 5 s under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]


async def run(script: str, *args: str, env: dict[str, str]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(REPO / "examples" / "python" / script),
        *args,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode()


async def test_first_call_lists_collections(harness: Harness) -> None:
    keys = await harness.keys("example-org")
    code, out = await run("first_call.py", harness.address, env={"QUIRE_API_KEY": keys.read})
    assert code == 0, out
    assert "collection(s)" in out


async def test_typed_example_runs(harness: Harness) -> None:
    keys = await harness.keys("typed-example-org")
    code, out = await run(
        "typed_example.py",
        harness.address,
        env={"QUIRE_API_KEY": keys.write, "QUIRE_ADDRESS": harness.address},
    )
    assert code == 0, out
