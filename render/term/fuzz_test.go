package term

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
)

// FuzzRenderer drives the renderer with event sequences decoded from the
// fuzz input and checks that it never panics and never writes a control
// sequence: none at all with colour off, only SGR with colour on, and in
// GitHub Actions mode no workflow command other than its own annotations.
func FuzzRenderer(f *testing.F) {
	f.Add([]byte("\x01\x02hello\x00\x03::error::x\x1b]52;c;ZXZp\x07\x00\x05\x06\x04"), uint8(0), uint8(0))
	f.Add([]byte("\x02\x01think\x00\x03tool\x00\x02\x01more\x00\x0a\x0b"), uint8(7), uint8(12))
	f.Add([]byte("\x03\x03\x03\x08\x09\x0c\x0d"), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, width uint8) {
		opts := Options{Color: flags&1 != 0, GitHubActions: flags&2 != 0, Width: int(width % 60)}
		var b strings.Builder
		r := New(&b, opts)
		for _, e := range decodeEvents(data) {
			if err := r.Render(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if opts.Color {
			if bad := nonSGRControl(out); bad != "" {
				t.Fatalf("%s in %q", bad, out)
			}
		} else if strings.ContainsAny(out, "\x1b\x07\r\x00") || nonSGRControl(out) != "" {
			t.Fatalf("control byte with colour off in %q", out)
		}
		if opts.GitHubActions {
			for _, l := range strings.Split(out, "\n") {
				plain := strings.TrimLeft(stripSGR(l), " \t")
				if strings.HasPrefix(plain, "::") && !strings.HasPrefix(l, "::notice::") && !strings.HasPrefix(l, "::error::") {
					t.Fatalf("injected workflow command %q in %q", l, out)
				}
				if strings.HasPrefix(l, "::notice::") || strings.HasPrefix(l, "::error::") {
					if strings.ContainsAny(l, "\r") {
						t.Fatalf("unescaped CR in annotation %q", l)
					}
				}
			}
		}
	})
}

// decodeEvents turns fuzz bytes into events: a kind byte, a phase byte, then
// a NUL-terminated text used for whichever field the kind shows.
func decodeEvents(data []byte) []event.Event {
	var evs []event.Event
	for len(data) >= 2 {
		k, p := data[0], data[1]
		data = data[2:]
		text := string(data)
		if i := strings.IndexByte(text, 0); i >= 0 {
			text, data = text[:i], data[i+1:]
		} else {
			data = nil
		}
		e := event.Event{
			Kind:      event.Kinds()[int(k)%len(event.Kinds())],
			Phase:     event.Phases()[int(p)%len(event.Phases())],
			MessageID: string(rune('a' + p%3)),
			PartID:    string(rune('0' + k%2)),
			Text:      text,
		}
		id := string(rune('x' + k%3))
		switch e.Kind {
		case event.KindInit:
			e.Model, e.Version, e.SessionID = text, text, text
		case event.KindTool:
			e.ToolCallID = id
			e.Tool = &event.Tool{Name: text, Summary: text}
		case event.KindToolResult:
			e.ToolResult = &event.ToolResult{IsError: p%2 == 0, Output: text, OutputBytes: len(text)}
		case event.KindUsage:
			e.Usage = &event.Usage{InputTokens: int64(len(text)) * 997, OutputTokens: int64(p), Cumulative: p%2 == 0}
		case event.KindResult:
			e.Result = &event.Result{IsError: p%2 == 0, Subtype: text, Text: text, NumTurns: int(p)}
		case event.KindError:
			e.Error = &event.Error{Type: text, Message: text, Fatal: p%2 == 0}
		case event.KindRetry:
			e.Retry = &event.Retry{Attempt: int(p), Error: text}
		case event.KindPermission:
			e.Permission = &event.Permission{Tool: text, Patterns: []string{text}, Reply: text}
		}
		evs = append(evs, e)
	}
	return evs
}

// stripSGR removes SGR sequences (the only ones the renderer writes).
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] != 'm' {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
