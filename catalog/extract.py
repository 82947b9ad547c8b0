#!/usr/bin/env python3
"""extract.py derives evcap's event catalogs from the providers' published
TypeScript type definitions (the .d.ts files of their npm packages).

    python3 catalog/extract.py DIR

DIR holds the unpacked packages (`npm pack NAME@VERSION`, then
`tar xzf` each into DIR/<name>-<version>/package). It writes
catalog/<provider>.json for claude, gemini and opencode: for each event
type of the provider's event union, its native type path (the way the
normalizer's census names it), the TypeScript type it comes from and its
top-level fields. The .d.ts text itself is not kept. Re-run it after a
version bump and commit the new catalogs; the normalizers' catalog tests
then say what is new.

It is a small brace-matching reader for the shapes these files use
(type aliases of object literals, interfaces with extends, string
literal and enum-member discriminators), not a TypeScript parser.
"""
import json
import os
import re
import sys

SOURCES = {
    "claude": ("@anthropic-ai/claude-agent-sdk", "0.3.197", "sdk.d.ts"),
    "gemini": ("@google/gemini-cli-core", "0.61.0", "dist/src/output/types.d.ts"),
    "opencode": ("@opencode-ai/sdk", "1.18.33", "dist/v2/gen/types.gen.d.ts"),
}


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", src)


def definition(src, name):
    """The text after `type NAME =` or the body of `interface NAME`, and
    the names it extends."""
    m = re.search(r"(?:export )?(?:declare )?type " + re.escape(name) + r"(?:<[^=]*>)?\s*=\s*", src)
    ext, iface = [], False
    if not m:
        m = re.search(r"(?:export )?(?:declare )?interface " + re.escape(name) + r"\b([^{]*)\{", src)
        if not m:
            return None, []
        ext = re.findall(r"\w+", m.group(1).replace("extends", ""))
        start, iface = m.end() - 1, True
    else:
        start = m.end()
    depth, j = 0, start
    while j < len(src):
        c = src[j]
        if c in "{([<":
            depth += 1
        elif c in "})]>":
            depth -= 1
            if depth == 0 and iface:
                return src[start:j + 1], ext
        elif c == ";" and depth == 0:
            break
        j += 1
    return src[start:j], ext


def members(obj):
    """Top-level `key: value` pairs of an object literal `{ ... }`."""
    body = obj.strip()
    if not body.startswith("{"):
        return {}
    body = body[1:body.rfind("}")]
    out, depth, cur = {}, 0, ""
    for c in body + ";":
        if c in "{([<":
            depth += 1
        elif c in "})]>":
            depth -= 1
        if (c == ";" or c == "\n") and depth == 0:
            m = re.match(r"\s*(?:readonly\s+)?['\"]?([\w$-]+)['\"]?\??\s*:\s*(.*)", cur, re.S)
            if m:
                out[m.group(1)] = m.group(2).strip()
            cur = ""
            continue
        cur += c
    return out


def literals(value, enums):
    """The string literals a type expression allows (enum members too)."""
    lits = re.findall(r"'([^']*)'|\"([^\"]*)\"", value)
    out = [a or b for a, b in lits]
    for m in re.finditer(r"(\w+)\.(\w+)", value):
        out.append(enums.get(m.group(1), {}).get(m.group(2), ""))
    return [o for o in out if o]


def union(src, name):
    """The member type names of a union, unions within it expanded."""
    text, _ = definition(src, name)
    out = []
    for t in (t.strip() for t in text.split("|")):
        if not t:
            continue
        sub, _ = definition(src, t)
        if sub is not None and "|" in sub and "{" not in sub:
            out.extend(union(src, t))
        else:
            out.append(t)
    return out


def obj_of(src, name, seen=None):
    """The members of a named object type, following extends and
    intersections."""
    text, ext = definition(src, name)
    if text is None:
        return {}
    mem = {}
    for e in ext:
        mem.update(obj_of(src, e))
    for part in text.split("&"):
        part = part.strip()
        if part.startswith("{"):
            mem.update(members(part))
        elif re.fullmatch(r"\w+", part):
            mem.update(obj_of(src, part))
    return mem


def enums_of(src):
    out = {}
    for m in re.finditer(r"enum (\w+)\s*\{([^}]*)\}", src):
        out[m.group(1)] = dict(re.findall(r"(\w+)\s*=\s*['\"]([^'\"]*)['\"]", m.group(2)))
    return out


def claude(src):
    entries = []
    for name in union(src, "SDKMessage"):
        mem = obj_of(src, name)
        for typ in literals(mem.get("type", ""), {}) or ["?"]:
            subs = literals(mem.get("subtype", ""), {}) if typ in ("system", "result") else []
            for sub in subs or [None]:
                entries.append({"nativeType": typ + ("/" + sub if sub else ""), "tsType": name,
                                "fields": sorted(mem)})
    for name in union(src, "SDKControlRequestInner"):
        mem = obj_of(src, name)
        for sub in literals(mem.get("subtype", ""), {}):
            entries.append({"nativeType": "control_request/" + sub, "tsType": name, "fields": sorted(mem)})
    for name in ("ControlResponse", "ControlErrorResponse"):
        mem = obj_of(src, name)
        for sub in literals(mem.get("subtype", ""), {}):
            entries.append({"nativeType": "control_response/" + sub, "tsType": name, "fields": sorted(mem)})
    return entries


def gemini(src):
    enums = enums_of(src)
    entries = []
    for name in union(src, "JsonStreamEvent"):
        mem = obj_of(src, name)
        for typ in literals(mem.get("type", ""), enums):
            entries.append({"nativeType": typ, "tsType": name, "fields": sorted(mem)})
    return entries


def opencode(src):
    entries = []
    for name in union(src, "Event"):
        mem = obj_of(src, name)
        props = members(mem.get("properties", "{}"))
        for typ in literals(mem.get("type", ""), {}):
            entries.append({"nativeType": typ, "tsType": name, "fields": sorted(props)})
    for name in union(src, "Part"):
        mem = obj_of(src, name)
        for typ in literals(mem.get("type", ""), {}):
            entries.append({"nativeType": "message.part.updated/" + typ, "tsType": name, "fields": sorted(mem)})
    return entries


def main():
    base = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    for provider, (pkg, ver, rel) in SOURCES.items():
        d = os.path.join(base, pkg.lstrip("@").replace("/", "-") + "-" + ver, "package")
        src = strip_comments(open(os.path.join(d, rel)).read())
        entries = globals()[provider](src)
        seen, uniq = set(), []
        for e in entries:
            if e["nativeType"] not in seen:
                seen.add(e["nativeType"])
                uniq.append(e)
        doc = {"source": pkg + "@" + ver, "file": rel,
               "note": "derived by catalog/extract.py from the package's type definitions; do not edit",
               "types": sorted(uniq, key=lambda e: e["nativeType"])}
        with open(os.path.join(here, provider + ".json"), "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(provider, pkg + "@" + ver, len(uniq), "types")


main()
