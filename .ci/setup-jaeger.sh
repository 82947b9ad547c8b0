# Sourced by .ci/run before the tests: builds Jaeger v2 (all-in-one, in-memory
# store) from the Go module proxy for the OpenTelemetry export tests of package
# export, and exports its path. The tests start and stop it themselves on
# 127.0.0.1. Idempotent: a binary already in the cache is reused.
# Jaeger's go.mod has replace directives, so `go install …@v` is refused; it is
# built inside a scratch module instead (about 8 minutes cold on 2 cores).
jaeger_version=v1.76.0
jaeger_cache=${EVCAP_JAEGER_CACHE:-$HOME/.cache/evcap/jaeger}
if [ ! -x "$jaeger_cache/jaeger" ] || [ "$(cat "$jaeger_cache/version" 2>/dev/null)" != "$jaeger_version" ]; then
	echo "building jaeger $jaeger_version into $jaeger_cache"
	mkdir -p "$jaeger_cache/src"
	(
		cd "$jaeger_cache/src"
		[ -f go.mod ] || go mod init jtool >/dev/null 2>&1
		go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$jaeger_version" >/dev/null 2>&1
		go build -o "$jaeger_cache/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger
	)
	echo "$jaeger_version" >"$jaeger_cache/version"
fi
export EVCAP_JAEGER="$jaeger_cache/jaeger"
