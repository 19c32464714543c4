"""Decodes `grpc-status-details-bin` without depending on googleapis-common-protos.

`google.rpc.Status` is three fields; a private descriptor pool gives a real message class for
it without registering `google.rpc` names that another package might also register.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

from quire.v1 import errors_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"
_DETAIL_TYPE = "type.googleapis.com/" + errors_pb2.ErrorDetail.DESCRIPTOR.full_name


def _status_class() -> Any:
    pool = descriptor_pool.DescriptorPool()
    any_file = descriptor_pb2.FileDescriptorProto()
    any_pb2.DESCRIPTOR.CopyToProto(any_file)
    pool.Add(any_file)
    file = descriptor_pb2.FileDescriptorProto(
        name="quire_client/google_rpc_status.proto",
        package="google.rpc",
        dependency=["google/protobuf/any.proto"],
        syntax="proto3",
    )
    msg = file.message_type.add(name="Status")
    fd = descriptor_pb2.FieldDescriptorProto
    msg.field.add(name="code", number=1, type=fd.TYPE_INT32, label=fd.LABEL_OPTIONAL)
    msg.field.add(name="message", number=2, type=fd.TYPE_STRING, label=fd.LABEL_OPTIONAL)
    msg.field.add(
        name="details",
        number=3,
        type=fd.TYPE_MESSAGE,
        label=fd.LABEL_REPEATED,
        type_name=".google.protobuf.Any",
    )
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status"))


_Status = _status_class()


def error_detail(metadata: Any) -> errors_pb2.ErrorDetail | None:
    """The ErrorDetail inside the trailers, if the server sent one."""
    for key, value in metadata or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = _Status.FromString(value)
            for item in status.details:
                if item.type_url == _DETAIL_TYPE:
                    return errors_pb2.ErrorDetail.FromString(item.value)
    return None


def error_reasons(metadata: Any) -> list[str]:
    """Type URLs of every detail (useful in tests and debugging)."""
    for key, value in metadata or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return [item.type_url for item in _Status.FromString(value).details]
    return []
