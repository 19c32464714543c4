#!/usr/bin/env bash
# Installs Debian's pgbouncer for the connection-pooler test (tests/reliability/test_pgbouncer.py),
# which starts it itself, in transaction mode, in front of the test PostgreSQL. Without root
# or apt-get nothing is installed and that test skips, saying why.
set -euo pipefail
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-pgbouncer.sh: pgbouncer is absent and apt-get as root is not possible here;" \
    "the pooler test will skip (install Debian's pgbouncer package to run it)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The package's own service is not wanted: the test runs pgbouncer under its own config.
apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null
