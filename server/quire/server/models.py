"""The embedding models a server loads (its `--models` option) and the choice of one per corpus.

The deployment default (all-minilm-l6-v2) is always the first; others are loaded at start or the
server refuses to start, naming the command that prepares them. A collection names its model at
creation, and only a loaded one: so everything the server accepts, it can embed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from quire.server.embeddings import EmbeddingService
from quire.server.failures import QuireError, invalid
from quire.v1 import errors_pb2, knowledge_pb2

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-minilm-l6-v2"


class ModelsUnavailable(RuntimeError):
    """A model of `--models` is unknown, not prepared or tampered with: the server does not
    start (the message names the command to run)."""


def prepare_command(name: str) -> str:
    return f"quire model prepare --model {name}"


def known_names() -> list[str]:
    from quire.indexer.model_prepare import KNOWN_MODELS

    return sorted(KNOWN_MODELS)


def check_configured(names: Iterable[str]) -> list[str]:
    """The `--models` list, default first, without repeats; an unknown name is refused."""
    wanted = [DEFAULT_MODEL, *(n.strip() for n in names if n.strip())]
    unknown = [n for n in wanted if n not in known_names()]
    if unknown:
        raise ModelsUnavailable(
            f"unknown embedding model {unknown[0]!r} in --models (QUIRE_MODELS): "
            f"known models are {', '.join(known_names())}"
        )
    return list(dict.fromkeys(wanted))


def load_extra(names: Iterable[str]) -> dict[str, EmbeddingService]:
    """Loads each configured model other than the default. A model that is not prepared or
    was tampered with stops the start-up with the command that (re)builds it: a server that
    silently left it out would accept no collection of it, or worse, serve one without it."""
    from quire.indexer.embedding import Embedder, ModelNotPreparedError

    loaded: dict[str, EmbeddingService] = {}
    for name in check_configured(names)[1:]:
        try:
            loaded[name] = EmbeddingService(Embedder.load(name))
        except ModelNotPreparedError as exc:
            for service in loaded.values():
                service.close()
            raise ModelsUnavailable(
                f"embedding model {name} cannot be loaded ({exc}); run `{prepare_command(name)}`"
            ) from exc
        log.info("embedding model loaded", extra={"model": name})
    return loaded


def unknown_model(name: str, field: str = "embedding_model") -> QuireError:
    return invalid(
        field,
        f"unknown embedding model {name!r}; known models are {', '.join(known_names())}",
    )


def not_loaded(name: str, field: str = "embedding_model") -> QuireError:
    return invalid(
        field,
        f"embedding model {name!r} is not loaded by this server: run "
        f"`{prepare_command(name)}` and start the server with --models {name}",
    )


def choose(
    requested: str,
    loaded: Mapping[str, EmbeddingService | None],
    field: str = "embedding_model",
) -> str:
    """The model a new corpus gets: `requested`, or the default when empty; refused (nothing
    created) when unknown, or when another than the default is not loaded here. `field`: the
    request field the refusal names."""
    name = requested.strip() or DEFAULT_MODEL
    if name not in known_names():
        raise unknown_model(name, field)
    # The default is always accepted, as before models could be chosen: a server whose model
    # is missing still creates collections, indexed once a worker with the model runs.
    if name != DEFAULT_MODEL and loaded.get(name) is None:
        raise not_loaded(name, field)
    return name


def unavailable(name: str) -> QuireError:
    """A search or sync needs a model this server has not loaded."""
    return QuireError(
        errors_pb2.ERROR_CODE_SEARCH_UNAVAILABLE,
        f"The embedding model {name} is not loaded; run `{prepare_command(name)}` and restart "
        f"the server with --models {name}",
    )


def listing(loaded: Mapping[str, EmbeddingService | None]) -> list[knowledge_pb2.EmbeddingModel]:
    from quire.indexer.home import models_dir
    from quire.indexer.model_prepare import KNOWN_MODELS, is_prepared

    return [
        knowledge_pb2.EmbeddingModel(
            name=name,
            dimensions=model.dimension,
            max_tokens=model.max_tokens,
            # A loaded model was verified at start; only the others are hashed here.
            prepared=loaded.get(name) is not None or is_prepared(models_dir() / name),
            loaded=loaded.get(name) is not None,
            is_default=name == DEFAULT_MODEL,
            summary=model.summary,
        )
        for name, model in sorted(KNOWN_MODELS.items())
    ]
