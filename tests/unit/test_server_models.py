"""The models a server loads (`--models`) and the model a new collection gets: unknown,
unprepared and tampered models stop the start-up naming the command to run; a collection may
name the default always, another model only when this server loaded it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quire.server import models
from quire.server.failures import QuireError
from quire.v1 import errors_pb2
from tests.support.models import prepared_or_skip

BGE = "bge-small-en-v1.5"


def test_configured_models_start_with_the_default_without_repeats() -> None:
    assert models.check_configured([f" {BGE} ", models.DEFAULT_MODEL, BGE, ""]) == [
        models.DEFAULT_MODEL,
        BGE,
    ]
    with pytest.raises(RuntimeError, match=r"unknown embedding model 'e5-large'.*known models"):
        models.check_configured(["e5-large"])


def test_an_unprepared_model_stops_the_start_up_naming_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=f"run `quire model prepare --model {BGE}`"):
        models.load_extra([BGE])


def test_a_tampered_model_stops_the_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = prepared_or_skip(BGE)
    copy = tmp_path / "models" / BGE
    shutil.copytree(source, copy)
    tokenizer = copy / "tokenizer.json"
    tokenizer.write_bytes(tokenizer.read_bytes().replace(b"[CLS]", b"[XLS]", 1))
    monkeypatch.setenv("QUIRE_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"does not match its sha256.*--model bge"):
        models.load_extra([BGE])


def test_a_new_collection_gets_a_known_model_this_server_loaded() -> None:
    nothing_loaded: dict[str, object] = {models.DEFAULT_MODEL: None}
    # The default is accepted even by a server whose model is missing (indexed later).
    assert models.choose("", nothing_loaded) == models.DEFAULT_MODEL  # type: ignore[arg-type]
    with pytest.raises(QuireError) as unknown:
        models.choose("e5-large", nothing_loaded)  # type: ignore[arg-type]
    assert unknown.value.code == errors_pb2.ERROR_CODE_INVALID_REQUEST
    assert [v.field for v in unknown.value.violations] == ["embedding_model"]
    with pytest.raises(QuireError) as unloaded:
        models.choose(BGE, nothing_loaded)  # type: ignore[arg-type]
    assert f"quire model prepare --model {BGE}" in unloaded.value.message
    assert models.choose(BGE, {BGE: object()}) == BGE  # type: ignore[dict-item]


def test_model_list_and_prepare_of_an_unknown_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from quire.server.cli import main

    monkeypatch.setenv("QUIRE_HOME", str(tmp_path))
    assert main(["model", "list"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:]}
    assert set(rows) == {models.DEFAULT_MODEL, BGE}
    assert rows[BGE][1:4] == ["384", "512", "no"]  # dimensions, tokens, prepared
    with pytest.raises(SystemExit, match="unknown model 'nope': known models are all-minilm"):
        main(["model", "prepare", "--model", "nope"])
    assert not (tmp_path / "models" / "nope").exists()
