"""The generated tables: complete against the descriptors, refused when the contract lacks an
option, and caught by `--check` when stale."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from quire.client import _contract as client_tables
from quire.client import _error_classes, exceptions
from quire.server.auth import Scope
from quire.server.contract import tables as server_tables
from quire.v1 import (
    admin_service_pb2,
    errors_pb2,
    knowledge_service_pb2,
    options_pb2,
    pages_service_pb2,
)
from scripts.contractgen import __main__ as contractgen
from scripts.contractgen import docs_errors, facts
from scripts.contractgen.contract import ROOT, Contract, load
from scripts.contractgen.server_tables import TABLES as SERVER_TABLES

SERVICES = [
    pages_service_pb2.DESCRIPTOR.services_by_name["PagesService"],
    knowledge_service_pb2.DESCRIPTOR.services_by_name["KnowledgeService"],
    admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"],
]
METHODS = [m for service in SERVICES for m in service.methods]
CODES = {v for v in errors_pb2.ErrorCode.values() if v != errors_pb2.ERROR_CODE_UNSPECIFIED}


@pytest.fixture(scope="module")
def contract() -> Contract:
    return load()


@pytest.fixture(scope="module")
def files(contract: Contract) -> dict[str, str]:
    if shutil.which("gofmt") is None:
        pytest.skip("gofmt (Go) is needed to generate the Go tables")
    return contractgen.generated(contract)


def test_every_error_code_has_a_status_a_reason_and_a_class() -> None:
    assert set(client_tables.GRPC_STATUS_BY_CODE) == CODES
    assert server_tables.GRPC_STATUS_BY_CODE == client_tables.GRPC_STATUS_BY_CODE
    assert set(server_tables.REASON_BY_CODE) == CODES
    assert set(_error_classes.ERROR_CLASSES) == CODES
    for code, cls in _error_classes.ERROR_CLASSES.items():
        assert cls.code == code
        assert getattr(exceptions, cls.__name__) is cls  # re-exported under its public name
        assert cls.__name__ == facts.pascal(server_tables.REASON_BY_CODE[code])


def test_every_rpc_has_a_kind_and_a_scope() -> None:
    assert set(client_tables.RPC_KINDS) == {m.name for m in METHODS}
    assert set(server_tables.SCOPE_BY_METHOD) == {
        f"/{m.containing_service.full_name}/{m.name}" for m in METHODS
    }
    assert set(server_tables.SCOPE_BY_METHOD.values()) <= {s.value for s in Scope}
    proto_kinds = {
        n.removeprefix("CALL_KIND_").lower() for n in options_pb2.CallKind.DESCRIPTOR.values_by_name
    }
    assert {k.value for k in client_tables.CallKind} == proto_kinds - {"unspecified"}


def test_retried_rpcs_are_the_unary_ones_marked_idempotent() -> None:
    marked = {m.name for m in METHODS if m.GetOptions().idempotency_level}
    assert marked == client_tables.IDEMPOTENT_RPCS
    streams = {m.name for m in METHODS if m.client_streaming or m.server_streaming}
    assert not marked & streams


def test_the_committed_tables_are_up_to_date(files: dict[str, str]) -> None:
    assert contractgen.stale(files, ROOT) == []


def test_check_fails_when_a_table_is_stale(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    assert contractgen.main(["--check", "--root", str(tmp_path)]) == 0

    edited = tmp_path / SERVER_TABLES
    text = edited.read_text()
    edited.write_text(text.replace("StatusCode.FAILED_PRECONDITION", "StatusCode.ABORTED", 1))
    assert contractgen.main(["--check", "--root", str(tmp_path)]) == 1
    assert SERVER_TABLES in capsys.readouterr().err

    # Without --check the generator rewrites exactly the stale table.
    assert contractgen.main(["--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {SERVER_TABLES}"
    assert edited.read_text() == text


def _with(contract: Contract, fds: descriptor_pb2.FileDescriptorSet) -> Contract:
    """The contract with its descriptors replaced by an edited copy."""
    return Contract(fds=fds, pool=contract.pool, comments=contract.comments)


def _method(
    fds: descriptor_pb2.FileDescriptorSet, service: str, name: str
) -> descriptor_pb2.MethodDescriptorProto:
    for file in fds.file:
        for s in file.service:
            if s.name == service:
                return next(m for m in s.method if m.name == name)
    raise LookupError(name)


def test_an_rpc_without_call_options_is_refused(contract: Contract) -> None:
    fds = copy.deepcopy(contract.fds)
    _method(fds, "PagesService", "SearchPages").options.Clear()
    with pytest.raises(facts.ContractError, match=r"PagesService\.SearchPages has no \(quire"):
        facts.rpcs(_with(contract, fds))


def test_a_retried_stream_is_refused(contract: Contract) -> None:
    fds = copy.deepcopy(contract.fds)
    method = _method(fds, "PagesService", "SyncPages")
    method.options.idempotency_level = descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS
    with pytest.raises(facts.ContractError, match=r"SyncPages is a stream"):
        facts.rpcs(_with(contract, fds))


def test_an_error_code_without_error_options_is_refused(
    contract: Contract, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fds = copy.deepcopy(contract.fds)
    enum = next(e for f in fds.file for e in f.enum_type if e.name == "ErrorCode")
    next(v for v in enum.value if v.name == "ERROR_CODE_PAGE_CHANGED").options.Clear()
    broken = _with(contract, fds)
    with pytest.raises(facts.ContractError, match=r"ERROR_CODE_PAGE_CHANGED has no \(quire"):
        facts.error_codes(broken)
    monkeypatch.setattr(contractgen, "load", lambda: broken)
    assert contractgen.main(["--check"]) == 2
    assert "ERROR_CODE_PAGE_CHANGED has no (quire.v1.error) option" in capsys.readouterr().err


def test_the_error_table_of_the_docs_follows_the_contract(contract: Contract) -> None:
    doc = (ROOT / docs_errors.DOC).read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `PAGE_CHANGED` |"))
    # A hand-edited status is put back; the prose of every row is kept.
    edited = doc.replace(row, row.replace("`FAILED_PRECONDITION`", "`ABORTED`"))
    assert docs_errors.rewrite(contract, edited) == doc
    # A missing row comes back with empty prose to fill in.
    assert "| `PAGE_CHANGED` | `FAILED_PRECONDITION` |  |  |" in docs_errors.rewrite(
        contract, doc.replace(row + "\n", "")
    )
    # A row for a code the contract does not have is refused.
    with pytest.raises(facts.ContractError, match="PAGE_GONE"):
        docs_errors.rewrite(contract, doc.replace(row, row + "\n| `PAGE_GONE` | `X` | a | b |"))
