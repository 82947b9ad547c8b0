#!/usr/bin/env bash
# Runs the real-CLI end-to-end tests (tests named *RealCLI*) inside a private
# network namespace with only loopback up, so the agent CLIs can reach the
# scripted model server on 127.0.0.1 and nothing else. Test binaries are built
# first, outside the namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${EVCAP_CLI_CACHE:-$HOME/.cache/evcap/clis}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# The tests run evcap as a real child process: build it here, where the
# module proxy is reachable, and hand its path to the tests.
go build -o "$bin/evcap" ./cmd/evcap
export EVCAP_BIN="$bin/evcap"
pkgs=$(grep -l 'func Test[A-Za-z]*RealCLI' $(git ls-files '*_test.go') | xargs -n1 dirname | sort -u)
for p in $pkgs; do
	name=$(echo "$p" | tr / _)
	go test -c -o "$bin/$name.test" "./$p"
done
for p in $pkgs; do
	name=$(echo "$p" | tr / _)
	echo "-- $p (real CLIs from $cache, network: loopback only)"
	(cd "$root/$p" && EVCAP_CLI_DIR="$cache" EVCAP_BIN="$EVCAP_BIN" unshare --net -- sh -c 'ip link set lo up && exec "$0" -test.run RealCLI -test.v -test.timeout 20m' "$bin/$name.test" 2>&1)
done
