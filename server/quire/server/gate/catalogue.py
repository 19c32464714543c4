"""The data sets RunGate may read: sub-directories of the one directory the operator configured
(`--gate-datasets`), chosen by name. A caller holds an admin key of *some* organisation, not the
host: every name that is not a data set there gets the same answer, so RunGate cannot be used
to learn what exists elsewhere on the server's filesystem."""

from __future__ import annotations

from pathlib import Path

from quire.server.contract import bounds as contract_bounds
from quire.server.failures import QuireError, invalid
from quire.server.validation import whole_match
from quire.v1 import errors_pb2

# One path component: no separators, and no leading dot (so neither "." nor "..").
NAME = whole_match(contract_bounds.RunGateRequest.dataset)

NOT_CONFIGURED = QuireError(
    errors_pb2.ERROR_CODE_UNIMPLEMENTED,
    "RunGate is not enabled on this server: its operator has configured no gate data sets "
    "(quire serve --gate-datasets DIR, or QUIRE_GATE_DATASETS)",
)
DATASET_NOT_FOUND = QuireError(errors_pb2.ERROR_CODE_NOT_FOUND, "Dataset not found")


def check_directory(directory: str) -> None:
    """At start: a configured directory must exist (a typo should stop the server, not make
    every RunGate answer "not found")."""
    if directory and not Path(directory).is_dir():
        raise ValueError(f"--gate-datasets: {directory} is not a directory")


def locate(directory: str, name: str) -> Path:
    """The data set called `name` in `directory`, resolved (load it from there, not through
    the link, so the check holds for what is read). Blocking: it touches the file system."""
    if not directory:
        raise NOT_CONFIGURED
    if not name:
        raise invalid("dataset", "must name a data set")
    if not NAME.fullmatch(name):
        raise DATASET_NOT_FOUND
    root = Path(directory).resolve()
    found = (root / name).resolve()
    # A symlink may point anywhere; only what resolves inside the directory is a data set.
    if not found.is_relative_to(root) or found == root:
        raise DATASET_NOT_FOUND
    if not (found / "corpus.jsonl").is_file():
        raise DATASET_NOT_FOUND
    return found
