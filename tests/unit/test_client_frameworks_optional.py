"""The LangChain and LlamaIndex integrations are optional: `quire.client` imports neither
framework, and importing an integration without its framework says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_base_client_imports_no_framework() -> None:
    done = python(
        "import sys, quire.client\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langchain_core', 'llama_index', 'pydantic')))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [("langchain", "langchain_core", "langchain"), ("llama_index", "llama_index", "llamaindex")],
)
def test_a_missing_framework_names_the_extra(module: str, framework: str, extra: str) -> None:
    # A None entry in sys.modules makes `import framework` fail as if it were not installed.
    done = python(f"import sys; sys.modules[{framework!r}] = None; import quire.client.{module}")
    assert done.returncode == 1
    assert f"pip install 'quire-client[{extra}]'" in done.stderr, done.stderr
