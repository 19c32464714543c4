"""TLS end to end with the Python client: server certificate, then mutual TLS.

Certificates are made per run with the openssl command line (a throwaway CA, a server
certificate for 127.0.0.1 and a client certificate)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.client import exceptions as qe
from tests.conftest import Harness

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    d = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "1", "-subj", "/CN=Quire test CA", cwd=d)  # fmt: skip
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for name in ("server", "client"):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
                 f"{name}.csr", "-subj", f"/CN=quire-{name}", cwd=d)  # fmt: skip
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "1", "-extfile",
                 f"{name}.ext", cwd=d)  # fmt: skip
    return d


async def _serve(harness: Harness, certs: Path, mutual: bool) -> AsyncIterator[str]:
    from quire.server.app import start
    from quire.server.config import Settings
    from quire.server.storage.database import create_pool

    base = harness.running.state.settings  # type: ignore[attr-defined]
    settings = Settings(
        address="127.0.0.1:0",
        database_url=base.database_url,
        grace_seconds=0.5,
        tls_cert_file=str(certs / "server.pem"),
        tls_key_file=str(certs / "server.key"),
        tls_client_ca_file=str(certs / "ca.pem") if mutual else "",
    )
    pool = await create_pool(base.database_url, min_size=1, max_size=4)
    running = await start(settings, pool)
    try:
        yield f"127.0.0.1:{running.port}"
    finally:
        await running.stop(grace=0.5)


@pytest_asyncio.fixture(loop_scope="session")
async def tls_address(harness: Harness, certs: Path) -> AsyncIterator[str]:
    async for address in _serve(harness, certs, mutual=False):
        yield address


@pytest_asyncio.fixture(loop_scope="session")
async def mtls_address(harness: Harness, certs: Path) -> AsyncIterator[str]:
    async for address in _serve(harness, certs, mutual=True):
        yield address


async def test_server_certificate(harness: Harness, certs: Path, tls_address: str) -> None:
    keys = await harness.keys("tls-org")
    async with AsyncQuireClient(
        tls_address, api_key=keys.all, tls=True, root_certificates=certs / "ca.pem"
    ) as client:
        made = await client.create_collection(name="over-tls")
        assert made.name == "over-tls"
    # A plaintext client cannot talk to the TLS port.
    async with AsyncQuireClient(tls_address, api_key=keys.all) as plain:
        with pytest.raises(qe.Unavailable):
            await plain.list_collections(timeout=3)


async def test_mutual_tls_requires_a_client_certificate(
    harness: Harness, certs: Path, mtls_address: str
) -> None:
    keys = await harness.keys("mtls-org")
    async with AsyncQuireClient(
        mtls_address,
        api_key=keys.all,
        tls=True,
        root_certificates=certs / "ca.pem",
        private_key=certs / "client.key",
        certificate_chain=certs / "client.pem",
    ) as client:
        assert await client.list_collections() == []
    async with AsyncQuireClient(
        mtls_address, api_key=keys.all, tls=True, root_certificates=certs / "ca.pem"
    ) as anonymous:
        with pytest.raises(qe.Unavailable):
            await anonymous.list_collections(timeout=3)
