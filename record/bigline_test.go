package record

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
)

// TestHugeLineRecordedWhole records a stdout line of 17 MiB between short
// ones, with and without a redactor, fed in chunks of odd sizes: the huge
// line (whose buffer the splitter hands over instead of a copy) and the
// lines around it are recorded byte for byte (as redacted, with the
// redactor) and in order.
func TestHugeLineRecordedWhole(t *testing.T) {
	big := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` +
		strings.Repeat("some words of a long tool output ", 17<<20/33) + `"}]},"session_id":"s1"}`
	lines := []string{`{"type":"system","subtype":"init","session_id":"s1"}`, big, `{"type":"result","subtype":"success","session_id":"s1"}`, "tail text"}
	in := strings.Join(lines, "\n") + "\n"
	red, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		red  *redact.Redactor
	}{{"redacted", red}, {"raw", nil}} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "c.jsonl")
			res, err := Stream(&oddReader{data: []byte(in)}, Options{Provider: "claude", NewNormalizer: allNormalizers, Output: out, Redactor: c.red})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("record: %v, exit %d", err, res.ExitCode)
			}
			var got []string
			for _, r := range readCapture(t, out) {
				if r.Stage == envelope.StageNativeIn {
					got = append(got, string(envelope.DecodeNativeLine(r.EventType, r.Payload)))
				}
			}
			if len(got) != len(lines) {
				t.Fatalf("%d native_in records, want %d", len(got), len(lines))
			}
			for i, want := range lines {
				if c.red != nil && want[0] == '{' {
					// The huge string is cut by the large-string rule.
					b, _ := c.red.Line([]byte(want))
					want = string(b)
				}
				if got[i] != want {
					t.Errorf("native_in %d: %d bytes %q…, want %d bytes %q…", i+1, len(got[i]), got[i][:min(40, len(got[i]))], len(want), want[:min(40, len(want))])
				}
			}
		})
	}
}

// oddReader returns its data in reads of varying, odd sizes.
type oddReader struct {
	data []byte
	n    int
}

func (r *oddReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.n++
	k := min(len(p), len(r.data), 1+(r.n*7919)%(70<<10))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}
