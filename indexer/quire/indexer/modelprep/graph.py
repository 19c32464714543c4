"""Build a BERT encoder as an ONNX graph: token ids → the last layer's token embeddings.

Pooling and normalisation are not in the graph: ONNX Runtime's reductions (`ReduceSum` over the
sequence, `ReduceL2`) pick a different summation order for a batch of one than for a batch of
several, so a text's vector changed in its last bits with its batch-mates. The embedder pools
each row on its own (`quire.indexer.embedding.pool_rows`), which makes a vector a function of its
text alone (docs/embedding.md, "Batch-invariant vectors").

The graph has the shape of a Hugging Face BERT export (the one `torch.onnx.export` produces for
`BertModel`), so ONNX Runtime's transformer optimizer recognises and fuses it: embeddings with a
`Slice` of the position-id buffer, the extended attention mask built as
unsqueeze → unsqueeze → cast → (1 − m) × −10000 broadcast as [batch, 1, 1, seq], queries and keys
reshaped to [0, 0, heads, head_dim], scores divided by √head_dim, erf-based GELU, and
`LayerNormalization` after each residual `Add`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
OUTPUT_NAME = "token_embeddings"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int
    type_vocab_size: int
    vocab_size: int

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> BertConfig:
        act = raw.get("hidden_act", "gelu")
        if act != "gelu":
            raise ValueError(f"unsupported hidden_act {act!r} (only exact 'gelu' is implemented)")
        pos = raw.get("position_embedding_type", "absolute")
        if pos != "absolute":
            raise ValueError(f"unsupported position_embedding_type {pos!r}")
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_layers=int(raw["num_hidden_layers"]),
            num_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            max_position_embeddings=int(raw["max_position_embeddings"]),
            type_vocab_size=int(raw.get("type_vocab_size", 2)),
            vocab_size=int(raw["vocab_size"]),
        )

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads


def _strip_prefix(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Accept both `BertModel` keys (`embeddings.…`) and `BertFor…` keys (`bert.embeddings.…`)."""
    if any(k.startswith("embeddings.") for k in weights):
        return weights
    for prefix in ("bert.", "model.", "0.auto_model."):
        if any(k.startswith(prefix + "embeddings.") for k in weights):
            return {k[len(prefix) :]: v for k, v in weights.items() if k.startswith(prefix)}
    raise ValueError("no BERT embedding weights found (expected keys 'embeddings.…')")


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def node(self, op: str, inputs: list[str], name: str, n_out: int = 1, **attrs: Any) -> str:
        outs = [f"{name}_out{i}" if n_out > 1 else f"{name}_out" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0]


