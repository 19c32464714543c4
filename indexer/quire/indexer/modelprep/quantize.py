"""Int8 dynamic quantisation with SmoothQuant-style activation smoothing.

Plain `quantize_dynamic` takes one activation scale per tensor (the whole padded batch). BERT's
LayerNorm and GELU outputs have a few outlier channels (|x| ≈ 20–30 against a median channel
maximum of ≈ 1.5), so that scale wastes most of the uint8 range and short texts, whose embedding
rests on a handful of tokens, lose the most (cosine ≈ 0.98 for the empty string).

SmoothQuant (Xiao et al., 2023) moves the outliers into the weights, which are quantised per
output channel: for a matrix multiplication `X·W` and a per-input-channel factor `s`,
`X·W = (X / s)·(diag(s)·W)`. `s_j = max|X_j|^α / max|W_j|^(1−α)` is calibrated on short and long
texts. The division by `s` is an elementwise `Mul` in front of the quantised node, except for the
attention output projection, whose input channels are the value projection's output channels, so
there it is folded into the value weights and bias for free.

Smoothing alone fixes texts embedded one at a time but not short texts padded into a batch with
long ones; padded rows also enter the per-tensor range. They never reach real tokens (keys are
masked, pooling ignores them), so multiplying a node's input by the attention mask changes
nothing in fp32 and keeps them out of the range. docs/embedding.md has the measurements.

Finally every activation scale is frozen (`freeze_activation_scales`): each
`DynamicQuantizeLinear` that `quantize_dynamic` put in front of a quantised node becomes a
`QuantizeLinear` with the scale and zero point of the range seen over the calibration texts,
each run alone. A dynamic scale is taken over the whole padded batch, so a text's vector
changed with its batch-mates; a fixed one makes it a function of the text alone, and the
integer kernels (`MatMulInteger`, `QAttention`) stay the same. Values beyond the calibrated
range saturate, so every range is widened by ACTIVATION_RANGE_MARGIN: chosen on 500 SciFact
documents, 500 training claims and the 8 golden texts (docs/embedding.md), where it keeps the
minimum cosine to fp32 at 0.991 (0.983 with the attention context alone widened 2.5 times,
the previous recipe, on a model rebuilt with today's tools).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _initializers(model: onnx.ModelProto) -> dict[str, onnx.TensorProto]:
    return {t.name: t for t in model.graph.initializer}


def quantizable_nodes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """Fused `Attention` nodes and `MatMul`s whose weight is an initializer."""
    inits = _initializers(model)
    return [
        n
        for n in model.graph.node
        if n.op_type == "Attention" or (n.op_type == "MatMul" and n.input[1] in inits)
    ]


def activation_channel_max(
    model_path: Path,
    nodes: Sequence[onnx.NodeProto],
    batches: Iterable[dict[str, np.ndarray]],
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """Per-channel max |x| of the first input of each node, over real (unpadded) tokens."""
    import onnxruntime as ort

    model = onnx.load(str(model_path))
    wanted = sorted({n.input[0] for n in nodes})
    existing = {o.name for o in model.graph.output}
    for name in wanted:
        if name not in existing:
            model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    # Keep every tensor we tap: no graph rewrites that could fold them away.
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    result: dict[str, np.ndarray] = {}
    for feed in batches:
        outs = session.run(wanted, feed)
        mask = feed["attention_mask"].astype(bool)
        for name, value in zip(wanted, outs, strict=True):
            cur = np.abs(value[mask]).max(axis=0)
            prev = result.get(name)
            result[name] = cur if prev is None else np.maximum(prev, cur)
    return result


NODE_KINDS = ("attention", "attn_out", "ffn_in", "ffn_out")


def node_kind(node: onnx.NodeProto, producers: dict[str, onnx.NodeProto]) -> str:
    """Classify a quantisable node of a fused BERT graph by what feeds it."""
    if node.op_type == "Attention":
        return "attention"
    producer = producers.get(node.input[0])
    if producer is not None and producer.op_type == "Attention":
        return "attn_out"
    if producer is not None and producer.op_type in ("BiasGelu", "Gelu", "FastGelu"):
        return "ffn_out"
    return "ffn_in"


def smooth_model(
    model: onnx.ModelProto,
    act_max: dict[str, np.ndarray],
    alpha: float = 0.5,
    smooth_kinds: Iterable[str] = NODE_KINDS,
    mask_kinds: Iterable[str] = (),
) -> onnx.ModelProto:
    """Return a copy of `model` prepared for dynamic quantisation.

    Nodes whose kind is in `smooth_kinds` get SmoothQuant factors; nodes whose kind is in
    `mask_kinds` get their input's padded rows zeroed (padded rows never reach real tokens: keys
    are masked in attention and pooling ignores them, so this changes nothing in fp32, but it
    keeps them out of the per-tensor activation range).
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    inits = _initializers(model)
    producers = {o: n for n in graph.node for o in n.output}
    smooth_set, mask_set = set(smooth_kinds), set(mask_kinds)
    new_nodes: list[onnx.NodeProto] = []
    mask3d = "smooth/mask3d"
    if mask_set:
        graph.initializer.append(
            numpy_helper.from_array(np.array([-1], dtype=np.int64), "smooth/axes_m1")
        )
        cast = helper.make_node(
            "Cast", ["attention_mask"], ["smooth/mask_f"], name="smooth/Cast", to=TensorProto.FLOAT
        )
        unsq = helper.make_node(
            "Unsqueeze", ["smooth/mask_f", "smooth/axes_m1"], [mask3d], name="smooth/Unsqueeze"
        )
        graph.node.insert(0, unsq)
        graph.node.insert(0, cast)

    def set_init(name: str, value: np.ndarray) -> None:
        inits[name].CopyFrom(numpy_helper.from_array(value.astype(np.float32), name))

    def add_init(name: str, value: np.ndarray) -> str:
        graph.initializer.append(numpy_helper.from_array(value.astype(np.float32), name))
        inits[name] = graph.initializer[-1]
        return name

    def factors(x_max: np.ndarray, w: np.ndarray) -> np.ndarray:
        w_max = np.abs(w).max(axis=1)
        s = np.power(np.maximum(x_max, 1e-5), alpha) / np.power(np.maximum(w_max, 1e-5), 1 - alpha)
        clipped: np.ndarray = np.clip(s, 1e-2, 1e2).astype(np.float32)
        return clipped

    for node in quantizable_nodes(model):
        kind = node_kind(node, producers)
        x = node.input[0]
        out = x
        x_max = act_max.get(x)
        if kind in smooth_set and x_max is not None:
            w_name = node.input[1]
            w = numpy_helper.to_array(inits[w_name]).astype(np.float32)
            s = factors(x_max, w)
            folded = kind == "attn_out" and _fold_into_value(producers[x], s, inits, set_init)
            if not folded:
                inv = add_init(f"{node.name}/smooth_inv", 1.0 / s)
                out = f"{node.name}/smooth_out"
                new_nodes.append(
                    helper.make_node("Mul", [x, inv], [out], name=f"{node.name}/smooth")
                )
            set_init(w_name, w * s[:, None])
        if kind in mask_set:
            masked = f"{node.name}/masked_out"
            new_nodes.append(
                helper.make_node("Mul", [out, mask3d], [masked], name=f"{node.name}/mask")
            )
            out = masked
        node.input[0] = out
    _insert_before_consumers(graph, new_nodes)
    return model


