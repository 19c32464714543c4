#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (tests/browser), which drive it with
# Playwright through `executable_path`: Playwright's own browser download is never used.
# Without root or apt-get nothing is installed and the browser tests skip, saying why.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium.sh: chromium is absent and apt-get as root is not possible here;" \
    "the browser tests will skip (install Debian's chromium package to run them)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
