#!/usr/bin/env bash
# Regenerates the Java code of the contract (proto/quire/v1) into
# src/main/java/dev/quire/v1 (messages: protoc's java generator; stubs: protoc-gen-grpc-java).
# The tables derived from the contract's options (dev/quire/client/Contract.java, QuireErrors.java)
# are written by scripts/contractgen, which `make generate` runs after this script.
#
#   clients/java/generate.sh        # into the project (commit the result)
#   clients/java/generate.sh DIR    # into DIR/dev/quire/v1 (check-generated.sh uses it)
#
# The .proto files carry no java_package: the contract stays language-neutral, so this script
# compiles copies of them with the Java file options added (package dev.quire.v1, one file per
# message, outer class <File>Proto), as the Go script passes its package with `M` flags. The
# wire format and the full names (quire.v1.*) are unchanged.
# protoc and the gRPC plugin are the Maven Central artifacts (linux-x86_64 classifier) at the
# versions the pom pins, copied into clients/java/.bin by Maven; the well-known types' .proto
# files come from the repository's grpc_tools (.venv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$here/pom.xml" | head -1; }
PROTOC_VERSION=$(prop protobuf.version)
GRPC_PLUGIN_VERSION=$(prop grpc.plugin.version)
CLASSIFIER=linux-x86_64
JAVA_PACKAGE=dev.quire.v1

out=${1:-$here/src/main/java}
out=$(mkdir -p "$out" && cd "$out" && pwd)
# shellcheck source=../../scripts/grpc-tools.sh
. "$repo/scripts/grpc-tools.sh"  # py, wkt

bin="$here/.bin"
mkdir -p "$bin"
fetch() { # name group:artifact version
  local file="$bin/$1-$3.exe"
  if [[ ! -x "$file" ]]; then
    mvn -B -q -f "$here/pom.xml" dependency:copy \
      -Dartifact="$2:$3:exe:$CLASSIFIER" -DoutputDirectory="$bin" -Dmdep.stripVersion=false >&2
    mv "$bin/$(basename "${2#*:}")-$3-$CLASSIFIER.exe" "$file"
    chmod +x "$file"
  fi
  echo "$file"
}
protoc=$(fetch protoc com.google.protobuf:protoc "$PROTOC_VERSION") || exit 1
grpc_plugin=$(fetch protoc-gen-grpc-java io.grpc:protoc-gen-grpc-java "$GRPC_PLUGIN_VERSION") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/quire/v1"
for f in "$repo"/proto/quire/v1/*.proto; do
  name=$(basename "$f" .proto)
  # snake_case file name → PascalCase + "Proto" (pages_service.proto → PagesServiceProto).
  outer=$(echo "$name" | sed -E 's/(^|_)([a-z])/\U\2/g')Proto
  sed "s/^package quire\.v1;\$/package quire.v1;\noption java_package = \"$JAVA_PACKAGE\";\noption java_multiple_files = true;\noption java_outer_classname = \"$outer\";/" \
    "$f" >"$tmp/quire/v1/$name.proto"
  grep -q "java_outer_classname = \"$outer\"" "$tmp/quire/v1/$name.proto" \
    || { echo "generate.sh: $f has no 'package quire.v1;' line" >&2; exit 1; }
done

rm -rf "$out/dev/quire/v1"
mkdir -p "$out/dev/quire/v1"
(cd "$tmp" && "$protoc" -I . -I "$wkt" \
  --plugin=protoc-gen-grpc-java="$grpc_plugin" \
  --java_out="$out" --grpc-java_out="$out" \
  quire/v1/*.proto)
