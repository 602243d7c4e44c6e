#!/usr/bin/env bash
# Installs the real services the integration tests start as local processes (no Docker here).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v redis-server >/dev/null || apt_install redis-server
