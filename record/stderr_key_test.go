package record

import (
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
)

// TestStderrPrivateKeyRedactedWhole: a private key an agent prints to
// stderr over many lines (a tool that dumps a key file, a crash log) is
// replaced whole in the capture, not just its BEGIN line, and the stderr
// line before it is kept as it was. The key is made at test time.
func TestStderrPrivateKeyRedactedWhole(t *testing.T) {
	raw := make([]byte, 600)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	body := base64.StdEncoding.EncodeToString(raw)
	var key strings.Builder
	key.WriteString("-----BEGIN " + "RSA PRIVATE KEY-----\n")
	var bodyLines []string
	for len(body) > 0 {
		n := min(64, len(body))
		bodyLines = append(bodyLines, body[:n])
		key.WriteString(body[:n] + "\n")
		body = body[n:]
	}
	key.WriteString("-----END " + "RSA PRIVATE KEY-----\n")
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.txt")
	if err := os.WriteFile(keyFile, []byte("loading credentials\n"+key.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cap.jsonl")
	_, err = Command([]string{"sh", "-c", "echo '{\"type\":\"start\"}'; cat " + keyFile + " >&2; echo '{\"type\":\"end\"}'"},
		Options{Output: out, Redactor: red, Console: &strings.Builder{}})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCapture(t, out)
	var stderr []string
	for _, r := range recs {
		if r.Stage == envelope.StageNativeIn && r.EventType == envelope.EventStderr {
			stderr = append(stderr, string(envelope.DecodeNativeLine(r.EventType, r.Payload)))
		}
	}
	if len(stderr) < 2 || stderr[0] != "loading credentials" {
		t.Fatalf("stderr records %q: want the plain line first, kept as it was", stderr)
	}
	all := strings.Join(stderr, "\n")
	for i, l := range bodyLines {
		if strings.Contains(all, l) {
			t.Errorf("body line %d of %d of the key survives in the capture's stderr records", i+1, len(bodyLines))
		}
	}
	for _, r := range recs {
		if strings.Contains(string(r.Payload), bodyLines[3]) {
			t.Errorf("sequence %d (%s) holds a line of the key", r.Sequence, r.Stage)
		}
	}
}
