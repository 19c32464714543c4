#!/usr/bin/env bash
# `buf breaking` against the previous commit, once a first version of the contract has landed.
set -euo pipefail
cd "$(dirname "$0")/.."
buf=${BUF:-.venv/bin/buf}
if git rev-parse -q --verify HEAD~1 >/dev/null && git cat-file -e HEAD~1:buf.yaml 2>/dev/null; then
  "$buf" breaking --against '.git#ref=HEAD~1'
  echo "buf breaking: no breaking change against HEAD~1"
else
  echo "buf breaking: no previous contract to compare with (first version or shallow clone)"
fi
