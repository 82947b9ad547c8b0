package sanitize_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/tidwall/gjson"
)

// TestOtherMachineSameBytes moves each corpus capture to another machine's
// paths (home, project, TMPDIR and the CLI install directory all differ)
// and wants the same sanitized bytes: the fixture does not depend on where
// it was recorded. The other machine's paths have the same lengths, so the
// CLI would have split its streamed text at the same offsets (and cut
// tool outputs at the same places); a path split across deltas is moved
// piece by piece.
func TestOtherMachineSameBytes(t *testing.T) {
	for _, c := range corpusCaptures(t) {
		t.Run(c.name, func(t *testing.T) {
			here := c.machine()
			pad := func(p string, n int) string { return p + strings.Repeat("q", n-len(p)) }
			there := machine{
				home:    pad("/home/alice", len(here.home)),
				project: pad("/srv/work/widget", len(here.project)),
				temp:    []string{pad("/var/tmp/alice", len(here.temp[0])), pad("/opt/agents", len(here.temp[1]))},
			}
			slug := func(p string) string { return strings.ReplaceAll(p, "/", "-") }
			moved := strings.NewReplacer(
				here.project, there.project,
				here.home, there.home,
				here.temp[0], there.temp[0],
				here.temp[1], there.temp[1],
				// Claude Code's project-slug form of the project path.
				slug(here.project), slug(there.project),
			)
			a := run(t, c.build(t, nil), here.options())
			b := run(t, c.build(t, mover(t, c, moved)), there.options())
			if !bytes.Equal(a, b) {
				t.Fatalf("sanitized bytes depend on the machine:\n%s", firstDiff(a, b))
			}
		})
	}
}

// deltaAt finds the streamed delta of a raw corpus line: its block key,
// where its JSON string sits in the line, and its text.
func deltaAt(line []byte, msg *int) (key string, raw gjson.Result, off int) {
	body := line
	if rest, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
		body, off = rest, len("data: ")
	}
	if !gjson.ValidBytes(body) {
		return "", gjson.Result{}, 0
	}
	v := gjson.ParseBytes(body)
	switch {
	case v.Get("event.type").String() == "message_start":
		*msg++
	case v.Get("event.type").String() == "content_block_delta":
		for _, f := range []string{"text", "thinking", "partial_json"} {
			if x := v.Get("event.delta." + f); x.Exists() {
				return fmt.Sprintf("claude-%d-%s-%s", *msg, v.Get("event.index").Raw, f), x, off
			}
		}
	case v.Get("type").String() == "message" && v.Get("delta").Bool():
		return "gemini-" + v.Get("role").String(), v.Get("content"), off
	case v.Get("type").String() == "message.part.delta":
		return "opencode-" + v.Get("properties.partID").String() + "-" + v.Get("properties.field").String(), v.Get("properties.delta"), off
	}
	return "", gjson.Result{}, 0
}

// mover returns a line rewriter that moves c's paths with rep: whole lines
// as they are, and streamed deltas through their block's reassembled text.
func mover(t *testing.T, c corpusCapture, rep *strings.Replacer) func([]byte) []byte {
	joined := map[string]string{}
	msg := 0
	each(t, c.src, func(line []byte) {
		if key, x, _ := deltaAt(line, &msg); key != "" {
			joined[key] += x.String()
		}
	})
	movedText := map[string]string{}
	for k, v := range joined {
		movedText[k] = rep.Replace(v)
		if len(movedText[k]) != len(v) {
			t.Fatalf("%s: moving paths changed the length of block %s", c.name, k)
		}
	}
	pos := map[string]int{}
	msg = 0
	return func(line []byte) []byte {
		key, x, off := deltaAt(line, &msg)
		if key == "" {
			return []byte(rep.Replace(string(line)))
		}
		d := x.String()
		piece := movedText[key][pos[key] : pos[key]+len(d)]
		pos[key] += len(d)
		rest := rep.Replace(string(line[off+x.Index+len(x.Raw):]))
		head := rep.Replace(string(line[:off+x.Index]))
		if piece == d {
			return []byte(head + x.Raw + rest)
		}
		return []byte(head + string(envelope.AppendJSONString(nil, piece)) + rest)
	}
}

// TestNormalizesAlike feeds the sanitized native_in lines to the provider's
// normalizer and wants the same event kinds and phases, in the same order,
// as from the original lines.
func TestNormalizesAlike(t *testing.T) {
	for _, c := range corpusCaptures(t) {
		for _, private := range []bool{false, true} {
			name := c.name
			if private {
				name += "/private-text"
			}
			t.Run(name, func(t *testing.T) {
				in := c.build(t, nil)
				opts := c.machine().options()
				opts.PrivateText = private
				out := run(t, in, opts)
				want, got := shapes(t, c.provider, in), shapes(t, c.provider, out)
				if len(want) == 0 {
					t.Fatal("the original normalizes to no events")
				}
				if strings.Join(want, "\n") != strings.Join(got, "\n") {
					t.Errorf("events differ: %d before, %d after\nbefore: %v\nafter:  %v", len(want), len(got), want, got)
				}
			})
		}
	}
}

// shapes normalizes the stdout native_in records of a capture and returns
// kind/phase (and the tool name, which is no free text) per event.
func shapes(t *testing.T, provider string, capture []byte) []string {
	t.Helper()
	norm := newNormalizer(provider)
	var out []string
	add := func(evs []eventLike) {
		for _, e := range evs {
			out = append(out, e.shape())
		}
	}
	for _, line := range bytes.Split(capture, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		rec, err := envelope.ParseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stage != envelope.StageNativeIn || rec.EventType == envelope.EventStderr {
			continue
		}
		native := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
		add(wrap(norm.Line(rec.Sequence, native)))
	}
	add(wrap(norm.End()))
	return out
}

type eventLike struct{ kind, phase, tool string }

func (e eventLike) shape() string { return e.kind + "/" + e.phase + " " + e.tool }

func wrap[E any](evs []E) []eventLike {
	var out []eventLike
	for _, e := range evs {
		b, _ := jsonMarshal(e)
		v := gjson.ParseBytes(b)
		out = append(out, eventLike{v.Get("kind").String(), v.Get("phase").String(), v.Get("tool.name").String()})
	}
	return out
}
