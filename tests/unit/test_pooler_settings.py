"""The pooler settings: where session-bound work goes, and which set-ups are refused."""

from __future__ import annotations

import pytest

from quire.server.config import Settings

POOLER = "postgresql://quire@pgbouncer:6432/quire"
DIRECT = "postgresql://quire@db:5432/quire"


def test_without_a_pooler_session_work_uses_the_database_url() -> None:
    settings = Settings(database_url=DIRECT)
    settings.check_pooler()
    assert not settings.behind_pooler
    assert settings.session_database_url == DIRECT


def test_behind_a_transaction_pooler_session_work_goes_direct() -> None:
    settings = Settings(
        database_url=POOLER, database_direct_url=DIRECT, database_pooler="transaction"
    )
    settings.check_pooler()
    assert settings.behind_pooler
    assert settings.session_database_url == DIRECT


def test_a_transaction_pooler_without_a_direct_url_is_refused() -> None:
    settings = Settings(database_url=POOLER, database_pooler="transaction")
    with pytest.raises(RuntimeError, match="needs QUIRE_DATABASE_DIRECT_URL"):
        settings.check_pooler()


@pytest.mark.parametrize("mode", ["statement", "session", "pgbouncer"])
def test_an_unknown_pooler_mode_is_refused(mode: str) -> None:
    settings = Settings(database_url=POOLER, database_direct_url=DIRECT, database_pooler=mode)
    with pytest.raises(RuntimeError, match=f"QUIRE_DATABASE_POOLER='{mode}' is not known"):
        settings.check_pooler()


def test_the_environment_is_read_case_and_space_insensitively(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUIRE_DATABASE_URL", POOLER)
    monkeypatch.setenv("QUIRE_DATABASE_DIRECT_URL", DIRECT)
    monkeypatch.setenv("QUIRE_DATABASE_POOLER", " Transaction ")
    settings = Settings.from_env()
    settings.check_pooler()
    assert settings.behind_pooler and settings.session_database_url == DIRECT
