package sanitize_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/schema"
	"github.com/tidwall/gjson"
)

// planted is the oracle for the corpus: the fake Anthropic key and AWS key
// id the long-text scenario put into the answer.
var planted = regexp.MustCompile(`sk-ant-api03-[A-Za-z0-9_-]{20,}|AKIA[A-Z0-9]{16}`)

// checkValid applies the envelope schema and the sequence rules of evcap
// validate to a capture.
func checkValid(t *testing.T, name string, capture []byte) {
	t.Helper()
	sch, err := schema.Compile(schema.EnvelopeFile)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64
	for i, line := range bytes.Split(bytes.TrimSuffix(capture, []byte("\n")), []byte("\n")) {
		if err := sch.Validate(line); err != nil {
			t.Fatalf("%s:%d: schema: %v", name, i+1, err)
		}
		rec, err := envelope.ParseRecord(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", name, i+1, err)
		}
		if rec.Sequence != prev+1 {
			t.Fatalf("%s:%d: sequence %d follows %d", name, i+1, rec.Sequence, prev)
		}
		prev = rec.Sequence
		if rec.CaptureID != sanitize.FixedCaptureID {
			t.Errorf("%s:%d: captureId %q", name, i+1, rec.CaptureID)
		}
		for _, c := range rec.Cause {
			if c >= rec.Sequence {
				t.Errorf("%s:%d: cause %d not before %d", name, i+1, c, rec.Sequence)
			}
		}
	}
}

// secretPieces returns the planted secrets of the raw corpus output and
// every 6-byte window of their random part, none of which may survive.
func secretPieces(raw string) (secrets, pieces []string) {
	seen := map[string]bool{}
	for _, s := range planted.FindAllString(raw, -1) {
		if seen[s] {
			continue
		}
		seen[s] = true
		secrets = append(secrets, s)
		tail := strings.TrimPrefix(strings.TrimPrefix(s, "sk-ant-api03-"), "AKIA")
		for i := 0; i+6 <= len(tail); i++ {
			pieces = append(pieces, tail[i:i+6])
		}
	}
	return secrets, pieces
}

// joinedDeltas reassembles the text of the streamed blocks of a capture:
// Claude text deltas, Gemini message deltas, opencode part deltas (also
// inside SSE lines), normalized text deltas and legacy content deltas.
func joinedDeltas(t *testing.T, capture []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range bytes.Split(capture, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		rec, err := envelope.ParseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		p := gjson.ParseBytes(rec.Payload)
		if p.Type == gjson.String {
			s := p.String()
			if rest, ok := strings.CutPrefix(s, "data: "); ok {
				p = gjson.Parse(rest)
			} else if rest, ok := strings.CutPrefix(s, "[CONTENT_DELTA] "); ok {
				out["legacy"] += gjson.Parse(rest).String()
				continue
			}
		}
		switch rec.Stage {
		case envelope.StageNativeIn:
			if d := p.Get("event.delta.text"); d.Exists() {
				out["claude"] += d.String()
			}
			if p.Get("type").String() == "message" && p.Get("delta").Bool() {
				out["gemini"] += p.Get("content").String()
			}
			if p.Get("type").String() == "message.part.delta" {
				out["opencode|"+p.Get("properties.partID").String()] += p.Get("properties.delta").String()
			}
		case envelope.StageNormalizedOut:
			if p.Get("kind").String() == "text" && p.Get("phase").String() == "delta" {
				out["normalized"] += p.Get("text").String()
			}
		}
	}
	return out
}

func TestCorpusSanitized(t *testing.T) {
	totalSecrets, splitBlocks := 0, 0
	for _, c := range corpusCaptures(t) {
		t.Run(c.name, func(t *testing.T) {
			in := c.build(t, nil)
			m := c.machine()
			out := run(t, in, m.options())
			checkValid(t, c.name, out)

			for _, f := range scanCapture(t, out, c.name, m.scanOptions()) {
				t.Errorf("scan after sanitize: %+v", f)
			}
			// The unsanitized capture must not pass the gate.
			if before := scanCapture(t, in, c.name, m.scanOptions()); len(before) == 0 {
				t.Errorf("scan finds nothing in the raw capture (at least the session ids are volatile)")
			}

			secrets, pieces := secretPieces(string(in))
			totalSecrets += len(secrets)
			for _, p := range pieces {
				if bytes.Contains(out, []byte(p)) {
					t.Errorf("sanitized capture still shows %q of a planted secret", p)
				}
			}
			for block, text := range joinedDeltas(t, out) {
				if planted.MatchString(text) {
					t.Errorf("%s: reassembled text shows a planted secret", block)
				}
				if len(secrets) > 0 && strings.Contains(text, "[REDACTED:") {
					splitBlocks++
				}
			}
			for _, dir := range []string{c.run, "/tmp/realcli"} {
				if bytes.Contains(out, []byte(dir)) {
					t.Errorf("sanitized capture still holds the machine path %s", dir)
				}
			}
		})
	}
	t.Logf("planted secrets in the corpus: %d; reassembled streams with them redacted: %d", totalSecrets, splitBlocks)
	if totalSecrets < 6 || splitBlocks < 4 {
		t.Errorf("expected planted secrets in claude, codex, gemini and opencode long-text and redacted streams in claude/gemini: %d secrets, %d streams", totalSecrets, splitBlocks)
	}
}

func TestCorpusIdempotentAndDeterministic(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	for _, c := range corpusCaptures(t) {
		for _, v := range []struct {
			name string
			set  func(*sanitize.Options)
		}{
			{"default", func(*sanitize.Options) {}},
			{"private-text", func(o *sanitize.Options) { o.PrivateText = true }},
			{"drop-times", func(o *sanitize.Options) { o.DropTimes = true }},
			{"small-lookahead", func(o *sanitize.Options) { o.Lookahead = 64; o.MaxHeld = 8 << 10 }},
		} {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				in := c.build(t, nil)
				opts := c.machine().options()
				v.set(&opts)
				once := run(t, in, opts)
				again := run(t, in, opts)
				if !bytes.Equal(once, again) {
					t.Fatal("two runs over the same input differ")
				}
				twice := run(t, once, opts)
				if !bytes.Equal(once, twice) {
					t.Fatalf("not idempotent:\n%s", firstDiff(once, twice))
				}
			})
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(al), len(bl)) {
		if !bytes.Equal(al[i], bl[i]) {
			return fmt.Sprintf("line %d:\n once: %s\ntwice: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(al), len(bl))
}
