package scan_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// legacyRecords turns marker lines into legacy_out records.
func legacyRecords(markers ...string) string {
	var out []string
	for i, m := range markers {
		name, _, _ := strings.Cut(m, " ")
		out = append(out, rec(i+1, "legacy_out", name, jsonString(m)))
	}
	return strings.Join(out, "\n") + "\n"
}

// TestLegacyBlocksEndAtMessages: the runs of legacy delta markers that
// scan puts back together are sanitize's: a run ends where a message or
// the stream does (render/legacy.EndsBlocks), not at the end of the file.
// A key split across the deltas of one message, with a tool's markers
// between, is found and sanitize removes it; a key's halves in two
// messages are two texts for both, as a reader of the markers sees them.
func TestLegacyBlocksEndAtMessages(t *testing.T) {
	key := fakeKey()
	within := legacyRecords("[STREAM_START]", "[MESSAGE_START]", `[CONTENT_DELTA] `+jsonString("use "+key[:18]),
		`[TOOL_USE] {"id":"t1","name":"Bash","summary":"ls"}`, `[CONTENT_DELTA] `+jsonString(key[18:]+" now"), "[MESSAGE_END]", "[STREAM_END]")
	across := legacyRecords("[STREAM_START]", "[MESSAGE_START]", `[CONTENT_DELTA] `+jsonString("use "+key[:18]),
		"[MESSAGE_END]", "[MESSAGE_START]", `[CONTENT_DELTA] `+jsonString(key[18:]+" now"), "[MESSAGE_END]", "[STREAM_END]")
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tokens := func(capture string) int {
		t.Helper()
		found, err := sc.Read(strings.NewReader(capture), "x.jsonl", scan.KindCapture)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range found {
			if f.Rule == redact.RuleGitHubToken {
				n++
			}
		}
		return n
	}
	if n := tokens(within); n != 1 {
		t.Errorf("a key split within one message: %d findings, want 1", n)
	}
	if n := tokens(across); n != 0 {
		t.Errorf("a key's halves in two messages: %d findings, want 0 (sanitize does not join them)", n)
	}
	var clean bytes.Buffer
	if _, err := sanitize.Sanitize(strings.NewReader(within), "within.jsonl", &clean, sanitize.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(clean.String(), key[18:]) {
		t.Errorf("sanitize left the key's second half: %s", clean.String())
	}
	if n := tokens(clean.String()); n != 0 {
		t.Errorf("sanitized capture: %d findings, want 0", n)
	}
}
