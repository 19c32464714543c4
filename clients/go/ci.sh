#!/usr/bin/env bash
# CI for the Go client: vet, the generated-code check, unit tests (integration tests skip
# unless QUIRE_CONFORMANCE_ADDRESS/KEYS are set; tests/integration/test_conformance_go.py
# runs them and the Go conformance runner against a live server).
# Modules come from the Go module proxy and are verified against the committed go.sum.
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -mod=readonly"
echo "== go vet"
go vet ./...
echo "== generated code"
./check-generated.sh
echo "== go test"
go test -count=1 ./...
echo "== examples/go"
(cd ../../examples/go && go vet ./... && go build -o /dev/null .)
