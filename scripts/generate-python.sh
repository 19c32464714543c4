#!/usr/bin/env bash
# Regenerates the Python stubs of the contract into the client distribution
# (or into $1, which `make check-generated` uses to compare with what is committed).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
out=${1:-clients/python}
wkt=$("$py" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')
mkdir -p "$out/quire/v1"
find "$out/quire/v1" -name '*_pb2*' -delete
PATH="$(dirname "$py"):$PATH" "$py" -m grpc_tools.protoc -I proto -I "$wkt" \
  --python_out="$out" --grpc_python_out="$out" \
  --mypy_out=quiet:"$out" --mypy_grpc_out=quiet:"$out" \
  proto/quire/v1/*.proto
# The blocking client, derived from the asyncio one (quire/client/blocking.py and its interceptors).
"$py" scripts/unasync_client.py --out "$out"
