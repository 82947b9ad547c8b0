#!/usr/bin/env bash
# install-clis.sh CACHE_DIR
#
# Installs the agent CLIs at the versions pinned in ../shared/corpus/MANIFEST.md into
# CACHE_DIR/node_modules with npm, so that the real-CLI end-to-end tests can find them
# (they look in $EVCAP_CLI_DIR/node_modules/.bin). Idempotent: a package already present
# at the pinned version is not installed again. Prints where the binaries are.
#
# Run it before entering a private network namespace; the tests themselves install nothing.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 CACHE_DIR" >&2
	exit 2
fi
cache=$1
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The pins: keep in step with shared/corpus/MANIFEST.md (the versions the corpus was made with).
pins=(
	"@anthropic-ai/claude-code@2.1.197"
	"@openai/codex@0.171.0"
	"opencode-ai@1.18.33"
	"@google/gemini-cli@0.61.0"
)

# installed_version PKG prints the version recorded in the package's package.json, or nothing.
installed_version() {
	local pj="$cache/node_modules/$1/package.json"
	[ -f "$pj" ] || return 0
	node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "$pj"
}

missing=()
for pin in "${pins[@]}"; do
	name=${pin%@*}
	want=${pin##*@}
	have=$(installed_version "$name")
	if [ "$have" != "$want" ]; then
		missing+=("$pin")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "installing into $cache (missing or at another version: ${missing[*]})" >&2
	# All pins are installed together and saved to the cache dir's own package.json (not
	# --no-save): npm prunes packages it does not find there, so installing only the missing
	# ones would remove the others. Those already in place are not downloaded again.
	# The native binaries arrive as optional dependencies of each package, so those must stay on.
	npm install --prefix "$cache" --save-exact --no-audit --no-fund --loglevel=error "${pins[@]}" >&2
else
	echo "all pinned CLIs already installed in $cache" >&2
fi

bin="$cache/node_modules/.bin"
for exe in claude codex opencode gemini; do
	if [ ! -x "$bin/$exe" ]; then
		echo "missing after install: $bin/$exe" >&2
		exit 1
	fi
done
echo "$bin"
