"""Model preparation: a sentence-transformers BERT checkpoint → ONNX (fp32 + int8) + manifest.

Files follow the data flow: `source` (fetch and unpack), `graph` (weights → ONNX graph),
`quantize` (int8 recipe), `calibration` (built-in texts), `prepare` (orchestration, manifest,
atomic write).
"""

from quire.indexer.modelprep.prepare import (
    DEFAULT_MODEL_NAME,
    FP32_FILE,
    INT8_FILE,
    KNOWN_MODELS,
    MANIFEST,
    TOKENIZER_FILE,
    ModelPrepareError,
    is_prepared,
    prepare_model,
    read_manifest,
)
from quire.indexer.modelprep.source import ModelSourceError

__all__ = [
    "DEFAULT_MODEL_NAME",
    "FP32_FILE",
    "INT8_FILE",
    "KNOWN_MODELS",
    "MANIFEST",
    "TOKENIZER_FILE",
    "ModelPrepareError",
    "ModelSourceError",
    "is_prepared",
    "prepare_model",
    "read_manifest",
]
