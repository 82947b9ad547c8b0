package planted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// Providers returns the four providers whose line shapes the matrix uses
// (a fresh slice each call).
func Providers() []string { return append([]string(nil), providers...) }

var providers = []string{"claude", "codex", "gemini", "opencode"}

// Shapes are real corpus lines, one of each shape the matrix needs, per
// provider. The planted text is spliced into them in place of the text
// they held, so everything else about a line is as the CLI printed it.
type Shapes struct {
	lines map[string][]byte // provider/shape → line
	heads map[string][][]byte
}

type pickRule struct {
	provider, file, shape string
	match                 func(v gjson.Result) bool
}

func is(path, want string) func(gjson.Result) bool {
	return func(v gjson.Result) bool { return v.Get(path).String() == want }
}

func both(a, b func(gjson.Result) bool) func(gjson.Result) bool {
	return func(v gjson.Result) bool { return a(v) && b(v) }
}

var pickRules = []pickRule{
	{"claude", "claude/tools-partial.stdout.jsonl", "init", is("subtype", "init")},
	{"claude", "claude/tools-partial.stdout.jsonl", "text", both(is("type", "assistant"), is("message.content.0.type", "text"))},
	{"claude", "claude/tools-partial.stdout.jsonl", "tool-input", both(is("type", "assistant"), is("message.content.0.type", "tool_use"))},
	{"claude", "claude/tools-partial.stdout.jsonl", "tool-output", is("type", "user")},
	{"claude", "claude/tools-partial.stdout.jsonl", "text-start", both(is("event.type", "content_block_start"), is("event.content_block.type", "text"))},
	{"claude", "claude/tools-partial.stdout.jsonl", "tool-start", both(is("event.type", "content_block_start"), is("event.content_block.type", "tool_use"))},
	{"claude", "claude/tools-partial.stdout.jsonl", "text-delta", is("event.delta.type", "text_delta")},
	{"claude", "claude/tools-partial.stdout.jsonl", "json-delta", is("event.delta.type", "input_json_delta")},
	{"claude", "claude/tools-partial.stdout.jsonl", "block-stop", is("event.type", "content_block_stop")},
	{"claude", "claude/tools-partial.stdout.jsonl", "end", is("type", "result")},
	{"codex", "codex/tools.stdout.jsonl", "init", is("type", "thread.started")},
	{"codex", "codex/tools.stdout.jsonl", "text", is("item.type", "agent_message")},
	{"codex", "codex/tools.stdout.jsonl", "tool", both(is("type", "item.completed"), is("item.type", "command_execution"))},
	{"codex", "codex/tools.stdout.jsonl", "end", is("type", "turn.completed")},
	{"gemini", "gemini/tools.stdout.jsonl", "init", is("type", "init")},
	{"gemini", "gemini/tools.stdout.jsonl", "text-delta", both(is("role", "assistant"), is("delta", "true"))},
	{"gemini", "gemini/tools.stdout.jsonl", "tool-input", is("type", "tool_use")},
	{"gemini", "gemini/tools.stdout.jsonl", "tool-output", is("type", "tool_result")},
	{"gemini", "gemini/tools.stdout.jsonl", "end", is("type", "result")},
	{"opencode", "opencode/tools.stdout.jsonl", "init", is("type", "step_start")},
	{"opencode", "opencode/tools.stdout.jsonl", "text", is("type", "text")},
	{"opencode", "opencode/tools.stdout.jsonl", "tool", is("type", "tool_use")},
	{"opencode", "opencode/tools.stdout.jsonl", "end", is("type", "step_finish")},
	{"opencode", "opencode/serve-tools.stdout.jsonl", "part-delta", is("type", "message.part.delta")},
	{"opencode", "opencode/serve-tools.stdout.jsonl", "idle", is("type", "session.idle")},
}

// LoadShapes reads the shapes from the corpus directory
// (testdata/corpus).
func LoadShapes(corpus string) (*Shapes, error) {
	s := &Shapes{lines: map[string][]byte{}, heads: map[string][][]byte{}}
	files := map[string][][]byte{}
	for _, p := range pickRules {
		ls, ok := files[p.file]
		if !ok {
			var err error
			ls, err = readLines(filepath.Join(corpus, p.file))
			if err != nil {
				return nil, err
			}
			files[p.file] = ls
		}
		for _, l := range ls {
			if gjson.ValidBytes(l) && p.match(gjson.ParseBytes(l)) {
				s.lines[p.provider+"/"+p.shape] = l
				break
			}
		}
		if s.lines[p.provider+"/"+p.shape] == nil {
			return nil, fmt.Errorf("planted: no %s line in %s", p.shape, p.file)
		}
	}
	// The serve stream's lines before its first delta start an opencode
	// delta stream (server.connected, session.created, …).
	for _, l := range files["opencode/serve-tools.stdout.jsonl"] {
		if gjson.GetBytes(l, "type").String() == "message.part.delta" {
			break
		}
		s.heads["opencode-serve"] = append(s.heads["opencode-serve"], l)
	}
	return s, nil
}

func readLines(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]byte
	lr := lines.NewReader(f)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, append([]byte(nil), l...))
		}
	}
	return out, nil
}

