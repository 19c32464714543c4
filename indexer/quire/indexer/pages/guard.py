"""SSRF guard for page sources (DESIGN §7, ``docs/page-sources.md``).

A URL may be fetched when either

- its origin (``scheme://host[:port]``, default port implied) is in ``SourcePolicy.allow_origins``
  (``--allow-source``; tests use it for loopback), or
- its scheme is ``https`` and *every* address its host resolves to is globally routable
  (``is_public_address``).

URLs with credentials (``user@host``) or a scheme other than http/https are always rejected.

DNS is resolved once per check and the connection is pinned to the checked addresses:
``GuardedTransport`` checks every request it sends and its network backend connects to one of the
addresses that check returned (the TLS SNI and certificate check still use the host name). A
DNS answer that changes between check and connect therefore cannot reach another address. If the
backend is ever asked to connect without a matching check (it should not happen) it resolves and
checks on its own before connecting, so no code path connects to an unchecked address. Proxies
from the environment are never used.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import httpcore
import httpx

__all__ = [
    "CheckedURL",
    "GuardedTransport",
    "Resolver",
    "SourcePolicy",
    "SourceRejected",
    "is_public_address",
    "normalise_origin",
    "system_resolver",
]

#: ``async (host, port) -> addresses``; the default is the system resolver (getaddrinfo).
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")


class SourceRejected(ValueError):
    """The URL may not be fetched under the source policy."""


def is_public_address(address: str) -> bool:
    """True when ``address`` is a globally routable unicast address.

    IPv4-mapped (``::ffff:a.b.c.d``), NAT64 (``64:ff9b::/96``) and 6to4 (``2002::/16``) IPv6
    addresses are judged by the IPv4 address they embed. Multicast, reserved, unspecified,
    loopback, link-local, private and shared (100.64/10) addresses are never public.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public_address(str(ip.ipv4_mapped))
        if ip in _NAT64:
            return is_public_address(str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)))
        if ip in _NAT64_LOCAL:
            return False
        if ip.sixtofour is not None:
            return is_public_address(str(ip.sixtofour))
        if ip.is_site_local:
            return False
    return bool(
        ip.is_global
        and not ip.is_multicast
        and not ip.is_reserved
        and not ip.is_unspecified
        and not ip.is_loopback
        and not ip.is_link_local
        and not ip.is_private
    )


def _split(url: str) -> tuple[str, str, int]:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise SourceRejected(f"invalid URL {url!r}: {exc}") from None
    scheme = parsed.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise SourceRejected(f"scheme {scheme or '(none)'!r} is not allowed: {url!r}")
    if parsed.userinfo:
        raise SourceRejected(f"credentials in URL are not allowed: {url!r}")
    # raw_host is what httpcore connects to (IDNA-encoded, IPv6 without brackets).
    host = parsed.raw_host.decode("ascii").lower().rstrip(".")
    if not host:
        raise SourceRejected(f"URL has no host: {url!r}")
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS[scheme]
    return scheme, host, port


def normalise_origin(origin: str) -> str:
    """``scheme://host:port`` with the port always explicit (``https://a.example`` → ``:443``)."""
    scheme, host, port = _split(origin)
    return f"{scheme}://{_bracket(host)}:{port}"


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6), in resolver order."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: dict[str, None] = {}
    for info in infos:
        seen.setdefault(str(info[4][0]), None)
    return list(seen)


@dataclass(frozen=True)
class CheckedURL:
    """A URL that passed ``SourcePolicy.check_url``; ``addresses`` is what to connect to."""

    url: str
    origin: str  # scheme://host:port, port explicit
    host: str
    port: int
    addresses: tuple[str, ...]
    allow_listed: bool


