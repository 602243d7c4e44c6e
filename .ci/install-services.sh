#!/usr/bin/env bash
# Installs the real services the integration tests start as local processes (no Docker here), on a
# CI machine or on a stock Debian 12, as root or through sudo. What is already there is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then $sudo apt-get update -qq; apt_updated=1; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v redis-server >/dev/null || apt_install redis-server

# Apache Kafka (KRaft, single node) for the forwarding tests: its jars from Maven Central, cached
# under $HOME/.cache so a re-run fetches nothing. test/support/kafka-broker.ts starts it.
kafka_libs="$HOME/.cache/petstore/kafka-3.9.1/libs"
if [ ! -f "$kafka_libs/kafka_2.13-3.9.1.jar" ]; then
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  command -v mvn >/dev/null || apt_install maven
  mkdir -p "$kafka_libs"
  mvn -q -B -f .ci/kafka/pom.xml dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$kafka_libs"
fi
command -v strace >/dev/null || apt_install strace
# pgrep, which a start-up test uses to find a worker process (test/cli/start-failures.e2e.test.ts).
command -v pgrep >/dev/null || apt_install procps
# The load generator of the benchmark's workers figure (bench/workers.ts), run by its quick mode's test.
command -v wrk >/dev/null || apt_install wrk
# A real browser for the developer pages' test (test/http/dev-pages.e2e.test.ts), driven by playwright-core.
[ -x /usr/bin/chromium ] || apt_install chromium

# Schemathesis, for the generated tests of test/fuzz (REST from OpenAPI, GraphQL from the SDL), in
# a virtual environment of the repository: Debian 12's pip refuses to install into the system's
# Python (PEP 668, "externally-managed-environment"), and its python3 makes no venv without
# python3-venv. test/fuzz/schemathesis.e2e.test.ts runs .cache/venv/bin/python3.
schemathesis_version=4.32.5
venv=.cache/venv
command -v python3 >/dev/null || apt_install python3
if [ ! -x "$venv/bin/python3" ]; then
  python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; apt_install python3-venv; python3 -m venv "$venv"; }
fi
"$venv/bin/python3" -c "import sys, schemathesis; sys.exit(schemathesis.__version__ != '$schemathesis_version')" 2>/dev/null ||
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "schemathesis==$schemathesis_version"
