package census_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/census"
	"github.com/google/go-cmp/cmp"
)

func TestWriteTable(t *testing.T) {
	c := census.New()
	c.Add(count(t, "a.jsonl", census.FileOptions{}, "init 1.0", "text", "xnew\x1b[2J", "text+extra", "skip"))
	var out bytes.Buffer
	if err := c.Report().WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	want := `p 1.0: 1 file(s), 5 line(s)
  NATIVE TYPE  COUNT  DISPOSITION  UNKNOWN FIELDS  REASON
  init         1      handled
  skip         1      ignored                      noise
  text         2      handled      extra(1)
  xnew\x1b[2J  1      unknown

census: 1 group(s), 1 unknown type(s), 1 unknown field(s)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestUnknownStringEscapesNames(t *testing.T) {
	for _, c := range []struct {
		reason string
		u      census.Unknown
		want   string
	}{
		{"a type", census.Unknown{Provider: "claude", CLIVersion: "2.1", NativeType: "x\x1b]0;t\a", Count: 2, FirstSeen: "a.jsonl:3"},
			`claude 2.1: unknown type x\x1b]0;t\x07 (2, first at a.jsonl:3)`},
		{"a field of a type", census.Unknown{Provider: "codex", CLIVersion: "0.1", NativeType: "item", Field: "new\nfield", Count: 1, FirstSeen: "b.jsonl:1"},
			`codex 0.1: unknown field new\nfield of item (1, first at b.jsonl:1)`},
	} {
		if got := c.u.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.reason, got, c.want)
		}
	}
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b/run.jsonl", "a.ndjson", "a/x.sse.txt", "notes.txt", "b/req.json"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := census.Inputs([]string{"-", dir, "missing.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	want := []census.Input{
		{Name: "-"},
		{Name: filepath.Join(dir, "a", "x.sse.txt"), InTree: true}, // directory entries in name order: "a" < "a.ndjson"
		{Name: filepath.Join(dir, "a.ndjson"), InTree: true},
		{Name: filepath.Join(dir, "b", "run.jsonl"), InTree: true},
		{Name: "missing.jsonl"}, // opening it reports the error
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}

	empty := filepath.Join(dir, "a")
	os.Remove(filepath.Join(empty, "x.sse.txt"))
	if _, err := census.Inputs([]string{empty}); err == nil || !strings.Contains(err.Error(), "no .jsonl, .ndjson, .sse.txt files") {
		t.Errorf("a directory without census files: err = %v", err)
	}
}
