# A user's program that reads Claude Code's stream-json on stdin and prints
# one line per text or thinking delta. It has the bug minimize is for: it
# assumes every content_block_delta carries text or thinking, so the one
# signature_delta line of a run makes it crash (KeyError, exit status 1).
import json
import sys

for line in sys.stdin:
    ev = json.loads(line)
    if ev.get("type") == "stream_event" and ev["event"]["type"] == "content_block_delta":
        d = ev["event"]["delta"]
        text = d["text"] if d["type"] == "text_delta" else d["thinking"]
        print(d["type"], len(text))
    elif ev.get("type") == "result":
        print("result", ev.get("subtype"))
