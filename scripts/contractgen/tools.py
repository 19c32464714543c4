"""Agent tool schemas: one JSON Schema per RPC marked `option (quire.v1.tool)`.

A tool's arguments are the request fields the option lists; each field's comment becomes its
`description` (its first paragraph: later ones, after an empty `//` line, are for readers
of the proto only), its proto type the JSON type and its `(quire.v1.bounds)` the JSON Schema
keywords. proto3 cannot tell an empty string from an unset one, so a required string argument
must be non-empty (`minLength` 1) unless its bounds set `min_chars: 0`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import descriptor_pb2

from scripts.contractgen.contract import Contract, extension
from scripts.contractgen.python_source import formatted

MODULE = "server/quire/server/pages/tool_schemas.py"

# Paths in a FileDescriptorProto's source info: message_type = 4, field = 2.
_MESSAGE, _FIELD = 4, 2
# The service that answers DescribeTools lists its own tools first.
_HOST_SERVICE = "PagesService"

_FieldType = descriptor_pb2.FieldDescriptorProto
_INTEGERS = {
    _FieldType.TYPE_INT32,
    _FieldType.TYPE_INT64,
    _FieldType.TYPE_SINT32,
    _FieldType.TYPE_SINT64,
    _FieldType.TYPE_SFIXED32,
    _FieldType.TYPE_SFIXED64,
}
_UNSIGNED = {
    _FieldType.TYPE_UINT32,
    _FieldType.TYPE_UINT64,
    _FieldType.TYPE_FIXED32,
    _FieldType.TYPE_FIXED64,
}


def _scalar(field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
    if field.type == _FieldType.TYPE_STRING:
        return {"type": "string"}
    if field.type == _FieldType.TYPE_BOOL:
        return {"type": "boolean"}
    if field.type in (_FieldType.TYPE_DOUBLE, _FieldType.TYPE_FLOAT):
        return {"type": "number"}
    if field.type in _INTEGERS:
        return {"type": "integer"}
    if field.type in _UNSIGNED:
        return {"type": "integer", "minimum": 0}
    raise ValueError(f"tool argument {field.name}: no JSON Schema for proto type {field.type}")


def first_paragraph(contract: Contract, file: str, path: tuple[int, ...]) -> str:
    """The first paragraph of the leading comment at `path`, on one line."""
    for proto in contract.fds.file:
        if proto.name != file:
            continue
        for location in proto.source_code_info.location:
            if tuple(location.path) == path and location.leading_comments:
                paragraph = location.leading_comments.strip().split("\n\n")[0]
                return " ".join(line.strip() for line in paragraph.splitlines())
    return ""


def field_schema(
    field: descriptor_pb2.FieldDescriptorProto, bounds: Any, comment: str, required: bool
) -> dict[str, Any]:
    """The JSON Schema of one tool argument."""
    value = _scalar(field)
    if bounds is not None:
        if bounds.HasField("min"):
            value["minimum"] = bounds.min
        if bounds.HasField("max"):
            value["maximum"] = bounds.max
        if bounds.HasField("min_chars") and bounds.min_chars:
            value["minLength"] = bounds.min_chars
        if bounds.HasField("max_chars"):
            value["maxLength"] = bounds.max_chars
        if bounds.pattern:
            value["pattern"] = bounds.pattern
    explicit_min = bounds is not None and bounds.HasField("min_chars")
    if required and value["type"] == "string" and not explicit_min:
        value["minLength"] = 1
    repeated = field.label == _FieldType.LABEL_REPEATED
    schema: dict[str, Any] = {"type": "array", "items": value} if repeated else value
    if repeated and bounds is not None and bounds.HasField("max_items"):
        schema["maxItems"] = bounds.max_items
    if bounds is not None and bounds.default_json:
        schema["default"] = json.loads(bounds.default_json)
    if comment:
        schema["description"] = comment
    return schema


@dataclass(frozen=True)
class Tool:
    """One agent tool: its name, the RPC that answers it, and what a model reads."""

    name: str
    service: str
    rpc: str
    description: str
    schema: dict[str, Any]


def tool_schemas(contract: Contract) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, description, input schema) of every tool, host service first, in RPC order."""
    return [(t.name, t.description, t.schema) for t in tools(contract)]


def tools(contract: Contract) -> list[Tool]:
    """Every tool, host service first, in RPC order."""
    from quire.v1 import bounds_pb2, options_pb2

    messages: dict[str, tuple[str, int, descriptor_pb2.DescriptorProto]] = {}
    for file in contract.files():
        for m, message in enumerate(file.message_type):
            messages[f".{file.package}.{message.name}"] = (file.name, m, message)
    services = [(f, s) for f in contract.files() for s in f.service]
    services.sort(key=lambda fs: fs[1].name != _HOST_SERVICE)
    found = []
    for _, service in services:
        for method in service.method:
            tool = extension(method.options, options_pb2.tool)
            if tool is None:
                continue
            file_name, m, message = messages[method.input_type]
            by_name = {f.name: (i, f) for i, f in enumerate(message.field)}
            properties = {}
            for name in tool.fields:
                if name not in by_name:
                    raise ValueError(f"tool {tool.name}: {message.name} has no field {name}")
                i, field = by_name[name]
                properties[name] = field_schema(
                    field,
                    extension(field.options, bounds_pb2.bounds),
                    first_paragraph(contract, file_name, (_MESSAGE, m, _FIELD, i)),
                    name in tool.required,
                )
            unknown = set(tool.required) - set(tool.fields)
            if unknown:
                raise ValueError(f"tool {tool.name}: required {sorted(unknown)} not in fields")
            schema = {"type": "object", "properties": properties, "required": list(tool.required)}
            found.append(Tool(tool.name, service.name, method.name, tool.description, schema))
    return found


_HEAD = '''"""Agent tool schemas, generated by scripts/contractgen from the `(quire.v1.tool)`
options on the RPCs in proto/quire/v1 and the comments and `(quire.v1.bounds)` of their
request fields: do not edit, change the proto and run `make generate`.

Each entry is (tool name, description, JSON Schema of the arguments).
"""

# ruff: noqa: E501 (descriptions are kept whole, as a model reads them)

from __future__ import annotations

from typing import Any

'''


def emit(contract: Contract) -> dict[str, str]:
    body = f"TOOLS: list[tuple[str, str, dict[str, Any]]] = {tool_schemas(contract)!r}\n"
    return {MODULE: formatted(_HEAD + body, MODULE)}
