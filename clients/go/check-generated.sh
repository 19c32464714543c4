#!/usr/bin/env bash
# Fails when the committed generated Go code (quirev1/*.pb.go) differs from what generate.sh
# produces from proto/quire/v1 now. quire/contract_gen.go is checked by `make check-generated`
# (scripts/contractgen --check).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/generate.sh" "$tmp" >/dev/null
status=0
if ! diff -r "$tmp/quirev1" "$here/quirev1" >"$tmp/diff.txt" 2>&1; then status=1; fi
if [[ $status -ne 0 ]]; then
  echo "Generated Go code is stale: run 'clients/go/generate.sh' and commit the result." >&2
  head -40 "$tmp/diff.txt" >&2
  exit 1
fi
echo "generated Go code is up to date"
