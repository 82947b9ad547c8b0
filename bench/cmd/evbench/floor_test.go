package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeywordDFACountsEveryEnd checks the floor's automaton against a
// direct search: the positions where some keyword ends, ASCII case
// ignored, on text that mixes case, overlaps keywords and holds none.
func TestKeywordDFACountsEveryEnd(t *testing.T) {
	kws := []string{"key", "apikey", "token", "ke", "sk-", "xoxb"}
	texts := []string{
		"",
		"nothing to see",
		"APIKEY=abc; Token: x; sk-ant-api03",
		"kekeyKEYapiKeyapikeyy",
		"xoxb-1 XOXB-2 xoxa",
		strings.Repeat("tokenkey", 50),
	}
	d := newKeywordDFA(kws)
	for _, text := range texts {
		want := 0
		low := bytes.ToLower([]byte(text))
		for i := range low {
			for _, k := range kws {
				if i+1 >= len(k) && string(low[i+1-len(k):i+1]) == k {
					want++
					break
				}
			}
		}
		if got := d.count([]byte(text)); got != want {
			t.Errorf("count(%q) = %d, want %d", text, got, want)
		}
	}
}

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
		var out bytes.Buffer
		if err := floor(stage, path, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", stage, err)
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
