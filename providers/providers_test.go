package providers_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/providers"
)

func TestTable(t *testing.T) {
	names := providers.Names()
	if !slices.IsSorted(names) || len(names) < 4 {
		t.Fatalf("Names() = %v, want at least 4, sorted", names)
	}
	for _, d := range providers.All() {
		if d.Name == "" || d.CLI == "" || d.NPMPackage == "" || d.System == "" || d.Detect == nil ||
			d.Normalizer == nil || d.Deltas == nil || len(d.VolatileIDKeys) == 0 {
			t.Errorf("%s: descriptor has an empty field: %+v", d.Name, d)
		}
		if (d.History == nil) != (d.DetectHistory == nil) || (d.History == nil) != (d.HistoryTime == nil) {
			t.Errorf("%s: History, DetectHistory and HistoryTime must all be set or all nil", d.Name)
		}
		if (d.History == nil) != (d.Sessions.Path == "") {
			t.Errorf("%s: a provider with a History normalizer says where its sessions are (Sessions), and only it", d.Name)
		}
		if len(d.JSONOutputArgs) == 0 {
			t.Errorf("%s: no JSONOutputArgs", d.Name)
		}
		if !slices.IsSorted(d.VolatileIDPrefixes) {
			t.Errorf("%s: VolatileIDPrefixes not sorted: %v", d.Name, d.VolatileIDPrefixes)
		}
		if !slices.IsSorted(d.VolatileIDKeys) {
			t.Errorf("%s: VolatileIDKeys not sorted: %v", d.Name, d.VolatileIDKeys)
		}
		got, ok := providers.Lookup(d.Name)
		if !ok || got.Name != d.Name {
			t.Errorf("Lookup(%q) = %q, %v", d.Name, got.Name, ok)
		}
		if d.Normalizer(struct{ CumulativeDeltas bool }{}) == nil || d.Deltas() == nil {
			t.Errorf("%s: a constructor returned nil", d.Name)
		}
	}
	if _, ok := providers.Lookup("nobody"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	a := providers.All()
	a[0].Name = "changed"
	if providers.All()[0].Name == "changed" {
		t.Error("All does not return a fresh slice")
	}
}

// claimants lists the providers whose Detect takes line.
func claimants(line []byte) []string {
	var out []string
	for _, d := range providers.All() {
		if _, ok := d.Detect(line); ok {
			out = append(out, d.Name)
		}
	}
	return out
}

// TestDetectExclusive: no native line of the corpus, corpus-extra or the
// stored-session corpus's live captures is claimed by two providers (so
// the order Detect tries them in decides nothing), and each claimed line is
// its own provider's.
func TestDetectExclusive(t *testing.T) {
	files := corpustest.NativeFiles(t)
	for _, pat := range []string{"../testdata/corpus-extra/*/*.stdout.jsonl", "../testdata/corpus-extra/*/*.sse.txt",
		"../testdata/corpus-extra/codex/*/*.stdout.jsonl", "../history/testdata/corpus/*/*/live.stdout.jsonl"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	claimed := 0
	for _, file := range files {
		want := corpustest.Provider(file)
		if strings.Contains(file, "history/testdata") || strings.Contains(file, "corpus-extra/codex/") {
			want = filepath.Base(filepath.Dir(filepath.Dir(file)))
		}
		corpustest.EachLine(t, file, func(ref int64, line []byte) {
			c := claimants(line)
			if len(c) > 1 || (len(c) == 1 && c[0] != want) {
				t.Errorf("%s:%d: claimed by %v, want %s", file, ref, c, want)
			}
			claimed += len(c)
		})
	}
	if claimed < 2000 {
		t.Errorf("only %d lines claimed in %d files", claimed, len(files))
	}
}

// TestDetectHistory: every stored session of the history corpus is told
// as its provider's, and no stored line is claimed by two providers.
func TestDetectHistory(t *testing.T) {
	files, _ := filepath.Glob("../history/testdata/corpus/*/*/history.jsonl")
	if len(files) < 8 {
		t.Fatalf("found %d stored sessions", len(files))
	}
	for _, file := range files {
		want := filepath.Base(filepath.Dir(filepath.Dir(file)))
		var first [][]byte
		corpustest.EachLine(t, file, func(ref int64, line []byte) {
			if len(first) < 5 {
				first = append(first, bytes.Clone(line))
			}
			n := 0
			for _, d := range providers.All() {
				if d.DetectHistory != nil && d.DetectHistory(line) {
					n++
					if d.Name != want {
						t.Errorf("%s:%d: claimed by %s", file, ref, d.Name)
					}
				}
			}
			if n > 1 {
				t.Errorf("%s:%d: claimed by %d providers", file, ref, n)
			}
		})
		if d, ok := providers.DetectHistory(first); !ok || d.Name != want {
			t.Errorf("%s: DetectHistory = %q %v, want %s", file, d.Name, ok, want)
		}
	}
}
