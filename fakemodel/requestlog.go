package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// logEntry is one line of the request log. The log is for people and tests
// reading what a CLI sent: bodies are trimmed (long strings cut, tool
// declarations reduced to their names), and nothing in it depends on the
// clock.
type logEntry struct {
	seq         int
	method      string
	path        string
	protocol    Protocol
	kind        string // main, side, unknown or bad
	status      int
	turn        int // -1 when no turn was served
	toolResults int
	workdir     string
	calls       []string
	note        string
	body        []byte
}

func (s *Server) log(e logEntry) {
	if s.opt.Log == nil {
		return
	}
	line := obj{"seq", e.seq, "method", e.method, "path", e.path}
	if e.protocol != "" {
		line = append(line, "protocol", e.protocol)
	}
	line = append(line, "kind", e.kind, "status", e.status)
	if e.kind == "main" || e.kind == "side" {
		line = append(line, "tool_results", e.toolResults)
		if e.turn >= 0 {
			line = append(line, "turn", e.turn)
		}
		if e.workdir != "" {
			line = append(line, "workdir", e.workdir)
		}
	}
	if len(e.calls) > 0 {
		line = append(line, "calls", e.calls)
	}
	if e.note != "" {
		line = append(line, "note", e.note)
	}
	if len(e.body) > 0 {
		line = append(line, "body", trimBody(e.body, s.opt.LogStringLimit))
	}
	b, err := marshal(line)
	if err != nil {
		b, _ = marshal(obj{"seq", e.seq, "note", fmt.Sprintf("log entry not encodable: %v", err)})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.opt.Log.Write(append(b, '\n'))
}

// trimBody returns the body with every string longer than limit characters
// cut, and each top-level "tools" array replaced by the tools' names. A body
// that is not JSON is logged as a cut string.
func trimBody(body []byte, limit int) any {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return cut(string(body), limit)
	}
	if m, ok := v.(map[string]any); ok {
		if tools, ok := m["tools"].([]any); ok {
			m["tools"] = toolNames(tools)
		}
	}
	return trimValue(v, limit)
}

func toolNames(tools []any) []any {
	var names []any
	for _, t := range tools {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		switch {
		case m["name"] != nil:
			names = append(names, m["name"])
		case m["function"] != nil:
			if f, ok := m["function"].(map[string]any); ok {
				names = append(names, f["name"])
			}
		case m["functionDeclarations"] != nil:
			if fs, ok := m["functionDeclarations"].([]any); ok {
				for _, f := range fs {
					if fm, ok := f.(map[string]any); ok {
						names = append(names, fm["name"])
					}
				}
			}
		default:
			names = append(names, m["type"])
		}
	}
	return names
}

func trimValue(v any, limit int) any {
	switch x := v.(type) {
	case string:
		return cut(x, limit)
	case []any:
		for i := range x {
			x[i] = trimValue(x[i], limit)
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = trimValue(x[k], limit)
		}
		return x
	}
	return v
}

func cut(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + fmt.Sprintf("…(%d chars)", utf8.RuneCountInString(s))
		}
		n++
	}
	return s
}
