#!/bin/sh
# record.sh records one run of the installed opencode CLI against
# `evcap fake-model`, offline, in one of its two machine outputs. Run it
# inside a network namespace with only loopback up:
#
#   unshare --net -- sh -c 'ip link set lo up && sh record.sh MODE OPENCODE EVCAP SCENARIO OUTDIR NAME'
#
# MODE run:   `opencode run --format json --thinking` (stdout byte for byte
#             in NAME.stdout.jsonl)
# MODE serve: `opencode serve` on 127.0.0.1; the /event SSE stream is kept
#             raw in NAME.sse.txt and its data payloads one per line in
#             NAME.stdout.jsonl while POST /session and POST
#             /session/{id}/message run the prompt; the reply is in
#             NAME.http-response.json.
# Also NAME.stderr.txt, NAME.requests.jsonl (what the fake model received)
# and NAME.exit. The config is the one fakemodel.Prepare writes for opencode,
# except that with ASK=1 (serve mode) bash needs permission: each
# permission.asked on the bus is answered through POST
# /permission/{id}/reply, "once" for the first and "reject" after.
set -eu
mode=$1 opencode=$2 evcap=$3 scenario=$4 out=$5 name=$6
prompt="What is in this project? Look at the files and summarise the README."
work=$(mktemp -d /tmp/opencoderec.XXXXXX)
home=$work/home
mkdir -p "$home/tmp" "$work/project" "$out"
printf '# demo-project\n\nA tiny sample project used for capture tests.\n' > "$work/project/README.md"
"$evcap" fake-model --scenario "$scenario" --workdir "$work/project" --log "$work/requests.jsonl" > "$work/url" &
fm=$!
i=0
while [ ! -s "$work/url" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
url=$(head -n1 "$work/url")
bashperm=allow
[ -z "${ASK:-}" ] || bashperm=ask
cat > "$home/opencode.json" <<CFG
{
  "\$schema": "https://opencode.ai/config.json",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": {"baseURL": "$url/v1", "apiKey": "dummy"},
      "models": {
        "fake-model": {"name": "Fake Model", "reasoning": true, "tool_call": true, "limit": {"context": 200000, "output": 32000}}
      }
    }
  },
  "permission": {"edit": "allow", "bash": "$bashperm", "webfetch": "deny", "external_directory": "allow"}
}
CFG
set +e
cd "$work/project"
set -- env -i PATH="$(dirname "$opencode"):/usr/local/bin:/usr/bin:/bin" HOME="$home" TMPDIR="$home/tmp" \
  OPENCODE_CONFIG="$home/opencode.json" OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
  OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 \
  OPENCODE_DISABLE_CLAUDE_CODE=1 XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
  XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" "$opencode"
if [ "$mode" = run ]; then
  "$@" run --format json --thinking -m fake/fake-model "$prompt" < /dev/null > "$out/$name.stdout.jsonl" 2> "$out/$name.stderr.txt"
  echo $? > "$out/$name.exit"
else
  port=39533
  "$@" serve --hostname 127.0.0.1 --port $port < /dev/null > "$out/$name.server-stdout.txt" 2> "$out/$name.stderr.txt" &
  srv=$!
  base=http://127.0.0.1:$port
  i=0
  until curl -s -m 5 -o /dev/null -f "$base/config" || [ $i -gt 100 ]; do sleep 0.3; i=$((i+1)); done
  curl -sN "$base/event" > "$out/$name.sse.txt" &
  sse=$!
  sleep 0.5
  id=$(curl -s -m 30 -X POST -H 'Content-Type: application/json' -d '{"title":"evcap subagent"}' "$base/session" | jq -r .id)
  jq -n --arg p "$prompt" '{model: {providerID: "fake", modelID: "fake-model"}, parts: [{type: "text", text: $p}]}' |
    curl -s -m 120 -X POST -H 'Content-Type: application/json' -d @- "$base/session/$id/message" > "$out/$name.http-response.json" &
  post=$!
  if [ -n "${ASK:-}" ]; then
    answered="" reply=once
    while kill -0 $post 2>/dev/null; do
      for pid in $(sed -n 's/^data: //p' "$out/$name.sse.txt" | jq -r 'select(.type=="permission.asked") | .properties.id'); do
        case " $answered " in *" $pid "*) continue;; esac
        curl -s -m 10 -X POST -H 'Content-Type: application/json' -d "{\"reply\":\"$reply\"}" "$base/permission/$pid/reply" > /dev/null
        answered="$answered $pid" reply=reject
      done
      sleep 0.3
    done
  fi
  wait $post
  echo $? > "$out/$name.exit"
  sleep 1
  kill $sse $srv
  wait $srv 2>/dev/null
  sed -n 's/^data: //p' "$out/$name.sse.txt" > "$out/$name.stdout.jsonl"
  rm -f "$out/$name.server-stdout.txt"
fi
set -e
kill "$fm"
wait "$fm" 2>/dev/null || true
cp "$work/requests.jsonl" "$out/$name.requests.jsonl" 2>/dev/null || : > "$out/$name.requests.jsonl"
for f in "$out/$name".*; do sed -i "s#$work#/tmp/realcli/runs/opencode#g" "$f"; done
rm -rf "$work"
