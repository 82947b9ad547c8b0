# Sourced by .ci/run before the tests: installs Debian's Chromium for the
# browser tests of package view (chromedp drives it) and exports its path.
# Idempotent: does nothing but the export when the binary is there.
if [ ! -x /usr/bin/chromium ]; then
	echo "installing chromium (apt)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export EVCAP_CHROMIUM=/usr/bin/chromium
"$EVCAP_CHROMIUM" --version 2>/dev/null || true
