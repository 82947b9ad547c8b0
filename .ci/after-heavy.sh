#!/usr/bin/env bash
# Runs, without the race detector, every test that `go test -race ./...` (the
# README's test command) and `go test -short` skip as heavy: the tests whose
# first line is corpustest.Heavy(t) (internal/corpustest/heavy.go). They walk
# the whole corpus, the planted-secret matrix or tens of MB through the
# redactor in one goroutine; they check behaviour, not data races, and under
# the race detector they alone took minutes. The list is found here from the
# source, so a new call is picked up without editing this script.
#
# EVCAP_HEAVY=1 makes Heavy let them run; -short keeps the sizes the tests
# choose for CI (the planted matrix's fixed subset: EVCAP_PLANTED=full runs
# all of it). A listed test that does not run and pass fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# "dir Name" for every Test function whose body calls corpustest.Heavy(t).
list=$(for f in $(git ls-files '*_test.go'); do
	awk -v dir="$(dirname "$f")" '
		match($0, /^func (Test[A-Za-z0-9_]*)\(/) { name = substr($0, 6, RLENGTH - 6) }
		/corpustest\.Heavy\(t\)/ && name != "" { print dir, name; name = "" }
	' "$f"
done | sort -u)
if [ -z "$list" ]; then
	echo "no test calls corpustest.Heavy: nothing to run (is the pattern still right?)"; exit 1
fi

status=0
for dir in $(echo "$list" | cut -d' ' -f1 | sort -u); do
	names=$(echo "$list" | awk -v d="$dir" '$1 == d { print $2 }' | paste -sd'|')
	want=$(echo "$names" | tr '|' '\n' | wc -l)
	echo "-- ./$dir: ${names//|/ }"
	start=$(date +%s)
	out=$(EVCAP_HEAVY=1 go test -count=1 -short -timeout 20m -run "^(${names})\$" -v "./$dir" 2>&1) || status=1
	echo "$out" | grep -E '^(--- |ok|FAIL|PASS|panic)' || true
	passed=$(echo "$out" | grep -cE '^--- PASS: Test[A-Za-z0-9_]* ' || true)
	echo "   $passed of $want passed in $(( $(date +%s) - start )) s"
	if [ "$passed" -ne "$want" ]; then
		echo "$out" | tail -n 40
		status=1
	fi
done
exit $status
