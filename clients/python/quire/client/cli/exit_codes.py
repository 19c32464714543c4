"""What a `quire` network command's exit code says failed (docs/cli.md, "Exit codes")."""

from __future__ import annotations

from quire.client import exceptions as qe

OK = 0
# The command ran, but some of its items failed (files, pages, documents); see its summary.
PARTLY_FAILED = 1
# Bad command line (argparse also exits 2).
USAGE = 2
# The server refused the API key, or the key lacks the scope.
AUTH = 3
# A named collection, document, agent, namespace or page does not exist.
NOT_FOUND = 4
# The server could not be reached, went away, or did not answer in time.
UNREACHABLE = 5
# The server rejected the request (invalid input, limits, conflicts) or failed.
REJECTED = 6
# A confirmation was declined, or could not be asked (no terminal, and no --yes).
DECLINED = 7
INTERRUPTED = 130

_NOT_FOUND = (
    qe.NotFound,
    qe.CollectionNotFound,
    qe.DocumentNotFound,
    qe.AgentNotFound,
    qe.PageNotFound,
)


def for_error(exc: qe.QuireError) -> int:
    if isinstance(exc, qe.Unauthenticated | qe.PermissionDenied):
        return AUTH
    if isinstance(exc, _NOT_FOUND):
        return NOT_FOUND
    if isinstance(exc, qe.Unavailable | qe.DeadlineExceeded):
        return UNREACHABLE
    return REJECTED


__all__ = [
    "AUTH",
    "DECLINED",
    "INTERRUPTED",
    "NOT_FOUND",
    "OK",
    "PARTLY_FAILED",
    "REJECTED",
    "UNREACHABLE",
    "USAGE",
    "for_error",
]