// set replaces the JSON value at path in line with raw.
func set(line []byte, path string, raw []byte) []byte {
	v := gjson.GetBytes(line, path)
	if !v.Exists() || v.Index <= 0 {
		panic(fmt.Sprintf("planted: shape has no %s: %.200s", path, line))
	}
	out := make([]byte, 0, len(line)+len(raw))
	out = append(out, line[:v.Index]...)
	out = append(out, raw...)
	return append(out, line[v.Index+len(v.Raw):]...)
}

func str(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func (s *Shapes) line(provider, shape string) []byte { return s.lines[provider+"/"+shape] }

// text is an answer holding t.
func (s *Shapes) text(p, t string) []byte {
	switch p {
	case "claude":
		return set(s.line(p, "text"), "message.content.0.text", str(t))
	case "codex":
		return set(s.line(p, "text"), "item.text", str(t))
	case "gemini":
		return set(s.line(p, "text-delta"), "content", str(t))
	default:
		return set(s.line(p, "text"), "part.text", str(t))
	}
}

// toolInput is a tool call whose input is the JSON object obj.
func (s *Shapes) toolInput(p string, obj []byte) []byte {
	switch p {
	case "claude":
		return set(s.line(p, "tool-input"), "message.content.0.input", obj)
	case "codex":
		return set(s.line(p, "tool"), "item.command", str(gjson.GetBytes(obj, "command").String()))
	case "gemini":
		return set(s.line(p, "tool-input"), "parameters", obj)
	default:
		return set(s.line(p, "tool"), "part.state.input", obj)
	}
}

// toolOutput is a tool result holding out.
func (s *Shapes) toolOutput(p, out string) []byte {
	switch p {
	case "claude":
		l := set(s.line(p, "tool-output"), "message.content.0.content", str(out))
		return set(l, "tool_use_result.stdout", str(out))
	case "codex":
		return set(s.line(p, "tool"), "item.aggregated_output", str(out))
	case "gemini":
		return set(s.line(p, "tool-output"), "output", str(out))
	default:
		l := set(s.line(p, "tool"), "part.state.output", str(out))
		return set(l, "part.state.metadata.output", str(out))
	}
}

// deltas streams parts as one text block, with filler lines inserted
// after the part numbered fillAfter (-1: none). ok is false for a provider
// that does not stream text (Codex).
func (s *Shapes) deltas(p string, parts []string, fillAfter int, filler [][]byte) (out [][]byte, ok bool) {
	add := func(i int, l []byte) {
		out = append(out, l)
		if i == fillAfter {
			out = append(out, filler...)
		}
	}
	switch p {
	case "claude":
		start := s.line(p, "text-start")
		idx := gjson.GetBytes(start, "event.index").Raw
		out = append(out, start)
		for i, part := range parts {
			add(i, set(set(s.line(p, "text-delta"), "event.delta.text", str(part)), "event.index", []byte(idx)))
		}
		return append(out, set(s.line(p, "block-stop"), "event.index", []byte(idx))), true
	case "gemini":
		for i, part := range parts {
			add(i, set(s.line(p, "text-delta"), "content", str(part)))
		}
		return out, true
	case "opencode":
		for i, part := range parts {
			add(i, set(s.line(p, "part-delta"), "properties.delta", str(part)))
		}
		return append(out, s.line(p, "idle")), true
	}
	return nil, false
}

// jsonDeltas streams a tool call's input JSON in parts (Claude's
// input_json_delta).
func (s *Shapes) jsonDeltas(p string, parts []string) ([][]byte, bool) {
	if p != "claude" {
		return nil, false
	}
	start := s.line(p, "tool-start")
	idx := gjson.GetBytes(start, "event.index").Raw
	out := [][]byte{start}
	for _, part := range parts {
		out = append(out, set(set(s.line(p, "json-delta"), "event.delta.partial_json", str(part)), "event.index", []byte(idx)))
	}
	return append(out, set(s.line(p, "block-stop"), "event.index", []byte(idx))), true
}

// filler is n lines of about 1 KiB each that belong to another block (or
// no block) and so are held back behind an open delta.
func (s *Shapes) filler(p string, n int) [][]byte {
	var out [][]byte
	body := "filler output line that is not part of the secret's block. "
	for len(body) < 1024 {
		body += body
	}
	for i := range n {
		switch p {
		case "opencode":
			l := set(s.line(p, "part-delta"), "properties.delta", str(fmt.Sprintf("%d %s", i, body)))
			out = append(out, set(l, "properties.partID", str("prt_fillerpart0000000000001")))
		default:
			out = append(out, s.toolOutput(p, fmt.Sprintf("%d %s", i, body)))
		}
	}
	return out
}

// head is how a stream starts: a delta stream of opencode starts like the
// serve stream, the others like their run.
func (s *Shapes) head(p string, serve bool) [][]byte {
	if p == "opencode" && serve {
		return s.heads["opencode-serve"]
	}
	return [][]byte{s.line(p, "init")}
}

func (s *Shapes) end(p string, serve bool) [][]byte {
	if p == "opencode" && serve {
		return nil
	}
	return [][]byte{s.line(p, "end")}
}