def build_bert_graph(config: BertConfig, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """Return the fp32 ONNX model: input_ids, attention_mask, token_type_ids →
    [batch, sequence, hidden] (the last layer's output; padded positions are meaningless)."""
    w = _strip_prefix(weights)
    c = config
    b = _Builder()

    def f32(key: str) -> np.ndarray:
        return np.ascontiguousarray(w[key].astype(np.float32))

    def linear(x: str, prefix: str, name: str) -> str:
        weight = b.const(f"{prefix}.weight_T", np.ascontiguousarray(f32(f"{prefix}.weight").T))
        bias = b.const(f"{prefix}.bias", f32(f"{prefix}.bias"))
        mm = b.node("MatMul", [x, weight], f"{name}/MatMul")
        return b.node("Add", [bias, mm], f"{name}/Add")

    def layer_norm(x: str, prefix: str, name: str) -> str:
        gamma = b.const(f"{prefix}.weight", f32(f"{prefix}.weight"))
        beta = b.const(f"{prefix}.bias", f32(f"{prefix}.bias"))
        return b.node(
            "LayerNormalization", [x, gamma, beta], name, axis=-1, epsilon=c.layer_norm_eps
        )

    # Shared constants, named like a torch export.
    b.const("axes_0", np.array([0], dtype=np.int64))
    b.const("axes_1", np.array([1], dtype=np.int64))
    b.const("axes_2", np.array([2], dtype=np.int64))
    b.const("one_i64", np.array(1, dtype=np.int64))
    b.const("one_f", np.array(1.0, dtype=np.float32))
    b.const("mask_min", np.array(-10000.0, dtype=np.float32))
    b.const("sqrt_head_dim", np.array(math.sqrt(c.head_dim), dtype=np.float32))
    b.const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    b.const("half", np.array(0.5, dtype=np.float32))
    b.const("shape_heads", np.array([0, 0, c.num_heads, c.head_dim], dtype=np.int64))
    b.const("shape_hidden", np.array([0, 0, c.hidden_size], dtype=np.int64))

    # Embeddings.
    pos_ids = w.get("embeddings.position_ids")
    if pos_ids is None:
        pos_ids = np.arange(c.max_position_embeddings, dtype=np.int64)[None, :]
    b.const("embeddings.position_ids", pos_ids.astype(np.int64).reshape(1, -1))
    word = b.const("embeddings.word_embeddings.weight", f32("embeddings.word_embeddings.weight"))
    pos = b.const(
        "embeddings.position_embeddings.weight", f32("embeddings.position_embeddings.weight")
    )
    tok = b.const(
        "embeddings.token_type_embeddings.weight", f32("embeddings.token_type_embeddings.weight")
    )
    shape = b.node("Shape", ["input_ids"], "embeddings/Shape")
    seq_len = b.node("Gather", [shape, "one_i64"], "embeddings/Gather_seq", axis=0)
    seq_len_1d = b.node("Unsqueeze", [seq_len, "axes_0"], "embeddings/Unsqueeze_seq")
    pos_slice = b.node(
        "Slice",
        ["embeddings.position_ids", "axes_0", seq_len_1d, "axes_1", "axes_1"],
        "embeddings/Slice_pos",
    )
    word_emb = b.node("Gather", [word, "input_ids"], "embeddings/word/Gather")
    type_emb = b.node("Gather", [tok, "token_type_ids"], "embeddings/token_type/Gather")
    summed = b.node("Add", [word_emb, type_emb], "embeddings/Add")
    pos_emb = b.node("Gather", [pos, pos_slice], "embeddings/position/Gather")
    summed = b.node("Add", [summed, pos_emb], "embeddings/Add_1")
    hidden = layer_norm(summed, "embeddings.LayerNorm", "embeddings/LayerNorm")

    # Extended attention mask [batch, 1, 1, seq]: (1 - mask) * -10000.
    m = b.node("Unsqueeze", ["attention_mask", "axes_1"], "mask/Unsqueeze")
    m = b.node("Unsqueeze", [m, "axes_2"], "mask/Unsqueeze_1")
    m = b.node("Cast", [m], "mask/Cast", to=TensorProto.FLOAT)
    m = b.node("Sub", ["one_f", m], "mask/Sub")
    ext_mask = b.node("Mul", [m, "mask_min"], "mask/Mul")

    for i in range(c.num_layers):
        p = f"encoder.layer.{i}"
        n = f"layer.{i}"
        q = linear(hidden, f"{p}.attention.self.query", f"{n}/attention/query")
        k = linear(hidden, f"{p}.attention.self.key", f"{n}/attention/key")
        v = linear(hidden, f"{p}.attention.self.value", f"{n}/attention/value")
        q = b.node("Reshape", [q, "shape_heads"], f"{n}/attention/Reshape_q")
        q = b.node("Transpose", [q], f"{n}/attention/Transpose_q", perm=[0, 2, 1, 3])
        k = b.node("Reshape", [k, "shape_heads"], f"{n}/attention/Reshape_k")
        k = b.node("Transpose", [k], f"{n}/attention/Transpose_k", perm=[0, 2, 3, 1])
        v = b.node("Reshape", [v, "shape_heads"], f"{n}/attention/Reshape_v")
        v = b.node("Transpose", [v], f"{n}/attention/Transpose_v", perm=[0, 2, 1, 3])
        scores = b.node("MatMul", [q, k], f"{n}/attention/MatMul_qk")
        scores = b.node("Div", [scores, "sqrt_head_dim"], f"{n}/attention/Div")
        scores = b.node("Add", [scores, ext_mask], f"{n}/attention/Add_mask")
        probs = b.node("Softmax", [scores], f"{n}/attention/Softmax", axis=-1)
        ctx = b.node("MatMul", [probs, v], f"{n}/attention/MatMul_v")
        ctx = b.node("Transpose", [ctx], f"{n}/attention/Transpose_ctx", perm=[0, 2, 1, 3])
        ctx = b.node("Reshape", [ctx, "shape_hidden"], f"{n}/attention/Reshape_ctx")
        attn = linear(ctx, f"{p}.attention.output.dense", f"{n}/attention/output")
        attn = b.node("Add", [attn, hidden], f"{n}/attention/Add_residual")
        hidden = layer_norm(attn, f"{p}.attention.output.LayerNorm", f"{n}/attention/LayerNorm")

        inter = linear(hidden, f"{p}.intermediate.dense", f"{n}/intermediate")
        g = b.node("Div", [inter, "sqrt2"], f"{n}/gelu/Div")
        g = b.node("Erf", [g], f"{n}/gelu/Erf")
        g = b.node("Add", [g, "one_f"], f"{n}/gelu/Add")
        g = b.node("Mul", [inter, g], f"{n}/gelu/Mul")
        g = b.node("Mul", [g, "half"], f"{n}/gelu/Mul_1")
        out = linear(g, f"{p}.output.dense", f"{n}/output")
        out = b.node("Add", [out, hidden], f"{n}/output/Add_residual")
        hidden = layer_norm(out, f"{p}.output.LayerNorm", f"{n}/output/LayerNorm")
    b.nodes.append(helper.make_node("Identity", [hidden], [OUTPUT_NAME], name="output"))

    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in INPUT_NAMES
    ]
    outputs = [
        helper.make_tensor_value_info(
            OUTPUT_NAME, TensorProto.FLOAT, ["batch", "sequence", c.hidden_size]
        )
    ]
    graph = helper.make_graph(b.nodes, "bert_sentence_encoder", inputs, outputs, b.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="quire.model_prepare",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
