#!/usr/bin/env bash
# Regenerates the Go code of the contract (proto/quire/v1) into clients/go/quirev1. The tables
# derived from its options (quire/contract_gen.go: error sentinels, status mapping, call kinds)
# are written by scripts/contractgen, which `make generate` runs after this script.
#
#   clients/go/generate.sh          # into the module (commit the result)
#   clients/go/generate.sh DIR      # into DIR/quirev1 (check-generated.sh uses it)
#
# The .proto files carry no go_package: the import path is given with protoc `M` flags, so
# the contract stays language-neutral. Plugins are built at the pinned versions below from the
# Go module proxy into clients/go/.bin; protoc is grpc_tools' (the repository's .venv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

PROTOC_GEN_GO_VERSION=v1.36.12      # google.golang.org/protobuf/cmd/protoc-gen-go
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2   # google.golang.org/grpc/cmd/protoc-gen-go-grpc
MODULE=github.com/quire/quire/clients/go
GO_PACKAGE="$MODULE/quirev1;quirev1"

out=${1:-$here}
out=$(mkdir -p "$out" && cd "$out" && pwd)
# shellcheck source=../../scripts/grpc-tools.sh
. "$repo/scripts/grpc-tools.sh"  # py, wkt

bin="$here/.bin"
mkdir -p "$bin"
install_plugin() { # name module-path version
  local stamp="$bin/$1.version"
  if [[ ! -x "$bin/$1" || "$(cat "$stamp" 2>/dev/null)" != "$3" ]]; then
    GOBIN="$bin" GOFLAGS=-mod=mod go install "$2@$3"
    echo "$3" >"$stamp"
  fi
}
install_plugin protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION"
install_plugin protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION"

cd "$repo/proto"
files=(quire/v1/*.proto)
mflags=()
for f in "${files[@]}"; do
  mflags+=("--go_opt=M$f=$GO_PACKAGE" "--go-grpc_opt=M$f=$GO_PACKAGE")
done
rm -f "$out"/quirev1/*.pb.go
mkdir -p "$out/quirev1"
"$py" -m grpc_tools.protoc -I . -I "$wkt" \
  --plugin=protoc-gen-go="$bin/protoc-gen-go" \
  --plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
  --go_out="$out" --go_opt=module="$MODULE" \
  --go-grpc_out="$out" --go-grpc_opt=module="$MODULE" \
  "${mflags[@]}" \
  "${files[@]}"

