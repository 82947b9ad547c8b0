"""render.py: the Python twin of render.js, a small renderer of agent CLI
stream lines: one output line per input line, "TYPE: TEXT". It reads
stdin line by line (buffered), so however the stream is split it sees
whole lines."""
import json
import re
import sys


def first_text(v, depth=0):
    if depth > 6 or not isinstance(v, (dict, list)):
        return ""
    if isinstance(v, dict):
        for k in ("text", "delta", "content", "thinking", "message", "result"):
            if isinstance(v.get(k), str) and v[k] != "":
                return v[k]
        items = v.values()
    else:
        items = v
    for x in items:
        t = first_text(x, depth + 1)
        if t != "":
            return t
    return ""


def js_slice(s, n):
    # JavaScript's slice counts UTF-16 code units; match it so that both
    # programs print the same bytes.
    units = s.encode("utf-16-le")[: 2 * n]
    return units.decode("utf-16-le", errors="ignore")


def render(line):
    if line == "":
        return
    try:
        v = json.loads(line)
    except ValueError:
        sys.stdout.write("non-json: " + js_slice(line, 60) + "\n")
        return
    if not isinstance(v, dict):
        v = {}
    sub = v.get("subtype") or (v.get("event") or {}).get("type") or (v.get("item") or {}).get("type") or v.get("role")
    typ = "/".join(str(x) for x in (v.get("type"), sub) if x)
    text = js_slice(re.sub(r"\s+", " ", first_text(v)), 60)
    sys.stdout.write(typ + ": " + text + "\n")


def main():
    stdin = open(sys.stdin.fileno(), "r", encoding="utf-8", newline="\n", closefd=False)
    for line in stdin:
        render(line.rstrip("\n"))
    sys.stdout.flush()


main()
