#!/bin/sh
# Planted-secret recall, side by side: runs the matrix of internal/planted
# through evcap scan, evcap sanitize, gitleaks and (when it installs)
# trufflehog, and prints the markdown tables BENCHMARKS.md quotes.
#
# The tools are installed from the Go module proxy into $TOOLS (default
# /tmp/benchtools/plant), pinned; nothing here runs in unit tests.
#   bench/plant.sh            # the whole matrix
#   bench/plant.sh -short     # the 1-in-12 subset the unit test runs
set -eu
cd "$(dirname "$0")/.."
TOOLS=${TOOLS:-/tmp/benchtools/plant}
GITLEAKS_VERSION=${GITLEAKS_VERSION:-v8.30.1}
TRUFFLEHOG_VERSION=${TRUFFLEHOG_VERSION:-latest}
mkdir -p "$TOOLS"
if [ ! -x "$TOOLS/gitleaks-$GITLEAKS_VERSION" ]; then
	echo "plant.sh: installing gitleaks $GITLEAKS_VERSION" >&2
	GOBIN="$TOOLS/build" go install "github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION"
	mv "$TOOLS/build/gitleaks" "$TOOLS/gitleaks-$GITLEAKS_VERSION"
fi
set -- -gitleaks "$TOOLS/gitleaks-$GITLEAKS_VERSION" "$@"
if [ -x "$TOOLS/trufflehog" ] || GOBIN="$TOOLS" go install "github.com/trufflesecurity/trufflehog/v3@$TRUFFLEHOG_VERSION" 2>"$TOOLS/trufflehog-install.log"; then
	set -- -trufflehog "$TOOLS/trufflehog" "$@"
else
	echo "plant.sh: trufflehog did not install from the module proxy (see $TOOLS/trufflehog-install.log); left out" >&2
fi
"$TOOLS/gitleaks-$GITLEAKS_VERSION" version >&2 || true
go run ./bench/cmd/plantbench "$@"
