"""Gate data set names resolve only inside the configured directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quire.server.contract import bounds as B
from quire.server.failures import QuireError
from quire.server.gate import catalogue
from quire.v1 import errors_pb2

LONGEST = B.RunGateRequest.dataset.max_chars or 0


def _dataset(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "corpus.jsonl").write_text("")
    return path


def test_a_name_resolves_inside_and_a_link_inside_counts(tmp_path: Path) -> None:
    real = _dataset(tmp_path / "sets" / "scifact")
    os.symlink(real, tmp_path / "sets" / "alias")
    assert catalogue.locate(str(tmp_path / "sets"), "scifact") == real.resolve()
    assert catalogue.locate(str(tmp_path / "sets"), "alias") == real.resolve()


def test_a_name_of_the_longest_length_resolves_and_one_more_is_refused(tmp_path: Path) -> None:
    sets = tmp_path / "sets"
    longest = _dataset(sets / ("x" * LONGEST))
    _dataset(sets / ("y" * (LONGEST + 1)))
    assert catalogue.locate(str(sets), "x" * LONGEST) == longest.resolve()
    with pytest.raises(QuireError) as refused:
        catalogue.locate(str(sets), "y" * (LONGEST + 1))
    assert refused.value is catalogue.DATASET_NOT_FOUND


@pytest.mark.parametrize(
    "name", ["..", ".", ".hidden", "a/b", "/etc", "x" * (LONGEST + 1), "out", "file"]
)
def test_everything_else_is_not_found(tmp_path: Path, name: str) -> None:
    sets = tmp_path / "sets"
    sets.mkdir()
    _dataset(sets / ".hidden")
    _dataset(sets / "a" / "b")
    (sets / "file").write_text("")
    os.symlink(_dataset(tmp_path / "elsewhere"), sets / "out")
    with pytest.raises(QuireError) as refused:
        catalogue.locate(str(sets), name)
    assert refused.value is catalogue.DATASET_NOT_FOUND


def test_no_directory_is_unimplemented_and_a_missing_one_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(QuireError) as refused:
        catalogue.locate("", "scifact")
    assert refused.value.code == errors_pb2.ERROR_CODE_UNIMPLEMENTED
    catalogue.check_directory("")
    catalogue.check_directory(str(tmp_path))
    with pytest.raises(ValueError, match="not a directory"):
        catalogue.check_directory(str(tmp_path / "missing"))
