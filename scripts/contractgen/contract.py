"""The contract as the generators see it: descriptors with their options and comments.

`protoc` writes a FileDescriptorSet with source info (comments) for `proto/quire/v1`; the
custom options are read back through the generated Python modules of `options.proto` and
`bounds.proto`, so an option is typed, never parsed from text.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
PACKAGE = "quire.v1"


def _descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    import grpc_tools

    wkt = Path(grpc_tools.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "quire/v1").glob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "contract.binpb")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"-I{PROTO_DIR}",
                f"-I{wkt}",
                "--include_imports",
                "--include_source_info",
                f"--descriptor_set_out={out}",
                *files,
            ],
            check=True,
        )
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(Path(out).read_bytes())
    return fds


@dataclass(frozen=True)
class Contract:
    """The parsed contract: a private descriptor pool plus each file's comments by path."""

    fds: descriptor_pb2.FileDescriptorSet
    pool: descriptor_pool.DescriptorPool
    # (file name, source path tuple) -> leading comment, stripped.
    comments: dict[tuple[str, tuple[int, ...]], str]

    def files(self) -> list[descriptor_pb2.FileDescriptorProto]:
        return [f for f in self.fds.file if f.package == PACKAGE]

    def comment(self, file: str, path: tuple[int, ...]) -> str:
        return self.comments.get((file, path), "")


def load() -> Contract:
    fds = _descriptor_set()
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    comments: dict[tuple[str, tuple[int, ...]], str] = {}
    for f in fds.file:
        for loc in f.source_code_info.location:
            if loc.leading_comments:
                comments[(f.name, tuple(loc.path))] = " ".join(
                    line.strip() for line in loc.leading_comments.strip().splitlines()
                )
    return Contract(fds=fds, pool=pool, comments=comments)


def extension(options: object, ext: object) -> object:
    """The value of custom option `ext` (e.g. `options_pb2.call`) on a descriptor's options.

    Options in a parsed FileDescriptorSet keep custom extensions as unknown fields; re-parsing
    them with the generated extension registered in the default pool makes them typed.
    """
    from google.protobuf.message import Message

    assert isinstance(options, Message)
    typed = type(options)()
    typed.ParseFromString(options.SerializeToString())
    if not typed.HasExtension(ext):  # type: ignore[arg-type]
        return None
    return typed.Extensions[ext]  # type: ignore[index]
