package providers_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/sanitize"
	"github.com/tidwall/gjson"
)

// codexProto is codex 0.39.0's `codex proto` stream of the long-text
// scenario (testdata/codex-0.39.0-proto/README.md): real legacy
// agent_message_delta lines, 2 to 9 characters each, streaming a text that
// holds three fake credentials.
const codexProto = "testdata/codex-0.39.0-proto/long-text.stdout.jsonl"

// fakeSecrets are the fake credentials the long-text scenario streams
// (fakemodel/testdata/long-text.json), as the recording has them.
var fakeSecrets = []string{
	"sk-ant-api03-evcapFAKEkeyNOTrealDoNotUseevcapFAKEkeyNOTrealDoNotUseevcapFAKEkeyNOTrealDoNotUseevcapFAKEkeyAA",
	"AKIAEVCAPFAKEKEYIDEV",
	"ghp_evcapFAKEtokenevcapFAKEtokenevcapFAK",
}

// legacyCapture wraps the lines of file into native records of a codex
// capture.
func legacyCapture(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "codex"})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: "codex"})
	lr := lines.NewReader(f)
	for {
		l, err := lr.Next()
		if len(l) > 0 {
			c.Native(l)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// messageDeltas returns the native payloads of a capture and the
// msg.delta texts of its agent_message_delta lines.
func messageDeltas(t *testing.T, capBytes []byte) (native [][]byte, deltas []string) {
	t.Helper()
	rd := envelope.NewReader(bytes.NewReader(capBytes), "capture", envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return native, deltas
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stage != envelope.StageNativeIn && rec.Stage != envelope.StageNativeOut {
			continue
		}
		native = append(native, bytes.Clone(rec.Payload))
		if m := gjson.GetBytes(rec.Payload, "msg"); m.Get("type").String() == "agent_message_delta" {
			deltas = append(deltas, m.Get("delta").String())
		}
	}
}

// TestSanitizeCodexLegacySplitSecret: sanitize redacts a fake credential
// that the real codex proto stream splits across agent_message_delta lines
// (no line holds enough of it for a rule to match on its own), in every
// piece, because the Codex tracker reports those lines as one block. With
// the lines judged one by one, pieces of every credential stayed.
func TestSanitizeCodexLegacySplitSecret(t *testing.T) {
	in := legacyCapture(t, codexProto)
	_, before := messageDeltas(t, in)
	whole := strings.Join(before, "")
	for _, s := range fakeSecrets {
		if !strings.Contains(whole, s) {
			t.Fatalf("the recording's deltas do not stream %s", s)
		}
		split := false
		for _, d := range before {
			if strings.Contains(d, s) {
				t.Fatalf("one delta holds all of %s: the test would not show stream redaction", s)
			}
			split = split || (d != "" && strings.Contains(s, d))
		}
		if !split {
			t.Fatalf("no delta holds a piece of %s", s)
		}
	}

	var out bytes.Buffer
	rep, err := sanitize.Sanitize(bytes.NewReader(in), codexProto, &out, sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	native, after := messageDeltas(t, out.Bytes())
	if len(after) != len(before) {
		t.Fatalf("%d agent_message_delta lines after sanitize, %d before", len(after), len(before))
	}
	joined := strings.Join(after, "")
	for _, s := range fakeSecrets {
		// Long enough to name one credential, short enough to fall in one
		// piece's reach: the head every rule anchors at, and the tail.
		for _, part := range []string{s[:8], s[len(s)-8:]} {
			if strings.Contains(joined, part) {
				t.Errorf("the sanitized deltas still stream %q (of %s)", part, s)
			}
			for i, l := range native {
				if bytes.Contains(l, []byte(part)) {
					t.Errorf("sanitized native line %d still holds %q: %s", i+1, part, l)
				}
			}
		}
	}
	if !strings.Contains(joined, "[REDACTED") {
		t.Errorf("no redaction marker in the sanitized deltas: %.300s", joined)
	}
	t.Logf("report: %+v", rep)
}
