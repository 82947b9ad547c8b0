#!/bin/sh
# record.sh records one run of the installed Gemini CLI against
# `evcap fake-model`, offline, with the evtest MCP server configured. Run it
# inside a network namespace with only loopback up:
#
#   unshare --net -- sh -c 'ip link set lo up && sh record.sh GEMINI EVCAP SCENARIO OUTDIR NAME'
#
# GEMINI is node_modules/.bin/gemini of an npm install, EVCAP an evcap
# binary, SCENARIO a fakemodel scenario file. Writes OUTDIR/NAME.stdout.jsonl
# (gemini's stdout byte for byte), .stderr.txt, .requests.jsonl (what the
# fake model received) and .exit. The settings are those fakemodel.Prepare
# writes for the Gemini CLI plus an mcpServers entry for
# ../mcp/echo-server.mjs.
set -eu
gemini=$1 evcap=$2 scenario=$3 out=$4 name=$5
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/geminirec.XXXXXX)
mkdir -p "$work/home/.gemini" "$work/home/tmp" "$work/project" "$out"
printf '# demo-project\n\nA tiny sample project used for capture tests.\n' > "$work/project/README.md"
cat > "$work/home/.gemini/settings.json" <<CFG
{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "ide": {"enabled": false},
  "mcpServers": {"evtest": {"command": "node", "args": ["$here/mcp/echo-server.mjs"], "trust": true}}
}
CFG
"$evcap" fake-model --scenario "$scenario" --workdir "$work/project" --log "$work/requests.jsonl" > "$work/url" &
fm=$!
i=0
while [ ! -s "$work/url" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
url=$(head -n1 "$work/url")
set +e
cd "$work/project"
env -i PATH="$(dirname "$gemini"):/usr/local/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR="$work/home/tmp" \
  GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL="$url" GEMINI_CLI_NO_RELAUNCH=true GEMINI_TELEMETRY_ENABLED=false \
  "$gemini" -p "What is in this project? Look at the files and summarise the README." \
  --output-format stream-json --yolo -m gemini-2.5-pro \
  < /dev/null > "$out/$name.stdout.jsonl" 2> "$out/$name.stderr.txt"
echo $? > "$out/$name.exit"
set -e
kill "$fm"
wait "$fm" 2>/dev/null || true
cp "$work/requests.jsonl" "$out/$name.requests.jsonl" 2>/dev/null || : > "$out/$name.requests.jsonl"
for f in "$out/$name".*; do sed -i "s#$work#/tmp/realcli/runs/gemini#g; s#$here#<TESTDATA>#g" "$f"; done
rm -rf "$work"
