"""The server uses the indexer's worker only through `quire.indexer.api`: an import of
`quire.indexer.worker` (or anything under it) from server code fails here, naming the line."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server" / "quire" / "server"
FORBIDDEN = "quire.indexer.worker"


def _imported(node: ast.AST) -> list[str]:
    """Full names a statement imports (`from a import b` names `a.b` too: b may be a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return []


def _reaches_worker(name: str) -> bool:
    return name == FORBIDDEN or name.startswith(FORBIDDEN + ".")


def worker_imports(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):  # function-level imports count too
            if any(_reaches_worker(name) for name in _imported(node)):
                found.append(f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', 0)}")
    return found


def test_server_code_does_not_import_the_worker() -> None:
    assert SERVER.is_dir()
    offending = worker_imports(SERVER)
    assert not offending, f"import quire.indexer.api instead of the worker: {offending}"


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    forms = [
        "import quire.indexer.worker.jobs",
        "from quire.indexer.worker import jobs",
        "from quire.indexer import worker",
        "def f():\n    from quire.indexer.worker.pipeline import Worker",
    ]
    for i, form in enumerate(forms):
        (tmp_path / "pkg" / f"m{i}.py").write_text(form + "\n", encoding="utf-8")
    (tmp_path / "pkg" / "fine.py").write_text(
        "from quire.indexer import api\nfrom quire.indexer.pages import fetch\n", encoding="utf-8"
    )
    assert len(worker_imports(tmp_path / "pkg")) == len(forms)
