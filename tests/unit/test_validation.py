"""Request field validation: names and agent ids are matched whole (no trailing newline)."""

from __future__ import annotations

import pytest

from quire.server.contract import bounds as B
from quire.server.failures import QuireError
from quire.server.services.knowledge import AGENT_ID
from quire.server.validation import name_field

NAMESPACE_CHARS = B.SetNamespaceSearchConfigRequest.namespace.max_chars or 0
AGENT_ID_CHARS = B.UpsertAgentRequest.agent_id.max_chars or 0


@pytest.mark.parametrize("value", ["a", "docs.v2", "A-b_c.9", "x" * NAMESPACE_CHARS])
def test_names_accepted(value: str) -> None:
    assert name_field("namespace", value) == value


@pytest.mark.parametrize(
    "value", ["", "a\n", "a\nb", "a b", "a/b", "é", "x" * (NAMESPACE_CHARS + 1)]
)
def test_names_rejected(value: str) -> None:
    with pytest.raises(QuireError):
        name_field("namespace", value)


def test_agent_ids_are_matched_whole() -> None:
    assert AGENT_ID.fullmatch("agent:support.v2")
    assert not AGENT_ID.fullmatch("agent\n")
    assert AGENT_ID.fullmatch("x" * AGENT_ID_CHARS)
    assert not AGENT_ID.fullmatch("x" * (AGENT_ID_CHARS + 1))
