#!/bin/sh
# record.sh records one run of an installed codex CLI against `evcap fake-model`,
# offline. Run it inside a network namespace with only loopback up:
#
#   unshare --net -- sh -c 'ip link set lo up && sh record.sh CODEX EVCAP SCENARIO OUTDIR NAME [FLAG...]'
#
# CODEX is the codex binary (node_modules/.bin/codex of an npm install),
# EVCAP an evcap binary, SCENARIO a fakemodel scenario file, OUTDIR/NAME the
# prefix of the files written: NAME.stdout.jsonl (codex's stdout, byte for
# byte), NAME.stderr.txt, NAME.requests.jsonl (what the fake model received)
# and NAME.exit (codex's exit status). FLAGs replace the default output flag
# (--json), e.g. --experimental-json. A codex that has not exited after
# 180 s is killed (codex 0.20.0 hangs after a fatal error); NAME.exit then
# says so. With MCP=FILE, the node MCP server FILE is configured as server
# "evtest". EXTRA_CONFIG is appended to config.toml. PROMPT replaces the default prompt. The configuration is the one
# fakemodel.Prepare writes for codex (fakemodel/cli.go).
set -eu
codex=$1 evcap=$2 scenario=$3 out=$4 name=$5
shift 5
[ $# -gt 0 ] || set -- --json
work=$(mktemp -d /tmp/codexrec.XXXXXX)
mkdir -p "$work/home/.codex" "$work/home/tmp" "$work/project" "$out"
printf '# demo-project\n\nA tiny sample project used for capture tests.\n' > "$work/project/README.md"
"$evcap" fake-model --scenario "$scenario" --workdir "$work/project" --log "$work/requests.jsonl" > "$work/url" &
fm=$!
i=0
while [ ! -s "$work/url" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
url=$(head -n1 "$work/url")
cat > "$work/home/.codex/config.toml" <<CFG
model = "gpt-5.5"
model_provider = "fake"
model_reasoning_summary = "detailed"

[model_providers.fake]
name = "fake"
base_url = "$url/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 3
stream_max_retries = 2
stream_idle_timeout_ms = 60000
CFG
if [ -n "${EXTRA_CONFIG:-}" ]; then
  printf '%s\n' "$EXTRA_CONFIG" >> "$work/home/.codex/config.toml"
fi
if [ -n "${MCP:-}" ]; then
  printf '\n[mcp_servers.evtest]\ncommand = "node"\nargs = ["%s"]\n' "$MCP" >> "$work/home/.codex/config.toml"
fi
set +e
cd "$work/project"
# codex runs in its own process group so that a hung run can be killed
# whole (the npm shim is node, which starts the native binary as a child).
setsid env -i PATH="$(dirname "$codex"):/usr/local/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR="$work/home/tmp" \
  CODEX_HOME="$work/home/.codex" FAKE_API_KEY=dummy RUST_LOG=warn \
  "$codex" exec "$@" --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C "$work/project" \
  "${PROMPT:-What is in this project? Look at the files and summarise the README.}" \
  < /dev/null > "$out/$name.stdout.jsonl" 2> "$out/$name.stderr.txt" &
cx=$!
i=0
while kill -0 "$cx" 2>/dev/null && [ $i -lt 1800 ]; do sleep 0.1; i=$((i+1)); done
if kill -0 "$cx" 2>/dev/null; then
  kill -KILL "-$cx"
  wait "$cx"
  echo "killed after 180 s" > "$out/$name.exit"
else
  wait "$cx"
  echo $? > "$out/$name.exit"
fi
set -e
kill "$fm"
wait "$fm" 2>/dev/null || true
cp "$work/requests.jsonl" "$out/$name.requests.jsonl" 2>/dev/null || : > "$out/$name.requests.jsonl"
# The run directory is random; name it the way the shared corpus does.
sed -i "s#$work#/tmp/realcli/runs/codex#g" "$out/$name.stdout.jsonl" "$out/$name.stderr.txt" "$out/$name.requests.jsonl"
rm -rf "$work"
