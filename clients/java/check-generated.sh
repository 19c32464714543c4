#!/usr/bin/env bash
# Fails when the committed generated Java code (src/main/java/dev/quire/v1) differs from what
# generate.sh produces from proto/quire/v1 now. Contract.java and QuireErrors.java are checked by
# scripts/contractgen --check (both run in `make check-generated`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/generate.sh" "$tmp" >/dev/null 2>&1 || { "$here/generate.sh" "$tmp" >/dev/null; exit 1; }
if ! diff -r "$tmp/dev/quire/v1" "$here/src/main/java/dev/quire/v1" >"$tmp/diff.txt" 2>&1; then
  echo "Generated Java code is stale: run 'clients/java/generate.sh' (or 'make generate') and commit." >&2
  head -40 "$tmp/diff.txt" >&2
  exit 1
fi
echo "generated Java code is up to date"
