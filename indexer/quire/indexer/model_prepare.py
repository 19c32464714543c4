"""Stable entry point for `quire model prepare`: see `quire.indexer.modelprep`."""

from quire.indexer.modelprep import (
    DEFAULT_MODEL_NAME,
    KNOWN_MODELS,
    ModelPrepareError,
    ModelSourceError,
    is_prepared,
    prepare_model,
)

__all__ = [
    "DEFAULT_MODEL_NAME",
    "KNOWN_MODELS",
    "ModelPrepareError",
    "ModelSourceError",
    "is_prepared",
    "prepare_model",
]
