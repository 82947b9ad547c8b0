#!/bin/sh
# record.sh records one run of the installed Claude Code CLI against
# `evcap fake-model`, offline. Run it inside a network namespace with only
# loopback up:
#
#   unshare --net -- sh -c 'ip link set lo up && sh record.sh CLAUDE EVCAP SCENARIO OUTDIR NAME [CLAUDE-ARG...]'
#
# CLAUDE is the claude binary (node_modules/.bin/claude of an npm install),
# EVCAP an evcap binary, SCENARIO a fakemodel scenario file, OUTDIR/NAME the
# prefix of the files written: NAME.stdout.jsonl (claude's stdout, byte for
# byte), NAME.stderr.txt, NAME.requests.jsonl (what the fake model received)
# and NAME.exit. CLAUDE-ARGs come after the prompt and the base flags
# (-p PROMPT --output-format stream-json --verbose --model M).
#
# Environment:
#   SETTINGS=FILE  copied to the config dir as settings.json (hooks)
#   DRIVER=FILE    a Python script that runs claude itself over the SDK
#                  control protocol (--input-format stream-json); it gets
#                  OUTDIR/NAME then the claude command line, and also writes
#                  NAME.stdin.jsonl (every line it sent)
#   PROMPT=TEXT    the user prompt (default: look at the files, summarise)
#   EXTRA_ENV="K=V ..."  more environment for claude (split on spaces)
# The environment is the one fakemodel.Prepare sets for Claude Code.
set -eu
claude=$1 evcap=$2 scenario=$3 out=$4 name=$5
shift 5
here=$(cd "$(dirname "$0")/.." && pwd)
prompt=${PROMPT:-"What is in this project? Look at the files and summarise the README."}
work=$(mktemp -d /tmp/clauderec.XXXXXX)
mkdir -p "$work/home/.claude" "$work/home/tmp" "$work/project" "$out"
printf '# demo-project\n\nA tiny sample project used for capture tests.\n' > "$work/project/README.md"
[ -z "${SETTINGS:-}" ] || cp "$SETTINGS" "$work/home/.claude/settings.json"
"$evcap" fake-model --scenario "$scenario" --workdir "$work/project" --log "$work/requests.jsonl" > "$work/url" &
fm=$!
i=0
while [ ! -s "$work/url" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
url=$(head -n1 "$work/url")
set +e
cd "$work/project"
set -- env -i PATH="$(dirname "$claude"):/usr/local/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR="$work/home/tmp" \
  ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=dummy CLAUDE_CONFIG_DIR="$work/home/.claude" \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_ENABLE_TELEMETRY=0 DISABLE_TELEMETRY=1 \
  DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 CLAUDE_CODE_MAX_RETRIES=3 \
  ${EXTRA_ENV:-} "$claude" --output-format stream-json --verbose --model claude-sonnet-4-5-20250929 "$@"
if [ -n "${DRIVER:-}" ]; then
  python3 "$DRIVER" "$prompt" "$out/$name" "$@" 2> "$out/$name.stderr.txt"
else
  "$@" -p "$prompt" < /dev/null > "$out/$name.stdout.jsonl" 2> "$out/$name.stderr.txt"
fi
echo $? > "$out/$name.exit"
set -e
kill "$fm"
wait "$fm" 2>/dev/null || true
cp "$work/requests.jsonl" "$out/$name.requests.jsonl" 2>/dev/null || : > "$out/$name.requests.jsonl"
# The run directory is random; name it the way the shared corpus does.
for f in "$out/$name".*; do sed -i "s#$work#/tmp/realcli/runs/claude#g; s#$here#<TESTDATA>#g" "$f"; done
rm -rf "$work"
