package sanitize_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/sanitize"
)

// FuzzSanitize wants, for any input Sanitize accepts, the same bytes on a
// second run over the same input, and the output to sanitize to itself.
// Seeds are the corpus captures cut to their first records (long lines
// make the mutator slow), plus a few hand-made streams.
func FuzzSanitize(f *testing.F) {
	for _, c := range corpusCaptures(f) {
		in := c.build(f, nil)
		lines := bytes.SplitAfter(in, []byte("\n"))
		var seed []byte
		for _, l := range lines {
			if len(seed)+len(l) > 4<<10 {
				break
			}
			seed = append(seed, l...)
		}
		f.Add(seed, false)
	}
	f.Add([]byte(`{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":1,"timestamp":"2026-11-29T19:21:46.894Z","provider":"gemini","sessionId":"","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","role":"assistant","content":"key sk-ant-api03-abcdefghij","delta":true},"redactions":[]}
{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":2,"timestamp":"2026-11-29T19:21:46.901Z","provider":"gemini","sessionId":"","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","role":"assistant","content":"klmnopqrstuvwxyz0123 ok","delta":true},"redactions":[]}
`), true)
	f.Fuzz(func(t *testing.T, in []byte, private bool) {
		opts := sanitize.Options{Home: "/home/u", DefaultProject: "/home/u/p", Temp: []string{"/tmp"}, PrivateText: private, Lookahead: 32, MaxHeld: 4 << 10}
		var once bytes.Buffer
		if _, err := sanitize.Sanitize(bytes.NewReader(in), "fuzz", &once, opts); err != nil {
			return
		}
		var again, twice bytes.Buffer
		if _, err := sanitize.Sanitize(bytes.NewReader(in), "fuzz", &again, opts); err != nil {
			t.Fatalf("second run failed: %v", err)
		}
		if !bytes.Equal(once.Bytes(), again.Bytes()) {
			t.Fatal("not deterministic")
		}
		if _, err := sanitize.Sanitize(bytes.NewReader(once.Bytes()), "fuzz", &twice, opts); err != nil {
			t.Fatalf("sanitizing the output failed: %v\n%s", err, once.Bytes())
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("not idempotent:\n%s", firstDiff(once.Bytes(), twice.Bytes()))
		}
	})
}