def _fold_into_value(
    attention: onnx.NodeProto,
    s: np.ndarray,
    inits: dict[str, onnx.TensorProto],
    set_init: Callable[[str, np.ndarray], None],
) -> bool:
    """Divide the value projection's output channel j by s_j (weights [H, 3H] = Q | K | V)."""
    if (
        len(attention.input) < 3
        or attention.input[1] not in inits
        or attention.input[2] not in inits
    ):
        return False
    w = numpy_helper.to_array(inits[attention.input[1]]).astype(np.float32).copy()
    bias = numpy_helper.to_array(inits[attention.input[2]]).astype(np.float32).copy()
    hidden = s.shape[0]
    if w.shape[1] != 3 * hidden or bias.shape[0] != 3 * hidden:
        return False
    for attr in attention.attribute:
        if attr.name == "qkv_hidden_sizes":
            return False
    w[:, 2 * hidden :] /= s[None, :]
    bias[2 * hidden :] /= s
    set_init(attention.input[1], w)
    set_init(attention.input[2], bias)
    return True


def _insert_before_consumers(graph: onnx.GraphProto, new_nodes: list[onnx.NodeProto]) -> None:
    """Keep the node list topologically sorted: put each new node right before its consumer."""
    by_output = {n.output[0]: n for n in new_nodes}
    ordered: list[onnx.NodeProto] = []

    def emit(node: onnx.NodeProto) -> None:
        for inp in node.input:
            extra = by_output.pop(inp, None)
            if extra is not None:
                emit(extra)
        ordered.append(node)

    for node in graph.node:
        emit(node)
    del graph.node[:]
    graph.node.extend(ordered)


