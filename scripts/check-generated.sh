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
"${PYTHON:-.venv/bin/python}" -m scripts.contractgen --check
echo "generated code is up to date"
