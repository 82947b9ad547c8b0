"""drive-control.py runs Claude Code over the Agent SDK's control protocol
(--input-format stream-json, --permission-prompt-tool stdio), as the SDK
does when a caller passes canUseTool: it sends the initialize request and
the user message on stdin, copies stdout byte for byte to NAME.stdout.jsonl,
answers every can_use_tool request (allow, except Bash commands that contain
"rm ", which are denied) and closes stdin after the result line. Every line
it writes to claude's stdin is kept in NAME.stdin.jsonl.

usage: python3 drive-control.py PROMPT OUTPREFIX CMD...
"""
import json
import subprocess
import sys

prompt, prefix, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
cmd = cmd + ["--input-format", "stream-json", "--permission-prompt-tool", "stdio"]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
sent = open(prefix + ".stdin.jsonl", "wb")
out = open(prefix + ".stdout.jsonl", "wb")


def send(obj):
    line = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    sent.write(line)
    sent.flush()
    p.stdin.write(line)
    p.stdin.flush()


send({"type": "control_request", "request_id": "req_init",
      "request": {"subtype": "initialize"}})
send({"type": "user", "session_id": "", "parent_tool_use_id": None,
      "message": {"role": "user", "content": prompt}})
for raw in p.stdout:
    out.write(raw)
    out.flush()
    try:
        msg = json.loads(raw)
    except ValueError:
        continue
    if msg.get("type") == "control_request" and msg["request"].get("subtype") == "can_use_tool":
        req = msg["request"]
        cmdline = str(req.get("input", {}).get("command", ""))
        if "rm " in cmdline:
            reply = {"behavior": "deny", "message": "Not allowed to delete files."}
        else:
            reply = {"behavior": "allow", "updatedInput": req.get("input", {})}
        send({"type": "control_response", "response": {
            "subtype": "success", "request_id": msg["request_id"], "response": reply}})
    if msg.get("type") == "result":
        p.stdin.close()
sys.exit(p.wait())
