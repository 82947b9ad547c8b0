#!/usr/bin/env bash
# Runs the fleet export test at full size (10,000 captures) without the race
# detector, so that its peak-RSS bound (100 MiB) is checked on evcap's own
# memory use; `go test -race ./...` runs it on a smaller tree.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestFleetTenThousand$' -v ./export | grep -E 'first run|^(--- |ok|FAIL|PASS)'