class SourcePolicy:
    """Which page source URLs may be fetched; see the module docstring."""

    def __init__(
        self,
        allow_origins: Iterable[str] = (),
        *,
        resolver: Resolver | None = None,
    ) -> None:
        self.allow_origins: frozenset[str] = frozenset(
            normalise_origin(origin) for origin in allow_origins
        )
        self._resolver: Resolver = resolver if resolver is not None else system_resolver

    def origin(self, url: str) -> str:
        """The normalised origin of ``url`` (raises ``SourceRejected`` for unusable URLs)."""
        scheme, host, port = _split(url)
        return f"{scheme}://{_bracket(host)}:{port}"

    async def resolve(self, host: str, port: int) -> tuple[str, ...]:
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            pass
        else:
            return (str(literal),)
        try:
            addresses = tuple(await self._resolver(host, port))
        except (OSError, UnicodeError) as exc:
            raise SourceRejected(f"cannot resolve {host!r}: {exc}") from None
        if not addresses:
            raise SourceRejected(f"{host!r} resolves to no address")
        return addresses

    async def check_url(self, url: str) -> CheckedURL:
        """Check ``url`` (resolving its host once); raises ``SourceRejected`` when not allowed."""
        scheme, host, port = _split(url)
        origin = f"{scheme}://{_bracket(host)}:{port}"
        if origin in self.allow_origins:
            addresses = await self.resolve(host, port)
            return CheckedURL(url, origin, host, port, addresses, allow_listed=True)
        if scheme != "https":
            raise SourceRejected(f"only https sources are allowed (not in allow-list): {url!r}")
        addresses = await self.resolve(host, port)
        blocked = [address for address in addresses if not is_public_address(address)]
        if blocked:
            raise SourceRejected(
                f"{host!r} resolves to a non-public address ({', '.join(blocked)}): {url!r}"
            )
        return CheckedURL(url, origin, host, port, addresses, allow_listed=False)

    async def check_host(self, host: str, port: int) -> CheckedURL:
        """Check a bare ``host:port`` (either scheme's origin may allow-list it)."""
        host = host.lower().rstrip(".")
        for scheme in ("https", "http"):
            origin = f"{scheme}://{_bracket(host)}:{port}"
            if origin in self.allow_origins:
                addresses = await self.resolve(host, port)
                return CheckedURL(origin + "/", origin, host, port, addresses, allow_listed=True)
        return await self.check_url(f"https://{_bracket(host)}:{port}/")


_CURRENT: contextvars.ContextVar[CheckedURL | None] = contextvars.ContextVar(
    "quire_pages_checked_url", default=None
)


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects only to addresses that the policy checked for the request being sent."""

    def __init__(self, policy: SourcePolicy, inner: httpcore.AsyncNetworkBackend) -> None:
        self._policy = policy
        self._inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        checked = _CURRENT.get()
        if checked is None or checked.host != host.lower().rstrip(".") or checked.port != port:
            # Not reached through GuardedTransport; check here rather than trust the name.
            checked = await self._policy.check_host(host, port)
        last: Exception | None = None
        for address in checked.addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not page sources")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def _ssl_context(verify: bool) -> ssl.SSLContext:
    """One shared context per mode: loading the CA bundle costs ~50 ms per client otherwise."""
    return httpx.create_ssl_context(verify=verify, trust_env=False)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """An httpx transport that checks every request against ``policy`` and pins its connection.

    Never uses environment proxies. ``network_backend`` is for tests (a fake that records where
    it was asked to connect); the default is httpcore's own backend.
    """

    def __init__(
        self,
        policy: SourcePolicy,
        *,
        limits: httpx.Limits | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        verify: bool = True,
    ) -> None:
        limits = limits if limits is not None else httpx.Limits()
        context = _ssl_context(verify)
        super().__init__(trust_env=False, limits=limits, verify=context)
        self.policy = policy
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_PinnedBackend(
                policy, network_backend if network_backend is not None else httpcore.AnyIOBackend()
            ),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        checked = await self.policy.check_url(str(request.url))
        token = _CURRENT.set(checked)
        try:
            return await super().handle_async_request(request)
        finally:
            _CURRENT.reset(token)
