"""The Java client's generated tables: default deadlines read from the CallKind comments (and
refused when a comment does not state one), every RPC and every ErrorCode present."""

from __future__ import annotations

import pytest

from scripts.contractgen import facts, java
from scripts.contractgen.contract import Contract, load
from scripts.contractgen.facts import CallKindFacts


@pytest.fixture(scope="module")
def contract() -> Contract:
    return load()


def test_deadlines_come_from_the_call_kind_comments() -> None:
    read = CallKindFacts("READ", "A point read or listing. Default deadline 10 s.")
    assert java._deadline(read) == "Duration.ofSeconds(10)"
    assert (
        java._deadline(CallKindFacts("SYNC", "Default deadline 30 min."))
        == "Duration.ofMinutes(30)"
    )
    assert java._deadline(CallKindFacts("GATE", "Default deadline 2 h.")) == "Duration.ofHours(2)"
    assert java._deadline(CallKindFacts("WATCH", "A watch stream. No default deadline.")) == "null"


def test_a_call_kind_without_a_stated_deadline_is_refused() -> None:
    with pytest.raises(facts.ContractError, match=r"CALL_KIND_SLOW: its comment must say"):
        java._deadline(CallKindFacts("SLOW", "A slow call."))


def test_the_tables_hold_every_rpc_and_every_code(contract: Contract) -> None:
    files = java.emit(contract)
    tables, classes = files[java.TABLES], files[java.ERROR_CLASSES]
    for rpc in facts.rpcs(contract):
        assert f'Map.entry("{rpc.name}", CallKind.{rpc.kind})' in tables
        assert (f'          "{rpc.name}"' in tables) == rpc.retried
    for code in facts.error_codes(contract):
        assert f"Map.entry(ErrorCode.{code.full_name}, Status.Code.{code.grpc_status})" in tables
        assert (
            f"public static final class {facts.pascal(code.name)} extends QuireException" in classes
        )
        assert f"case {code.full_name}:" in classes
    assert "WATCH(null)" in tables and "READ(Duration.ofSeconds(10))" in tables
