#!/bin/sh
# Runs the evcap benchmarks (bench/cmd/evbench) from the module root and
# writes the report to stdout; progress goes to stderr. Arguments are passed
# on (evbench -h lists them). gitleaks is used when on PATH or in
# $GITLEAKS_DIR (default /tmp/benchtools).
set -eu
cd "$(dirname "$0")/.."
PATH="$PATH:${GITLEAKS_DIR:-/tmp/benchtools}"
export PATH
go build -o "${TMPDIR:-/tmp}/evbench.$$" ./bench/cmd/evbench
trap 'rm -f "${TMPDIR:-/tmp}/evbench.$$"' EXIT
"${TMPDIR:-/tmp}/evbench.$$" "$@"
