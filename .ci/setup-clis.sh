# Sourced by .ci/run before the tests: installs the agent CLIs pinned in the
# shared corpus MANIFEST into a cache folder (npm, idempotent) and makes sure
# iproute2 and util-linux are there for the private network namespace.
# It exports EVCAP_CLI_CACHE for .ci/after-realcli.sh; the main test run does
# not see the CLIs (EVCAP_CLI_DIR stays unset), so real-CLI tests run only
# inside the namespace.
EVCAP_CLI_CACHE=${EVCAP_CLI_CACHE:-$HOME/.cache/evcap/clis}
export EVCAP_CLI_CACHE
if ! command -v ip >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq iproute2 util-linux >/dev/null
fi
bash .ci/install-clis.sh "$EVCAP_CLI_CACHE"
