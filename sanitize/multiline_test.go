package sanitize_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// fakeB64 makes n random base64 characters at run time (no key in git).
func fakeB64(rng *rand.Rand, n int) string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = set[rng.IntN(len(set))]
	}
	return string(b)
}

// fakePEM is a private key block of 25 body lines, as ssh-keygen prints.
func fakePEM(rng *rand.Rand, kind string) []string {
	lines := []string{"-----BEGIN " + kind + " PRIVATE " + "KEY-----"}
	for range 25 {
		lines = append(lines, fakeB64(rng, 64))
	}
	return append(lines, "-----END "+kind+" PRIVATE "+"KEY-----")
}

// TestLineRedactorMultiLineKey: a private key printed line by line, on
// stderr or as non-JSON stdout, is held until its END line and then gone
// from every line, and the lines around it keep their text.
func TestLineRedactorMultiLineKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cases := []struct {
		kind   string
		stderr bool
		reason string
	}{
		{"RSA", true, "PEM key on stderr"},
		{"OPENSSH", false, "OpenSSH key as non-JSON stdout"},
		{"PGP", true, "PGP key block on stderr"},
	}
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		key := fakePEM(rng, c.kind)
		if c.kind == "PGP" {
			key[0] = "-----BEGIN PGP PRIVATE " + "KEY BLOCK-----"
			key[len(key)-1] = "-----END PGP PRIVATE " + "KEY BLOCK-----"
		}
		in := append(append([]string{"cat id_key"}, key...), "done")
		lr := sanitize.NewLineRedactor(r, sanitize.LineOptions{})
		var out []sanitize.RedactedLine
		push := lr.Push
		if c.stderr {
			push = lr.PushStderr
		}
		for i, l := range in {
			got := push([]byte(l))
			if i >= 1 && i < len(in)-2 && len(got) > 0 {
				t.Errorf("%s: line %d of the key released before END", c.reason, i)
			}
			for _, g := range got {
				out = append(out, sanitize.RedactedLine{Line: append([]byte(nil), g.Line...), Ledger: g.Ledger, Stderr: g.Stderr})
			}
		}
		for _, g := range lr.Flush() {
			out = append(out, sanitize.RedactedLine{Line: append([]byte(nil), g.Line...), Ledger: g.Ledger, Stderr: g.Stderr})
		}
		if len(out) != len(in) {
			t.Fatalf("%s: %d lines in, %d out", c.reason, len(in), len(out))
		}
		if string(out[0].Line) != "cat id_key" || string(out[len(out)-1].Line) != "done" {
			t.Errorf("%s: surrounding lines changed: %q %q", c.reason, out[0].Line, out[len(out)-1].Line)
		}
		for i, l := range key {
			got := string(out[i+1].Line)
			if strings.Contains(got, l[min(len(l), 10):]) || !strings.Contains(got, "[REDACTED:") && got != "" {
				t.Errorf("%s: key line %d kept: %q", c.reason, i, got)
			}
			if len(out[i+1].Ledger) == 0 {
				t.Errorf("%s: key line %d has no ledger entry", c.reason, i)
			}
			if out[i+1].Stderr != c.stderr {
				t.Errorf("%s: line %d Stderr = %v", c.reason, i, out[i+1].Stderr)
			}
		}
	}
}

// TestSanitizeMultiLineKeyOnStderr: the same through Sanitize, on stderr
// records of a capture.
func TestSanitizeMultiLineKeyOnStderr(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	key := fakePEM(rng, "EC")
	var b strings.Builder
	seq := int64(1)
	rec := func(line string) {
		payload, _ := envelope.EncodeTextLine([]byte(line))
		r := envelope.Record{SchemaVersion: envelope.SchemaVersion, Provider: "claude", Stage: envelope.StageNativeIn, EventType: envelope.EventStderr,
			Payload: payload, Sequence: seq, CaptureID: "01JDZZZZZZZZZZZZZZZZZZZZZZ", Timestamp: "2026-12-01T10:00:00Z"}
		b.Write(envelope.AppendRecord(nil, &r))
		seq++
	}
	rec("before")
	for _, l := range key {
		rec(l)
	}
	rec("after")
	var out strings.Builder
	if _, err := sanitize.Sanitize(strings.NewReader(b.String()), "pem.jsonl", &out, sanitize.Options{}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, l := range key[1 : len(key)-1] {
		if strings.Contains(got, l[10:40]) {
			t.Fatalf("a key body line survived sanitize:\n%s", got)
		}
	}
	if !strings.Contains(got, `"before"`) || !strings.Contains(got, `"after"`) {
		t.Errorf("surrounding stderr lines lost:\n%s", got)
	}
	if n := strings.Count(got, "[REDACTED:private-key-block]"); n != len(key) {
		t.Errorf("%d lines carry the token, want %d", n, len(key))
	}
}

// TestLineRedactorEarlyFlushSplitKey: a key split across two deltas with
// more than MaxHeld of other lines held between them loses every piece in
// both deltas, and the derived text never reassembles it.
func TestLineRedactorEarlyFlushSplitKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	body := strings.ReplaceAll(strings.ReplaceAll(fakeB64(rng, 93), "+", "x"), "/", "y")
	key := "sk-" + "ant-api03-" + body + "AA"
	delta := func(index int, text string) string {
		return `{"type":"stream_event","event":{"type":"content_block_delta","index":` + string(rune('0'+index)) +
			`,"delta":{"type":"text_delta","text":"` + text + `"}},"session_id":"s","parent_tool_use_id":null}`
	}
	start := `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s","parent_tool_use_id":null}`
	in := []string{start, delta(0, "the key is "+key[:30])}
	// Another block streams long enough to pass MaxHeld.
	for range 40 {
		in = append(in, delta(1, strings.Repeat("filler text ", 10)+"sk-"))
	}
	in = append(in, delta(0, key[30:]+" and that was it"))
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lr := sanitize.NewLineRedactor(r, sanitize.LineOptions{MaxHeld: 2048})
	var all strings.Builder
	for _, l := range in {
		for _, g := range lr.Push([]byte(l)) {
			all.Write(g.Line)
			all.WriteByte('\n')
		}
	}
	for _, g := range lr.Flush() {
		all.Write(g.Line)
		all.WriteByte('\n')
	}
	got := all.String()
	if lr.EarlyFlushes() == 0 {
		t.Fatal("the test did not force an early release")
	}
	for i := 13; i+8 <= len(key); i++ {
		if strings.Contains(got, key[i:i+8]) {
			t.Fatalf("piece %q of the key survived an early release (%d early, %d partial):\n%.2000s", key[i:i+8], lr.EarlyFlushes(), lr.PartialRedactions(), got)
		}
	}
	if !strings.Contains(got, "and that was it") {
		t.Errorf("text after the key was lost")
	}
}
