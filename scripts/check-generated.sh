#!/usr/bin/env bash
# Fails when the committed generated code differs from what the contract generates now: the
# Python stubs, and every table scripts/contractgen writes from the proto's options.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/generate-python.sh "$tmp/python" >/dev/null
if ! diff -r -x '__init__.py' -x 'py.typed' -x '__pycache__' "$tmp/python/quire/v1" clients/python/quire/v1 >/dev/null; then
  echo "Generated Python stubs are stale: run 'make generate' and commit the result." >&2
  diff -r -x '__init__.py' -x 'py.typed' -x '__pycache__' "$tmp/python/quire/v1" clients/python/quire/v1 | head -20 >&2
  exit 1
fi
for name in blocking.py _blocking_interceptors.py; do
  if ! diff -q "$tmp/python/quire/client/$name" "clients/python/quire/client/$name" >/dev/null; then
    echo "clients/python/quire/client/$name is stale (it is generated from the asyncio client):" >&2
    echo "run 'make generate' and commit the result." >&2
    diff "$tmp/python/quire/client/$name" "clients/python/quire/client/$name" | head -20 >&2
    exit 1
  fi
done
# The Java stubs need Maven (it fetches protoc and the gRPC plugin); without it they are not checked.
if command -v mvn >/dev/null; then
  clients/java/check-generated.sh
else
  echo "mvn is not installed: the generated Java code (clients/java) is not checked" >&2
fi
"${PYTHON:-.venv/bin/python}" -m scripts.contractgen --check
echo "generated code is up to date"
