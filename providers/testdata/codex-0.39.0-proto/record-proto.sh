#!/bin/sh
# record-proto.sh records one run of `codex proto` (the legacy {"id","msg"} protocol
# stream on stdout) against `evcap fake-model`, offline, like record.sh does
# for codex exec. Run inside `unshare --net` with only loopback up:
#   sh record-proto.sh CODEX EVCAP SCENARIO OUTDIR NAME
set -eu
codex=$1 evcap=$2 scenario=$3 out=$4 name=$5
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
set +e
cd "$work/project"
prompt=${PROMPT:-What is in this project? Look at the files and summarise the README.}
sub=$(printf '{"id":"1","op":{"type":"user_input","items":[{"type":"text","text":"%s"}]}}' "$prompt")
# After the task completes (or 120 s pass), a shutdown op asks codex to
# exit; stdin closes once it has confirmed (or 10 s more pass).
( printf '%s\n' "$sub"; i=0; while ! grep -q '"task_complete"' "$out/$name.stdout.jsonl" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
  printf '%s\n' '{"id":"2","op":{"type":"shutdown"}}'
  i=0; while ! grep -q '"shutdown_complete"' "$out/$name.stdout.jsonl" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done ) | \
setsid env -i PATH="$(dirname "$codex"):/usr/local/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR="$work/home/tmp" \
  CODEX_HOME="$work/home/.codex" FAKE_API_KEY=dummy RUST_LOG=warn \
  timeout 150 "$codex" proto > "$out/$name.stdout.jsonl" 2> "$out/$name.stderr.txt"
echo $? > "$out/$name.exit"
set -e
kill "$fm"
wait "$fm" 2>/dev/null || true
cp "$work/requests.jsonl" "$out/$name.requests.jsonl" 2>/dev/null || : > "$out/$name.requests.jsonl"
sed -i "s#$work#/tmp/realcli/runs/codex#g" "$out/$name.stdout.jsonl" "$out/$name.stderr.txt" "$out/$name.requests.jsonl"
rm -rf "$work"
