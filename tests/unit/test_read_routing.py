"""Read-replica routing without a database: tokens, the read set, settings, lag in seconds."""

from __future__ import annotations

import time

import pytest

from quire.server.config import MAX_REPLICA_WAIT_MS, Settings
from quire.server.contract.tables import SCOPE_BY_METHOD
from quire.server.failures import QuireError
from quire.server.read_routing import (
    REPLICA_READS,
    TOKEN_KEY,
    TOKEN_MAX_CHARS,
    requested_token,
)
from quire.server.storage.replicas import (
    ReplicaSet,
    format_token,
    parse_token,
    replica_name,
)
from quire.v1 import errors_pb2


@pytest.mark.parametrize("text", ["0/0", "0/16B3748", "1A/FF", "FFFFFFFF/FFFFFFFF"])
def test_tokens_round_trip(text: str) -> None:
    assert format_token(parse_token(text)) == text


def test_tokens_compare_as_wal_positions() -> None:
    assert parse_token("1/0") > parse_token("0/FFFFFFFF") > parse_token("0/16B3748")


def test_a_token_of_the_longest_length_is_accepted_and_one_longer_refused() -> None:
    longest = "FFFFFFFF/FFFFFFFF"
    assert len(longest) == TOKEN_MAX_CHARS
    assert requested_token(((TOKEN_KEY, longest),)) == 2**64 - 1
    with pytest.raises(QuireError) as refused:
        requested_token(((TOKEN_KEY, "0" + longest),))
    assert refused.value.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert TOKEN_KEY in refused.value.message and str(TOKEN_MAX_CHARS) in refused.value.message


@pytest.mark.parametrize(
    "bad", ["", "16B3748", "0/", "/1", "0/xyz", "1/2/3", "-1/0", "0x1/0", "+1/0"]
)
def test_a_malformed_token_is_refused_naming_the_metadata(bad: str) -> None:
    with pytest.raises(QuireError) as refused:
        requested_token((("authorization", "Bearer k"), (TOKEN_KEY, bad)))
    assert refused.value.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert TOKEN_KEY in refused.value.message


def test_no_token_means_any_position() -> None:
    assert requested_token((("authorization", "Bearer k"),)) == 0
    assert requested_token(None) == 0


def test_the_replica_reads_are_real_read_only_methods() -> None:
    assert REPLICA_READS.issubset(SCOPE_BY_METHOD)
    # Writes and the watches (LISTEN) never go to a replica.
    for method in ("UploadDocument", "UpsertAgent", "SyncPages", "WatchDocuments", "RunGate"):
        assert not any(m.endswith(f"/{method}") for m in REPLICA_READS)
    assert "/quire.v1.KnowledgeService/SearchKnowledge" in REPLICA_READS


def test_the_replica_reads_are_the_contracts_idempotent_reads() -> None:
    """Both sets are generated from `idempotency_level`: the replica reads (NO_SIDE_EFFECTS)
    and the retried calls (NO_SIDE_EFFECTS or IDEMPOTENT). They are equal while no RPC is
    IDEMPOTENT only; one that is (a retryable write) must never reach a replica."""
    from quire.client._contract import IDEMPOTENT_RPCS

    assert {m.rpartition("/")[2] for m in REPLICA_READS} == set(IDEMPOTENT_RPCS)


def test_replica_names_carry_no_credentials() -> None:
    assert replica_name("postgresql://quire:secret@db-2:5433/quire") == "db-2:5433/quire"


def test_replica_settings_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "QUIRE_DATABASE_REPLICA_URLS", "postgresql://a:5432/q, postgresql://b:5432/q,"
    )
    monkeypatch.setenv("QUIRE_REPLICA_MAX_LAG_BYTES", "1024")
    monkeypatch.setenv("QUIRE_REPLICA_MAX_LAG_S", "2.5")
    monkeypatch.setenv("QUIRE_REPLICA_WAIT_MS", "100")
    settings = Settings.from_env()
    assert settings.database_replica_urls == ["postgresql://a:5432/q", "postgresql://b:5432/q"]
    assert (settings.replica_max_lag_bytes, settings.replica_max_lag_s) == (1024, 2.5)
    assert settings.replica_wait_ms == 100
    settings.check_replicas()


def test_replica_wait_is_bounded_at_its_edges() -> None:
    Settings(replica_wait_ms=0).check_replicas()
    Settings(replica_wait_ms=MAX_REPLICA_WAIT_MS).check_replicas()
    with pytest.raises(RuntimeError, match="QUIRE_REPLICA_WAIT_MS"):
        Settings(replica_wait_ms=MAX_REPLICA_WAIT_MS + 1).check_replicas()
    with pytest.raises(RuntimeError, match="QUIRE_REPLICA_WAIT_MS"):
        Settings(replica_wait_ms=-1).check_replicas()


def test_lag_bounds_are_refused_below_their_minimum() -> None:
    Settings(replica_max_lag_bytes=0).check_replicas()
    with pytest.raises(RuntimeError, match="QUIRE_REPLICA_MAX_LAG_BYTES"):
        Settings(replica_max_lag_bytes=-1).check_replicas()
    with pytest.raises(RuntimeError, match="QUIRE_REPLICA_MAX_LAG_S"):
        Settings(replica_max_lag_s=0).check_replicas()


def test_lag_in_seconds_is_how_long_ago_the_primary_was_where_the_replica_is() -> None:
    replicas = ReplicaSet(primary=None, primary_dsn="", replicas=[])  # type: ignore[arg-type]
    now = time.monotonic()
    replicas._history.extend([(now - 3.0, 100), (now - 2.0, 200), (now - 1.0, 300)])
    assert replicas._lag_seconds(300, 300) == 0.0  # caught up: no lag, however idle
    assert 1.9 < replicas._lag_seconds(250, 300) < 2.5  # the primary was at 200 two s ago
    assert 2.9 < replicas._lag_seconds(50, 300) < 3.5  # behind every sample: at least 3 s
