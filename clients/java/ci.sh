#!/usr/bin/env bash
# CI for the Java client: the generated-code check, compile (javac -Xlint:all) and the unit tests.
# The conformance runner and the guide's examples run against a live server in
# tests/integration/test_conformance_java.py. Skipped, with a note, without java or mvn.
# Maven keeps downloaded artifacts in ~/.m2, so only a first run needs the network.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
  echo "java/mvn not installed: the Java client (clients/java) is not checked" >&2
  exit 0
fi
echo "== generated code"
./check-generated.sh
echo "== mvn test"
mvn -B -q test
