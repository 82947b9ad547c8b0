package detect_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/detect"
)

// want derives the expected verdict from a corpus file's place and name.
func want(file string) detect.Match {
	provider := filepath.Base(filepath.Dir(file))
	base := filepath.Base(file)
	switch {
	case provider == "codex":
		return detect.Match{Provider: detect.Codex, Format: detect.FormatExecJSON}
	case provider == "opencode" && strings.HasSuffix(base, ".sse.txt"):
		return detect.Match{Provider: detect.OpenCode, Format: detect.FormatSSE}
	case provider == "opencode" && strings.HasPrefix(base, "serve-"):
		return detect.Match{Provider: detect.OpenCode, Format: detect.FormatBusJSONL}
	case provider == "opencode":
		return detect.Match{Provider: detect.OpenCode, Format: detect.FormatRunJSON}
	}
	return detect.Match{Provider: provider, Format: detect.FormatStreamJSON}
}

func readLines(t *testing.T, file string, max int) [][]byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := lines.NewReader(f)
	var out [][]byte
	for max < 0 || len(out) < max {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), line...))
	}
	return out
}

// TestCorpusPrefixes: the first 1, 2 and 3 lines of every capture name the
// right provider and format.
func TestCorpusPrefixes(t *testing.T) {
	for _, file := range corpustest.NativeFiles(t) {
		first := readLines(t, file, 3)
		for n := 1; n <= len(first); n++ {
			got, ok := detect.Detect(first[:n])
			// A raw SSE capture starts with "data: {…}", so even one line decides.
			if !ok || got != want(file) {
				t.Errorf("%s first %d lines: got %+v %v, want %+v", file, n, got, ok, want(file))
			}
		}
	}
}

// TestEveryLine: no single line of the corpus is ever attributed to the
// wrong provider (a line may be undecided, e.g. a blank SSE separator).
func TestEveryLine(t *testing.T) {
	decided := 0
	for _, file := range corpustest.NativeFiles(t) {
		w := want(file)
		for i, line := range readLines(t, file, -1) {
			got, ok := detect.Line(line)
			if !ok {
				continue
			}
			decided++
			if got.Provider != w.Provider {
				t.Errorf("%s:%d: got %+v, want %+v", file, i+1, got, w)
			}
		}
	}
	if decided < 1000 {
		t.Errorf("only %d corpus lines decided", decided)
	}
}

func TestUndecided(t *testing.T) {
	for _, c := range []struct{ reason, input string }{
		{"nothing", ""},
		{"blank lines", "\n\n"},
		{"plain text banner", "Welcome to some CLI"},
		{"JSON of nobody", `{"hello":"world"}`},
		{"type without provider shape", `{"type":"message","content":"x"}`},
		{"SSE data that is not a bus payload", "data: {\"foo\":1}"},
	} {
		var ls [][]byte
		for _, l := range strings.Split(c.input, "\n") {
			ls = append(ls, []byte(l))
		}
		if m, ok := detect.Detect(ls); ok {
			t.Errorf("%s: got %+v, want undecided", c.reason, m)
		}
	}
}

func TestSSEFramingFirst(t *testing.T) {
	in := [][]byte{[]byte(": comment"), []byte("event: message"), []byte(`{"id":"e","type":"server.connected","properties":{}}`)}
	m, ok := detect.Detect(in)
	if !ok || m != (detect.Match{Provider: detect.OpenCode, Format: detect.FormatSSE}) {
		t.Errorf("got %+v %v", m, ok)
	}
}
