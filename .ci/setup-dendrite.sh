# Sourced by .ci/run before the tests: builds the Matrix homeserver dendrite
# (once; cached) and exports EVCAP_DENDRITE_BIN, so the render/matrix tests
# run against a real homeserver instead of skipping. Idempotent: a complete
# cache is reused; a partial one is rebuilt. Needs only the Go module proxy.
# Override the cache location with EVCAP_CACHE (default ~/.cache/evcap).

evcap_setup_dendrite() {
	local version=v0.13.8
	local dir="${EVCAP_CACHE:-$HOME/.cache/evcap}/dendrite-$version"
	local tools="dendrite generate-keys generate-config create-account"
	local t missing=""
	for t in $tools; do
		[ -x "$dir/$t" ] || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		echo "building dendrite $version into $dir (missing:$missing; a few minutes cold)"
		local tmp
		tmp=$(mktemp -d)
		local pkgs=""
		for t in $tools; do
			pkgs="$pkgs github.com/matrix-org/dendrite/cmd/$t@$version"
		done
		# Outside this module, so its go.mod has no say in dendrite's build.
		# shellcheck disable=SC2086
		if ! (cd "$tmp" && GOBIN="$tmp/bin" GOFLAGS= go install $pkgs); then
			rm -rf "$tmp"
			echo "setup-dendrite: go install of dendrite $version failed" >&2
			return 1
		fi
		mkdir -p "$(dirname "$dir")"
		rm -rf "$dir"
		mv "$tmp/bin" "$dir"
		rm -rf "$tmp"
	fi
	export EVCAP_DENDRITE_BIN="$dir"
	echo "EVCAP_DENDRITE_BIN=$EVCAP_DENDRITE_BIN"
}
evcap_setup_dendrite
unset -f evcap_setup_dendrite
