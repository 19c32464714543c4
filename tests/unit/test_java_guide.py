"""docs/clients/java.md shows the Java examples as they are: each `<!-- example: File#N -->`
marker is followed by a java block equal to the N-th `// doc:start` … `// doc:end` region of
clients/java/src/test/java/dev/quire/examples/File (which tests/integration/
test_conformance_java.py compiles and runs against a server)."""

from __future__ import annotations

import re
import textwrap

from tests.conftest import REPO

GUIDE = REPO / "docs" / "clients" / "java.md"
EXAMPLES = REPO / "clients" / "java" / "src" / "test" / "java" / "dev" / "quire" / "examples"
_MARKER = re.compile(r"<!-- example: (\S+)#(\d+) -->\n\n```java\n(.*?)\n```", re.S)
_REGION = re.compile(r"^[ \t]*// doc:start\n(.*?)^[ \t]*// doc:end\n", re.S | re.M)


def regions(name: str) -> list[str]:
    text = (EXAMPLES / name).read_text()
    return [textwrap.dedent(body).strip("\n") for body in _REGION.findall(text)]


def test_every_java_block_of_the_guide_is_an_example_region() -> None:
    guide = GUIDE.read_text()
    shown = _MARKER.findall(guide)
    assert len(shown) == guide.count("```java"), "a java block without an example marker"
    for name, number, block in shown:
        found = regions(name)
        assert 1 <= int(number) <= len(found), f"{name} has no region {number}"
        assert block == found[int(number) - 1], f"docs/clients/java.md differs from {name}#{number}"


def test_the_guide_covers_the_five_examples() -> None:
    names = {name for name, _, _ in _MARKER.findall(GUIDE.read_text())}
    wanted = {"FirstCall.java", "ErrorHandling.java", "SyncWithProgress.java"}
    assert names >= wanted | {"UploadDocuments.java", "ToolLoop.java"}
