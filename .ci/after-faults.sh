#!/usr/bin/env bash
# Runs the fault-matrix rows that stream tens of MB through the redactor
# (10 long lines, 14 split secrets, 15 escaped secrets) without the race
# detector: under it they alone take minutes, so `go test -race ./...` skips
# them (skipHeavyUnderRace in cmd/evcap/faults_test.go) and this runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestFault(10|14|15)' -v ./cmd/evcap | grep -E '^(--- |ok|FAIL|PASS)'
