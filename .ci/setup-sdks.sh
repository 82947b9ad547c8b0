# Sourced by .ci/run before the tests: installs the official TypeScript SDKs
# that the real-client tests (record: TestSDKRealCLI) drive, into a cache
# folder, with npm (idempotent: nothing is fetched when the pinned versions
# are there). Their optional dependencies (each SDK's own copy of its CLI's
# native binary) are left out: the tests point the SDKs at the pinned CLIs
# of .ci/setup-clis.sh and at evcap play. Exports EVCAP_SDK_DIR for
# .ci/after-realcli.sh (the tests read it; without it they skip).
EVCAP_SDK_DIR=${EVCAP_SDK_DIR:-$HOME/.cache/evcap/sdks}
export EVCAP_SDK_DIR
evcap_sdk_pins="@anthropic-ai/claude-agent-sdk@0.3.332 @openai/codex-sdk@0.163.0"
evcap_sdk_missing=""
for pin in $evcap_sdk_pins; do
	name=${pin%@*}
	want=${pin##*@}
	have=""
	if [ -f "$EVCAP_SDK_DIR/node_modules/$name/package.json" ]; then
		have=$(node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "$EVCAP_SDK_DIR/node_modules/$name/package.json")
	fi
	[ "$have" = "$want" ] || evcap_sdk_missing="$evcap_sdk_missing $pin"
done
if [ -n "$evcap_sdk_missing" ]; then
	mkdir -p "$EVCAP_SDK_DIR"
	[ -f "$EVCAP_SDK_DIR/package.json" ] || echo '{"name":"evcap-sdks","private":true}' >"$EVCAP_SDK_DIR/package.json"
	echo "installing into $EVCAP_SDK_DIR:$evcap_sdk_missing"
	# shellcheck disable=SC2086
	npm install --prefix "$EVCAP_SDK_DIR" --omit=optional --no-audit --no-fund $evcap_sdk_missing
fi
unset evcap_sdk_pins evcap_sdk_missing pin name want have
