package fakemodel

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// call is a tool call resolved for one CLI: the declared tool's name and the
// arguments in the shape its schema asks for.
type call struct {
	id   string
	name string
	// custom calls (Responses custom tools) carry raw text input instead of
	// JSON arguments.
	custom bool
	// args is a JSON object for function tools, the raw input for custom ones.
	args string
}

// The tool names each intent may map to, in order of preference. Each CLI
// declares exactly one of them (Claude Code, codex, opencode, Gemini CLI
// spell them differently), so the first one declared wins.
var (
	shellTools = []string{"Bash", "bash", "run_shell_command", "exec_command", "shell_command", "shell"}
	readTools  = []string{"Read", "read", "read_file"}
	writeTools = []string{"Write", "write", "write_file"}
	pathProps  = []string{"file_path", "filePath", "absolute_path", "path"}
)

// resolveCall maps an intent onto a tool the request declared. workdir makes
// relative paths absolute for the file tools that want absolute paths.
func resolveCall(req *request, c ToolCall, workdir string) (call, error) {
	switch {
	case c.Tool != nil:
		name := c.Tool.Names[0]
		if t, ok := firstDeclared(req, c.Tool.Names); ok {
			name = t.name
		}
		return call{name: name, args: string(c.Tool.Args)}, nil
	case c.Shell != "":
		return shellCall(req, c.Shell)
	case c.Read != "":
		if t, ok := firstDeclared(req, readTools); ok {
			args := map[string]any{}
			prop := pickProp(t, pathProps, "file_path")
			args[prop] = absPath(c.Read, workdir)
			return jsonCall(t.name, args)
		}
		// codex has no file-reading tool: it reads with the shell.
		return shellCall(req, "cat "+shellQuote(c.Read))
	case c.Write != nil:
		if t, ok := req.tool("apply_patch"); ok {
			patch := addFilePatch(c.Write.Path, c.Write.Content)
			if t.custom {
				return call{name: t.name, custom: true, args: patch}, nil
			}
			return jsonCall(t.name, map[string]any{pickProp(t, []string{"input", "patch"}, "input"): patch})
		}
		if t, ok := firstDeclared(req, writeTools); ok {
			return jsonCall(t.name, map[string]any{
				pickProp(t, pathProps, "file_path"): absPath(c.Write.Path, workdir),
				"content":                           c.Write.Content,
			})
		}
		return shellCall(req, "printf '%s' "+shellQuote(c.Write.Content)+" > "+shellQuote(c.Write.Path))
	}
	return call{}, fmt.Errorf("tool call has no intent")
}

func shellCall(req *request, cmdline string) (call, error) {
	t, ok := firstDeclared(req, shellTools)
	if !ok {
		return call{}, fmt.Errorf("no shell tool among the declared tools %s", declaredNames(req))
	}
	args := map[string]any{}
	switch {
	case t.props["cmd"] != "":
		args["cmd"] = cmdline
	case t.props["command"] == "array":
		args["command"] = []string{"bash", "-lc", cmdline}
	default:
		args["command"] = cmdline
	}
	if _, ok := t.props["description"]; ok {
		args["description"] = "Run: " + cmdline
	}
	return jsonCall(t.name, args)
}

func jsonCall(name string, args map[string]any) (call, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return call{}, fmt.Errorf("encode arguments of %s: %w", name, err)
	}
	return call{name: name, args: string(b)}, nil
}

func firstDeclared(req *request, names []string) (declaredTool, bool) {
	for _, n := range names {
		if t, ok := req.tool(n); ok {
			return t, true
		}
	}
	return declaredTool{}, false
}

// pickProp returns the first of the candidates that the tool's schema has,
// or fallback when the schema names none of them.
func pickProp(t declaredTool, candidates []string, fallback string) string {
	for _, c := range candidates {
		if _, ok := t.props[c]; ok {
			return c
		}
	}
	return fallback
}

func declaredNames(req *request) string {
	names := make([]string, 0, len(req.tools))
	for _, t := range req.tools {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return "[" + strings.Join(names, " ") + "]"
}

func absPath(p, workdir string) string {
	if path.IsAbs(p) || workdir == "" {
		return p
	}
	return path.Join(workdir, p)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// addFilePatch writes the apply_patch envelope that creates one file.
func addFilePatch(p, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + p + "\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}
