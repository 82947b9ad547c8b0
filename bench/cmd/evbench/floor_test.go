//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloorStages runs every stage on a small capture-like file: each
// reads every line, the walking stages see its strings, and only the last
// writes the lines back unchanged.
func TestFloorStages(t *testing.T) {
	in := `{"type":"assistant","message":{"content":[{"type":"text","text":"my API key is here"}]}}` + "\n" +
		"not json\n" +
		`{"token":"x"}`
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, stage := range floorStages {
		var out, counts bytes.Buffer
		if err := floor(stage, path, &out, &counts); err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		// The walking stages see the 8 strings and keys of the two JSON
		// lines; the keyword stages find "api"/"key"/"token" in them.
		wantCounts := map[string]string{
			"lines":    "strings 0, decoded bytes 0, keyword hits 0",
			"valid":    "strings 2, decoded bytes 0, keyword hits 0",
			"walk":     "strings 10, decoded bytes 63, keyword hits 0",
			"keywords": "strings 10, decoded bytes 63, keyword hits ",
			"write":    "strings 10, decoded bytes 63, keyword hits ",
		}[stage]
		got := strings.TrimSpace(counts.String())
		if !strings.HasPrefix(got, wantCounts) || (strings.HasSuffix(wantCounts, " ") && strings.HasSuffix(got, " 0")) {
			t.Errorf("%s counted %q, want %q (and hits above 0 where it searches)", stage, got, wantCounts)
		}
		want := ""
		if stage == "write" {
			want = in + "\n"
		}
		if out.String() != want {
			t.Errorf("%s wrote %q, want %q", stage, out.String(), want)
		}
	}
	if err := floor("nope", path, &bytes.Buffer{}, io.Discard); err == nil {
		t.Error("an unknown stage gave no error")
	}
}