def activation_ranges(
    model: onnx.ModelProto, names: Sequence[str], feeds: Iterable[dict[str, np.ndarray]]
) -> dict[str, tuple[float, float]]:
    """(min, max) of each named tensor over the feeds, 0 always inside (as the quantiser's
    own range is)."""
    import onnxruntime as ort

    tapped = onnx.ModelProto.FromString(model.SerializeToString())
    existing = {o.name for o in tapped.graph.output}
    for name in names:
        if name not in existing:
            tapped.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        tapped.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    ranges = {name: (0.0, 0.0) for name in names}
    for feed in feeds:
        wanted = {i.name for i in session.get_inputs()}
        for name, value in zip(
            names,
            session.run(list(names), {k: v for k, v in feed.items() if k in wanted}),
            strict=True,
        ):
            low, high = ranges[name]
            ranges[name] = (min(low, float(value.min())), max(high, float(value.max())))
    return ranges


ACTIVATION_RANGE_MARGIN = 1.25


def freeze_activation_scales(
    model: onnx.ModelProto, feeds: Sequence[dict[str, np.ndarray]]
) -> onnx.ModelProto:
    """Replace every `DynamicQuantizeLinear` by a `QuantizeLinear` with the uint8 scale and
    zero point that `DynamicQuantizeLinear` would compute for the range seen over `feeds`
    (each feed one unpadded text, so padding never widens a range), widened by
    ACTIVATION_RANGE_MARGIN."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    dynamic = [n for n in graph.node if n.op_type == "DynamicQuantizeLinear"]
    ranges = activation_ranges(model, [n.input[0] for n in dynamic], feeds)
    nodes: list[onnx.NodeProto] = []
    for node in graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            nodes.append(node)
            continue
        low, high = ranges[node.input[0]]
        low, high = low * ACTIVATION_RANGE_MARGIN, high * ACTIVATION_RANGE_MARGIN
        scale = np.float32((high - low) / 255.0) if high > low else np.float32(1.0)
        zero_point = np.uint8(np.clip(np.round(-low / scale), 0, 255))
        quantized, scale_name, zero_name = node.output
        graph.initializer.append(numpy_helper.from_array(np.array(scale, np.float32), scale_name))
        graph.initializer.append(numpy_helper.from_array(np.array(zero_point, np.uint8), zero_name))
        nodes.append(
            helper.make_node(
                "QuantizeLinear",
                [node.input[0], scale_name, zero_name],
                [quantized],
                name=f"{node.name}/frozen",
            )
        )
    del graph.node[:]
    graph.node.extend(nodes)
    return model


def quantize_int8(
    fp32_path: Path,
    out_path: Path,
    calibration: Sequence[dict[str, np.ndarray]] | None,
    alpha: float = 0.5,
    exclude: Sequence[str] = (),
    per_channel: bool = True,
    smooth_kinds: Iterable[str] = NODE_KINDS,
    mask_kinds: Iterable[str] = (),
) -> None:
    """Write the int8 model: optional SmoothQuant, `quantize_dynamic` (weights int8), then,
    with calibration feeds, activation scales frozen to the calibrated ranges."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(fp32_path))
    nodes = quantizable_nodes(model)
    with tempfile.TemporaryDirectory(prefix="quire-quant-") as tmp:
        source = fp32_path
        if calibration:
            act_max = activation_channel_max(fp32_path, nodes, calibration)
            smoothed = smooth_model(
                model, act_max, alpha=alpha, smooth_kinds=smooth_kinds, mask_kinds=mask_kinds
            )
            source = Path(tmp) / "smoothed.onnx"
            onnx.save(smoothed, str(source))
            nodes = quantizable_nodes(smoothed)
        quantize_dynamic(
            str(source),
            str(out_path),
            per_channel=per_channel,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            nodes_to_quantize=[n.name for n in nodes if n.name not in set(exclude)],
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )
    if calibration:
        onnx.save(freeze_activation_scales(onnx.load(str(out_path)), calibration), str(out_path))
