"""Tests for quire.indexer.pages.guard: the SSRF policy, DNS pinning and redirect re-checks.

No test sends traffic to a non-loopback address: names are resolved by fake resolvers and
connections to "public" addresses go to a fake network backend that records them.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable, Sequence

import httpcore
import httpx
import pytest

from quire.indexer.pages.fetch import FetchError, PageFetcher
from quire.indexer.pages.guard import (
    GuardedTransport,
    SourcePolicy,
    SourceRejected,
    is_public_address,
    normalise_origin,
)
from tests.support.site_server import Reply, SiteServer

PUBLIC = "93.184.216.34"


class FakeResolver:
    """Answers from a script: one answer per call, the last one repeating."""

    def __init__(self, *answers: Sequence[str]) -> None:
        self.answers = list(answers)
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls.append(host)
        return self.answers[min(len(self.calls), len(self.answers)) - 1]


async def no_dns(host: str, port: int) -> Sequence[str]:
    raise AssertionError(f"resolver must not be used for {host!r}")


class FakeStream(httpcore.AsyncNetworkStream):
    def __init__(self, response: bytes) -> None:
        self._response = response

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        data, self._response = self._response[:max_bytes], self._response[max_bytes:]
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        return None

    async def aclose(self) -> None:
        return None

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        return self


class FakeBackend(httpcore.AsyncNetworkBackend):
    """Records where it is asked to connect; serves canned responses or refuses."""

    def __init__(self, *responses: bytes) -> None:
        self.responses = list(responses)
        self.connects: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        if not self.responses:
            raise httpcore.ConnectError("fake backend: connection refused")
        return FakeStream(self.responses.pop(0))

    async def sleep(self, seconds: float) -> None:
        return None


# --- addresses -----------------------------------------------------------------------------------

NOT_PUBLIC = [
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "127.0.0.1",
    "127.10.20.30",
    "169.254.169.254",
    "0.0.0.0",
    "100.64.0.1",
    "192.0.0.1",
    "198.18.0.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "febf::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "ff0e::1",
    "fec0::1",
    "2001:db8::1",
    "::ffff:10.0.0.1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a00:1",
    "64:ff9b:1::1",
    "2002:a00:1::1",
    "2002:7f00:1::1",
    "fe80::1%eth0",
    "not-an-ip",
]
PUBLIC_ADDRESSES = ["8.8.8.8", PUBLIC, "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_non_public_addresses(address: str) -> None:
    assert not is_public_address(address)


@pytest.mark.parametrize("address", PUBLIC_ADDRESSES)
def test_public_addresses(address: str) -> None:
    assert is_public_address(address)


# --- check_url -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/llms.txt",
        "https://172.16.5.4/llms.txt",
        "https://192.168.0.10/llms.txt",
        "https://127.0.0.1/llms.txt",
        "https://169.254.169.254/latest/meta-data",
        "https://0.0.0.0/",
        "https://[::1]/",
        "https://[fe80::1]/",
        "https://[fc00::1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://[::ffff:7f00:1]/",
    ],
)
async def test_private_ip_literals_are_rejected_without_dns(url: str) -> None:
    with pytest.raises(SourceRejected):
        await SourcePolicy(resolver=no_dns).check_url(url)


@pytest.mark.parametrize("answer", [["10.1.2.3"], ["127.0.0.1"], ["::1"], ["fd00::5"]])
async def test_hostname_resolving_to_private_address_is_rejected(answer: list[str]) -> None:
    resolver = FakeResolver(answer)
    with pytest.raises(SourceRejected, match="non-public"):
        await SourcePolicy(resolver=resolver).check_url("https://internal.example/llms.txt")
    assert resolver.calls == ["internal.example"]


async def test_any_private_address_among_several_rejects() -> None:
    resolver = FakeResolver([PUBLIC, "2606:4700::1", "10.0.0.7"])
    with pytest.raises(SourceRejected):
        await SourcePolicy(resolver=resolver).check_url("https://mixed.example/")


async def test_public_https_is_allowed_and_returns_the_checked_addresses() -> None:
    resolver = FakeResolver([PUBLIC, "2606:4700::1"])
    checked = await SourcePolicy(resolver=resolver).check_url("https://Docs.Example.com/llms.txt")
    assert checked.addresses == (PUBLIC, "2606:4700::1")
    assert checked.origin == "https://docs.example.com:443"
    assert checked.host == "docs.example.com"
    assert not checked.allow_listed


@pytest.mark.parametrize(
    "url",
    [
        "http://docs.example.com/llms.txt",  # https only
        "ftp://docs.example.com/llms.txt",
        "file:///etc/passwd",
        "gopher://docs.example.com/",
        "https://user:pw@docs.example.com/",
        "https:///nohost",
        "not a url",
    ],
)
async def test_unusable_urls_are_rejected(url: str) -> None:
    with pytest.raises(SourceRejected):
        await SourcePolicy(resolver=FakeResolver([PUBLIC])).check_url(url)


async def test_unresolvable_host_is_rejected() -> None:
    async def failing(host: str, port: int) -> Sequence[str]:
        raise OSError("Name or service not known")

    with pytest.raises(SourceRejected, match="cannot resolve"):
        await SourcePolicy(resolver=failing).check_url("https://nx.example/")
    with pytest.raises(SourceRejected, match="no address"):
        await SourcePolicy(resolver=FakeResolver([])).check_url("https://empty.example/")


async def test_system_resolver_names_for_loopback_are_rejected() -> None:
    policy = SourcePolicy()  # real getaddrinfo: these never leave the machine
    for url in ("https://localhost/", "https://2130706433/", "https://127.1/"):
        with pytest.raises(SourceRejected):
            await policy.check_url(url)


async def test_allow_list_admits_loopback_http_by_exact_origin() -> None:
    policy = SourcePolicy(["http://127.0.0.1:8123"], resolver=no_dns)
    checked = await policy.check_url("http://127.0.0.1:8123/llms.txt")
    assert checked.allow_listed
    with pytest.raises(SourceRejected):
        await policy.check_url("http://127.0.0.1:8124/llms.txt")  # other port
    with pytest.raises(SourceRejected):
        await policy.check_url("https://127.0.0.1:8123/llms.txt")  # other scheme


async def test_allow_list_origins_are_normalised() -> None:
    resolver = FakeResolver(["10.0.0.9"])
    policy = SourcePolicy(["https://Docs.Internal.Example/"], resolver=resolver)
    assert policy.allow_origins == frozenset({"https://docs.internal.example:443"})
    checked = await policy.check_url("https://docs.internal.example:443/llms.txt")
    assert checked.allow_listed and checked.addresses == ("10.0.0.9",)
    assert normalise_origin("http://[::1]") == "http://[::1]:80"


# --- pinning -------------------------------------------------------------------------------------


async def test_dns_rebinding_connection_uses_the_checked_address() -> None:
    # The name is public when checked and private on every later lookup.
    resolver = FakeResolver([PUBLIC], ["127.0.0.1"])
    backend = FakeBackend()
    transport = GuardedTransport(SourcePolicy(resolver=resolver), network_backend=backend)
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("https://rebind.example/llms.txt")
        assert backend.connects == [(PUBLIC, 443)]  # the checked address, not a new lookup
        assert resolver.calls == ["rebind.example"]  # resolved once
        # The next request is checked again: the private answer is refused, nothing connects.
        with pytest.raises(SourceRejected):
            await client.get("https://rebind.example/other.md")
        assert backend.connects == [(PUBLIC, 443)]


async def test_idn_hosts_are_checked_and_pinned_by_their_ascii_name() -> None:
    resolver = FakeResolver([PUBLIC])
    backend = FakeBackend()
    transport = GuardedTransport(SourcePolicy(resolver=resolver), network_backend=backend)
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("https://Bücher.example/llms.txt")
    assert resolver.calls == ["xn--bcher-kva.example"]
    assert backend.connects == [(PUBLIC, 443)]


async def test_dns_rebinding_through_the_fetcher() -> None:
    resolver = FakeResolver([PUBLIC], ["10.0.0.1"])
    backend = FakeBackend()
    policy = SourcePolicy(resolver=resolver)
    transport = GuardedTransport(policy, network_backend=backend)
    async with PageFetcher(policy, transport=transport, max_attempts=3, backoff_base=0.0) as f:
        with pytest.raises(FetchError) as caught:
            await f.fetch("https://rebind.example/page.md")
    # Attempt 1 connected to the checked public address (refused); attempt 2 was re-checked,
    # saw the private answer and was rejected without connecting.
    assert backend.connects == [(PUBLIC, 443)]
    assert caught.value.kind == "rejected"


async def test_pinned_connection_tries_each_checked_address() -> None:
    resolver = FakeResolver([PUBLIC, "8.8.8.8"])
    backend = FakeBackend()
    transport = GuardedTransport(SourcePolicy(resolver=resolver), network_backend=backend)
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("https://multi.example:8443/")
    assert backend.connects == [(PUBLIC, 8443), ("8.8.8.8", 8443)]


async def test_backend_used_without_a_check_checks_by_itself() -> None:
    from quire.indexer.pages.guard import _PinnedBackend

    backend = FakeBackend()
    pinned = _PinnedBackend(SourcePolicy(resolver=FakeResolver(["192.168.0.1"])), backend)
    with pytest.raises(SourceRejected):
        await pinned.connect_tcp("sneaky.example", 443)
    with pytest.raises(httpcore.ConnectError):
        await pinned.connect_unix_socket("/var/run/docker.sock")
    assert backend.connects == []


async def test_redirect_to_a_name_that_now_resolves_private_is_rejected() -> None:
    redirect = b"HTTP/1.1 302 Found\r\nLocation: /next.md\r\nContent-Length: 0\r\n\r\n"
    resolver = FakeResolver([PUBLIC], ["10.0.0.1"])
    backend = FakeBackend(redirect)
    policy = SourcePolicy(resolver=resolver)
    transport = GuardedTransport(policy, network_backend=backend)
    async with PageFetcher(policy, transport=transport, max_attempts=1) as fetcher:
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch("https://docs.example/start.md")
    assert caught.value.kind == "rejected"
    assert resolver.calls == ["docs.example", "docs.example"]  # each hop re-checked
    assert backend.connects == [(PUBLIC, 443)]


async def test_redirect_to_private_or_other_origin_is_rejected() -> None:
    other = SiteServer()
    other.route("/secret.md", Reply.text("secret"))
    server = SiteServer()
    with other as other_url, server as base:
        server.route("/to-metadata.md", Reply.redirect("http://169.254.169.254/latest/meta-data"))
        server.route("/to-private.md", Reply.redirect("https://10.0.0.1/x.md"))
        server.route("/to-other-port.md", Reply.redirect(f"{other_url}/secret.md"))
        policy = SourcePolicy([base, other_url], resolver=no_dns)
        async with PageFetcher(policy, max_attempts=1) as fetcher:
            for path in ("/to-metadata.md", "/to-private.md", "/to-other-port.md"):
                with pytest.raises(FetchError) as caught:
                    await fetcher.fetch(base + path)
                assert caught.value.kind == "rejected", path
        assert other.count("/secret.md") == 0


async def test_loopback_without_allow_list_never_reaches_the_server() -> None:
    server = SiteServer()
    with server as base:
        server.route("/x.md", Reply.text("x"))
        async with PageFetcher(SourcePolicy(), max_attempts=1) as fetcher:
            with pytest.raises(FetchError) as caught:
                await fetcher.fetch(base + "/x.md")
            https = base.replace("http://", "https://")
            with pytest.raises(FetchError) as caught_https:
                await fetcher.fetch(https + "/x.md")
        assert caught.value.kind == "rejected" and caught_https.value.kind == "rejected"
        assert server.total() == 0


def test_transport_ignores_environment_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.0.0.1:3128")
    transport = GuardedTransport(SourcePolicy())
    assert isinstance(transport._pool, httpcore.AsyncConnectionPool)
    fetcher = PageFetcher(SourcePolicy())
    assert fetcher._client._mounts == {}
    assert isinstance(fetcher._client._transport, GuardedTransport)
