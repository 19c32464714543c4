"""The Java client's generated tables: default deadlines from the CallKind values'
`(quire.v1.call_kind)` option, every RPC and every ErrorCode present."""

from __future__ import annotations

import pytest

from scripts.contractgen import facts, java
from scripts.contractgen.contract import Contract, load
from scripts.contractgen.facts import CallKindFacts


@pytest.fixture(scope="module")
def contract() -> Contract:
    return load()


def test_deadlines_come_from_the_call_kind_option() -> None:
    read = CallKindFacts("READ", "A point read or listing.", deadline_s=10)
    assert java._deadline(read) == "Duration.ofSeconds(10)"
    assert java._deadline(CallKindFacts("SYNC", "", deadline_s=1800)) == "Duration.ofMinutes(30)"
    assert java._deadline(CallKindFacts("GATE", "", deadline_s=7200)) == "Duration.ofHours(2)"
    assert java._deadline(CallKindFacts("ODD", "", deadline_s=90)) == "Duration.ofSeconds(90)"
    assert java._deadline(CallKindFacts("WATCH", "A watch stream.")) == "null"


def test_the_java_deadlines_are_the_contracts(contract: Contract) -> None:
    tables = java.emit(contract)[java.TABLES]
    for kind in facts.call_kinds(contract):
        assert f"    {kind.name}({java._deadline(kind)})" in tables


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
